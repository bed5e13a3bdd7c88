// Hostile hosts: whatever a tool does (throw, reject, return garbage, never settle) is recorded
// as a failure with the right category and the run carries on around it; whatever the host gets
// wrong in its own arguments comes back as an Error with a stable `code` and a message naming
// the field. The last test checks that none of it trapped the wasm instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Router, VirtualTime, PKG, refundGraph, okTools, names, expectCode } from './helpers.mjs';

const BACKUP = ['start', 'crm', 'razorpay', 'email', 'done'];

/** Runs the refund with this stripe; returns the result and stripe's ToolFailed events. */
async function withStripe(stripe, options = {}, task = null) {
  const result = await Router.fromJson(refundGraph()).run(task, { tools: okTools({ stripe }), ...options });
  const failures = result.events.filter((e) => e.event === 'ToolFailed' && e.tool === 'stripe');
  return { ...result, failures };
}

/** The run went around stripe: one failure, then a reroute through razorpay. */
function assertRerouted({ outcome, events, failures }) {
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(outcome.path, BACKUP);
  assert.ok(failures.length >= 1, 'stripe failed');
  const n = names(events);
  assert.ok(n.indexOf('Rerouted') > n.indexOf('ToolFailed'), 'a reroute follows the failure');
}

/** Lets every pending microtask and immediate run. */
const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

test('a tool that throws is a transient service failure carrying the message: retried, then routed around', async () => {
  for (const stripe of [
    async () => { throw new Error('stripe: 503 Service Unavailable'); },
    () => { throw new Error('stripe: 503 Service Unavailable'); },
  ]) {
    const run = await withStripe(stripe);
    assertRerouted(run);
    assert.deepEqual(
      run.failures.map(({ category, transient, implicit, message }) => ({ category, transient, implicit, message })),
      // An untyped error is no proof of an outage: one retry (the default policy), then a reroute.
      Array(2).fill({ category: 'service', transient: true, implicit: false, message: 'stripe: 503 Service Unavailable' }),
    );
  }
});

test('a tool that throws something other than an Error still fails readably', async () => {
  const cases = [
    ['card network down', 'card network down'],
    [42, '42'],
    [undefined, 'undefined'],
    [null, 'null'],
    [{ status: 503 }, '{"status":503}'],
    [{ message: 'has a message' }, 'has a message'],
  ];
  for (const [thrown, message] of cases) {
    const run = await withStripe(async () => { throw thrown; });
    assertRerouted(run);
    assert.equal(run.failures[0].category, 'service');
    assert.equal(run.failures[0].message, message);
  }
});

test('a tool that rejects is a transient service failure; a structured permanent one is not retried', async () => {
  const run = await withStripe(() => Promise.reject(new TypeError('fetch failed')));
  assertRerouted(run);
  assert.equal(run.failures.length, 2, 'transient: one retry');
  assert.deepEqual(
    { category: run.failures[0].category, transient: run.failures[0].transient, message: run.failures[0].message },
    { category: 'service', transient: true, message: 'fetch failed' },
  );
  const hard = await withStripe(async () => ({ success: false, error: 'account closed', transient: false }));
  assertRerouted(hard);
  assert.equal(hard.failures.length, 1, 'permanent: no retry');
  assert.equal(hard.events.find((e) => e.event === 'BreakerChanged' && e.tool === 'stripe')?.to, 'open', 'opens at once');
});

test('malformed data from a tool is a service failure naming the tool', async () => {
  const cyclic = { refund: 'rf' };
  cyclic.self = cyclic;
  const cases = {
    bigint: () => 10n,
    cycle: () => cyclic,
    function: () => () => 'not data',
    symbol: () => Symbol('refund'),
    'unknown category': () => ({ success: false, error: 'nope', category: 'cosmic' }),
    'transient not a boolean': () => ({ success: false, error: 'nope', transient: 'yes' }),
    'throwing getter': () => ({ get success() { throw new Error('getter exploded'); } }),
    'throwing toJSON': () => ({ toJSON() { throw new Error('toJSON exploded'); } }),
    'too deep': () => {
      let v = {};
      for (let i = 0; i < 1000; i++) v = { v };
      return v;
    },
  };
  for (const [what, stripe] of Object.entries(cases)) {
    const run = await withStripe(async () => stripe());
    assertRerouted(run);
    const f = run.failures[0];
    assert.equal(f.category, 'service', what);
    assert.equal(f.transient, false, what);
    assert.match(f.message, /^`stripe` returned malformed data: /, what);
  }
});

test('a structured failure keeps its category: policy reroutes, input escalates', async () => {
  const policy = await withStripe(async () => ({
    success: false,
    error: 'refunds over 30 days need approval',
    category: 'policy',
    agentAction: 'use the manual refund flow',
  }));
  assertRerouted(policy);
  assert.deepEqual(
    { category: policy.failures[0].category, agentAction: policy.failures[0].agentAction },
    { category: 'policy', agentAction: 'use the manual refund flow' },
  );

  const requests = [];
  const input = await withStripe(
    // Seed 003's spelling of the field, as a tool may pass it through from its API.
    async () => ({ success: false, error: 'amount is missing', category: 'input', agent_action: 'ask the customer for the amount' }),
    { escalate: (req) => { requests.push(req); return { decision: 'abort', message: 'asked the customer' }; } },
  );
  assert.equal(input.failures[0].category, 'input');
  assert.equal(requests.length, 1);
  assert.equal(requests[0].reason, 'input');
  assert.equal(requests[0].agentAction, 'ask the customer for the amount', 'carried verbatim');
  assert.equal(input.outcome.status, 'escalated');
  assert.equal(input.outcome.message, 'asked the customer');
});

test('a missing tool function is a service failure naming the tool', async () => {
  for (const stripe of [undefined, 'stripe.refund', 7]) {
    const run = await withStripe(stripe);
    assertRerouted(run);
    assert.equal(run.failures[0].category, 'service');
    assert.match(run.failures[0].message, /`stripe`/);
  }
  const tools = okTools();
  Object.defineProperty(tools, 'stripe', { get() { throw new Error('vault locked'); } });
  const run = await Router.fromJson(refundGraph()).run(null, { tools });
  assert.deepEqual(run.outcome.path, BACKUP);
  assert.match(run.events.find((e) => e.event === 'ToolFailed').message, /vault locked/);
});

test('a tool that never settles times out after timeoutMs: transient, retried, then routed around', async () => {
  let calls = 0;
  let late = 0;
  const stripe = () => {
    calls += 1;
    // Settles long after the timeout: the late result must be ignored.
    return new Promise((resolve) => setTimeout(() => { late += 1; resolve({ refund: 'too late' }); }, 150));
  };
  const t0 = Date.now();
  const run = await withStripe(stripe, { timeoutMs: 25 });
  assert.ok(Date.now() - t0 < 140, 'did not wait for the slow tool');
  assertRerouted(run);
  assert.equal(calls, 2, 'one retry: the default retry policy');
  assert.deepEqual(
    run.failures.map(({ category, transient, message }) => ({ category, transient, message })),
    Array(2).fill({ category: 'service', transient: true, message: '`stripe` did not settle within 25 ms' }),
  );
  assert.ok(names(run.events).includes('Retried'));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(late, 2, 'both late results arrived after the run and changed nothing');
});

test('the default per-call timeout is 10 s', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  const seen = [];
  let calls = 0;
  let settled = false;
  // The default clock is monotonic (not mocked): read the mocked Date instead.
  const p = Router.fromJson(refundGraph()).run(null, {
    tools: okTools({ stripe: () => { calls += 1; return new Promise(() => {}); } }),
    onEvent: (e) => seen.push(e),
    clock: () => Date.now(),
  });
  p.then(() => { settled = true; }, () => { settled = true; });
  await flush();
  assert.equal(calls, 1);
  t.mock.timers.tick(9_999);
  await flush();
  assert.ok(!names(seen).includes('ToolFailed'), 'still waiting at 9999 ms');
  t.mock.timers.tick(1);
  await flush();
  const first = seen.find((e) => e.event === 'ToolFailed');
  assert.ok(first, 'timed out at 10000 ms');
  assert.equal(first.at, 10_000);
  assert.equal(first.message, '`stripe` did not settle within 10000 ms');
  assert.equal(first.transient, true);
  assert.equal(calls, 2, 'retried once');
  assert.equal(settled, false);
  t.mock.timers.tick(10_000);
  await flush();
  assert.equal(settled, true);
  const { outcome } = await p;
  assert.deepEqual(outcome.path, BACKUP);
});

test('timeoutMs must be a positive number; Infinity turns the timeout off', async () => {
  const r = Router.fromJson(refundGraph());
  for (const timeoutMs of [0, -5, NaN, 'soon', {}]) {
    const e = await expectCode(() => r.run(null, { tools: okTools(), timeoutMs }), 'bad_options', assert);
    assert.match(e.message, /options\.timeoutMs/);
  }
  const slow = async () => { await new Promise((res) => setTimeout(res, 40)); return { refund: 'slow but fine' }; };
  const run = await withStripe(slow, { timeoutMs: Infinity });
  assert.equal(run.failures.length, 0);
  assert.deepEqual(run.outcome.path, ['start', 'crm', 'stripe', 'email', 'done']);
});

test('run rejects (never throws) an Error with a code naming the field the host got wrong', async () => {
  const r = Router.fromJson(refundGraph());
  const cases = [
    [undefined, 'bad_options', /options must be an object/],
    [{}, 'bad_options', /options\.tools/],
    [{ tools: 'all of them' }, 'bad_options', /options\.tools/],
    [{ tools: okTools(), escalate: 5 }, 'bad_options', /options\.escalate/],
    [{ tools: okTools(), onEvent: 'log' }, 'bad_options', /options\.onEvent/],
    [{ tools: okTools(), sleep: true }, 'bad_options', /options\.sleep/],
    [{ tools: okTools(), clock: () => 'noon' }, 'bad_clock', /clock\(\)/],
    [{ tools: okTools(), clock: () => { throw new Error('no time'); } }, 'bad_clock', /clock\(\) threw: no time/],
    [{ get tools() { throw new Error('trap'); } }, 'bad_options', /options\.tools: reading it threw: trap/],
    [{ tools: okTools(), timeout: 50 }, 'bad_options', /options\.timeout: unknown option \(known: tools, escalate, onEvent, timeoutMs/],
    [new Proxy({ tools: okTools() }, { ownKeys() { throw new Error('no keys'); } }), 'bad_options', /options: listing its keys threw: no keys/],
  ];
  for (const [options, code, message] of cases) {
    let p;
    assert.doesNotThrow(() => { p = r.run(null, options); });
    assert.ok(p instanceof Promise);
    const e = await expectCode(() => p, code, assert);
    assert.match(e.message, message);
  }
  for (const task of [[], 'refund', 7]) {
    const e = await expectCode(() => r.run(task, { tools: okTools() }), 'bad_task', assert);
    assert.match(e.message, /task/);
  }
  const e = await expectCode(() => r.run({ goal: 'mars' }, { tools: okTools() }), 'bad_task', assert);
  assert.equal(e.node, 'mars');
  assert.match(e.message, /mars/);
  await expectCode(() => r.run({ context: 'not an object' }, { tools: okTools() }), 'bad_task', assert);
  // A misspelt field would otherwise send the run to the graph's own goal.
  const typo = await expectCode(() => r.run({ target: 'done' }, { tools: okTools() }), 'bad_task', assert);
  assert.match(typo.message, /unknown field `target`/);
  const tagged = { tools: okTools(), [Symbol('host tag')]: 1 };
  assert.equal((await r.run(null, tagged)).outcome.status, 'completed', 'symbol keys are not options');
});

test('a clock that breaks mid-run rejects with the events so far', async () => {
  let n = 0;
  const clock = () => (++n < 6 ? n : NaN);
  const e = await expectCode(() => Router.fromJson(refundGraph()).run(null, { tools: okTools(), clock }), 'bad_clock', assert);
  assert.ok(Array.isArray(e.events) && e.events.length > 0, 'events so far');
  assert.equal(e.events[0].event, 'PathPlanned');
  assert.match(e.message, /clock\(\)/);
});

test('a sleep that rejects during a retry backoff is bad_options', async () => {
  const g = refundGraph();
  g.nodes[2] = { id: 'stripe', stage: 'payment', retry: { attempts: 1, backoff_ms: 100 } };
  const tools = okTools({ stripe: async () => ({ success: false, error: '429', transient: true }) });
  const e = await expectCode(
    () => Router.fromJson(g).run(null, { tools, sleep: () => Promise.reject(new Error('no sleeping')) }),
    'bad_options',
    assert,
  );
  assert.match(e.message, /sleep\(\) failed: no sleeping/);
  assert.ok(names(e.events).includes('Retried'));
});

test('an onEvent listener that throws does not change the run', async () => {
  // One fixed clock for both runs: times and measured latencies are then equal by construction,
  // so any difference is the listener's doing (with the real clock a busy machine made one
  // latency 1 ms instead of 0).
  const clock = () => 0;
  // And one key: a run without one draws a random key for its calls.
  const task = { id: 'refund-1' };
  const quiet = await withStripe(async () => { throw new Error('down'); }, { clock }, task);
  let heard = 0;
  const loud = await withStripe(async () => { throw new Error('down'); }, {
    clock,
    onEvent: () => { heard += 1; throw new Error('listener bug'); },
  }, task);
  assert.equal(heard, loud.events.length);
  assert.deepEqual(loud.events, quiet.events);
  assert.deepEqual(loud.outcome, quiet.outcome);
});

test('an escalate callback that throws, rejects or answers nonsense rejects the run', async () => {
  const down = { stripe: async () => { throw new Error('down'); }, razorpay: async () => { throw new Error('down'); } };
  const run = (escalate) => Router.fromJson(refundGraph()).run(null, { tools: okTools(down), escalate });
  for (const escalate of [() => { throw new Error('llm offline'); }, () => Promise.reject(new Error('llm offline'))]) {
    const e = await expectCode(() => run(escalate), 'escalation_failed', assert);
    assert.match(e.message, /escalate\(\) failed: llm offline/);
    assert.ok(names(e.events).includes('Escalated'));
  }
  for (const answer of ['approve', null, 42, [], { decision: 'shrug' }, { decision: 'demote' }]) {
    const e = await expectCode(() => run(() => answer), 'bad_decision', assert);
    assert.match(e.message, /decision/);
  }
  const e = await expectCode(() => run(() => ({ decision: 'demote', goal: 'atlantis' })), 'bad_decision', assert);
  assert.match(e.message, /atlantis/);
});

test('route\'s internal exports refuse what the JS half would never pass, without trapping', async () => {
  const r = Router.fromJson(refundGraph());
  for (const [from, to] of [[1e6, 0], [0, -7], [-1, 0], [0, 2 ** 31 - 1]]) {
    assert.equal(r.__routeIx(from, to, false, 0), -2);
    const e = r.__routeError();
    assert.equal(e.code, 'unknown_node');
    assert.match(e.message, /no node has index/);
  }
  assert.equal(r.__routeIx(-2, -2, true, -5), -2);
  assert.equal(r.__routeError().code, 'bad_clock');
  assert.equal(r.__routeError().code, 'internal', 'an error is thrown once');
  assert.equal(r.__routeIx(-2, -2, true, 0), 3);
  // A freed router throws (wasm-bindgen's null-pointer check) instead of reading freed memory.
  const gone = Router.fromJson(refundGraph());
  gone.route();
  const session = gone.session(null, 0);
  session.free();
  gone.free();
  await expectCode(() => gone.route(), 'freed', assert);
  await expectCode(() => gone.route('nowhere'), 'freed', assert);
  await expectCode(() => gone.markDown('stripe'), 'freed', assert);
  await expectCode(() => gone.warnings, 'freed', assert);
  await expectCode(() => session.next(0), 'freed', assert);
  await expectCode(() => session.isFinished, 'freed', assert);
});

test('a tool id that is not a string is unknown_tool, never a trap', async () => {
  const r = Router.fromJson(refundGraph());
  for (const id of [5, null, {}, ['stripe'], true]) {
    await expectCode(() => r.markDown(id), 'unknown_tool', assert);
    await expectCode(() => r.markUp(id), 'unknown_tool', assert);
    await expectCode(() => r.record(id, { ok: true }), 'unknown_tool', assert);
    await expectCode(() => r.health(id), 'unknown_tool', assert);
    await expectCode(() => r.session().report(id, { result: 'ok' }, 0), 'unknown_tool', assert);
  }
  assert.equal(r.health('stripe').state, 'closed');
});

test('every run settles: an escalate, a sleep or a tool that never answers, with and without deadlineMs', async () => {
  const never = () => new Promise(() => {});
  const both = refundGraph();
  const down = okTools({ stripe: async () => { throw new Error('down'); }, razorpay: async () => { throw new Error('down'); } });
  // An escalate that never answers: the run ends escalated, saying why.
  const a = await Router.fromJson(both).run(null, { tools: down, escalate: never, escalateTimeoutMs: 50 });
  assert.equal(a.outcome.status, 'escalated');
  assert.match(a.outcome.message, /escalate\(\) did not answer within 50 ms/);
  // A tool that never settles, no per-call timeout, a run deadline: the run ends at it.
  const t0 = Date.now();
  const b = await Router.fromJson(refundGraph()).run(null, {
    tools: okTools({ crm: never }), timeoutMs: Infinity, deadlineMs: 100,
  });
  assert.ok(Date.now() - t0 < 5_000);
  assert.equal(b.outcome.status, 'escalated');
  assert.match(b.outcome.message, /deadline of 100 ms passed/);
  assert.ok(b.events.some((e) => e.event === 'Escalated' && e.reason === 'deadline' && e.llmCall === 0));
  // An escalate that never answers, with a deadline shorter than its timeout: the deadline wins.
  const c = await Router.fromJson(both).run(null, { tools: down, escalate: never, deadlineMs: 80 });
  assert.match(c.outcome.message, /deadline of 80 ms passed/);
  // A tool that never settles, no deadline: the default per-call timeout would end it; a short one here.
  const d = await Router.fromJson(refundGraph()).run(null, { tools: okTools({ stripe: never }), timeoutMs: 30 });
  assert.equal(d.outcome.status, 'completed');
  assert.deepEqual(d.outcome.path, BACKUP);
  // A host sleep that never settles: a second past the wait, the run ends, saying so.
  const g = refundGraph();
  g.nodes[2] = { id: 'stripe', stage: 'payment', retry: { attempts: 1, backoff_ms: 10, jitter: false } };
  let first = true;
  const t1 = Date.now();
  const e = await Router.fromJson(g).run(null, {
    tools: okTools({ stripe: async () => { if (first) { first = false; return { success: false, transient: true, error: '503' }; } return {}; } }),
    sleep: never,
  });
  assert.ok(Date.now() - t1 < 5_000);
  assert.equal(e.outcome.status, 'escalated');
  // The wait asked for is what is left of the 10 ms backoff on the run's real clock (a
  // millisecond may pass between the failure and the retry), and the limit a second past it.
  const [, asked, limit] = /^sleep\((\d+)\) did not settle within (\d+) ms$/.exec(e.outcome.message) ?? [];
  assert.ok(Number(asked) >= 1 && Number(asked) <= 10, e.outcome.message);
  assert.equal(Number(limit), Number(asked) + 1000, e.outcome.message);
  assert.ok(e.events.some((x) => x.event === 'Escalated' && x.reason === 'deadline'));
  assert.equal(first, false);
  // Each expiry is an event: the escalate timeout and the deadline too.
  for (const run of [a, b, c]) {
    assert.equal(run.events.at(-1).event, 'Finished');
    assert.ok(run.events.some((x) => x.event === 'Escalated' && x.reason === 'deadline'), run.outcome.message);
  }
  // Durations a timer cannot hold are refused, not turned into 1 ms.
  for (const key of ['timeoutMs', 'escalateTimeoutMs', 'deadlineMs']) {
    await expectCode(() => Router.fromJson(refundGraph()).run(null, { tools: okTools(), [key]: 2 ** 31 }), 'bad_options', assert);
  }
});

test('only own properties of tools are tools: constructor and toString are not run', async () => {
  const g = {
    nodes: [{ id: 's', tool: false }, { id: 'constructor' }, { id: 'toString' }, { id: 'g', tool: false }],
    edges: [{ from: 's', to: 'constructor', cost: 1 }, { from: 's', to: 'toString', cost: 2 },
      { from: 'constructor', to: 'g' }, { from: 'toString', to: 'g' }],
    start: 's', goal: 'g',
  };
  const { outcome, events } = await Router.fromJson(g).run(null, { tools: {} });
  assert.equal(outcome.status, 'escalated');
  const failed = events.filter((e) => e.event === 'ToolFailed').map((e) => e.message);
  assert.deepEqual(failed, ['options.tools has no function for `constructor`', 'options.tools has no function for `toString`']);
});

test('a later tool receives the value that was validated, not the live object', async () => {
  const g = refundGraph();
  g.nodes[1] = { id: 'crm', stage: 'lookup', validators: [{ field: 'amount', min: 0 }] };
  let seen;
  const tools = okTools({
    crm: async () => {
      const out = { amount: 40 };
      // The tool changes its object after returning it (a cache, a getter, a bug).
      setImmediate(() => { out.amount = -1; });
      return out;
    },
    stripe: async ({ results }) => {
      await new Promise((r) => setImmediate(r));
      seen = results.crm.amount;
      return {};
    },
  });
  const { outcome } = await Router.fromJson(g).run(null, { tools });
  assert.equal(outcome.status, 'completed');
  assert.equal(seen, 40);
});

test('a wall clock stepping back an hour during a retry changes no backoff', async () => {
  const g = refundGraph();
  g.nodes[2] = { id: 'stripe', stage: 'payment', retry: { attempts: 1, backoff_ms: 200, jitter: false } };
  const HOUR = 3_600_000;
  const calledAt = [];
  const tools = (step) => okTools({
    stripe: async ({ attempt }) => {
      calledAt.push(performance.now());
      if (attempt === 1) {
        step(); // the wall clock is set back an hour while the retry waits
        return { success: false, error: '503', transient: true };
      }
      return { refund: 'rf_1' };
    },
  });
  // A host clock that steps back.
  let back = 0;
  const clock = () => Date.now() - back;
  const a = await Router.fromJson(g).run(null, { tools: tools(() => { back = HOUR; }), clock });
  assert.equal(a.outcome.status, 'completed');
  assert.equal(a.outcome.retries, 1);
  const waited = calledAt[1] - calledAt[0];
  assert.ok(waited >= 190 && waited < 1_500, `the backoff took ${waited} ms`);
  assert.equal(a.events.find((e) => e.event === 'Retried').attempt, 2);

  // The default clock is monotonic: Date.now() stepping back moves neither the backoff, nor
  // event times, nor a breaker's cooldown.
  calledAt.length = 0;
  const realNow = Date.now;
  try {
    const r = Router.fromJson(g, { config: { breaker: { cooldownMs: 100 } } });
    const b = await r.run(null, { tools: tools(() => { Date.now = () => realNow() - HOUR; }) });
    assert.equal(b.outcome.status, 'completed');
    const waitedB = calledAt[1] - calledAt[0];
    assert.ok(waitedB >= 190 && waitedB < 1_500, `the backoff took ${waitedB} ms`);
    const at = b.events.map((e) => e.at);
    assert.deepEqual(at, [...at].sort((x, y) => x - y), 'event times never go back');
    r.markDown('email');
    assert.equal(r.health('email').state, 'open');
    await new Promise((res) => setTimeout(res, 150));
    assert.equal(r.health('email').state, 'half_open', 'the cooldown ended on time');
  } finally {
    Date.now = realNow;
  }
});

test('the module survives all of the above: nothing trapped', async () => {
  const vt = new VirtualTime();
  const r = Router.fromJson(refundGraph());
  const { outcome } = await vt.drive(r.run(null, { tools: okTools(), clock: vt.clock, sleep: vt.sleep }));
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(r.route().path, ['start', 'crm', 'stripe', 'email', 'done']);
});
