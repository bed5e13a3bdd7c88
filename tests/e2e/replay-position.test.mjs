// The replay's position travels (issue 45): a link holds the step and the executor, a scrubber
// moves the replay, a big graph plays event by event, and an import brings the graph into view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, drawn, end } from './harness.mjs';
import { layered } from './graphs.mjs';

const env = useBrowser();

const counter = async (page) => {
  const m = (await page.textContent('[data-testid="replay-counter"]')).match(/step (\d+) \/ (\d+)/);
  return { step: Number(m[1]), total: Number(m[2]) };
};

test('a link holds the replay position and the executor; a new page opens there', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S6`);
  await page.click('[data-testid="lane-static"]');
  await page.click('[data-testid="replay-play"]'); // pause
  await page.click('[data-testid="replay-restart"]');
  await page.click('[data-testid="replay-play"]'); // pause again at the start
  for (let i = 0; i < 3; i++) await page.click('[data-testid="replay-step"]');
  const at = (await counter(page)).step;
  await page.waitForFunction((at) => new URL(location.href).searchParams.get('at') === String(at), at, { timeout: 10_000 });
  const link = page.url();
  assert.equal(new URL(link).searchParams.get('lane'), 'static');
  const again = await open(env.browser, link);
  assert.equal((await counter(again)).step, at, 'the new page opens at the same step');
  assert.equal(await again.getAttribute('[data-testid="lane-static"]', 'aria-selected'), 'true');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(again.errors, []);
});

test('the scrubber moves the replay; "next event" jumps over the search steps', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  const { total } = await counter(page);
  await page.$eval('[data-testid="replay-scrub"]', (el) => {
    el.value = '5';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  assert.equal((await counter(page)).step, 5);
  await page.click('[data-testid="replay-next-event"]');
  const next = (await counter(page)).step;
  assert.ok(next > 5 && next <= total, `next event at ${next}`);
  assert.match(await page.textContent('[data-testid="replay-text"]'), /Event \d+:/, 'the step shown is an event');
  assert.deepEqual(page.errors, []);
});

test('a 500-node graph plays event by event; its import brings the graph into view', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S1`);
  await page.locator('[data-testid="graph-json"]').scrollIntoViewIfNeeded();
  // Five wide layers, no two paths of one cost: the first search settles most of the graph
  // before it reaches the goal, and finds the run's own plan (its steps are replayed).
  const graph = layered(500, 100);
  graph.edges.forEach((e, i) => { e.cost = Number((e.cost + i / 1024).toFixed(4)); });
  await page.fill('[data-testid="graph-json"]', JSON.stringify(graph));
  await page.click('[data-testid="import"]');
  await page.waitForFunction(() => document.querySelectorAll('svg.graph[data-layout] [data-node]').length === 500, null, { timeout: 30_000 });
  await drawn(page);
  const stage = await page.$eval('.stage', (s) => s.getBoundingClientRect().top);
  assert.ok(stage > -5 && stage < 200, `after the import the graph's stage is in view (its top at ${stage})`);
  const { total } = await counter(page);
  assert.ok(total > 300, `a long replay (${total} steps)`);
  await page.click('[data-testid="replay-restart"]');
  await page.selectOption('[data-testid="replay-speed"]', '12');
  // Each tick is an event: a few ticks reach the end (step by step: over 25 s at 12 steps/s).
  await page.waitForFunction(() => {
    const m = document.querySelector('[data-testid="replay-counter"]').textContent.match(/step (\d+) \/ (\d+)/);
    return m && m[1] === m[2];
  }, null, { timeout: 20_000 });
  assert.deepEqual(page.errors, []);
});

test('an edit keeps the scenario\'s story, static workflow and context where they still apply, and says which no longer do', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S1`);
  const monitors = async () => { await end(page); return page.textContent('.monitors'); };
  const intent = (await monitors()).match(/refund/g)?.length ?? 0;
  await page.fill('[data-testid="edit-new-id"]', 'paypal');
  await page.fill('[data-testid="edit-new-label"]', 'PayPal refund');
  await page.click('[data-testid="edit-add-tool"]');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'custom', null, { timeout: 15_000 });
  await drawn(page);
  assert.doesNotMatch(await page.textContent('[data-testid="edit-message"]'), /No longer shown/);
  assert.ok((await page.$$('[data-testid="story-step"]')).length >= 3, 'the story is still told');
  assert.equal(await page.isEnabled('[data-testid="lane-static"]'), true, 'the static workflow still runs');
  assert.equal((await monitors()).match(/refund/g)?.length ?? 0, intent, 'the monitors see the same intent');
  // Removing a tool the story and the workflow name: both go, and the page says so.
  await page.selectOption('[data-testid="edit-node"]', 'stripe');
  await page.click('[data-testid="edit-remove-tool"]');
  await page.waitForFunction(() => /No longer shown/.test(document.querySelector('[data-testid="edit-message"]').textContent), null, { timeout: 15_000 });
  assert.match(await page.textContent('[data-testid="edit-message"]'), /its story .*its static workflow/);
  assert.deepEqual(page.errors, []);
});
