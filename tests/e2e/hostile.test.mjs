// Hostile graph content in the page: markup in labels, huge graphs, duplicate ids, cycles.
// Each is shown safely or refused with a message; none runs script or breaks the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, shot, text, waitClass, end, drawn } from './harness.mjs';

const env = useBrowser();

async function importGraph(page, graph) {
  await page.fill('[data-testid="graph-json"]', typeof graph === 'string' ? graph : JSON.stringify(graph));
  await page.click('[data-testid="import"]');
  // The layout is computed asynchronously (ELK in a worker): wait for the drawing.
  await drawn(page);
}

const chain = (ids, extra = {}) => ({
  nodes: ids.map((id, i) => ({ id, tool: i !== 0 && i !== ids.length - 1, ...(extra[id] ?? {}) })),
  edges: ids.slice(1).map((id, i) => ({ from: ids[i], to: id, cost: 1 })),
  start: ids[0],
  goal: ids[ids.length - 1],
});

test('markup and script in labels and ids are shown as text, never run', async () => {
  const page = await open(env.browser, env.url);
  await page.evaluate(() => { window.__pwned = 0; });
  const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  await importGraph(page, chain(['s', '<b>tool</b>', 'g'], { '<b>tool</b>': { label: evil } }));
  await page.waitForFunction(() => /Imported 3 nodes/.test(document.querySelector('[data-testid="import-message"]').textContent));
  assert.equal(await page.evaluate(() => window.__pwned), 0, 'no injected handler or script ran');
  assert.equal(await page.$('[data-testid="graph"] img'), null, 'no element was made from a label');
  const shown = await page.textContent('[data-testid="graph"]');
  assert.ok(shown.includes('<img'), 'the markup is visible as text');
  assert.match(await text(page, 'route'), /<img src=x/);
  // The odd id still works as a tool: click it, the route is gone.
  await page.click('[data-node="<b>tool</b>"]');
  await waitClass(page, '<b>tool</b>', 'failed');
  await end(page);
  assert.match(await text(page, 'route'), /No healthy path/);
  await shot(page, 'hostile-label');
  assert.deepEqual(page.errors, []);
});

test('a 5,000-node graph is refused with a message naming the limit', async () => {
  const page = await open(env.browser, env.url);
  const ids = Array.from({ length: 5000 }, (_, i) => `n${i}`);
  await importGraph(page, chain(ids));
  await page.waitForSelector('[data-testid="import-error"]');
  assert.match(await text(page, 'import-error'), /5000 nodes; the page draws at most 2000/);
  assert.ok((await page.$$('[data-node]')).length < 100, 'the old graph is still the one drawn');
  assert.deepEqual(page.errors, []);
});

test('a description over the page limit (12 MiB) is refused before it is parsed, and the next import works', async () => {
  const page = await open(env.browser, env.url);
  const huge = JSON.stringify(chain(['s', 'g'])).replace('"nodes"', `"name":"${'x'.repeat(12 << 20)}","nodes"`);
  await importGraph(page, huge);
  await page.waitForFunction(() => /at most 4 MiB/.test(document.querySelector('[data-testid="import-error"]')?.textContent ?? ''));
  assert.match(await text(page, 'import-error'), /12\.0 MiB/);
  await importGraph(page, chain(['s', 'a', 'g']));
  await page.waitForFunction(() => /Imported 3 nodes/.test(document.querySelector('[data-testid="import-message"]').textContent));
  assert.deepEqual(page.errors, []);
});

test('a 2,000-node graph is drawn, and the route shown is what its run did', async () => {
  const page = await open(env.browser, env.url);
  const ids = Array.from({ length: 2000 }, (_, i) => `n${i}`);
  await importGraph(page, chain(ids));
  await page.waitForFunction(() => document.querySelectorAll('[data-node]').length === 2000, null, { timeout: 60_000 });
  // 1,998 tool calls are past the default tool budget (64): the run escalates, and the page says
  // so instead of drawing a route nobody took.
  await end(page);
  assert.match(await text(page, 'route'), /stopped with an escalation after n0 → n1/);
  assert.deepEqual(page.errors, []);
});

test('duplicate ids are refused, naming the id', async () => {
  const page = await open(env.browser, env.url);
  const g = chain(['s', 'a', 'g']);
  g.nodes.push({ id: 'a' });
  await importGraph(page, g);
  await page.waitForSelector('[data-testid="import-error"]');
  assert.match(await text(page, 'import-error'), /\ba\b.*duplicate|duplicate.*\ba\b/i);
  assert.deepEqual(page.errors, []);
});

test('a cyclic graph is shown and routed', async () => {
  const page = await open(env.browser, env.url);
  const g = chain(['s', 'search', 'verify', 'g']);
  g.edges.push({ from: 'verify', to: 'search', cost: 1 });
  await importGraph(page, g);
  await page.waitForFunction(() => /Imported 4 nodes and 4 edges/.test(document.querySelector('[data-testid="import-message"]').textContent));
  assert.match(await text(page, 'route'), /s → search → verify → g/);
  assert.ok(await page.$('[data-edge="verify->search"]'), 'the back edge is drawn');
  assert.deepEqual(page.errors, []);
});
