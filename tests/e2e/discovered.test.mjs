// A discovered graph on the page (issue 47): the test runs discovery itself against the MCP
// fixture servers (tests/fixtures/discover/server.mjs: two shops and a notifier, started and
// stopped by discovery), imports the proposed graph, and checks that every grouping, tool and
// data-flow edge with a `reason` shows it: in the list under the graph, as the tooltip of its
// node or edge, and in words when it is focused by keyboard. axe-core finds nothing to fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { useBrowser, open, drawn } from './harness.mjs';
import { discover } from '../../packages/mcp-gateway/src/discover-run.mjs';

const env = useBrowser();
const FIXTURE = fileURLToPath(new URL('../fixtures/discover/server.mjs', import.meta.url));
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const servers = {
  servers: Object.fromEntries(['shop_a', 'shop_b', 'notify'].map((s) => [s, { command: process.execPath, args: [FIXTURE, s] }])),
};

test('an imported discovered graph shows every grouping\'s and edge\'s reason', async () => {
  const { graph } = await discover(servers, { timeoutMs: 20_000 });
  const nodes = graph.nodes.filter((n) => n.reason);
  const edges = graph.edges.filter((e) => e.reason);
  assert.ok(nodes.some((n) => n.id.startsWith('start_')), 'the groupings carry reasons');
  assert.ok(edges.length >= 10, `${edges.length} data-flow edges with reasons`);

  const page = await open(env.browser, `${env.url}?scenario=S1`);
  await page.fill('[data-testid="graph-json"]', JSON.stringify(graph));
  await page.click('[data-testid="import"]');
  await page.waitForFunction((n) => document.querySelectorAll('svg.graph[data-layout] [data-node]').length === n,
    graph.nodes.length, { timeout: 30_000 });
  await drawn(page);

  // The list: one entry per node and per edge with a reason, each with its reason whole.
  await page.click('[data-testid="reasons"] summary');
  const listed = await page.$$eval('[data-testid="reason-node"]', (li) => li.map((l) => [l.dataset.node, l.textContent]));
  assert.equal(listed.length, nodes.length);
  for (const n of nodes) {
    const found = listed.find(([id]) => id === n.id);
    assert.ok(found && found[1].includes(n.reason), `node ${n.id}: its reason listed`);
  }
  const listedEdges = await page.$$eval('[data-testid="reason-edge"]', (li) => li.map((l) => [l.dataset.edge, l.textContent]));
  assert.equal(listedEdges.length, edges.length);
  for (const e of edges) {
    const found = listedEdges.find(([id]) => id === `${e.from}->${e.to}`);
    assert.ok(found && found[1].includes(e.reason), `edge ${e.from} -> ${e.to}: its reason listed`);
  }

  // On the graph: each node and edge with a reason has it as its tooltip.
  const titles = await page.evaluate(() => Object.fromEntries(
    [...document.querySelectorAll('svg.graph [data-node], svg.graph [data-edge]')].map((g) => [
      g.dataset.node ?? g.dataset.edge, g.querySelector(':scope > title')?.textContent ?? null])));
  for (const n of nodes) assert.ok(titles[n.id]?.includes(n.reason), `node ${n.id}: tooltip`);
  for (const e of edges) assert.equal(titles[`${e.from}->${e.to}`], e.reason, `edge ${e.from} -> ${e.to}: tooltip`);

  // By keyboard: Tab reaches a grouping and an edge; focused, each says why under the graph.
  const grouping = nodes.find((n) => n.id.startsWith('start_'));
  const edge = edges[0];
  for (const [sel, reason] of [[`[data-node="${grouping.id}"]`, grouping.reason], [`[data-edge="${edge.from}->${edge.to}"]`, edge.reason]]) {
    assert.equal(await page.getAttribute(sel, 'tabindex'), '0', `${sel} is in the tab order`);
    await page.focus(sel);
    await page.waitForFunction((r) => document.querySelector('[data-testid="reason-now"]').textContent.includes(r), reason, { timeout: 5_000 });
  }

  await page.addScriptTag({ path: AXE });
  // eslint-disable-next-line no-undef
  const violations = await page.evaluate(async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
  assert.deepEqual(violations, [], 'axe-core on the discovered graph');
  assert.deepEqual(page.errors, []);
});
