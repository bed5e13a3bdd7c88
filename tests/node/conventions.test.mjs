// One convention across the wasm package's API: every key it returns is camelCase, a snake_case
// or unknown key written is refused with a code naming it, and user data and the graph
// description stay as written. Split from api.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, symlinkSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { shr, PKG, Router, Session, VirtualTime, refundGraph, okTools, names, expectCode } from './helpers.mjs';

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

test('one shape: a tool input and a run result keep their accessors; a prompt tool arms no timer', async () => {
  // Issue 48 (the driver's CPU) made one getter serve every input and result: what users see of
  // them must be what an object literal with `get signal()` and `get/set events()` shows.
  const inputs = [];
  const r = Router.fromJson(refundGraph());
  const realSetTimeout = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = (...args) => { timers += 1; return realSetTimeout(...args); };
  let res;
  try {
    res = await r.run(null, { tools: okTools({ crm: async (input) => { inputs.push(input); return { ok: true }; } }) });
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  assert.equal(timers, 0, 'a tool that settles at once needs no timeout timer');
  const [input] = inputs;
  assert.equal(Object.getPrototypeOf(input), Object.prototype);
  assert.deepEqual(Reflect.ownKeys(input), ['tool', 'attempt', 'callId', 'signal', 'context', 'results']);
  const signal = Object.getOwnPropertyDescriptor(input, 'signal');
  assert.equal(signal.get.name, 'get signal');
  assert.deepEqual([signal.set, signal.enumerable, signal.configurable], [undefined, true, true]);
  assert.ok({ ...input }.signal instanceof AbortSignal, 'a spread copy carries the signal');
  assert.equal(input.signal, input.signal, 'one signal per call');
  assert.deepEqual(Reflect.ownKeys(res), ['outcome', 'events']);
  const events = Object.getOwnPropertyDescriptor(res, 'events');
  assert.deepEqual([events.get.name, events.set.name, events.enumerable, events.configurable], ['get events', 'set events', true, true]);
  assert.equal(res.events[0].event, 'PathPlanned');
  assert.ok(Object.getOwnPropertyDescriptor(res, 'events').writable, 'read once, a data property');
  const other = await r.run(null, { tools: okTools() });
  other.events = ['mine'];
  assert.deepEqual(other.events, ['mine']);
  // An inherited setter does not take an input's own keys.
  Object.defineProperty(Object.prototype, 'results', { set() {}, configurable: true });
  try {
    await r.run(null, { tools: okTools({ crm: async (input) => { inputs.push(input); return { ok: true }; } }) });
  } finally {
    delete Object.prototype.results;
  }
  assert.deepEqual(Object.keys(inputs[1]), ['tool', 'attempt', 'callId', 'signal', 'context', 'results']);
  assert.deepEqual(inputs[1].results, {});
});

test('one shape: outputs of tools named `__proto__`, `constructor` or a polluted key reach later tools', async () => {
  // A tool's output is kept in `results` under its id: defined as an own key, never assigned
  // through what the object inherits (a setter on Object.prototype, the `__proto__` accessor).
  const ids = ['__proto__', 'constructor', 'polluted', 'last'];
  const chain = ['start', ...ids, 'done'];
  const r = Router.fromJson({
    nodes: chain.map((id) => (id === 'start' || id === 'done' ? { id, tool: false } : { id })),
    edges: chain.slice(1).map((to, i) => ({ from: chain[i], to })),
    start: 'start',
    goal: 'done',
  });
  const seen = [];
  const tools = {};
  ids.forEach((id, i) => Object.defineProperty(tools, id, {
    enumerable: true,
    value: async (input) => { seen.push(input.results); return { n: i }; },
  }));
  let setterCalls = 0;
  Object.defineProperty(Object.prototype, 'polluted', {
    get() { return 'inherited'; },
    set() { setterCalls += 1; throw new Error('a polluted setter ran'); },
    configurable: true,
  });
  let res;
  try {
    res = await r.run(null, { tools });
  } finally {
    delete Object.prototype.polluted;
  }
  assert.deepEqual(res.outcome.path, chain);
  assert.equal(setterCalls, 0);
  const last = seen[3];
  assert.deepEqual(Object.keys(last), ['__proto__', 'constructor', 'polluted']);
  assert.equal(Object.getPrototypeOf(last), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(last, '__proto__').value, { n: 0 });
  assert.deepEqual(last.constructor, { n: 1 });
  assert.deepEqual(Object.getOwnPropertyDescriptor(last, 'polluted').value, { n: 2 });
  assert.deepEqual(Object.keys(seen[1]), ['__proto__'], 'each tool sees the outputs before it');
});
