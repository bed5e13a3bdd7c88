// The page as an explorable explanation (issue 23): the three executors replayed on the same
// graph (ReAct's LLM calls ticking, the static workflow's silent skip marked on the graph), the
// scenario stories told along the replay with what they name highlighted, the guided tour,
// the keyboard and the projector mode. Every test asserts no console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, shot, text, end } from './harness.mjs';

const env = useBrowser();

function noErrors(page) {
  assert.deepEqual(page.errors, [], 'no console errors, page errors or failed requests');
}

async function counter(page) {
  const m = (await text(page, 'replay-counter')).match(/step (\d+) \/ (\d+)/);
  return { step: Number(m[1]), total: Number(m[2]) };
}

async function stepTo(page, k) {
  await page.click('[data-testid="replay-step"]');
  await page.waitForFunction((k) => new RegExp(`^step ${k} /`).test(document.querySelector('[data-testid="replay-counter"]').textContent), k);
}

async function lane(page, key) {
  await page.click(`[data-testid="lane-${key}"]`);
  await page.waitForFunction((key) => document.querySelector(`[data-testid="lane-${key}"]`)?.getAttribute('aria-selected') === 'true', key);
  await toStart(page);
}

/** Paused at the start of the replay, to be stepped through ("back" pauses). */
async function toStart(page) {
  await page.click('[data-testid="replay-restart"]');
  for (let i = 0; i < 20 && (await counter(page)).step !== 0; i++) {
    await page.click('[data-testid="replay-back"]');
  }
  await page.click('[data-testid="replay-back"]');
  assert.equal((await counter(page)).step, 0);
}

test('S6: the static workflow skips the notification and still reports success, marked on the graph', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S6`);
  await lane(page, 'static');
  const { total } = await counter(page);
  assert.equal(await page.$$eval('svg.graph .marked-step', (e) => e.length), 0, 'nothing marked before the run');
  let skippedAt = null;
  for (let k = 1; k <= total; k++) {
    await stepTo(page, k);
    const marked = await page.$$eval('svg.graph .marked-step', (els) => els.map((e) => e.dataset.marked));
    if (skippedAt === null && marked.length > 0) {
      skippedAt = k;
      // The step is marked on the graph the moment it is skipped, and told as such.
      assert.ok(marked.includes('email'), `the skipped notification step is marked (saw ${marked})`);
      assert.match(await text(page, 'replay-text'), /Skipped.*moves on without the step/);
    }
  }
  assert.ok(skippedAt !== null && skippedAt < total, 'the skip is a step of its own, before the report');
  const marked = await page.$$eval('svg.graph .marked-step', (els) => els.map((e) => e.dataset.marked));
  assert.ok(marked.includes('refund_done'), `the claimed goal is marked as a silent success (saw ${marked})`);
  assert.match(await text(page, 'replay-text'), /reports success: Refund done, customer told.*Silent failure/);
  // The coded fallback edge it took, Email -> SMS, is drawn.
  assert.equal(await page.$$eval('svg.graph [data-fallback="email->sms"]', (e) => e.length), 1);
  assert.ok((await page.$$('[data-testid="lane-trace"] [data-testid="marked-step"]')).length >= 2);
  // Its verdicts, as the table judges them.
  assert.match(await text(page, 'silent-static'), /yes/);
  await shot(page, 'static-silent-failure', { top: false });
  noErrors(page);
});

test("ReAct's replay has one step per recorded LLM call, the counter ticking at each", async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  for (const id of ['S2', 'S6']) {
    if (id !== 'S2') {
      await page.selectOption('[data-testid="scenario"]', id);
      await page.waitForFunction((s) => new URL(location.href).searchParams.get('scenario') === s, id);
    }
    await lane(page, 'react');
    const { total } = await counter(page);
    assert.equal(await text(page, 'llm-counter'), '0');
    for (let k = 1; k <= total; k++) {
      await stepTo(page, k);
      assert.equal(await text(page, 'llm-counter'), String(k), `${id}: LLM call ${k} at step ${k}`);
      // The executors' table follows the same clock.
      assert.equal(await text(page, 'llm-react'), String(k), `${id}: the table's ReAct LLM calls at step ${k}`);
      assert.match(await text(page, 'replay-text'), /^Thought: .* · Action: /);
    }
    // The recorded count, from ReAct's own run in the table, equals the steps replayed.
    const recorded = Number(await text(page, 'llm-react'));
    assert.equal(total, recorded, `${id}: replay steps equal recorded LLM calls`);
    assert.ok(recorded > 0);
    console.log(`# ${id}: ReAct replayed ${total} steps = ${recorded} LLM calls`);
    if (id === 'S6') await shot(page, 'react-steps');
  }
  noErrors(page);
});

test('the story advances with the replay and highlights what it names', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  const steps = await page.$$eval('[data-testid="story-step"]', (els) =>
    els.map((e) => ({ at: Number(e.dataset.at), names: e.dataset.names.split(' ').filter(Boolean) })));
  assert.ok(steps.length >= 3 && steps.length <= 6, `3 to 6 story steps (saw ${steps.length})`);
  await toStart(page);
  const { total } = await counter(page);
  const seen = [];
  for (let k = 0; k <= total; k++) {
    if (k > 0) await stepTo(page, k);
    const now = Number(await page.getAttribute('[data-testid="story"]', 'data-now'));
    // The step told is the last one whose moment has come.
    const want = steps.map((s) => s.at <= k).lastIndexOf(true);
    assert.equal(now, want, `at replay step ${k} story step ${want} is told`);
    if (seen[seen.length - 1] !== now) {
      seen.push(now);
      const nodes = await page.$$eval('svg.graph [data-node].story', (els) => els.map((e) => e.dataset.node).sort());
      const edges = await page.$$eval('svg.graph [data-edge].story', (els) => els.map((e) => e.dataset.edge).sort());
      const names = steps[now].names;
      assert.deepEqual(nodes, names.filter((n) => !n.includes('->')).sort(), `story step ${now}: nodes highlighted`);
      assert.deepEqual(edges, names.filter((n) => n.includes('->')).sort(), `story step ${now}: edges highlighted`);
      const current = await page.$$eval('[data-testid="story-step"][aria-current="step"]', (els) => els.length);
      assert.equal(current, 1);
    }
  }
  assert.deepEqual(seen, steps.map((_, i) => i), 'every story step is told, in order');
  await shot(page, 'story', { top: false });
  noErrors(page);
});

test('the guided tour goes S1 -> S2 -> S6 -> S4, each with its story', async () => {
  const page = await open(env.browser, env.url);
  await page.click('[data-testid="tour-start"]');
  for (const [i, id] of ['S1', 'S2', 'S6', 'S4'].entries()) {
    if (i > 0) await page.click('[data-testid="tour-next"]');
    await page.waitForFunction((s) => new URL(location.href).searchParams.get('scenario') === s, id);
    assert.match(await text(page, 'tour-where'), new RegExp(`Tour ${i + 1}/4: ${id}`));
    assert.ok((await page.$$('[data-testid="story-step"]')).length >= 3, `${id} has a story`);
    if (id === 'S6') {
      // Its story invites the reader to watch the static workflow's run of the same failures.
      await page.click('[data-testid="story-show-static"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="lane-static"]').getAttribute('aria-selected') === 'true');
      await page.click('[data-testid="replay-end"]');
      await page.waitForSelector('svg.graph .marked-step[data-marked="refund_done"]');
    }
  }
  assert.equal((await page.$$('[data-testid="tour-next"]')).length, 0, 'S4 ends the tour');
  await page.click('[data-testid="tour-end"]');
  noErrors(page);
});

test('keyboard: space plays and pauses, arrows step; projector mode keeps the page in its width', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  await page.click('h1');
  const before = (await counter(page)).step;
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((k) => new RegExp(`^step ${k} /`).test(document.querySelector('[data-testid="replay-counter"]').textContent), before - 1);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((k) => new RegExp(`^step ${k} /`).test(document.querySelector('[data-testid="replay-counter"]').textContent), before);
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="replay-play"]').getAttribute('aria-label') === 'Pause');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="replay-play"]').getAttribute('aria-label') === 'Play');
  await page.click('[data-testid="projector"]');
  assert.ok(await page.evaluate(() => document.documentElement.classList.contains('projector')));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling at 1280 px in projector mode (${overflow} px over)`);
  await shot(page, 'projector');
  noErrors(page);
});

test('no sideways scrolling at 390 px with a baseline replayed and the editor open', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S6`, { width: 390, height: 844 });
  await page.click('[data-testid="lane-static"]');
  await page.click('[data-testid="replay-end"]');
  await page.waitForSelector('[data-testid="lane-trace"] [data-testid="marked-step"]');
  await page.click('[data-testid="export-dot"]');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling at 390 px (${overflow} px over)`);
  noErrors(page);
});
