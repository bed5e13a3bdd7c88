// Probes from JS: the core schedules them (dueProbes / nextProbeAt), JS performs them
// (startProbes), and a down tool comes back with no task traffic and no host code. Bad input is
// an error with a code; a probe slot is never lost to a bad outcome or a forgotten number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, refundGraph, sleep, until } from './helpers.mjs';
import { memoryHub, joinFleet, startProbes } from '../../packages/fleet/src/index.mjs';

const COOLDOWN = 100;
const INTERVAL = 40;
const probed = (interval = INTERVAL) => {
  const g = refundGraph();
  g.nodes = g.nodes.map((n) => (n.id === 'stripe' ? { ...n, probe: { interval_ms: interval, input: { ping: 'stripe' } } } : n));
  return g;
};
const options = (origin) => ({ origin, config: { breaker: { cooldownMs: COOLDOWN } } });

test('the core says when to probe; a settled probe closes the breaker', { timeout: 10_000 }, () => {
  const r = new Router(probed(), options('solo'));
  assert.equal(r.nextProbeAt(0), null, 'nothing down');
  r.markDown('stripe', 1000);
  assert.deepEqual(r.dueProbes(1050), [], 'cooling down');
  assert.equal(r.nextProbeAt(1050), 1000 + COOLDOWN);
  const [p, ...rest] = r.dueProbes(1100);
  assert.deepEqual(rest, []);
  assert.equal(p.tool, 'stripe');
  assert.deepEqual(p.input, { ping: 'stripe' }, 'the node\'s probe input, as written');
  assert.deepEqual(r.dueProbes(1100), [], 'one probe out at a time');
  const h = r.settleProbe(p.probe, { ok: true, latencyMs: 3, at: 1110 });
  assert.equal(h.state, 'closed');
  assert.ok(r.route(undefined, undefined, 1110).path.includes('crm'));
});

test('bad probe numbers and outcomes are errors with codes; the slot stays out until settled', { timeout: 10_000 }, () => {
  const r = new Router(probed(), options('solo'));
  r.markDown('stripe', 0);
  const [p] = r.dueProbes(COOLDOWN);
  const code = (f) => { try { f(); return null; } catch (e) { return e.code; } };
  assert.equal(code(() => r.settleProbe(p.probe + 1, { ok: true, at: COOLDOWN })), 'unknown_probe');
  assert.equal(code(() => r.settleProbe('one', { ok: true, at: COOLDOWN })), 'unknown_probe');
  assert.equal(code(() => r.settleProbe(-1, { ok: true, at: COOLDOWN })), 'unknown_probe');
  assert.equal(code(() => r.settleProbe(p.probe, { ok: true, latncyMs: 3 })), 'bad_record', 'a misspelt key');
  assert.equal(code(() => r.settleProbe(p.probe, { ok: true, latencyMs: -1 })), 'bad_record');
  // The probe is still out after the bad outcomes: it settles once, then is gone.
  assert.equal(r.settleProbe(p.probe, { ok: false, at: COOLDOWN + 5 }).state, 'open', 'a failed probe reopens');
  assert.equal(code(() => r.settleProbe(p.probe, { ok: true, at: COOLDOWN + 5 })), 'unknown_probe');
  assert.equal(code(() => r.releaseProbe(p.probe)), 'unknown_probe');
  const bad = (opts, tools = { stripe: () => {} }) => code(() => startProbes(r, tools, opts));
  assert.equal(bad({ intervalMs: 20 }), 'bad_options', 'the interval is the graph\'s, not an option');
  assert.equal(bad({ pollMs: 0 }), 'bad_options');
  assert.equal(bad({}, {}), 'bad_options', 'a probed tool without a function');
  assert.equal(bad({}, { stripe: () => {}, crm: () => {} }), 'bad_options', 'a function for a tool without a probe');
});

test('startProbes brings a down tool back with no task traffic, at most once per interval', { timeout: 10_000 }, async () => {
  const r = new Router(probed(), options('solo'));
  const calls = [];
  let healthy = false;
  const probes = startProbes(r, {
    stripe: async (input) => {
      calls.push({ at: Date.now(), input });
      if (!healthy) throw new Error('503');
      return { ok: true };
    },
  }, { pollMs: 20 });
  try {
    r.markDown('stripe');
    await until('three failed probes', () => probes.counts.failed >= 3);
    healthy = true;
    await until('the breaker closes', () => r.health('stripe').state === 'closed');
    assert.ok(probes.counts.ok === 1, `one successful probe closes it (${JSON.stringify(probes.counts)})`);
    assert.ok(calls.every((c) => c.input.ping === 'stripe'));
    // Each failed probe reopens for a cooldown: probes are at least a cooldown apart.
    const gaps = calls.slice(1).map((c, i) => c.at - calls[i].at);
    assert.ok(gaps.every((g) => g >= COOLDOWN - 5), `gaps ${gaps}`);
  } finally {
    probes.stop();
  }
});

test('in a fleet one member probes and every member learns', { timeout: 20_000 }, async () => {
  const hub = memoryHub();
  // The owner's lease on the probe lasts one cooldown past the cooldown's end; a loaded machine
  // firing the owner's timer later than that would (by design) let every member probe. 400 ms
  // of slack keeps the test about the rule, not about the machine's timers.
  const slow = { config: { breaker: { cooldownMs: 400 } } };
  const routers = ['a', 'b', 'c', 'd'].map((o) => new Router(probed(), { ...slow, origin: o }));
  const fleets = await Promise.all(routers.map((r) => joinFleet(r, hub.bus(), { flushMs: 2, key: 'probe-test-fleet-key-0123456789', quorum: 1 })));
  let healthy = false;
  const sent = [];
  const loops = routers.map((r) => startProbes(r, {
    stripe: async () => {
      sent.push(r.origin);
      if (!healthy) throw new Error('503');
    },
  }, { pollMs: 10 }));
  try {
    routers[2].markDown('stripe');
    await fleets[2].flush();
    await until('every member avoids stripe', () => routers.every((r) => r.health('stripe').state !== 'closed'));
    await until('two failed probes', () => sent.length >= 2);
    healthy = true;
    await until('every member routes through stripe again', () => routers.every((r) => r.health('stripe').state === 'closed'));
    assert.deepEqual([...new Set(sent)], ['c'], `only the member that saw it fail probes (${sent})`);
  } finally {
    loops.forEach((l) => l.stop());
    await Promise.all(fleets.map((f) => f.close()));
  }
});
