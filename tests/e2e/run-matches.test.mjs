// What the page draws is what the run did (issue 29): the route drawn is the SHR run's executed
// path, a scenario opens at its key decision, and a success claimed on wrong data is a silent
// failure whatever the mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useBrowser, open, pick, text } from './harness.mjs';

const env = useBrowser();
// Every scenario's run, recorded by crates/wasm/tests/native.rs (the same mock tools and LLM).
const FIXTURES = JSON.parse(readFileSync(new URL('../node/fixtures/scenarios.json', import.meta.url), 'utf8'));

const drawnRoute = (page) =>
  page.$$eval('[data-node].route', (els) => els.map((e) => e.getAttribute('data-node')).sort());

test('for every scenario in the picker, the drawn route is the path its SHR run took', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S1`);
  for (const f of FIXTURES) {
    await pick(page, f.id);
    await page.click('[data-testid="replay-end"]');
    await page.waitForFunction(() => document.querySelector('[data-node].route') !== null);
    assert.deepEqual(await drawnRoute(page), [...f.outcome.path].sort(), `${f.id}: the drawn route is the run's path`);
    if (f.outcome.status !== 'completed') {
      assert.match(await text(page, 'route'), /No healthy path/, `${f.id}: the headline says the run did not complete`);
    }
  }
  assert.deepEqual(page.errors, []);
});

test('S4 opens with the risk decision, and the risk monitor winning', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S4`);
  await page.waitForSelector('[data-testid="monitor-risk"]');
  assert.match(await page.getAttribute('[data-testid="monitor-risk"]', 'class'), /\bwinner\b/);
  assert.match(await text(page, 'monitor-risk'), /wins/);
  assert.match(await text(page, 'monitor-risk'), /amount = 15000 exceeds/);
  assert.deepEqual(page.errors, []);
});

test('P4 without validators: a success claimed on wrong data is a silent failure', async () => {
  const page = await open(env.browser, `${env.url}?scenario=perturb:C1&mode=P4&validators=0`);
  await page.waitForSelector('[data-testid="silent-shr"]');
  assert.equal((await text(page, 'silent-shr')).trim(), '⚠ yes');
  // With validators on, the wrong data is caught: no silent failure.
  const checked = await open(env.browser, `${env.url}?scenario=perturb:C1&mode=P4&validators=1`);
  await checked.waitForSelector('[data-testid="silent-shr"]');
  assert.equal((await text(checked, 'silent-shr')).trim(), 'no');
  assert.deepEqual(page.errors, []);
});
