// Every exported function of the wasm package: Router (fromJson/new, warnings, toJson, tools,
// route, markDown, markUp, record, health, session, run), Session (next, report,
// resolveEscalation, events, outcome, isFinished, escalation). The Session by hand is in
// session.test.mjs, the package itself in package.test.mjs, the key conventions in
// conventions.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, symlinkSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { shr, PKG, Router, Session, VirtualTime, refundGraph, okTools, names, expectCode } from './helpers.mjs';

test('fromJson, new Router and JSON text build the same router', () => {
  const a = Router.fromJson(refundGraph());
  const b = new Router(refundGraph());
  const c = Router.fromJson(JSON.stringify(refundGraph()));
  for (const r of [a, b, c]) {
    assert.deepEqual(r.route(), { path: ['start', 'crm', 'stripe', 'email', 'done'], edges: [['start', 'crm'], ['crm', 'stripe'], ['stripe', 'email'], ['email', 'done']], cost: 3 });
  }
  assert.deepEqual(a.tools(), ['crm', 'stripe', 'razorpay', 'email', 'sms']);
  assert.deepEqual(a.warnings, []);
  const spec = a.toJson();
  assert.equal(spec.name, 'refund');
  assert.deepEqual(Router.fromJson(spec).toJson(), spec);
});

test('invalid graphs throw invalid_graph with every problem, each naming the id', async () => {
  const g = refundGraph();
  g.edges.push({ from: 'crm', to: 'nowhere', cost: 1 }, { from: 'email', to: 'sms', cost: -1 });
  g.nodes.push({ id: 'crm' });
  const err = await expectCode(() => Router.fromJson(g), 'invalid_graph', assert);
  const kinds = err.problems.map((p) => p.kind).sort();
  assert.deepEqual(kinds, ['duplicate_id', 'negative_cost', 'unknown_node']);
  assert.ok(err.problems.some((p) => p.at === 'crm->nowhere' && p.message.includes('nowhere')));
  assert.match(err.message, /3 problems/);
  // Not JSON at all, JSON of the wrong shape, a cycle, nothing.
  for (const bad of ['{nope', '[1,2]', 42, null, undefined]) {
    const e = await expectCode(() => Router.fromJson(bad), 'invalid_graph', assert);
    assert.equal(e.problems[0].kind, 'malformed_json');
  }
  const cyclic = refundGraph();
  cyclic.self = cyclic;
  const e = await expectCode(() => new Router(cyclic), 'invalid_graph', assert);
  assert.match(e.problems[0].message, /not serializable/);
});

test('unreachable goal is a warning, not an error', () => {
  const g = refundGraph();
  g.edges = g.edges.filter((e) => e.to !== 'done');
  const r = Router.fromJson(g);
  assert.equal(r.warnings[0].kind, 'goal_unreachable');
  assert.equal(r.route(), null);
});

test('router options: config and clock are checked', async () => {
  await expectCode(() => Router.fromJson(refundGraph(), 'x'), 'bad_options', assert);
  await expectCode(() => Router.fromJson(refundGraph(), { clock: 5 }), 'bad_options', assert);
  const e = await expectCode(() => Router.fromJson(refundGraph(), { config: { toolBudget: 'lots' } }), 'bad_options', assert);
  assert.match(e.message, /options\.config/);
  // One convention: a snake_case key is named with its camelCase form, not ignored.
  const snake = await expectCode(() => Router.fromJson(refundGraph(), { config: { tool_budget: 3 } }), 'bad_options', assert);
  assert.match(snake.message, /options\.config\.tool_budget: keys are camelCase in JS: `toolBudget`/);
  const deep = await expectCode(() => Router.fromJson(refundGraph(), { config: { breaker: { cooldown_ms: 3 } } }), 'bad_options', assert);
  assert.match(deep.message, /options\.config\.breaker\.cooldown_ms: keys are camelCase in JS: `cooldownMs`/);
  // Misspelt or misplaced settings are named, not ignored.
  const typo = await expectCode(() => Router.fromJson(refundGraph(), { config: { toolBudgt: 3 } }), 'bad_options', assert);
  assert.match(typo.message, /options\.config\.toolBudgt: unknown field `toolBudgt`, expected one of `toolBudget`/);
  const top = await expectCode(() => Router.fromJson(refundGraph(), { breaker: { cooldownMs: 1 } }), 'bad_options', assert);
  assert.match(top.message, /options\.breaker: unknown option \(known: config, clock, origin\)/);
  const inner = await expectCode(() => Router.fromJson(refundGraph(), { config: { breaker: { cooldown: 1 } } }), 'bad_options', assert);
  assert.match(inner.message, /unknown field `cooldown`/);
  for (const [breaker, named] of [
    [{ failureRate: 1.5 }, /options\.config\.breaker\.failureRate must be a number in 0\.\.=1, got 1\.5/],
    // Gone with the penalty ramp: a half-open tool weighs what a healthy one does.
    [{ halfOpenFactor: 8 }, /options\.config\.breaker\.halfOpenFactor: unknown field `halfOpenFactor`/],
    [{ halfOpenProbes: 0 }, /options\.config\.breaker\.halfOpenProbes must be at least 1/],
  ]) {
    const bad = await expectCode(() => Router.fromJson(refundGraph(), { config: { breaker } }), 'bad_options', assert);
    assert.match(bad.message, named);
  }
  const r = Router.fromJson(refundGraph(), { config: { breaker: { cooldownMs: 1000 } }, clock: () => 5000 });
  r.markDown('stripe');
  assert.equal(r.health('stripe').state, 'open');
  assert.equal(r.health('stripe', 5999).state, 'open');
  assert.equal(r.route(null, null, 5999).path[2], 'razorpay');
  const probe = r.health('stripe', 6000);
  assert.equal(probe.state, 'half_open', 'the cooldown is over at 6000');
  assert.equal(probe.weight, 1, 'half-open with its trial slot free: the weight of a healthy tool');
  assert.equal(r.route(null, null, 6000).path[2], 'stripe', 'the next route takes the trial');
});

test('route: start/goal, unknown nodes, live weights', async () => {
  const r = Router.fromJson(refundGraph());
  assert.deepEqual(r.route('stripe').path, ['stripe', 'email', 'done']);
  assert.deepEqual(r.route(null, 'sms').path, ['start', 'crm', 'stripe', 'sms']);
  assert.equal(r.route('done', 'start'), null);
  const e = await expectCode(() => r.route('mars'), 'unknown_node', assert);
  assert.match(e.message, /mars/);
  await expectCode(() => r.route(undefined, 'venus'), 'unknown_node', assert);
  await expectCode(() => r.route(undefined, undefined, NaN), 'bad_clock', assert);
});

test('route: a start or goal that is not a node id is named, and odd ids route like any other', async () => {
  const r = Router.fromJson(refundGraph());
  for (const bad of [42, {}, ['start'], true]) {
    const e = await expectCode(() => r.route(bad), 'unknown_node', assert);
    assert.match(e.message, /start must be a node id/);
    await expectCode(() => r.route(null, bad), 'unknown_node', assert);
  }
  // Ids are looked up in a JS Map: names an object would inherit are ids like any other.
  const odd = Router.fromJson({
    nodes: [{ id: '__proto__', tool: false }, { id: 'constructor' }, { id: 'toString' }, { id: 'é✓' }],
    edges: [{ from: '__proto__', to: 'constructor' }, { from: 'constructor', to: 'toString' }, { from: 'toString', to: 'é✓' }],
    start: '__proto__',
    goal: 'é✓',
  });
  assert.deepEqual(odd.route().path, ['__proto__', 'constructor', 'toString', 'é✓']);
  assert.deepEqual(odd.route('constructor', 'toString').edges, [['constructor', 'toString']]);
  await expectCode(() => odd.route('hasOwnProperty'), 'unknown_node', assert);
});

test('route: errors the clock or now raise are thrown, and the next route is unaffected', async () => {
  // These reach Rust with well-formed ids (the JS half's numeric call), so Rust keeps the error.
  const r = Router.fromJson(refundGraph());
  for (const now of [-1, NaN, Infinity]) {
    const e = await expectCode(() => r.route('start', 'done', now), 'bad_clock', assert);
    assert.match(e.message, /now must be a finite number of milliseconds >= 0/);
  }
  assert.deepEqual(r.route('start', 'done', 7).path, ['start', 'crm', 'stripe', 'email', 'done']);
  // A now that is not a number is named, not coerced (nor a TypeError from the glue).
  for (const now of ['7', 7n, Symbol('now'), {}, true]) {
    const e = await expectCode(() => r.route(null, null, now), 'bad_clock', assert);
    assert.match(e.message, /now must be a number, not (string|bigint|symbol|object|boolean)/);
  }
  const s = r.session(null, 0);
  for (const call of [() => s.next('0'), () => s.next(), () => s.next(0n), () => s.report('crm', { result: 'ok' }, Symbol('t')),
    () => s.resolveEscalation({ decision: 'approve' }, '1'), () => r.markDown('stripe', '5'), () => r.health('stripe', 5n),
    () => r.metrics('now'), () => r.session(null, '0')]) {
    await expectCode(call, 'bad_clock', assert);
  }
  for (const since of ['1', 1n, -1]) await expectCode(() => s.events(since), 'bad_options', assert);
  assert.equal(s.events(0).length, 0);
  let ticks = 0;
  const flaky = Router.fromJson(refundGraph(), {
    clock: () => {
      ticks++;
      if (ticks === 1) throw new Error('clock down');
      return ticks === 2 ? 'noon' : 1000;
    },
  });
  assert.match((await expectCode(() => flaky.route(), 'bad_clock', assert)).message, /clock\(\) threw: clock down/);
  assert.match((await expectCode(() => flaky.route(), 'bad_clock', assert)).message, /clock\(\) must return a number/);
  assert.equal(flaky.route().cost, 3);
  assert.equal(ticks, 3, 'one clock read per route');
});

test('route: each router answers for its own graph, however calls interleave', () => {
  const cheap = refundGraph();
  const dear = refundGraph();
  for (const e of dear.edges) if (e.to === 'stripe') e.cost = 50;
  const a = Router.fromJson(cheap);
  const b = Router.fromJson(dear);
  const other = Router.fromJson({ nodes: [{ id: 'x', tool: false }, { id: 'y' }], edges: [{ from: 'x', to: 'y', cost: 2 }], start: 'x', goal: 'y' });
  for (let i = 0; i < 3; i++) {
    assert.equal(a.route().path[2], 'stripe');
    // The JS half (ids looked up in JS, one numeric call) ran: it keeps its ids on the router.
    assert.equal(Object.getOwnPropertySymbols(a).length, 1);
    assert.equal(b.route().path[2], 'razorpay');
    assert.deepEqual(other.route(), { path: ['x', 'y'], edges: [['x', 'y']], cost: 2 });
    assert.equal(a.route('razorpay').path.join(), 'razorpay,email,done');
  }
});

test('route reads its plan correctly after wasm memory grows', () => {
  const r = Router.fromJson(refundGraph());
  const before = r.route();
  // A large graph grows the module's memory, which detaches every view of the old buffer.
  const n = 20000;
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, tool: i > 0 }));
  const edges = nodes.slice(1).map((_, i) => ({ from: `n${i}`, to: `n${i + 1}` }));
  const big = Router.fromJson({ nodes, edges, start: 'n0', goal: `n${n - 1}` });
  assert.equal(big.route().path.length, n);
  assert.deepEqual(r.route(), before);
  assert.equal(big.route('n5', 'n8').path.join(), 'n5,n6,n7,n8');
});

test('markDown / markUp reroute, and name unknown tools', async () => {
  const r = Router.fromJson(refundGraph());
  assert.equal(r.markDown('stripe'), Infinity, 'markDown returns the weight: routed around');
  const h = r.health('stripe');
  assert.equal(h.tool, 'stripe');
  assert.equal(h.state, 'open');
  assert.equal(h.weight, null);
  assert.deepEqual(r.route().path, ['start', 'crm', 'razorpay', 'email', 'done']);
  assert.equal(r.route().cost, 4);
  r.markDown('razorpay');
  assert.equal(r.route(), null);
  assert.equal(r.markUp('stripe'), 1, 'markUp: the weight of a healthy tool at once, nothing from before');
  assert.equal(r.health('stripe').state, 'closed');
  assert.deepEqual(r.route().path, ['start', 'crm', 'stripe', 'email', 'done']);
  const e = await expectCode(() => r.markDown('paypal'), 'unknown_tool', assert);
  assert.equal(e.tool, 'paypal');
  assert.match(e.message, /paypal/);
  await expectCode(() => r.markUp('start'), 'unknown_tool', assert);
  await expectCode(() => r.health('nope'), 'unknown_tool', assert);
});

test('routes at one clock value see every health change made between them', () => {
  // route() remembers each tool's weight while the health and the clock stay the same.
  const r = Router.fromJson(refundGraph(), { config: { breaker: { cooldownMs: 1000 } } });
  const path = (at = 50) => r.route(null, null, at)?.path ?? null;
  const viaStripe = ['start', 'crm', 'stripe', 'email', 'done'];
  const viaRazorpay = ['start', 'crm', 'razorpay', 'email', 'done'];
  assert.deepEqual(path(), viaStripe);
  r.markDown('stripe', 50);
  assert.deepEqual(path(), viaRazorpay, 'markDown');
  r.markDown('razorpay', 50);
  assert.equal(path(), null, 'both payment tools down');
  r.markUp('stripe');
  assert.deepEqual(path(), viaStripe, 'markUp');
  r.markUp('razorpay');
  r.record('stripe', { ok: true, latencyMs: 100, at: 50 });
  for (let i = 0; i < 5; i++) r.record('stripe', { ok: true, latencyMs: 2000, at: 50 });
  assert.deepEqual(path(), viaRazorpay, 'record: stripe is slow now');
  r.markDown('razorpay', 50);
  assert.deepEqual(path(), viaStripe, 'slow beats down');
  r.markDown('stripe', 50);
  assert.equal(path(), null);
  assert.equal(path(1049), null);
  // Both on trial at their healthy weights: razorpay's failures are why it is on trial, and
  // stripe's slowness is a cooldown old with no new sample: neither weighs any more.
  assert.deepEqual(path(1050), viaStripe, 'the cooldown is over: both half-open');
});

test('route sees a weight change that only the clock makes', () => {
  // Remembered weights hold until an outcome leaves the breaker's window.
  const r = Router.fromJson(refundGraph(), { config: { breaker: { windowMs: 1000, minCalls: 5 } } });
  r.record('stripe', { ok: false, at: 100 });
  r.record('stripe', { ok: false, at: 200 });
  const path = (at) => r.route(null, null, at).path[2];
  assert.equal(path(300), 'razorpay', 'stripe fails every call');
  assert.equal(path(1099), 'razorpay');
  assert.equal(path(1100), 'razorpay', 'one failure left in the window: still a 100% error rate');
  assert.equal(path(1199), 'razorpay');
  assert.equal(path(1200), 'stripe', 'both failures are older than the window');
  assert.equal(path(1300), 'stripe');
});

test('record feeds latency and the breaker', async () => {
  const r = Router.fromJson(refundGraph());
  assert.equal(r.record('stripe', { ok: true, latencyMs: 100, at: 0 }), 1, 'record returns the weight');
  let w;
  for (let i = 0; i < 5; i++) w = r.record('stripe', { ok: true, latencyMs: 2000, at: 10 + i });
  const h = r.health('stripe', 14);
  assert.ok(h.factors.latency > 5, `slow tool: latency factor ${h.factors.latency}`);
  assert.ok(w > 5 && w === h.weight, `weight ${w}`);
  // A slow stripe costs more than the backup route.
  assert.deepEqual(r.route(null, null, 20).path, ['start', 'crm', 'razorpay', 'email', 'done']);
  for (let i = 0; i < 2; i++) assert.ok(r.record('sms', { ok: false, at: 100 + i }) < Infinity, 'closed');
  assert.equal(r.record('sms', { ok: false, at: 103 }), Infinity, '3 consecutive failures open');
  assert.equal(r.health('sms', 103).state, 'open');
  assert.equal(r.record('email', { ok: false, hard: true, at: 0 }), Infinity);
  assert.equal(r.health('email', 0).state, 'open');
  await expectCode(() => r.record('email', { ok: 'yes' }), 'bad_record', assert);
  await expectCode(() => r.record('email', { ok: true, latency: 5 }), 'bad_record', assert);
  await expectCode(() => r.record('email', { ok: true, latencyMs: -1 }), 'bad_record', assert);
  await expectCode(() => r.record('email'), 'bad_record', assert);
  await expectCode(() => r.record('fax', { ok: true }), 'unknown_tool', assert);
});

test('run: stripe fails, the session reroutes to razorpay, health flows back', async () => {
  const r = Router.fromJson(refundGraph());
  const seen = [];
  const { outcome, events } = await r.run(
    { context: { request: 'refund order 7', amount: 40 } },
    {
      tools: okTools({
        stripe: async () => { throw new Error('stripe: 503 Service Unavailable'); },
        razorpay: async ({ tool, attempt, context, results }) => {
          seen.push({ tool, attempt, context, results });
          return { refund: 'rp_9' };
        },
      }),
    },
  );
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(outcome.path, ['start', 'crm', 'razorpay', 'email', 'done']);
  assert.equal(outcome.reroutes, 1);
  assert.equal(outcome.llmCalls, 0);
  const failed = events.find((e) => e.event === 'ToolFailed');
  assert.deepEqual(
    { tool: failed.tool, category: failed.category, transient: failed.transient, message: failed.message },
    // A thrown error is no proof of an outage: transient (seed 003's structured failures say more).
    { tool: 'stripe', category: 'service', transient: true, message: 'stripe: 503 Service Unavailable' },
  );
  assert.ok(names(events).indexOf('Rerouted') > names(events).indexOf('ToolFailed'));
  assert.deepEqual(seen, [{ tool: 'razorpay', attempt: 1, context: { request: 'refund order 7', amount: 40 }, results: { crm: { customer: 'c_42', ok: true } } }]);
  assert.equal(r.health('stripe').state, 'open', 'the router keeps what the run learned');
  assert.deepEqual(r.route().path, ['start', 'crm', 'razorpay', 'email', 'done']);
});

test('run: concurrent fan-out branches run at the same time and join', async () => {
  const g = {
    nodes: [{ id: 's', tool: false }, { id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'j', join: { quorum: 3 } }, { id: 'g', tool: false }],
    edges: [
      { from: 's', to: 'a' }, { from: 's', to: 'b' }, { from: 's', to: 'c' },
      { from: 'a', to: 'j' }, { from: 'b', to: 'j' }, { from: 'c', to: 'j' }, { from: 'j', to: 'g' },
    ],
    start: 's',
    goal: 'g',
  };
  let running = 0;
  let peak = 0;
  const slow = (ms) => async () => {
    running += 1;
    peak = Math.max(peak, running);
    await new Promise((res) => setTimeout(res, ms));
    running -= 1;
    return { ok: true };
  };
  const t0 = Date.now();
  const { outcome, events } = await Router.fromJson(g).run(null, { tools: { a: slow(60), b: slow(30), c: slow(45), j: async () => ({}) } });
  assert.equal(peak, 3, 'a, b and c were in flight together');
  assert.ok(Date.now() - t0 < 150, 'branches overlapped in time');
  assert.equal(outcome.status, 'completed');
  const done = events.filter((e) => e.event === 'ToolSucceeded').map((e) => e.tool);
  assert.deepEqual(done, ['b', 'c', 'a', 'j'], 'reported as each settled');
});

test('run: escalation asks the host, and its decision is applied', async () => {
  const down = { stripe: async () => { throw new Error('down'); }, razorpay: async () => { throw new Error('down'); } };
  const requests = [];
  const g = refundGraph();
  g.nodes.push({ id: 'manual_review', tool: false });
  g.edges.push({ from: 'crm', to: 'manual_review', cost: 5 });
  const { outcome, events } = await Router.fromJson(g).run(null, {
    tools: okTools(down),
    escalate: async (req) => {
      requests.push(req);
      return { decision: 'demote', goal: 'manual_review' };
    },
  });
  assert.equal(requests.length, 1);
  assert.equal(requests[0].reason, 'no_path');
  assert.deepEqual(requests[0].failed.sort(), ['razorpay', 'stripe']);
  assert.equal(outcome.status, 'demoted');
  assert.equal(outcome.goal, 'manual_review');
  assert.equal(outcome.llmCalls, 1);
  assert.ok(names(events).includes('GoalDemoted'));

  const aborted = await Router.fromJson(refundGraph()).run(null, { tools: okTools(down), escalate: () => ({ decision: 'abort', message: 'refund by hand' }) });
  assert.equal(aborted.outcome.status, 'escalated');
  assert.equal(aborted.outcome.message, 'refund by hand');

  const none = await Router.fromJson(refundGraph()).run(null, { tools: okTools(down) });
  assert.equal(none.outcome.status, 'escalated');
  assert.match(none.outcome.message, /no escalate callback/);
});

test('run: a risk rule escalates before acting and approve carries on', async () => {
  const g = refundGraph();
  g.risk_rules = [{ key: 'amount', max: 100, stage: 'payment' }];
  const reasons = [];
  const { outcome } = await Router.fromJson(g).run({ context: { amount: 15000 } }, {
    tools: okTools(),
    escalate: (req) => { reasons.push(req.reason); return { decision: 'approve' }; },
  });
  assert.deepEqual(reasons, ['risk']);
  assert.equal(outcome.status, 'completed');
});

test('run: deterministic with a fake clock, task start/goal honoured', async () => {
  const go = async () => {
    const vt = new VirtualTime(1000);
    const tools = okTools({ crm: async () => { await vt.sleep(25); return { customer: 'c' }; } });
    // The same key too: a run without one draws a random key for its calls' idempotency keys.
    const task = { goal: 'email', id: 'order-7' };
    return vt.drive(Router.fromJson(refundGraph()).run(task, { tools, clock: vt.clock, sleep: vt.sleep }));
  };
  const a = await go();
  const b = await go();
  assert.deepEqual(a, b);
  assert.deepEqual(a.outcome.path, ['start', 'crm', 'stripe', 'email']);
  assert.equal(a.events.find((e) => e.event === 'ToolSucceeded').at, 1025);
  assert.equal(a.events.find((e) => e.event === 'ToolSucceeded').latencyMs, 25);
});

test('run: retry backoff waits until notBefore through sleep', async () => {
  const g = refundGraph();
  // Without jitter the first retry waits exactly backoff_ms.
  g.nodes[2] = { id: 'stripe', stage: 'payment', retry: { attempts: 1, backoff_ms: 500, jitter: false } };
  const vt = new VirtualTime();
  let n = 0;
  const tools = okTools({
    stripe: async ({ attempt }) => {
      n += 1;
      if (attempt === 1) return { success: false, error: '429 slow down', category: 'service', transient: true };
      return { refund: 'ok' };
    },
  });
  const { outcome, events } = await vt.drive(Router.fromJson(g).run(null, { tools, clock: vt.clock, sleep: vt.sleep }));
  assert.equal(n, 2);
  assert.equal(outcome.retries, 1);
  const retried = events.find((e) => e.event === 'Retried');
  assert.equal(retried.notBefore, 500);
  const second = events.filter((e) => e.event === 'ToolCalled' && e.tool === 'stripe')[1];
  assert.equal(second.attempt, 2);
  assert.equal(vt.now >= 500, true);
  assert.equal(outcome.status, 'completed');
});

test('run: what the host tells the router while a run is going, the run routes on at once', async () => {
  const r = Router.fromJson(refundGraph(), { clock: () => 100 });
  const tools = okTools({
    crm: async () => {
      // Razorpay is found down elsewhere while this run is at its first step.
      r.record('razorpay', { ok: false, hard: true });
      return {};
    },
    stripe: async () => { throw new Error('down'); },
  });
  const { outcome, events } = await r.run(null, { tools });
  // One live health: the run never calls razorpay, and with both payment tools down it escalates.
  assert.equal(events.some((e) => e.event === 'ToolCalled' && e.tool === 'razorpay'), false);
  assert.equal(outcome.status, 'escalated');
  assert.equal(r.health('stripe').state, 'open', 'what the run learned');
  assert.equal(r.health('razorpay').state, 'open', 'what the host said');
  // And the run ending hands nothing back that could undo the host's later word.
  r.markUp('razorpay');
  await r.run({ goal: 'crm' }, { tools: okTools() });
  assert.equal(r.health('razorpay').state, 'closed');
});

test('run: concurrent runs share one health: a dead tool is called a few times, not once per run', async () => {
  const r = Router.fromJson(refundGraph(), { clock: () => 100 });
  let stripeCalls = 0;
  const tools = okTools({ stripe: async () => { stripeCalls += 1; throw new Error('503'); } });
  const results = await Promise.all(Array.from({ length: 200 }, () => r.run(null, { tools })));
  assert.ok(results.every(({ outcome }) => outcome.status === 'completed'));
  // The slow-start window lets 3 calls reach a tool with no record; a thrown error is transient,
  // so a run may retry once within the retry budget; 3 failures in a row open the breaker.
  assert.ok(stripeCalls <= 6, `${stripeCalls} calls to a dead tool from 200 runs`);
  assert.match(r.metrics(), /shr_tool_calls_total\{tool="stripe"\} [1-6]\n/);
  assert.match(r.metrics(), /shr_runs_finished_total\{status="completed"\} 200\n/);
});

test('route from a failed start tool is null, as a run would escalate', () => {
  const r = Router.fromJson({
    nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c', tool: false }],
    edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }], start: 'a', goal: 'c',
  });
  assert.deepEqual(r.route(null, null, 0).path, ['a', 'b', 'c']);
  r.markDown('a', 0);
  assert.equal(r.route(null, null, 0), null);
});
