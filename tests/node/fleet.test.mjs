// Fleet health in one process over the in-memory bus: what one router learns, every router
// knows; the fleet sends one probe; hostile messages are refused with a code, never a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, refundGraph, sleep } from './helpers.mjs';
import { memoryHub, joinFleet, startProbes, broadcastBus, redisBus } from '../../packages/fleet/src/index.mjs';
import { hostileMessages } from '../../examples/fleet/hostile.mjs';
import { sealer } from '../../packages/fleet/src/sign.mjs';

const KEY = 'test-fleet-key-0123456789abcdef';

const COOLDOWN = 200;
const options = (origin) => ({ origin, config: { breaker: { cooldownMs: COOLDOWN } } });

/** N agents, each serving `tasks` refunds one after another, starting `stagger` ms apart;
 * stripe fails (a transient 503) until `down` is cleared. Returns calls per tool. */
async function serve({ agents, share, tasks = 6, stagger = 7, hub = memoryHub() }) {
  const calls = { stripe: 0, razorpay: 0 };
  const state = { down: true };
  const tools = {
    crm: async () => ({ customer: 'c_1' }),
    stripe: async () => {
      calls.stripe += 1;
      await sleep(3);
      if (state.down) return { success: false, error: 'stripe: 503 Service Unavailable', transient: true };
      return { refund: 'rf_1' };
    },
    razorpay: async () => {
      calls.razorpay += 1;
      await sleep(3);
      return { refund: 'rp_1' };
    },
    email: async () => ({ sent: true }),
    sms: async () => ({ sent: true }),
  };
  // stripe declares a probe: the core schedules it (every 20 ms at most) once its cooldown ends.
  const graph = refundGraph();
  graph.nodes = graph.nodes.map((n) => (n.id === 'stripe' ? { ...n, probe: { interval_ms: 20 } } : n));
  const routers = Array.from({ length: agents }, (_, i) => new Router(graph, options(`agent-${i}`)));
  const fleets = share ? await Promise.all(routers.map((r) => joinFleet(r, hub.bus(), { flushMs: 2, key: KEY }))) : [];
  const outcomes = [];
  await Promise.all(
    routers.map(async (r, i) => {
      await sleep(i * stagger);
      for (let t = 0; t < tasks; t += 1) {
        const opts = { tools, timeoutMs: 1000, deadlineMs: 5000 };
        const { outcome } = await r.run(null, share ? fleets[i].options(opts) : opts);
        outcomes.push(outcome.status);
        await sleep(5);
      }
    }),
  );
  return { calls, outcomes, routers, fleets, state, tools, hub };
}

test('with sharing the fleet stops calling a failing tool after about one threshold', async () => {
  // What one agent alone spends before it stops calling the tool: the call and its retry.
  const threshold = (await serve({ agents: 1, share: false })).calls.stripe;
  assert.ok(threshold >= 2);
  for (const agents of [4, 16]) {
    const alone = await serve({ agents, share: false });
    const shared = await serve({ agents, share: true });
    await Promise.all(shared.fleets.map((f) => f.close()));
    console.log(`# ${agents} agents: calls to the failing tool alone ${alone.calls.stripe}, shared ${shared.calls.stripe}`);
    assert.ok(alone.calls.stripe >= agents * threshold, `alone: ${alone.calls.stripe}`);
    // A threshold, plus calls that left before the news arrived (a few, whatever N).
    assert.ok(shared.calls.stripe <= threshold + 6, `shared: ${shared.calls.stripe}`);
    assert.ok(shared.outcomes.every((s) => s === 'completed'), shared.outcomes.join());
    // Open, or (the first to open, whose own cooldown started first) probing: never in use.
    for (const r of shared.routers) assert.notEqual(r.health('stripe').state, 'closed');
  }
});

test('after the tool recovers the fleet sends one probe and every member routes through it again', async () => {
  const run = await serve({ agents: 8, share: true, tasks: 4 });
  run.state.down = false;
  const probes = run.routers.map((r) => startProbes(r, { stripe: () => run.tools.stripe() }, { pollMs: 20 }));
  const before = run.calls.stripe;
  const deadline = Date.now() + COOLDOWN * 3 + 2000;
  while (run.routers.some((r) => r.health('stripe').state !== 'closed') && Date.now() < deadline) await sleep(10);
  probes.forEach((p) => p.stop());
  await Promise.all(run.fleets.map((f) => f.close()));
  const sent = probes.reduce((n, p) => n + p.counts.probes, 0);
  console.log(`# probes by the fleet after recovery: ${sent}; calls ${run.calls.stripe - before}`);
  assert.equal(sent, 1);
  for (const r of run.routers) assert.equal(r.health('stripe').state, 'closed');
});

test('a member that joins late starts from the fleet view', async () => {
  const hub = memoryHub();
  const a = new Router(refundGraph(), options('a'));
  // quorum 1: every member trusted alone (the default, 2, needs two members' evidence).
  const fa = await joinFleet(a, hub.bus(), { key: KEY, quorum: 1 });
  a.markDown('stripe');
  await fa.flush();
  const b = new Router(refundGraph(), options('b'));
  const fb = await joinFleet(b, hub.bus(), { key: KEY, quorum: 1 });
  assert.equal(b.health('stripe').state, 'open');
  assert.ok(!b.route().path.includes('stripe'));
  await Promise.all([fa.close(), fb.close()]);
});

test('hostile messages on the bus are refused with a code, none applied, and nothing crashes', async () => {
  const hub = memoryHub();
  const r = new Router(refundGraph(), options('me'));
  const f = await joinFleet(r, hub.bus(), { key: KEY });
  // Only invalid messages, whatever the receiver knows: every one must be refused. Sent bare
  // (as anyone on the bus could), then signed with the key (as a broken member would).
  const junk = [
    null, 42, 'not json', '{"tool":"stripe"}', [], { tool: 'stripe', change: 'opened', version: 1, origin: 'x' },
    { tool: 'nope', change: 'closed', version: 1, origin: 'x' },
    { tool: 'stripe', change: 'closed', version: 0, origin: 'x' },
    { tool: 'stripe', change: 'closed', version: 1, origin: 'me' },
    { tool: 'stripe', change: 'closed', version: 1.5, origin: 'x' },
    { tool: 'stripe', change: 'closed', version: 2 ** 53 - 1, origin: 'x' },
    'x'.repeat(10_000), { tool: 'stripe', change: 'opened', cooldown: -1, version: 1, origin: 'x' },
    ...hostileMessages({ n: 500, seed: 7, victim: 'me', tools: ['crm', 'stripe', 'razorpay', 'email', 'sms'] }),
  ];
  const seal = await sealer('test', { key: KEY, namespace: f.namespace, graph: f.graph });
  const plain = (m) => m && typeof m === 'object' && !Array.isArray(m) && !Object.keys(m).some((k) => !['tool', 'change', 'cooldown', 'version', 'origin'].includes(k));
  const signed = junk.filter(plain).map((m) => seal.seal(m));
  const before = JSON.stringify(r.route());
  for (const m of junk) hub.inject(m);
  await sleep(5);
  const bare = { ...f.stats.rejectedBy };
  for (const m of signed) hub.inject(m);
  await sleep(5);
  console.log(`# hostile: ${junk.length} bare messages refused ${JSON.stringify(bare)}; ${signed.length} signed by a key holder, refused ${JSON.stringify(f.stats.rejectedBy)}; ${f.stats.applied} applied`);
  assert.equal(f.stats.applied, 0, JSON.stringify(r.healthSnapshot()));
  assert.equal(f.stats.rejected, junk.length + signed.length);
  assert.equal((bare.unsigned ?? 0) + (bare.malformed ?? 0) + (bare.too_large ?? 0), junk.length, JSON.stringify(bare));
  // Every kind of refusal is met, each with a stable code.
  for (const code of ['unsigned', 'malformed', 'too_large', 'bad_delta', 'bad_origin', 'unknown_tool', 'bad_version', 'bad_change', 'ahead']) {
    assert.ok(f.stats.rejectedBy[code] > 0, `no ${code}: ${JSON.stringify(f.stats.rejectedBy)}`);
  }
  for (const v of f.rejections) assert.match(v.code, /^[a-z_]+$/);
  assert.equal(JSON.stringify(r.route()), before, 'nothing changed');
  assert.deepEqual(r.healthSnapshot(), []);
  await f.close();
});

test('misspelt options, a bad namespace and the default origin are refused, naming what is wrong', async () => {
  const hub = memoryHub();
  const r = new Router(refundGraph(), options('me'));
  const bad = (re) => (e) => e.code === 'bad_options' && re.test(e.message);
  await assert.rejects(joinFleet(r, hub.bus(), { flushMS: 2 }), bad(/unknown option `flushMS`/));
  await assert.rejects(joinFleet(r, hub.bus(), { flushMs: -1, key: KEY }), bad(/`flushMs`/));
  await assert.rejects(joinFleet(r, hub.bus(), { onDelta: 'x', key: KEY }), bad(/`onDelta`/));
  await assert.rejects(joinFleet(r, hub.bus(), { quorum: 0, key: KEY }), bad(/`quorum`/));
  // No key, no fleet: unsigned deltas would be refused by every member anyway.
  await assert.rejects(joinFleet(r, hub.bus()), (e) => e.code === 'key_required');
  await assert.rejects(joinFleet(r, hub.bus(), { key: 'short' }), bad(/at least 16 bytes/));
  // Two routers with the default origin would refuse each other's deltas as bad_origin.
  await assert.rejects(joinFleet(new Router(refundGraph()), hub.bus(), { key: KEY }), bad(/default origin `local`/));
  await assert.rejects(joinFleet(r, {}, { key: KEY }), bad(/bus has no `publish`/));
  // No default namespace: a bus without one needs `namespace`.
  const bare = { publish: async () => {}, subscribe: () => () => {}, snapshot: async () => [] };
  await assert.rejects(joinFleet(r, bare, { key: KEY }), (e) => e.code === 'namespace_required');
  await assert.rejects(redisBus({ url: 'redis://127.0.0.1:1' }), (e) => e.code === 'namespace_required');
  assert.throws(() => broadcastBus(), (e) => e.code === 'namespace_required');
  assert.throws(() => memoryHub({ delay: 5 }), bad(/unknown option `delay`/));
  assert.throws(() => broadcastBus('x', { snapshotMS: 5 }), bad(/unknown option `snapshotMS`/));
  // Checked before any connection: no Redis needed.
  await assert.rejects(redisBus({ url: 'redis://127.0.0.1:1', namepsace: 'a' }), bad(/unknown option `namepsace`/));
  await assert.rejects(redisBus({ url: 'redis://127.0.0.1:1', namespace: 'a', timeoutMs: 0 }), bad(/`timeoutMs`/));
  await assert.rejects(redisBus({ url: 'http://127.0.0.1:1', namespace: 'a' }), bad(/`url`/));
  await assert.rejects(redisBus({ url: 'redis://127.0.0.1:1', namespace: 'a', tls: { ca: 'x' } }), bad(/rediss:/));
  for (const ns of ['pay*', 'a?b', 'fleet[1]', 'x]', '', 'has space', 'é', 'a/b', 'x'.repeat(129), 7]) {
    await assert.rejects(redisBus({ url: 'redis://127.0.0.1:1', namespace: ns }), bad(/`namespace`/), JSON.stringify(ns));
  }
  await assert.rejects(redisBus({ namespace: 'pay*' }), bad(/no glob character/));
  // Wrong types and ranges, each named (the zod schemas of order.mjs).
  const url = 'redis://127.0.0.1:1';
  await assert.rejects(redisBus({ url: 'rediss://127.0.0.1:1', namespace: 'a', tls: [] }), bad(/`tls` must be an object/));
  await assert.rejects(redisBus({ url, namespace: 'a', username: '' }), bad(/`username` must be a non-empty string/));
  await assert.rejects(redisBus({ url, namespace: 'a', bufferLimit: 1.5 }), bad(/`bufferLimit` must be a positive integer/));
  await assert.rejects(redisBus({ url: 5, namespace: 'a' }), bad(/`url`/));
  await assert.rejects(joinFleet(r, hub.bus(), { windowMs: 1.5, key: KEY }), bad(/`windowMs` must be a whole number/));
  await assert.rejects(joinFleet(r, hub.bus(), { flushMs: Infinity, key: KEY }), bad(/`flushMs` must be a positive number, got null/));
  for (const opts of [null, [], 'x']) assert.throws(() => memoryHub(opts), bad(/options must be an object/), JSON.stringify(opts));
  assert.throws(() => memoryHub({ delayMs: -1 }), bad(/`delayMs`/));
  assert.throws(() => broadcastBus('x', { snapshotMs: '5' }), bad(/`snapshotMs` must be a positive number, got "5"/));
});

test('configureFleet takes the evidence settings, strictly', () => {
  const r = new Router(refundGraph(), options('me'));
  assert.deepEqual(r.configureFleet({ quorum: 3, windowMs: 1000 }), { quorum: 3, windowMs: 1000, maxSkewMs: 60_000 });
  for (const bad of [{ quorum: 0 }, { quorum: -1 }, { quorum: 1.5 }, { windowMS: 5 }, { max_skew_ms: 5 }, 'x']) {
    assert.throws(() => r.configureFleet(bad), (e) => e.code === 'bad_options', JSON.stringify(bad));
  }
});

test('two members over BroadcastChannel share health', async () => {
  const a = new Router(refundGraph(), options('tab-a'));
  const b = new Router(refundGraph(), options('tab-b'));
  const name = `shr-test-${process.pid}`;
  const [ba, bb] = [broadcastBus(name, { snapshotMs: 20 }), broadcastBus(name, { snapshotMs: 20 })];
  // Web Crypto, as in a browser; quorum 1: one tab's markDown is the fleet's.
  const fa = await joinFleet(a, ba, { key: KEY, quorum: 1, crypto: 'webcrypto' });
  const fb = await joinFleet(b, bb, { key: KEY, quorum: 1, crypto: 'webcrypto' });
  a.markDown('stripe');
  await fa.flush();
  const deadline = Date.now() + 2000;
  while (b.health('stripe').state !== 'open' && Date.now() < deadline) await sleep(5);
  assert.equal(b.health('stripe').state, 'open');
  await Promise.all([fa.close(), fb.close()]);
  await Promise.all([ba.close(), bb.close()]);
});
