// Every step of every built-in view, under each executor, tells one story (issue #45): the route
// the headline states is a chain of the graph's edges and is the route drawn; a node is drawn
// done only after the event that completed it; the escalations, LLM calls and tool calls agree
// with the events logged up to that step; a demoted goal drawn done has its escalation listed; no
// plan is drawn through a tool drawn ✕; and while a baseline is replayed, the SHR-only panels say
// so. The walk reads the page as a visitor sees it, one step button press at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, text } from './harness.mjs';

const env = useBrowser();

/** The views the walk covers beyond the picker's own: other cyclic settings and perturbations. */
const EXTRA = [
  'scenario=cyclic:search_verify&p=0.5&seed=3',
  'scenario=cyclic:prerequisites&p=0.5&seed=3',
  'scenario=cyclic:search_verify&p=0&seed=1',
  ...['C1', 'C2', 'C3', 'C4'].flatMap((c) => ['P1', 'P3', 'NP'].map((m) => `scenario=perturb:${c}&seed=1&mode=${m}`)),
  'scenario=perturb:C3&seed=2&mode=P4&validators=0',
];

/** Runs in the page: walks the replay of the executor shown from step 0 to its end, and returns
 * what each step shows. */
async function walk(page) {
  return page.evaluate(async () => {
    const q = (s) => document.querySelector(s);
    const tick = () => new Promise((r) => setTimeout(r, 0));
    const counter = () => q('[data-testid="replay-counter"]').textContent.match(/step (\d+) \/ (\d+)/).slice(1).map(Number);
    const reach = async (k) => {
      for (let i = 0; i < 500 && counter()[0] !== k; i++) await tick();
      if (counter()[0] !== k) throw new Error(`the replay never showed step ${k}`);
      // The counter is one of the page's effects: the others run in the same flush.
      await tick();
    };
    if (q('[data-testid="replay-play"]').getAttribute('aria-label') === 'Pause') q('[data-testid="replay-play"]').click();
    while (counter()[0] > 0) {
      const k = counter()[0];
      q('[data-testid="replay-back"]').click();
      await reach(k - 1);
    }
    const total = counter()[1];
    const out = [];
    const classes = (el) => [...el.classList];
    for (let k = 0; k <= total; k++) {
      await reach(k);
      const route = q('[data-testid="route"]');
      out.push({
        k,
        nodes: [...document.querySelectorAll('[data-node]')].map((n) => ({ id: n.dataset.node, cls: classes(n) })),
        edges: [...document.querySelectorAll('g[data-edge]')].map((e) => ({ id: e.dataset.edge, cls: classes(e) })),
        route: route.dataset.route ? route.dataset.route.split(' ') : [],
        routeText: route.textContent,
        past: [...document.querySelectorAll('[data-testid="events"] li.past')].map((li) => ({
          kind: li.dataset.event,
          text: li.querySelector('.text').textContent,
        })),
        escalations: document.querySelectorAll('[data-testid="escalation"]').length,
        llm: q('[data-testid="llm-shr"]')?.textContent ?? null,
        tools: q('[data-testid="tools-shr"]')?.textContent ?? null,
        shrOnly: document.querySelectorAll('[data-testid="shr-only"]').length,
        counterText: q('[data-testid="replay-counter"]').textContent,
      });
      if (k < total) q('[data-testid="replay-step"]').click();
    }
    return out;
  });
}

/** The disagreements of one step; `lane` is the executor replayed. */
export function disagreements(s, lane, demotedGoals) {
  const out = [];
  const edges = new Set(s.edges.map((e) => e.id));
  const edge = (a, b) => edges.has(`${a}->${b}`);
  const node = new Map(s.nodes.map((n) => [n.id, n.cls]));
  const drawnNodes = s.nodes.filter((n) => n.cls.includes('route')).map((n) => n.id);
  const drawnEdges = s.edges.filter((e) => e.cls.includes('route')).map((e) => e.id.split('->'));
  // The drawn route is connected: every node on it but the start has a route edge into it.
  const start = s.route[0];
  for (const v of drawnNodes) {
    if (v !== start && !drawnEdges.some(([, b]) => b === v)) out.push(`drawn route: no route edge into ${v}`);
  }
  for (const [a, b] of drawnEdges) {
    if (!drawnNodes.includes(a) || !drawnNodes.includes(b)) out.push(`drawn route: edge ${a}->${b} off the route`);
  }
  // The stated route: consecutive nodes joined by an edge; where the drawn route forks (a
  // parallel fan-out), a node joined from an earlier one.
  const forks = drawnNodes.some((v) => drawnEdges.filter(([a]) => a === v).length > 1);
  for (let i = 1; i < s.route.length; i++) {
    const [a, b] = [s.route[i - 1], s.route[i]];
    // A jump the host forced (a control-flow fault) is said as one: ⤳, and a redirect logged.
    const jumped = s.routeText.includes('⤳') && s.past.some((e) => e.kind === 'Redirected');
    if (!node.has(b)) out.push(`stated route: unknown node ${b}`);
    else if (!edge(a, b) && !jumped && !(forks && s.route.slice(0, i).some((x) => edge(x, b)))) {
      out.push(`stated route: no edge ${a} -> ${b}`);
    }
  }
  // No plan through a tool drawn ✕ (down and known to the router).
  for (const v of drawnNodes) {
    const c = node.get(v);
    if (c.includes('failed') && !c.includes('unseen') && !c.includes('ran')) out.push(`route through ${v}, drawn ✕`);
  }
  if (lane !== 'shr') {
    if (s.shrOnly !== 3) out.push(`${s.shrOnly} of 3 SHR-only panels say so`);
    return out;
  }
  // The stated route is the drawn one.
  const stated = new Set(s.route);
  if (stated.size !== drawnNodes.length || drawnNodes.some((v) => !stated.has(v))) {
    out.push(`stated route ${s.route.join(' ')} is not the drawn one ${drawnNodes.join(' ')}`);
  }
  // Done only after its completion: a tool's success logged; a demoted goal's demotion logged.
  for (const n of s.nodes.filter((n) => n.cls.includes('ran'))) {
    const tool = !n.cls.includes('waypoint');
    if (tool && !s.past.some((e) => e.kind === 'ToolSucceeded' && e.text.startsWith(`${n.id} succeeded`))) {
      out.push(`${n.id} drawn done before its success`);
    }
    if (demotedGoals.has(n.id)) {
      if (!s.past.some((e) => e.kind === 'GoalDemoted' && e.text.endsWith(` to ${n.id}`))) {
        out.push(`demoted goal ${n.id} drawn done before the demotion`);
      }
      if (s.escalations < 1) out.push(`demoted goal ${n.id} drawn done with no escalation listed`);
    }
  }
  // The counters and the escalations agree with the events logged so far.
  const asked = s.past.filter((e) => e.kind === 'Escalated' && /LLM call #/.test(e.text)).length;
  if (s.escalations !== asked) out.push(`${s.escalations} escalations listed, ${asked} LLM calls logged`);
  if (s.llm !== null && Number(s.llm) !== asked) out.push(`LLM calls counter ${s.llm}, ${asked} logged`);
  // A redirect cancels the calls in flight: they were never made.
  const cancelled = s.past
    .map((e) => (e.kind === 'Redirected' ? e.text.match(/calls cancelled: (.*)$/)?.[1].split(', ').length ?? 0 : 0))
    .reduce((a, b) => a + b, 0);
  const calls = s.past.filter((e) => e.kind === 'ToolCalled').length - cancelled;
  if (s.tools !== null && Number(s.tools) !== calls) out.push(`tool calls counter ${s.tools}, ${calls} logged`);
  if (s.shrOnly !== 0) out.push('an SHR-only note while SHR is replayed');
  return out;
}

async function views(page) {
  const ids = await page.$$eval('[data-testid="scenario"] option:not([disabled])', (os) => os.map((o) => o.value));
  return [...ids.map((id) => `scenario=${encodeURIComponent(id)}`), ...EXTRA];
}

test('every step of every view and executor agrees with itself', { timeout: 1_200_000 }, async () => {
  const first = await open(env.browser, env.url);
  const all = await views(first);
  await first.context().close();
  const report = [];
  let steps = 0;
  for (const query of all) {
    const page = await open(env.browser, `${env.url}?${query}`);
    const lanes = await page.$$eval('[data-testid^="lane-"]:not([disabled])', (bs) => bs.map((b) => b.dataset.testid.slice(5)));
    // Read from SHR's whole log: the goals the LLM demoted to.
    const demoted = await page.$$eval('[data-testid="events"] li[data-event="GoalDemoted"] .text', (ts) =>
      ts.map((t) => t.textContent.split(' to ').pop()));
    for (const lane of lanes) {
      await page.click(`[data-testid="lane-${lane}"]`);
      const walked = await walk(page);
      steps += walked.length;
      for (const s of walked) {
        for (const d of disagreements(s, lane, new Set(demoted))) report.push(`${query} ${lane} step ${s.k}: ${d}`);
      }
    }
    assert.deepEqual(page.errors, [], `${query}: no console errors`);
    await page.context().close();
  }
  console.log(`walked ${steps} steps of ${all.length} views; ${report.length} disagreements`);
  assert.deepEqual(report.slice(0, 40), [], `${report.length} disagreements`);
  assert.ok(steps > 2000, `the walk covered ${steps} steps`);
});

test('story figures and the paper note come from the run', async () => {
  const page = await open(env.browser, `${env.url}?scenario=M4`);
  // M4's story names the cost of hold-for-review: the cost the run's reroute logged.
  const story = await page.$$eval('[data-testid="story-step"]', (ls) => ls.map((l) => l.textContent));
  const told = story.join(' ').match(/hold-for-review \(cost (\d+(?:\.\d)?)\)/)?.[1];
  const logged = (await page.$$eval('[data-testid="events"] li[data-event="Rerouted"] .text', (ts) => ts.map((t) => t.textContent)))
    .map((t) => t.match(/\(cost (\d+(?:\.\d)?)\)$/)?.[1]);
  assert.ok(told, 'the story states a cost');
  assert.ok(logged.includes(told), `the story's cost ${told} is a reroute's logged cost (${logged})`);
  // Where the run's counts differ from the paper's, a note says so and why.
  const s6 = await open(env.browser, `${env.url}?scenario=S6`);
  const diffs = await s6.$$eval('[data-testid="paper-diff"]', (ls) => ls.map((l) => l.textContent));
  assert.ok(diffs.some((d) => /^SHR LLM calls: paper 2, this run 1; .+\.$/.test(d)), diffs.join(' | '));
  assert.ok(diffs.some((d) => /^ReAct LLM calls: paper 8, this run \d+; .+\.$/.test(d)), diffs.join(' | '));
  assert.deepEqual([...page.errors, ...s6.errors], []);
});

test('the replay jumps from event to event over the search steps', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  const at = async () => Number((await text(page, 'replay-counter')).match(/step (\d+)/)[1]);
  await page.click('[data-testid="replay-restart"]');
  await page.click('[data-testid="replay-play"]');
  while ((await at()) > 0) await page.click('[data-testid="replay-back"]');
  const seen = [];
  for (let i = 0; i < 8; i++) {
    await page.click('[data-testid="replay-next-event"]');
    seen.push([await at(), await text(page, 'replay-text')]);
  }
  // Every stop is an event (the first plan's search is skipped), each further on.
  for (const [k, said] of seen) assert.match(said, /Event \d+:/, `step ${k}: ${said}`);
  assert.ok(seen.every(([k], i) => i === 0 || k > seen[i - 1][0]), seen.map(([k]) => k).join(' '));
  assert.ok(seen[0][0] > 1, 'the first plan\'s search steps are skipped');
  const last = seen.at(-1)[0];
  await page.click('[data-testid="replay-prev-event"]');
  assert.equal(await at(), seen.at(-2)[0], 'back to the event before');
  assert.ok(last > seen.at(-2)[0]);
  assert.deepEqual(page.errors, []);
});
