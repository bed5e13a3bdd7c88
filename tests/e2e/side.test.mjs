// Side by side and the ends of the route (issue 45): the three executors play at once on the
// same failures, each drawing its own run with its counters ticking and ending on the totals the
// counters table reports; a click (or Enter) on a node in the start or goal mode moves the run's
// start or goal there, and the route is searched again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { useBrowser, open, end, drawn } from './harness.mjs';

const env = useBrowser();
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const counts = (page, lane) => page.$eval(`[data-testid="side-${lane}"]`, (f) => ({
  llm: Number(f.querySelector('[data-testid="side-llm"]').textContent),
  tools: Number(f.querySelector('[data-testid="side-tools"]').textContent),
  status: f.querySelector('[data-testid="side-status"]').textContent,
  done: f.classList.contains('done'),
}));

test('side by side: the three play at once, counters ticking, ending on the runs\' totals', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S6`);
  await page.click('[data-testid="side-toggle"]');
  await page.waitForSelector('[data-testid="side-static"] svg.side-graph', { timeout: 30_000 });
  for (const lane of ['shr', 'react', 'static']) {
    assert.deepEqual(await counts(page, lane), { llm: 0, tools: 0, status: 'starting', done: false }, lane);
  }
  // One action each per step: after three, every executor has called a tool; ReAct asked its
  // LLM at each step, the static workflow never.
  for (let i = 0; i < 3; i++) await page.click('[data-testid="side-step"]');
  const react = await counts(page, 'react');
  assert.equal(react.llm, 3);
  assert.equal((await counts(page, 'static')).llm, 0);
  assert.ok((await counts(page, 'shr')).tools >= 1);
  // Played to the end: each lane ends on its run's totals, as the counters table has them.
  await page.selectOption('[data-testid="replay-speed"]', '40');
  await page.click('[data-testid="side-play"]');
  await page.waitForFunction(() => ['shr', 'react', 'static'].every((l) =>
    document.querySelector(`[data-testid="side-${l}"]`)?.classList.contains('done')), null, { timeout: 30_000 });
  await end(page);
  for (const lane of ['shr', 'react', 'static']) {
    const c = await counts(page, lane);
    assert.equal(c.llm, Number(await page.textContent(`[data-testid="llm-${lane}"]`)), `${lane} LLM calls`);
    assert.equal(c.tools, Number(await page.textContent(`[data-testid="tools-${lane}"]`)), `${lane} tool calls`);
  }
  assert.match((await counts(page, 'static')).status, /claims success/, 'the static workflow\'s silent failure is named');
  // Each drawing is its own run: the routes differ.
  const routes = await page.$$eval('.side-lane', (fs) => fs.map((f) => f.querySelectorAll('.edge.route').length));
  assert.equal(routes.length, 3);
  await page.addScriptTag({ path: AXE });
  // eslint-disable-next-line no-undef
  const violations = await page.evaluate(async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
  assert.deepEqual(violations, [], 'axe-core with the three side by side');
  assert.deepEqual(page.errors, []);
});

test('the start and the goal are set by clicking (or by keyboard); the route is searched again', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S1`);
  const goalBefore = await page.$eval('svg.graph .node.goal', (g) => g.dataset.node);
  // Pick a tool on the route as the new goal, by keyboard: Tab to it, Enter.
  await page.check('[data-testid="mode-goal"]');
  await end(page);
  // The last tool on the route (drawn in the graph's order) becomes the goal.
  const onRoute = () => page.$$eval('svg.graph .node.route:not(.goal):has(rect)', (gs) => gs.map((g) => g.dataset.node));
  const target = (await onRoute()).at(-1);
  await page.focus(`[data-node="${target}"]`);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'custom', null, { timeout: 15_000 });
  await drawn(page);
  await end(page);
  assert.equal(await page.$eval('svg.graph .node.goal', (g) => g.dataset.node), target, 'the goal moved');
  assert.notEqual(target, goalBefore);
  assert.match(await page.getAttribute(`[data-node="${target}"]`, 'class'), /\broute\b/, 'the route ends at the new goal');
  // A waypoint is a node to start from too: by a click, in the start mode.
  await page.check('[data-testid="mode-start"]');
  const start = (await onRoute())[0];
  assert.ok(start && start !== target, `a tool to start from (${start})`);
  const before = new URL(page.url()).searchParams.get('g');
  await page.click(`[data-node="${start}"]`);
  // The edited graph travels in the link.
  await page.waitForFunction((g) => new URL(location.href).searchParams.get('g') !== g, before, { timeout: 15_000 });
  await drawn(page);
  await end(page);
  assert.match(await page.textContent('[data-testid="edit-message"]'), /Edited/);
  const route = await page.$$eval('svg.graph .edge.route', (es) => es.map((e) => e.dataset.edge));
  assert.ok(route.some((e) => e.startsWith(`${start}->`)), `the route leaves the new start (${route})`);
  assert.ok(!route.some((e) => e.endsWith(`->${start}`)), `nothing leads into the new start (${route})`);
  assert.deepEqual(page.errors, []);
});
