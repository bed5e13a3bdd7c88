// Member keys: a member taken over (its own private key, full access to the bus and the store)
// cannot make up the quorum that takes a tool from everyone, as a holder of a shared fleet key
// can (shown first, as the reason member keys exist). Its own failures count once, as one
// member's. Bad keys and lists are refused with codes; Web Crypto and node:crypto members
// interoperate; a member's key is rotated without a gap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, refundGraph, sleep } from './helpers.mjs';
import { memoryHub, joinFleet, memberKeyPair } from '../../packages/fleet/src/index.mjs';
import { sealer } from '../../packages/fleet/src/sign.mjs';

const COOLDOWN = 60_000;
const router = (origin) => new Router(refundGraph(), { origin, config: { breaker: { cooldownMs: COOLDOWN } } });
const v = (ms = Date.now()) => ms * 1024;
const NAMES = ['a0', 'a1', 'a2', 'mallory'];
const pairs = Object.fromEntries(await Promise.all(NAMES.map(async (o) => [o, await memberKeyPair()])));
const members = Object.fromEntries(NAMES.map((o) => [o, pairs[o].publicKey]));

/** What mallory, with the bus and her own key, sends to take stripe from the fleet. */
function attack(hub, seal, { tool = 'stripe', origins }) {
  const now = v();
  for (const [i, origin] of origins.entries()) {
    hub.inject(seal.seal({ tool, change: 'failed', version: now + i, origin }));
    hub.inject(seal.seal({ tool, change: 'opened', cooldown: COOLDOWN, version: now + 100 + i, origin }));
    hub.store(tool, origin, seal.seal({ tool, change: 'opened', cooldown: COOLDOWN, version: now + 200 + i, origin }));
  }
}

test('a shared key: one holder makes up a quorum of origins and takes stripe from everyone', async () => {
  const hub = memoryHub({ namespace: 'pay' });
  const key = 'fleet-key-one-0123456789abcdef';
  const victims = ['a0', 'a1', 'a2'].map(router);
  const fleets = await Promise.all(victims.map((r) => joinFleet(r, hub.bus(), { key })));
  const mallory = await sealer('mallory', { key, namespace: 'pay', graph: fleets[0].graph });
  attack(hub, mallory, { origins: ['ghost-1', 'ghost-2', 'ghost-3'] });
  await sleep(5);
  console.log(`# shared key, forged origins: stripe ${victims.map((r) => r.health('stripe').state).join('/')}`);
  for (const r of victims) assert.equal(r.health('stripe').state, 'open');
  await Promise.all(fleets.map((f) => f.close()));
});

test('member keys: a member taken over speaks only for itself; stripe stays in use', async () => {
  const hub = memoryHub({ namespace: 'pay' });
  const victims = ['a0', 'a1', 'a2'].map(router);
  const fleets = await Promise.all(victims.map((r) => joinFleet(r, hub.bus(), { members, memberKey: pairs[r.origin].privateKey })));
  const mallory = await sealer('mallory', { members, memberKey: pairs.mallory.privateKey, origin: 'mallory', namespace: 'pay', graph: fleets[0].graph });
  // Under other members' names, under names no member has, and under her own, many times.
  attack(hub, mallory, { origins: ['a1', 'a2', 'ghost-1', 'ghost-2'] });
  for (let i = 0; i < 10; i += 1) hub.inject(mallory.seal({ tool: 'stripe', change: 'failed', version: v() + 1000 + i, origin: 'mallory' }));
  // Her signature on another member's delta, and that member's real signature on an edited one.
  const real = await sealer('a1', { members, memberKey: pairs.a1.privateKey, origin: 'a1', namespace: 'pay', graph: fleets[0].graph });
  const genuine = real.seal({ tool: 'email', change: 'failed', version: v() + 5000, origin: 'a1' });
  hub.inject({ ...genuine, delta: { ...genuine.delta, tool: 'stripe' } });
  hub.inject({ ...genuine, sig: mallory.seal(genuine.delta).sig });
  await sleep(5);
  const late = router('a0');
  const fl = await joinFleet(late, hub.bus(), { members, memberKey: pairs.a0.privateKey });
  console.log(`# member keys: stripe ${victims.map((r) => r.health('stripe').state).join('/')}; refused ${JSON.stringify(fleets[1].stats.rejectedBy)}; late joiner refused ${JSON.stringify(fl.stats.rejectedBy)}`);
  for (const r of [...victims, late]) {
    assert.equal(r.health('stripe').state, 'closed');
    const { outcome } = await r.run(null, { tools: { crm: async () => ({}), stripe: async () => ({ refund: 'rf' }), razorpay: async () => ({}), email: async () => ({}), sms: async () => ({}) } });
    assert.deepEqual(outcome.path, ['start', 'crm', 'stripe', 'email', 'done']);
  }
  for (const f of fleets) {
    assert.equal(f.stats.rejectedBy.bad_signature, 2 * 2 + 2, 'under a1 and a2: failed and opened; and the two edited messages');
    assert.equal(f.stats.rejectedBy.unknown_member, 2 * 2);
  }
  assert.deepEqual(fl.stats.rejectedBy, { bad_signature: 2, unknown_member: 2 }, 'the stored ones');
  // Her own failures are one member's evidence, short of the quorum of 2.
  console.log(`# a1's fleet stats: ${JSON.stringify(victims[1].fleetStats())}`);
  await Promise.all([...fleets, fl].map((f) => f.close()));
});

test('member keys: a second real member seeing stripe fail takes it out for everyone', async () => {
  const hub = memoryHub({ namespace: 'pay' });
  const rs = ['a0', 'a1', 'a2'].map(router);
  const fleets = await Promise.all(rs.map((r) => joinFleet(r, hub.bus(), { members, memberKey: pairs[r.origin].privateKey })));
  rs[0].record('stripe', { ok: false });
  rs[1].record('stripe', { ok: false });
  await Promise.all(fleets.map((f) => f.flush()));
  await sleep(5);
  assert.equal(rs[2].health('stripe').state, 'open');
  // Every signature checked out (the core may still find a change stale: its own rules).
  for (const code of ['bad_signature', 'unknown_member']) assert.equal(fleets[2].stats.rejectedBy[code], undefined);
  await Promise.all(fleets.map((f) => f.close()));
});

test('member keys from Web Crypto and node:crypto interoperate; a key is rotated without a gap', async () => {
  const hub = memoryHub({ namespace: 'pay' });
  const next = await memberKeyPair();
  const a = router('a0');
  const b = router('a1');
  const fa = await joinFleet(a, hub.bus(), { members, memberKey: pairs.a0.privateKey, crypto: 'webcrypto', quorum: 1 });
  const fb = await joinFleet(b, hub.bus(), { members, memberKey: pairs.a1.privateKey, quorum: 1 });
  a.markDown('sms');
  await fa.flush();
  await sleep(5);
  assert.equal(b.health('sms').state, 'open');
  // Rotation: list both keys for a0 everywhere, sign with the new one, then drop the old.
  const rotating = { ...members, a0: [pairs.a0.publicKey, next.publicKey] };
  const b2 = router('a1');
  const fb2 = await joinFleet(b2, hub.bus(), { members: rotating, memberKey: pairs.a1.privateKey, quorum: 1 });
  const a2 = router('a0');
  const fa2 = await joinFleet(a2, hub.bus(), { members: rotating, memberKey: next.privateKey, crypto: 'webcrypto', quorum: 1 });
  a2.markDown('razorpay');
  await fa2.flush();
  await sleep(5);
  assert.equal(b2.health('razorpay').state, 'open');
  assert.equal(fb2.stats.previousKey, 1, 'a0 signed with its second listed key');
  assert.equal(b.health('razorpay').state, 'closed', 'a member still listing only the old key refuses the new one');
  assert.equal(fb.stats.rejectedBy.bad_signature, 1);
  await Promise.all([fa, fb, fb2, fa2].map((f) => f.close()));
});

test('bad member keys and lists are refused with codes; a shared-key envelope is refused', async () => {
  const hub = memoryHub({ namespace: 'pay' });
  const r = router('a0');
  const own = pairs.a0.privateKey;
  const refusal = (opts) => joinFleet(r, hub.bus(), opts).then(() => 'joined', (e) => `${e.code}: ${e.message}`);
  const cases = [
    [{ members }, /^key_required: .*memberKey/],
    [{ members, memberKey: own, key: 'fleet-key-one-0123456789abcdef' }, /^bad_options: .*not both/],
    [{ memberKey: own, key: 'fleet-key-one-0123456789abcdef' }, /^bad_options: .*needs `members`/],
    [{ members: {}, memberKey: own }, /^bad_options: .*no member/],
    [{ members: [pairs.a0.publicKey], memberKey: own }, /^bad_options: `?joinFleet: `members` must be an object/],
    [{ members: { ...members, a1: pairs.a1.privateKey }, memberKey: own }, /^bad_options: .*members.a1` holds a private key/],
    [{ members: { ...members, a1: { ...pairs.a1.publicKey, crv: 'P-256' } }, memberKey: own }, /^bad_options: .*members.a1` must be an Ed25519 key/],
    [{ members: { ...members, a1: { ...pairs.a1.publicKey, x: 'short' } }, memberKey: own }, /^bad_options: .*members.a1.x`/],
    [{ members: { ...members, a1: [] }, memberKey: own }, /^bad_options: .*1 to 4 keys/],
    [{ members: { ...members, 'has space': pairs.a1.publicKey }, memberKey: own }, /^bad_options: .*not an origin/],
    [{ members, memberKey: pairs.a0.publicKey }, /^bad_options: .*memberKey.d`/],
    [{ members, memberKey: pairs.a1.privateKey }, /^bad_options: .*not a key `members` lists for this router's origin "a0"/],
    [{ members: { a1: pairs.a1.publicKey }, memberKey: own }, /^bad_options: .*origin "a0" is not in `members`/],
    [{ members, memberKey: { ...own, d: pairs.a1.privateKey.d } }, /^bad_options: .*private part `d` is not the private key of its public part `x`/],
    [{ members, memberKey: { ...own, d: pairs.a1.privateKey.d }, crypto: 'webcrypto' }, /^bad_options: .*private part `d` is not the private key/],
    [{ members, memberKey: own, quorum: 5 }, /^bad_options: .*quorum` 5 is more than the 4 members/],
  ];
  for (const [opts, want] of cases) assert.match(await refusal(opts), want);
  const f = await joinFleet(r, hub.bus(), { members, memberKey: own });
  const shared = await sealer('old', { key: 'fleet-key-one-0123456789abcdef', namespace: 'pay', graph: f.graph });
  hub.inject(shared.seal({ tool: 'stripe', change: 'opened', cooldown: 1000, version: v(), origin: 'a1' }));
  hub.inject({ shr: 2, ns: 'pay', graph: f.graph, delta: { tool: 'stripe', change: 'failed', version: v(), origin: 'a1' }, sig: 'A'.repeat(86) + '==' });
  hub.inject({ shr: 2, ns: 'pay', graph: f.graph, delta: { tool: 'stripe', change: 'failed', version: v(), origin: 'a1' }, sig: '!!not base64' });
  hub.inject({ shr: 3, ns: 'pay', graph: f.graph, delta: {}, sig: 'x' });
  await sleep(5);
  assert.deepEqual(f.stats.rejectedBy, { bad_signature: 3, malformed: 1 });
  assert.match(f.rejections[0].message, /signed with a shared fleet key; this fleet signs with members' own keys/);
  await f.close();
});

test('member keys: a flood of forgeries under a listed name is checked within its budget', async () => {
  const hub = memoryHub({ namespace: 'pay' });
  const r = router('a0');
  const f = await joinFleet(r, hub.bus(), { members, memberKey: pairs.a0.privateKey, verifyPerSecond: 200, quorum: 1 });
  const mallory = await sealer('mallory', { members, memberKey: pairs.mallory.privateKey, origin: 'mallory', namespace: 'pay', graph: f.graph });
  const forged = Array.from({ length: 2000 }, (_, i) => mallory.seal({ tool: 'stripe', change: 'failed', version: v() + i, origin: 'a1' }));
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (const m of forged) hub.inject(m);
  await sleep(5);
  const used = process.cpuUsage(cpu);
  const refilled = (200 * (performance.now() - t0)) / 1000;
  const ms = (used.user + used.system) / 1000;
  const { bad_signature: checked, over_budget: unchecked } = f.stats.rejectedBy;
  console.log(`# flood of 2000 under a1, budget 200/s: ${checked} checked, ${unchecked} refused unchecked, ${ms.toFixed(0)} ms of CPU`);
  assert.equal(checked + unchecked, 2000);
  assert.ok(checked <= 200 + refilled + 1, `${checked} checked in ${refilled.toFixed(0)} tokens' time`);
  assert.equal(r.health('stripe').state, 'closed');
  // The budget refills: a1's real news a moment later is checked and applied.
  await sleep(50);
  const a1 = await sealer('a1', { members, memberKey: pairs.a1.privateKey, origin: 'a1', namespace: 'pay', graph: f.graph });
  hub.inject(a1.seal({ tool: 'sms', change: 'opened', cooldown: 5000, version: v() + 10_000, origin: 'a1' }));
  await sleep(5);
  assert.equal(r.health('sms').state, 'open');
  assert.match(await joinFleet(router('a0'), hub.bus(), { members, memberKey: pairs.a0.privateKey, verifyPerSecond: 0 }).catch((e) => `${e.code}: ${e.message}`), /^bad_options: .*verifyPerSecond/);
  assert.match(await joinFleet(router('a0'), hub.bus(), { key: 'fleet-key-one-0123456789abcdef', verifyPerSecond: 10 }).catch((e) => `${e.code}: ${e.message}`), /^bad_options: .*needs `members`/);
  await f.close();
});
