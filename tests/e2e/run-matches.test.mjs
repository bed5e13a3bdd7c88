// What the page draws is what the run did (issue 29): the route drawn is the path the SHR run
// executed, every panel follows the one replay clock, a scenario opens at its key decision, a
// success claimed on wrong data is a silent failure whatever the mode, and the table's decisive
// columns and the arrowheads read at every width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useBrowser, open, pick, text, end, nodeClass, shot, drawn } from './harness.mjs';

const env = useBrowser();
// Every scenario's run, recorded by crates/wasm/tests/native.rs (the same mock tools and LLM).
const FIXTURES = JSON.parse(readFileSync(new URL('../node/fixtures/scenarios.json', import.meta.url), 'utf8'));
const fixture = (id) => FIXTURES.find((f) => f.id === id);

const ids = (page, selector) =>
  page.$$eval(selector, (els) => [...new Set(els.map((e) => e.getAttribute('data-node')))].sort());
const drawnRoute = (page) => ids(page, '[data-node].route');
const completed = (page) => ids(page, '[data-node].ran');
const sorted = (list) => [...new Set(list)].sort();

/** The path the run's `Finished` event names, as the page's event log shows it. */
async function finishedPath(page) {
  const line = await page.textContent('[data-testid="events"] li[data-event="Finished"] .text');
  const m = line.match(/ via (.*) \(cost /);
  assert.ok(m, `the Finished event names the path (${line})`);
  return m[1].split(' → ');
}

async function counter(page) {
  const m = (await text(page, 'replay-counter')).match(/step (\d+) \/ (\d+)/);
  return [Number(m[1]), Number(m[2])];
}

/** Picks the event of the log with this `seq`; the replay moves there. */
async function seek(page, seq) {
  await page.click(`[data-testid="events"] li[data-seq="${seq}"] button`);
  await page.waitForSelector(`[data-testid="events"] li.current[data-seq="${seq}"]`);
}

async function edgeClass(page, name) {
  return page.getAttribute(`[data-edge="${name}"]`, 'class');
}

/** The counters agree with the events the log marks as happened. */
async function countersMatchLog(page) {
  const past = (event) => page.$$eval(`[data-testid="events"] li.past[data-event="${event}"]`, (l) => l.length);
  assert.equal(Number(await text(page, 'tools-shr')), await past('ToolCalled'), 'tool calls so far');
  assert.equal(Number(await text(page, 'llm-shr')), await past('Escalated'), 'LLM calls so far');
  assert.equal(Number(await text(page, 'recoveries-shr')), await page.$$eval(
    '[data-testid="events"] li.past[data-event="Rerouted"] .text', (l) => l.filter((e) => /rerouted around/.test(e.textContent)).length,
  ), 'reroutes around a failed tool so far');
}

test('for every scenario in the picker, the drawn route is the path its SHR run took', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S1`);
  for (const f of FIXTURES) {
    await pick(page, f.id);
    await end(page);
    const route = await drawnRoute(page);
    assert.deepEqual(route, sorted(f.outcome.path), `${f.id}: the drawn route is the run's path`);
    assert.deepEqual(route, sorted(await finishedPath(page)), `${f.id}: and the path its Finished event names`);
    // Every node of the route completed; work branched back past ran too, off the route.
    const ran = sorted([...new Set([...f.outcome.path, ...(f.outcome.abandoned ?? [])])]);
    assert.deepEqual(await completed(page), ran, `${f.id}: the route and the work abandoned completed`);
    assert.equal(Number(await text(page, 'llm-shr')), f.outcome.llmCalls, `${f.id}: LLM calls`);
    assert.equal(Number(await text(page, 'tools-shr')), f.outcome.toolCalls, `${f.id}: tool calls`);
    const headline = await text(page, 'route');
    if (f.outcome.status === 'completed') {
      assert.match(headline, new RegExp(`^Route: .* \\(cost ${f.outcome.cost}\\)$`), `${f.id}: ${headline}`);
    } else if (f.outcome.status === 'demoted') {
      assert.match(headline, /the LLM demoted the goal to/, `${f.id}: ${headline}`);
    } else {
      assert.match(headline, /the run stopped with an escalation/, `${f.id}: ${headline}`);
    }
  }
  assert.deepEqual(page.errors, []);
});

test('for every cyclic workflow and ToolMaze fault in the picker, the drawn route is the path the run took', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S1`);
  const options = await page.$$eval('[data-testid="scenario"] option', (os) => os.map((o) => o.value));
  let runs = 0;
  const check = async (what) => {
    // A switch of validators changes the graph: it is laid out anew, asynchronously.
    await drawn(page);
    await end(page);
    const path = sorted(await finishedPath(page));
    assert.deepEqual(await drawnRoute(page), path, `${what}: the drawn route is the run's path`);
    const done = await completed(page);
    assert.ok(path.every((v) => done.includes(v)), `${what}: every node of the route completed (${done})`);
    runs++;
  };
  for (const id of options.filter((o) => o.startsWith('cyclic:'))) {
    await pick(page, id);
    for (const p of await page.$$eval('[data-testid="cyclic-p"] option', (os) => os.map((o) => o.value))) {
      await page.selectOption('[data-testid="cyclic-p"]', p);
      await page.waitForFunction((p) => new URL(location.href).searchParams.get('p') === p, p);
      await check(`${id} p=${p}`);
    }
  }
  for (const id of options.filter((o) => o.startsWith('perturb:'))) {
    await pick(page, id);
    for (const mode of await page.$$eval('[data-testid="perturb-mode"] option', (os) => os.map((o) => o.value))) {
      await page.selectOption('[data-testid="perturb-mode"]', mode);
      await page.waitForFunction((m) => new URL(location.href).searchParams.get('mode') === m, mode);
      for (const validators of ['1', '0']) {
        if (new URL(page.url()).searchParams.get('validators') !== validators) {
          await page.click('[data-testid="perturb-validators"]');
          await page.waitForFunction((v) => new URL(location.href).searchParams.get('validators') === v, validators);
        }
        await check(`${id} ${mode} validators=${validators}`);
      }
    }
  }
  assert.ok(runs >= 40, `every option was run (${runs})`);
  assert.deepEqual(page.errors, []);
});

test('S2 at three steps: each panel shows the run at that step', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S2`);
  const [, total] = await counter(page);
  assert.equal(total, (await counter(page))[1]);

  // The first plan, just found by the search: through Stripe, which the router does not know is down.
  await seek(page, 0);
  const [k0] = await counter(page);
  assert.ok(k0 > 1 && k0 < total, `the search steps come before the plan (${k0})`);
  assert.match(await text(page, 'replay-text'), /Search over: the route costs 4\. Event 0: planned/);
  assert.match(await text(page, 'route'), /^Route: Start → CRM order lookup → Stripe refund → Email confirmation → Refund done, customer told \(done up to Start;/);
  assert.deepEqual(await drawnRoute(page), sorted(['start', 'crm', 'stripe', 'email', 'refund_done']));
  assert.deepEqual(await completed(page), ['start']);
  assert.match(await nodeClass(page, 'stripe'), /\bfailed\b/, 'Stripe is down from the start');
  assert.doesNotMatch(await edgeClass(page, 'crm->stripe'), /infinite/, 'the router learns it only when a call fails');
  assert.match(await text(page, 'decision'), /no decision yet/);
  assert.match(await text(page, 'silent-shr'), /…/);
  assert.match(await text(page, 'row-static'), /totals show at the end/);
  assert.match(await page.textContent('.escalations'), /None so far/);
  await countersMatchLog(page);

  // Stripe's call failed: the plan is broken, its edge weighs ∞, the search has not run yet.
  await seek(page, 8);
  assert.equal(await text(page, 'tools-shr'), '2');
  assert.deepEqual(await completed(page), ['crm', 'start']);
  assert.deepEqual(await drawnRoute(page), ['crm', 'start'], 'no plan in force between the failure and the reroute');
  assert.match(await edgeClass(page, 'crm->stripe'), /\binfinite\b/);
  assert.match(await edgeClass(page, 'crm->stripe'), /\bghost\b/, 'the broken plan fades');
  assert.match(await text(page, 'route'), /^Stripe refund failed: the router searches a new route/);
  assert.match(await page.getAttribute('[data-testid="monitor-intent"]', 'class'), /\bwinner\b/);
  assert.match(await nodeClass(page, 'stripe'), /\bcurrent\b/, 'the event\'s tool is marked on the graph');
  await countersMatchLog(page);

  // The reroute: the search from CRM found Razorpay, the tool-health monitor won.
  await seek(page, 14);
  assert.match(await text(page, 'replay-text'), /Search over: the route costs 4\. Event 14: rerouted around stripe/);
  assert.deepEqual(await drawnRoute(page), sorted(['start', 'crm', 'razorpay', 'email', 'refund_done']));
  assert.deepEqual(await completed(page), ['crm', 'start']);
  assert.match(await text(page, 'route'), /^Route: Start → CRM order lookup → Razorpay refund → Email confirmation/);
  assert.match(await page.getAttribute('[data-testid="monitor-tool-health"]', 'class'), /\bwinner\b/);
  assert.equal(await text(page, 'recoveries-shr'), '1');
  await countersMatchLog(page);
  await shot(page, 'replay-reroute');

  // One step on and back: the next logged event, then this one again.
  const [k14] = await counter(page);
  await page.click('[data-testid="replay-step"]');
  assert.deepEqual(await counter(page), [k14 + 1, total]);
  await page.waitForSelector('[data-testid="events"] li.current[data-seq="16"]');
  await page.click('[data-testid="replay-back"]');
  await page.waitForSelector('[data-testid="events"] li.current[data-seq="14"]');

  // The end: what the run ended with, the baselines' totals, the verdicts.
  await end(page);
  assert.match(await text(page, 'route'), /^Route: .* \(cost 5\)$/);
  assert.equal(await text(page, 'tools-shr'), '4');
  assert.equal(await text(page, 'silent-shr'), 'no');
  assert.match(await text(page, 'row-static'), /reached refund_done/);
  await countersMatchLog(page);
  assert.deepEqual(page.errors, []);
});

test('S5 opens at the mid-run failure, and at three steps each panel shows the run at that step', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S5`);
  // It opens at the answer to Email's failure: the reroute to SMS.
  const [k, total] = await counter(page);
  assert.ok(k < total, `not at the end (${k}/${total})`);
  await page.waitForSelector('[data-testid="events"] li.current[data-seq="18"]');
  assert.match(await nodeClass(page, 'email'), /\bfailed\b/);

  // Stripe done, two calls made: Email's failure has not happened yet.
  await seek(page, 8);
  assert.doesNotMatch(await nodeClass(page, 'email'), /\bfailed\b/, 'Email fails mid-run, not from the start');
  assert.match(await page.textContent('[data-node="email"] .strikes'), /fails after 2 calls/);
  assert.doesNotMatch(await edgeClass(page, 'stripe->email'), /infinite/);
  assert.deepEqual(await completed(page), sorted(['start', 'crm', 'stripe']));
  assert.deepEqual(await drawnRoute(page), sorted(['start', 'crm', 'stripe', 'email', 'refund_done']));
  assert.equal(await text(page, 'tools-shr'), '2');
  await countersMatchLog(page);

  // Email's call fails: now it is drawn failed, its edge weighs ∞.
  await seek(page, 12);
  assert.match(await nodeClass(page, 'email'), /\bfailed\b/);
  assert.match(await edgeClass(page, 'stripe->email'), /\binfinite\b/);
  assert.equal(await text(page, 'tools-shr'), '3');
  assert.match(await text(page, 'route'), /^Email confirmation failed/);
  assert.deepEqual(await drawnRoute(page), sorted(['start', 'crm', 'stripe']));
  await countersMatchLog(page);

  // The reroute from Stripe, where execution stands: the refund is kept, the notice goes by SMS.
  await seek(page, 18);
  assert.deepEqual(await drawnRoute(page), sorted(['start', 'crm', 'stripe', 'sms', 'refund_done']));
  assert.match(await text(page, 'route'), /Stripe refund → SMS confirmation/);
  assert.match(await page.getAttribute('[data-testid="monitor-tool-health"]', 'class'), /\bwinner\b/);
  assert.equal(await text(page, 'llm-shr'), '0');
  await countersMatchLog(page);
  assert.deepEqual(page.errors, []);
});

test('S4 opens with the risk decision, and the risk monitor winning', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S4`);
  await page.waitForSelector('[data-testid="monitor-risk"]');
  const [k, total] = await counter(page);
  assert.ok(k < total, `it opens at the decision, not the end (${k}/${total})`);
  assert.match(await page.getAttribute('[data-testid="monitor-risk"]', 'class'), /\bwinner\b/);
  assert.match(await text(page, 'monitor-risk'), /wins/);
  assert.match(await text(page, 'monitor-risk'), /amount = 15000 exceeds/);
  assert.doesNotMatch(await page.getAttribute('[data-testid="monitor-intent"]', 'class'), /winner/);
  assert.match(await text(page, 'route'), /^The risk monitor stopped the route to Refund done/);
  assert.equal(await text(page, 'escalation-reason'), 'risk');
  assert.ok(await page.$('[data-testid="events"] li.current[data-event="Escalated"]'), 'the log is at the escalation');
  assert.deepEqual(await completed(page), ['crm', 'start'], 'no payment tool ran');
  // The monitor panel's arrows move the one clock: the decision before, then back.
  await page.click('[data-testid="decision-prev"]');
  await page.waitForSelector('[data-testid="monitor-intent"].winner');
  assert.ok((await counter(page))[0] < k);
  await page.click('[data-testid="decision-next"]');
  await page.waitForSelector('[data-testid="monitor-risk"].winner');
  assert.deepEqual(page.errors, []);
});

test('P4 without validators: a success claimed on wrong data is a silent failure', async () => {
  const page = await open(env.browser, `${env.url}?scenario=perturb:C1&mode=P4&validators=0`);
  await end(page);
  assert.equal((await text(page, 'silent-shr')).trim(), '⚠ yes');
  assert.match(await text(page, 'row-shr'), /✗ no/);
  assert.doesNotMatch(await text(page, 'row-react'), /priced/, "the ReAct row is the agent's own run");
  // With validators on, the wrong data is caught: no silent failure.
  const checked = await open(env.browser, `${env.url}?scenario=perturb:C1&mode=P4&validators=1`);
  await end(checked);
  assert.equal((await text(checked, 'silent-shr')).trim(), 'no');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(checked.errors, []);
});

test('the decisive table columns are visible from 1024 to 1920 px wide and on a phone', async () => {
  const cells = ['llm-shr', 'tools-shr', 'correct-shr', 'silent-shr', 'llm-static', 'correct-static', 'silent-static', 'silent-react'];
  for (const [width, height] of [[1024, 768], [1280, 800], [1440, 900], [1920, 1080], [390, 844]]) {
    const page = await open(env.browser, `${env.url}?scenario=S6`, { width, height });
    await end(page);
    for (const id of cells) {
      const cell = page.locator(`[data-testid="${id}"]`);
      await cell.scrollIntoViewIfNeeded();
      const seen = await cell.evaluate((td) => {
        const r = td.getBoundingClientRect();
        const clip = td.closest('.scroll').getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        // The column's name: its header in a table, its label above the value once stacked.
        const header = td.closest('table').querySelectorAll('thead th')[td.cellIndex];
        const h = header.getBoundingClientRect();
        const label = getComputedStyle(td, '::before').content;
        return {
          inside: r.width > 0 && r.left >= clip.left - 1 && r.right <= clip.right + 1 && r.right <= innerWidth,
          onTop: !!hit && td.contains(hit),
          named: (h.width > 1 && h.left >= clip.left - 1 && h.right <= clip.right + 1) || label.includes(header.textContent),
        };
      });
      assert.deepEqual(seen, { inside: true, onTop: true, named: true }, `${id} at ${width}px`);
    }
    assert.match(await text(page, 'silent-static'), /yes/);
    if (width === 1024) await shot(page, 'counters-1024');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('arrowheads: one per edge state, all the same size whatever the line width', async () => {
  const page = await open(env.browser, `${env.url}?scenario=S5`);
  const markers = await page.$$eval('svg.graph marker', (ms) => ms.map((m) => ({
    id: m.id, units: m.getAttribute('markerUnits'), w: m.getAttribute('markerWidth'), h: m.getAttribute('markerHeight'),
  })));
  assert.ok(markers.length >= 5, 'a marker per state');
  for (const m of markers) assert.deepEqual([m.units, m.w, m.h], ['userSpaceOnUse', '10', '10'], m.id);
  const arrow = (name) => page.$eval(`[data-edge="${name}"] path`, (l) => getComputedStyle(l).markerEnd);
  // At the reroute: the taken route, the plan ahead, an edge into the failed tool.
  assert.match(await arrow('crm->stripe'), /#arrow-route/);
  assert.match(await arrow('sms->refund_done'), /#arrow-route/);
  assert.match(await arrow('stripe->email'), /#arrow-infinite/);
  assert.match(await arrow('start->crm'), /#arrow-route/);
  assert.match(await arrow('crm->approval_queue'), /#arrow-plain/);
  assert.deepEqual(page.errors, []);
});
