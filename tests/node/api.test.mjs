// Every exported function of the wasm package: Router (fromJson/new, warnings, toJson, tools,
// route, markDown, markUp, record, health, session, run), Session (next, report,
// resolveEscalation, events, outcome, isFinished, escalation), version, and the package itself.
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

test('Session: the core loop driven by hand', async () => {
  const r = Router.fromJson(refundGraph());
  const s = r.session({ context: {} }, 0);
  assert.ok(s instanceof Session);
  assert.equal(s.isFinished, false);
  assert.equal(s.escalation(), null);
  assert.equal(s.outcome(), null);
  let a = s.next(0);
  const crm = { tool: 'crm', attempt: 1, notBefore: 0, delayMs: 0, callId: 'run-1:crm:1', timeoutMs: 10000 };
  assert.deepEqual(a, { action: 'call_tools', calls: [crm] });
  assert.deepEqual(s.next(1), { action: 'wait' });
  await expectCode(() => s.report('stripe', { result: 'ok' }, 2), 'not_in_flight', assert);
  await expectCode(() => s.report('crm', { result: 'maybe' }, 2), 'bad_result', assert);
  await expectCode(() => s.report('ghost', { result: 'ok' }, 2), 'unknown_tool', assert);
  await expectCode(() => s.resolveEscalation({ decision: 'approve' }, 2), 'no_escalation', assert);
  await expectCode(() => s.next(-5), 'bad_clock', assert);
  s.report('crm', { result: 'ok', output: { customer: 'c' }, latencyMs: 10 }, 10);
  a = s.next(10);
  assert.equal(a.calls[0].tool, 'stripe');
  s.report('stripe', { result: 'err', category: 'service', message: 'down' }, 20);
  a = s.next(20);
  assert.equal(a.calls[0].tool, 'razorpay');
  s.report('razorpay', { result: 'ok', latencyMs: 3 }, 30);
  a = s.next(30);
  s.report(a.calls[0].tool, { result: 'ok' }, 40);
  a = s.next(40);
  assert.equal(a.action, 'finished');
  assert.equal(s.isFinished, true);
  assert.deepEqual(s.outcome(), a.outcome);
  const all = s.events();
  assert.equal(all.at(-1).event, 'Finished');
  assert.deepEqual(s.events(all.length - 2), all.slice(-2));
  await expectCode(() => s.report('email', { result: 'ok' }, 50), 'finished', assert);
  // Events taken with pollEvents are gone from the session.
  assert.equal(s.pollEvents().length, all.length);
  assert.deepEqual(s.events(), []);
  s.free();
  // A session runs on the router's one live health: what it reported, the router knows.
  assert.equal(r.health('stripe', 50).state, 'open');
  await expectCode(() => r.session({ goal: 'nowhere' }), 'bad_task', assert);
});

test('Session: escalations and decisions by hand', async () => {
  const r = Router.fromJson(refundGraph());
  r.markDown('stripe', 0);
  r.markDown('razorpay', 0);
  const s = r.session(undefined, 0);
  const a = s.next(0);
  assert.equal(a.action, 'escalate');
  assert.equal(a.request.reason, 'no_path');
  assert.deepEqual(s.escalation(), a.request);
  await expectCode(() => s.resolveEscalation({ decision: 'demote', goal: 'atlantis' }, 1), 'bad_decision', assert);
  await expectCode(() => s.resolveEscalation({ decision: 'shrug' }, 1), 'bad_decision', assert);
  await expectCode(() => s.resolveEscalation('approve', 1), 'bad_decision', assert);
  s.resolveEscalation({ decision: 'hand_off', to: 'support team' }, 1);
  assert.equal(s.next(1).outcome.message, 'handed off to support team');
});

test('version', () => {
  assert.match(shr.version(), /^\d+\.\d+\.\d+$/);
});

test('the package installs: require, import and types resolve through package.json', () => {
  const pkg = JSON.parse(readFileSync(`${PKG}package.json`, 'utf8'));
  assert.equal(pkg.name, 'shr-wasm');
  assert.equal(pkg.main, './node/index.cjs');
  assert.equal(pkg.browser, './web/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'shr-wasm-install-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PKG, join(dir, 'node_modules', 'shr-wasm'), 'dir');
  writeFileSync(join(dir, 'a.mjs'), "import { Router } from 'shr-wasm';\nconsole.log(Router.fromJson({nodes:[{id:'s',tool:false},{id:'t'}],edges:[{from:'s',to:'t'}],start:'s',goal:'t'}).route().cost);\n");
  writeFileSync(join(dir, 'b.cjs'), "const { Router } = require('shr-wasm');\nconsole.log(typeof Router.fromJson);\n");
  assert.equal(execFileSync(process.execPath, ['a.mjs'], { cwd: dir }).toString().trim(), '1');
  assert.equal(execFileSync(process.execPath, ['b.cjs'], { cwd: dir }).toString().trim(), 'function');
  const dts = readFileSync(`${PKG}node/shr_wasm.d.ts`, 'utf8') + readFileSync(`${PKG}node/index.d.ts`, 'utf8');
  for (const t of ['export interface RunOptions', 'export type ShrEvent', 'export type Decision', 'export interface Outcome', 'export interface EscalationRequest', 'export interface Task', 'export declare class ShrError', 'export declare function isShrError', 'run(task: Task | null | undefined, options: RunOptions): Promise<RunResult>', 'route(start?: string | null, goal?: string | null, now?: number | null): Route | null']) {
    assert.ok(dts.includes(t), `d.ts lacks ${t}`);
  }
  assert.ok(readFileSync(`${PKG}web/shr_wasm.d.ts`, 'utf8').includes('export default function __wbg_init'));
  assert.ok(readFileSync(`${PKG}web/index.d.ts`, 'utf8').includes('export default init'));
});

test('the web build initializes from bytes and behaves like the Node build', async () => {
  const web = await import(`${PKG}web/shr_wasm.js`);
  web.initSync({ module: readFileSync(`${PKG}web/shr_wasm_bg.wasm`) });
  const r = web.Router.fromJson(refundGraph(), { clock: () => 0 });
  r.markDown('stripe');
  assert.deepEqual(r.route(), {
    path: ['start', 'crm', 'razorpay', 'email', 'done'],
    edges: [['start', 'crm'], ['crm', 'razorpay'], ['razorpay', 'email'], ['email', 'done']],
    cost: 4,
  });
  const down = okTools({ razorpay: async () => { throw new Error('down'); } });
  const { outcome } = await r.run(null, { tools: down, escalate: () => ({ decision: 'abort', message: 'no payment tool' }) });
  assert.equal(outcome.status, 'escalated');
  assert.equal(outcome.message, 'no payment tool');
  const e = await expectCode(() => web.Router.fromJson('{'), 'invalid_graph', assert);
  assert.equal(e.problems[0].kind, 'malformed_json');
});

/** Every key of every object in `v`, at any depth. */
const keysOf = (v, out = []) => {
  if (Array.isArray(v)) v.forEach((x) => keysOf(x, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push(k); keysOf(x, out); }
  return out;
};

test('one convention: every key of every object the API returns is camelCase', async () => {
  const g = refundGraph();
  g.nodes[2] = { id: 'stripe', stage: 'payment', retry: { attempts: 1, backoff_ms: 1, jitter: false } };
  g.nodes.push({ id: 'manual', tool: false });
  g.edges.push({ from: 'crm', to: 'manual', cost: 9 });
  g.risk_rules = [{ key: 'amount', max: 100, stage: 'payment' }];
  const r = Router.fromJson(g, { config: { toolBudget: 20, breaker: { cooldownMs: 500 } } });
  const returned = [];
  const inputs = [];
  const down = async (input) => { inputs.push(input); return { success: false, error: 'down', transient: true, agentAction: 'try later' }; };
  const { outcome, events } = await r.run({ context: { amount: 500 } }, {
    tools: okTools({ stripe: down, razorpay: down }),
    escalate: (req) => {
      returned.push(req);
      return req.reason === 'risk' ? { decision: 'approve' } : { decision: 'demote', goal: 'manual' };
    },
    onEvent: (e) => returned.push(e),
  });
  returned.push(outcome, events, r.health('stripe'), r.health('crm'), r.route(), r.warnings, r.tools(), r.toJson().nodes.length);
  // Event kinds seen here: planned, signals, calls, failures with agentAction, retries,
  // breaker changes, reweights, reroutes, escalations, demotion, finish.
  const kinds = new Set(events.map((e) => e.event));
  for (const k of ['PathPlanned', 'SignalRaised', 'ToolFailed', 'Retried', 'Escalated', 'GoalDemoted', 'Finished']) {
    assert.ok(kinds.has(k), `${k} in ${[...kinds]}`);
  }
  // A session by hand: actions, calls, its events, escalation and outcome.
  const h = Router.fromJson(refundGraph());
  h.markDown('stripe', 0);
  h.markDown('razorpay', 0);
  const s = h.session(null, 0);
  returned.push(s.next(0), s.events(), s.escalation());
  s.resolveEscalation({ decision: 'hand_off', to: 'ops' }, 1);
  returned.push(s.next(1), s.outcome(), s.pollEvents());
  const t = Router.fromJson(refundGraph()).session(null, 0);
  returned.push(t.next(0));
  // Errors and their properties.
  for (const f of [() => Router.fromJson({ nodes: [{ id: 'a' }, { id: 'a' }] }), () => r.markDown('fax'), () => r.session({ goal: 'mars' })]) {
    try { f(); } catch (e) { returned.push({ ...e }); }
  }
  const snake = keysOf(returned).filter((k) => k.includes('_'));
  assert.deepEqual([...new Set(snake)], []);
  for (const k of ['llmCall', 'fromPlan', 'toPlan', 'notBefore', 'delayMs', 'agentAction', 'latencyMs', 'baseCost', 'rateLimit', 'originalGoal', 'toolCalls', 'llmCalls']) {
    assert.ok(keysOf(returned).includes(k), `${k} was returned`);
  }
  // What a tool receives has camelCase keys too (its context and results are the host's own data).
  assert.deepEqual(Object.keys(inputs[0]), ['tool', 'attempt', 'callId', 'signal', 'context', 'results']);
});

test('one convention: a snake_case key written is refused with a code naming it', async () => {
  const r = Router.fromJson(refundGraph());
  const refused = [
    [() => Router.fromJson(refundGraph(), { config: { tool_budget: 3 } }), 'bad_options', /options\.config\.tool_budget: keys are camelCase in JS: `toolBudget`/],
    [() => Router.fromJson(refundGraph(), { config: { admission: { retry_budget: { min_retries: 1 } } } }), 'bad_options', /options\.config\.admission\.retry_budget: keys are camelCase in JS: `retryBudget`/],
    [() => r.run(null, { tools: okTools(), on_event: () => {} }), 'bad_options', /options\.on_event: keys are camelCase in JS: `onEvent`/],
    [() => r.run(null, { tools: okTools(), timeout_ms: 5 }), 'bad_options', /options\.timeout_ms: keys are camelCase in JS: `timeoutMs`/],
    [() => r.record('stripe', { ok: true, latency_ms: 5 }), 'bad_record', /outcome\.latency_ms: keys are camelCase in JS: `latencyMs`/],
    [() => r.session(null, 0).report('crm', { result: 'ok', latency_ms: 3 }, 1), 'bad_result', /result\.latency_ms: keys are camelCase in JS: `latencyMs`/],
    [() => r.session(null, 0).report('crm', { result: 'err', category: 'service', agent_action: 'x' }, 1), 'bad_result', /result\.agent_action: keys are camelCase in JS: `agentAction`/],
  ];
  for (const [call, code, message] of refused) {
    const e = await expectCode(call, code, assert);
    assert.match(e.message, message);
  }
});

test('one convention: a key nobody reads is refused, not ignored', async () => {
  const r = Router.fromJson(refundGraph());
  const s = () => { const x = r.session(null, 0); x.next(0); return x; };
  const refused = [
    // A misspelt camelCase key, and a key of the other kind of result.
    [() => s().report('crm', { result: 'ok', latencyMS: 3 }, 1), 'bad_result', /result\.latencyMS: unknown field `latencyMS`/],
    [() => s().report('crm', { result: 'ok', category: 'input' }, 1), 'bad_result', /result\.category: unknown field `category`/],
    [() => s().report('crm', { result: 'err', category: 'input', output: 1 }, 1), 'bad_result', /result\.output: unknown field `output`/],
    [() => r.record('stripe', { ok: true, latencyMS: 5 }), 'bad_record', /unknown field `latencyMS`, expected one of `ok`, `latencyMs`, `hard`, `at`/],
    [() => r.session({ goal: 'done', known_bad: ['stripe'] }), 'bad_task', /task\.known_bad: keys are camelCase in JS/],
  ];
  for (const [call, code, message] of refused) {
    const e = await expectCode(call, code, assert);
    assert.match(e.message, message);
  }
  // A decision carrying what its kind does not read: `goal` on approve would be lost.
  const down = okTools({ stripe: async () => { throw new Error('down'); }, razorpay: async () => { throw new Error('down'); } });
  for (const [answer, named] of [
    [{ decision: 'approve', goal: 'done' }, /decision\.goal: unknown field `goal`/],
    [{ decision: 'abort', message: 'stop', reason: 'why' }, /decision\.reason: unknown field `reason`/],
    [{ decision: 'abort', message: 'stop', agent_action: 'x' }, /decision\.agent_action: keys are camelCase in JS: `agentAction`/],
  ]) {
    const e = await expectCode(() => Router.fromJson(refundGraph()).run(null, { tools: down, escalate: () => answer }), 'bad_decision', assert);
    assert.match(e.message, named);
  }
  // Null is "not given", as the TypeScript types allow.
  const { outcome } = await Router.fromJson(refundGraph()).run({ goal: null, start: null, context: null }, { tools: okTools(), escalate: null, timeoutMs: null });
  assert.equal(outcome.status, 'completed');
  const x = Router.fromJson(refundGraph(), { config: { toolBudget: null, breaker: null }, clock: null }).session(null, 0);
  x.next(0);
  x.report('crm', { result: 'ok', latencyMs: null, output: null }, 1);
  assert.equal(x.next(1).action, 'call_tools');
});

test('one convention: user data and the graph description stay as written', async () => {
  const r = Router.fromJson(refundGraph());
  let seen;
  const { outcome } = await r.run({ context: { order_id: 7, nested: { snake_key: true } } }, {
    tools: okTools({
      crm: async ({ context }) => ({ customer_id: 'c_1', echo: context }),
      stripe: async ({ results }) => { seen = results.crm; return {}; },
    }),
  });
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(seen, { customer_id: 'c_1', echo: { order_id: 7, nested: { snake_key: true } } });
  const s = r.session(null, 0);
  s.next(0);
  s.report('crm', { result: 'ok', latencyMs: 3, output: { user_data: 'kept as written' } }, 1);
  // The graph description is a file format shared with the CLI: toJson gives it back as written.
  const g = refundGraph();
  g.nodes[1] = { id: 'crm', stage: 'lookup', baseline_latency_ms: 50 };
  assert.equal(Router.fromJson(g).toJson().nodes[1].baseline_latency_ms, 50);
});

test('a structured failure: seed 003\'s agent_action is read as agentAction; any other unknown key is named', async () => {
  const run = async (stripe) => {
    const requests = [];
    const res = await Router.fromJson(refundGraph()).run(null, {
      tools: okTools({ stripe, razorpay: async () => { throw new Error('down'); } }),
      escalate: (req) => { requests.push(req); return { decision: 'abort', message: 'stop' }; },
    });
    return { failure: res.events.find((e) => e.event === 'ToolFailed' && e.tool === 'stripe'), requests };
  };
  // Seed 003's format, verbatim.
  const seed = await run(async () => ({ success: false, error: 'API unavailable', agent_action: 'Tell the patient to wait.' }));
  assert.equal(seed.failure.agentAction, 'Tell the patient to wait.');
  assert.equal(seed.failure.message, 'API unavailable');
  const camel = await run(async () => ({ success: false, error: 'API unavailable', agentAction: 'Tell the patient to wait.' }));
  assert.deepEqual(camel.failure, { ...seed.failure, seq: camel.failure.seq, at: camel.failure.at });
  // A misspelt key would change what the failure means (its category): named, with the tool's error kept.
  const typo = await run(async () => ({ success: false, error: 'amount missing', catgory: 'input' }));
  assert.equal(typo.failure.category, 'service');
  assert.match(typo.failure.message, /^`stripe` returned malformed data: unknown field `catgory` in a structured failure \(known: .*\); its error: amount missing$/);
  const both = await run(async () => ({ success: false, error: 'x', agentAction: 'a', agent_action: 'b' }));
  assert.match(both.failure.message, /`agentAction` and `agent_action` are the same field/);
  // A success is the tool's own data: whatever its keys.
  const ok = await Router.fromJson(refundGraph()).run(null, { tools: okTools({ stripe: async () => ({ success: true, refund_id: 'r', whatever_else: 1 }) }) });
  assert.deepEqual(ok.outcome.path, ['start', 'crm', 'stripe', 'email', 'done']);
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
