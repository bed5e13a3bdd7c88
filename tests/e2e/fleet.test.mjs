// Two tabs of the visualizer share health over a BroadcastChannel (issue 21): failing a tool in
// one reroutes the other, which says which tab's failure caused it. And the perturbation mode
// picks a family of wrong results and says whether the validators caught it (issue 24).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, drawn, open, pick, waitClass, text, end, shot } from './harness.mjs';

const env = useBrowser();

async function tab(context, url) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(`page: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
  await page.goto(url);
  await page.waitForSelector('[data-testid="graph"] [data-node]', { timeout: 30_000 });
  await drawn(page);
  return page;
}

test('failing a tool in one tab reroutes the other, which names the tab it came from', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const a = await tab(context, `${env.url}?scenario=S1`);
  const b = await tab(context, `${env.url}?scenario=S1`);
  await waitClass(b, 'stripe', 'route');
  await a.click('[data-node="stripe"]');
  await waitClass(b, 'stripe', 'failed');
  await waitClass(b, 'stripe', 'route', { not: true });
  await end(b);
  assert.match(await text(b, 'route'), /Razorpay refund/);
  assert.match(await text(b, 'fleet-note'), /stripe failed in tab-[0-9a-f]{4}: this tab rerouted around it/);
  assert.equal(await a.$('[data-testid="fleet-note"]'), null, 'the tab that clicked heard nothing');
  // Restoring it in the first tab restores it in the second.
  await a.click('[data-node="stripe"]');
  await waitClass(b, 'stripe', 'failed', { not: true });
  assert.match(await text(b, 'fleet-note'), /stripe was restored in tab-[0-9a-f]{4}/);
  await shot(b, 'fleet-tabs');
  assert.deepEqual([...a.errors, ...b.errors], []);
  await context.close();
});

test('the perturbation mode picks a family of wrong results and says whether validators caught it', async () => {
  const page = await open(env.browser, `${env.url}?scenario=perturb:C1&seed=1&mode=P4&validators=1&family=stale`);
  assert.equal(await page.inputValue('[data-testid="perturb-family"]'), 'stale');
  assert.match(await text(page, 'perturb-verdict'), /^caught: /);
  await page.uncheck('[data-testid="perturb-validators"]');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('validators') === '0');
  await page.waitForFunction(() => document.querySelector('[data-testid="perturb-verdict"]')?.textContent.startsWith('not caught'));
  await page.selectOption('[data-testid="perturb-family"]', 'wrong_entity');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('family') === 'wrong_entity');
  assert.deepEqual(page.errors, []);
});
