// Two tabs of the visualizer share health over a BroadcastChannel (issue 21): each tab's core
// Router publishes its HealthDeltas, the other applies them through the core's fleet merge, so
// failing a tool in one reroutes the other, which names the tab whose failure caused it. What a
// tab refuses is counted and shown. And the perturbation mode picks a family of wrong results
// and says whether the validators caught it (issue 24).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, waitClass, text, end, shot } from './harness.mjs';

const env = useBrowser();

/** The origins a fleet note names: this tab's, and the tab each heard change came from. */
async function note(page) {
  const t = await text(page, 'fleet-note');
  return {
    me: t.match(/This is (tab-[0-9a-f]{8})\./)?.[1],
    heard: [...t.matchAll(/(\w+) (failed|was restored) in (tab-[0-9a-f]{8})/g)].map((m) => ({ tool: m[1], what: m[2], from: m[3] })),
  };
}

test('failing a tool in one tab reroutes the other, which names the tab it came from', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const a = await open(env.browser, `${env.url}?scenario=S1`, { context });
  const b = await open(env.browser, `${env.url}?scenario=S1`, { context });
  await waitClass(b, 'stripe', 'route');
  await a.click('[data-node="stripe"]');
  // b's router applied a's "opened" delta: its page fails Stripe and replays the reroute.
  await waitClass(b, 'stripe', 'failed');
  await waitClass(b, 'stripe', 'route', { not: true });
  await end(b);
  assert.match(await text(b, 'route'), /Razorpay refund/);
  assert.match(await text(b, 'fleet-note'), /stripe failed in tab-[0-9a-f]{8}: this tab rerouted around it/);
  const fromA = (await note(b)).heard[0].from;
  assert.equal(await a.$('[data-testid="fleet-note"]'), null, 'the tab that clicked heard nothing back');
  // Restoring it in the second tab restores it in the first: a newer version, the other origin.
  await b.click('[data-node="stripe"]');
  await waitClass(a, 'stripe', 'failed', { not: true });
  await waitClass(a, 'stripe', 'route');
  assert.match(await text(a, 'fleet-note'), /stripe was restored in tab-[0-9a-f]{8}: this tab routes through it again/);
  const na = await note(a);
  const nb = await note(b);
  assert.equal(na.me, fromA, 'b named a as the tab whose failure rerouted it');
  assert.equal(na.heard[0].from, nb.me, 'a names b as the tab that restored the tool');
  assert.notEqual(na.me, nb.me, 'each tab its own origin');
  // Failing it again from a: version 3 wins over b's restore.
  await a.click('[data-node="stripe"]');
  await waitClass(b, 'stripe', 'failed');
  await shot(b, 'fleet-tabs');
  assert.deepEqual([...a.errors, ...b.errors], []);
  await context.close();
});

test('a tab refuses and counts what is not a delta it can apply, and keeps routing', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const a = await open(env.browser, `${env.url}?scenario=S1`, { context });
  const b = await open(env.browser, `${env.url}?scenario=S1`, { context });
  await a.click('[data-node="stripe"]');
  await waitClass(b, 'stripe', 'failed');
  const { heard: [{ from }] } = await note(b);
  const me = (await b.evaluate(() => document.querySelector('[data-testid="fleet-note"]').textContent)).match(/This is (tab-[0-9a-f]{8})/)[1];
  // Only b listens from here: a hostile peer posts on the channel.
  await a.close();
  const posted = await b.evaluate(([from, me]) => {
    const c = new BroadcastChannel('shr-visualizer-fleet');
    // The delta format of the core: {tool, change, cooldown (opened only), version, origin}.
    const d = (delta) => JSON.stringify({ graph: 'S1', delta: { tool: 'stripe', change: 'closed', version: 9, origin: 'tab-evil', ...delta } });
    const messages = [
      42, // not text
      'not json', // malformed
      JSON.stringify({ graph: 'S1', delta: { tool: 'stripe' }, extra: 1 }), // malformed
      'x'.repeat(5000), // oversized
      d({ tool: 'no_such_tool' }), // unknown_tool
      d({ version: 1, origin: from }), // stale_version: a's "opened" was version 1
      d({ origin: me }), // bad_origin: b's own
      d({ version: 0 }), // bad_version
      d({ change: 'opened' }), // bad_change: opened without its cooldown
      JSON.stringify({ graph: 'S2', delta: { tool: 'stripe', change: 'closed', version: 9, origin: 'tab-evil' } }), // another graph
    ];
    messages.forEach((m) => c.postMessage(m));
    c.close();
    return messages.length;
  }, [from, me]);
  assert.equal(posted, 10);
  await b.waitForFunction(() => document.querySelector('[data-testid="fleet-refused"]')?.dataset.count === '9', null, { timeout: 10_000 });
  const refused = await text(b, 'fleet-refused');
  for (const [why, n] of [['not_text', 1], ['malformed', 2], ['oversized', 1], ['unknown_tool', 1], ['stale_version', 1], ['bad_origin', 1], ['bad_version', 1], ['bad_change', 1]]) {
    assert.ok(refused.includes(`${why} ${n}`), `${why} ${n} in "${refused}"`);
  }
  await b.waitForSelector('[data-testid="fleet-elsewhere"]', { timeout: 10_000 });
  assert.match(await text(b, 'fleet-elsewhere'), /^1 for another graph/);
  // None was applied: Stripe stays failed, the route goes around it, the page is whole.
  await end(b);
  assert.ok((await b.getAttribute('[data-node="stripe"]', 'class')).includes('failed'));
  assert.match(await text(b, 'route'), /Razorpay refund/);
  assert.deepEqual(b.errors, []);
  await context.close();
});

test('the perturbation mode picks a family of wrong results and says whether validators caught it', async () => {
  const page = await open(env.browser, `${env.url}?scenario=perturb:C1&seed=1&mode=P4&validators=1&family=stale`);
  assert.equal(await page.inputValue('[data-testid="perturb-family"]'), 'stale');
  assert.match(await text(page, 'perturb-verdict'), /^caught: /);
  await page.uncheck('[data-testid="perturb-validators"]');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('validators') === '0', null, { timeout: 15_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="perturb-verdict"]')?.textContent.startsWith('not caught'), null, { timeout: 15_000 });
  await page.selectOption('[data-testid="perturb-family"]', 'wrong_entity');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('family') === 'wrong_entity', null, { timeout: 15_000 });
  assert.deepEqual(page.errors, []);
});
