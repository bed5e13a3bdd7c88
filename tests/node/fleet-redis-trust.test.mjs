// Fleet trust over a real Redis run as operators run it: a redis-server started here with a
// password for the default user and an ACL user limited to one namespace's keys and channel.
// The attacker has the admin's access to Redis (PUBLISH and SET anything) but not the fleet key:
// forged opened/failed, replays, another app on the same Redis. Nothing of theirs is applied,
// the fleet keeps calling the healthy tool, and one member's local fault stays its own. With
// member keys, even a member taken over (its own key and ACL user) speaks only for itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { Router, refundGraph, sleep, until } from './helpers.mjs';
import { startRedis } from './redis-server.mjs';
import { redisBus, joinFleet, memberKeyPair } from '../../packages/fleet/src/index.mjs';
import { sealer } from '../../packages/fleet/src/sign.mjs';

const KEY = 'redis-trust-fleet-key-0123456789';
const ADMIN = 'admin-pw-0123456789';
const NS = 'pay';

/** The ACL of a fleet member for namespace `ns`: its keys and channel (exactly: `shr:${ns}:*`
 * would also grant namespaces `${ns}:x`), the commands it uses. */
export const aclUser = (name, password, ns) =>
  `user ${name} on >${password} resetkeys ~shr:${ns}:tool:* resetchannels &shr:${ns}:deltas -@all ` +
  '+get +set +pttl +scan +eval +publish +subscribe +unsubscribe +multi +exec +ping +client|setname';

let redis;
before(async () => {
  redis = await startRedis({
    conf: [`user default on >${ADMIN} ~* &* +@all`, aclUser('pay', 'pay-pw-0123456789', 'pay'), aclUser('news', 'news-pw-0123456789', 'news')].join('\n'),
  });
});
after(async () => { await redis?.stop(); });

const ok = async () => ({ ok: true });
async function member(name, { ns = NS, user = 'pay', password = 'pay-pw-0123456789', signing = { key: KEY }, quorum = 2, stripe = ok } = {}) {
  // A declared latency baseline: a call slowed by a loaded machine must not weigh stripe above
  // razorpay (that would be the live weights' call, not the fleet's).
  const graph = refundGraph();
  graph.nodes = graph.nodes.map((n) => (n.tool === false ? n : { ...n, baseline_latency_ms: 500 }));
  const router = new Router(graph, { origin: name, config: { breaker: { cooldownMs: 60_000 } } });
  const bus = await redisBus({ url: redis.url, namespace: ns, username: user, password, timeoutMs: 1000 });
  const fleet = await joinFleet(router, bus, { ...signing, quorum, flushMs: 2 });
  const calls = { stripe: 0, runs: 0 };
  const tools = { crm: ok, razorpay: ok, email: ok, sms: ok, stripe: async () => { calls.stripe += 1; return stripe(); } };
  const run = async () => {
    const { outcome } = await router.run(null, fleet.options({ tools, timeoutMs: 1000 }));
    calls.runs += 1;
    return outcome;
  };
  return { name, router, bus, fleet, calls, run, close: () => fleet.close().then(() => bus.close()) };
}

async function admin() {
  const c = createClient({ url: redis.url, password: ADMIN });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** Each test starts from an empty Redis: what one stored must not be the next one's news. */
async function flush() {
  const c = await admin();
  await c.flushAll();
  await c.close();
}

test('an ACL user shares health in its namespace; a wrong password or namespace is refused with redis_refused', async () => {
  await flush();
  const a = await member('a', { quorum: 1 });
  const b = await member('b', { quorum: 1 });
  a.router.markDown('stripe');
  await until('b to hear', () => b.router.health('stripe').state === 'open');
  const late = await member('late', { quorum: 1 });
  assert.equal(late.router.health('stripe').state, 'open', 'the stored (signed) view, read under the ACL');
  const refusedWith = (re) => (e) => e.code === 'redis_refused' && re.test(e.message);
  await assert.rejects(redisBus({ url: redis.url, namespace: NS, username: 'pay', password: 'wrong', timeoutMs: 1000 }), refusedWith(/WRONGPASS/));
  await assert.rejects(redisBus({ url: redis.url, namespace: NS, timeoutMs: 1000 }), refusedWith(/NOAUTH|WRONGPASS|NOPERM/));
  // The pay user may not touch the newsletter's channel.
  await assert.rejects(redisBus({ url: redis.url, namespace: 'news', username: 'pay', password: 'pay-pw-0123456789', timeoutMs: 1000 }), refusedWith(/NOPERM/));
  // A user that may subscribe but not read the stored view: joining says so.
  const c = await admin();
  await c.sendCommand(['ACL', 'SETUSER', 'blind', 'on', '>blind-pw-0123456789', 'resetkeys', '~shr:pay:tool:*', 'resetchannels', '&shr:pay:deltas', '-@all', '+subscribe', '+publish', '+ping', '+client|setname']);
  await c.close();
  const bus = await redisBus({ url: redis.url, namespace: NS, username: 'blind', password: 'blind-pw-0123456789', timeoutMs: 1000 });
  await assert.rejects(joinFleet(new Router(refundGraph(), { origin: 'blind' }), bus, { key: KEY }), refusedWith(/NOPERM/));
  await bus.close();
  await Promise.all([a, b, late].map((m) => m.close()));
});

test('attacks with Redis access and no key: none applied, the fleet keeps calling stripe', async () => {
  await flush();
  const ms = await Promise.all(['m0', 'm1', 'm2'].map((n) => member(n)));
  const raw = await admin();
  const spy = await admin();
  const captured = [];
  await spy.subscribe(`shr:${NS}:deltas`, (m) => captured.push(m));
  const mallory = await sealer('mallory', { key: 'a-guessed-key-0123456789abcdef', namespace: NS, graph: ms[0].fleet.graph });
  const v = Date.now() * 1024;
  let sent = 0;
  const publish = async (m) => { sent += 1; await raw.publish(`shr:${NS}:deltas`, typeof m === 'string' ? m : JSON.stringify(m)); };
  for (const tool of ['stripe', 'razorpay', 'email']) {
    const opened = { tool, change: 'opened', cooldown: 600_000, version: 2 ** 53 - 1, origin: 'zzz' };
    await publish(opened);
    await publish(mallory.seal(opened));
    await raw.set(`shr:${NS}:tool:${tool}:zzz`, JSON.stringify({ ttl: 600_000, env: mallory.seal(opened) }), { PX: 600_000 });
    for (let i = 0; i < 2; i += 1) {
      await publish({ tool, change: 'failed', version: v + i, origin: `f${i}` });
      await publish(mallory.seal({ tool, change: 'failed', version: v + i, origin: `f${i}` }));
    }
  }
  // A real failure of m0, captured off the channel and replayed ten times.
  ms[0].router.record('stripe', { ok: false });
  await ms[0].fleet.flush();
  const real = () => captured.find((m) => m.includes('"origin":"m0"'));
  await until('the spy to capture it', () => real() !== undefined);
  for (let i = 0; i < 10; i += 1) await publish(real());
  await until('every message judged', () => ms.slice(1).every((m) => m.fleet.stats.applied + m.fleet.stats.rejected >= sent + 1));
  // A late member reads the forged keys too.
  const late = await member('late');
  const during = [];
  for (const m of [...ms, late]) {
    for (let i = 0; i < 5; i += 1) during.push(await m.run());
  }
  const refused = ms[1].fleet.stats.rejectedBy;
  // m0 saw stripe fail itself (its own evidence weighs stripe up, for it alone); the others
  // heard only forgeries and replays.
  const others = [...ms.slice(1), late];
  const stripeCalls = others.reduce((n, m) => n + m.calls.stripe, 0);
  const runs = others.reduce((n, m) => n + m.calls.runs, 0);
  console.log(`# attacks over Redis: ${sent} messages + 3 forged keys; m1 refused ${JSON.stringify(refused)}, applied ${ms[1].fleet.stats.applied} (m0's real failure); late refused ${JSON.stringify(late.fleet.stats.rejectedBy)}; calls to stripe during the attack ${stripeCalls} of ${runs} runs (${others.map((m) => `${m.name} ${m.calls.stripe}/${m.calls.runs} ${m.router.health("stripe").state}`).join(", ")})`);
  assert.equal(refused.replayed, 10);
  assert.equal(ms[1].fleet.stats.applied, 1);
  assert.equal(late.fleet.stats.applied, 0);
  assert.equal(late.fleet.stats.rejectedBy.bad_signature, 3);
  assert.ok(during.every((o) => o.status === 'completed'));
  assert.equal(stripeCalls, runs);
  await spy.close();
  await raw.close();
  await Promise.all([...ms, late].map((m) => m.close()));
});

test('member keys over Redis: a member taken over cannot make up a quorum; stripe stays in use', async () => {
  await flush();
  const names = ['m0', 'm1', 'm2', 'mallory'];
  const pairs = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await memberKeyPair()])));
  const members = Object.fromEntries(names.map((n) => [n, pairs[n].publicKey]));
  const ms = await Promise.all(['m0', 'm1', 'm2'].map((n) => member(n, { signing: { members, memberKey: pairs[n].privateKey } })));
  // Mallory has everything a member has: her key and the namespace's ACL user.
  const raw = createClient({ url: redis.url, username: 'pay', password: 'pay-pw-0123456789' });
  raw.on('error', () => {});
  await raw.connect();
  const mallory = await sealer('mallory', { members, memberKey: pairs.mallory.privateKey, origin: 'mallory', namespace: NS, graph: ms[0].fleet.graph });
  const v = Date.now() * 1024;
  let sent = 0;
  const publish = async (m) => { sent += 1; await raw.publish(`shr:${NS}:deltas`, JSON.stringify(m)); };
  for (const [i, origin] of ['m1', 'm2', 'ghost-1', 'ghost-2'].entries()) {
    const opened = { tool: 'stripe', change: 'opened', cooldown: 600_000, version: v + 100 + i, origin };
    await publish(mallory.seal({ tool: 'stripe', change: 'failed', version: v + i, origin }));
    await publish(mallory.seal(opened));
    await raw.set(`shr:${NS}:tool:stripe:${origin}`, JSON.stringify({ ttl: 600_000, env: mallory.seal(opened) }), { PX: 600_000 });
  }
  await publish(mallory.seal({ tool: 'stripe', change: 'failed', version: v + 50, origin: 'mallory' }));
  await until('every message judged', () => ms.every((m) => m.fleet.stats.applied + m.fleet.stats.rejected >= sent));
  const late = await member('m0', { signing: { members, memberKey: pairs.m0.privateKey } });
  const during = [];
  for (const m of [...ms, late]) {
    for (let i = 0; i < 5; i += 1) during.push(await m.run());
  }
  const all = [...ms, late];
  const stripeCalls = all.reduce((n, m) => n + m.calls.stripe, 0);
  const runs = all.reduce((n, m) => n + m.calls.runs, 0);
  console.log(`# member keys over Redis: ${sent} messages + 4 stored; m1 refused ${JSON.stringify(ms[1].fleet.stats.rejectedBy)}, applied ${ms[1].fleet.stats.applied} (mallory's own failure, as evidence); late refused ${JSON.stringify(late.fleet.stats.rejectedBy)}; calls to stripe ${stripeCalls} of ${runs} runs`);
  for (const m of ms) assert.deepEqual(m.fleet.stats.rejectedBy, { bad_signature: 4, unknown_member: 4 });
  assert.deepEqual(late.fleet.stats.rejectedBy, { bad_signature: 2, unknown_member: 2 });
  assert.ok(during.every((o) => o.status === 'completed'));
  assert.equal(stripeCalls, runs);
  await raw.close();
  await Promise.all(all.map((m) => m.close()));
});

test('two apps on one Redis: the newsletter marking its email down leaves the payments app alone', async () => {
  await flush();
  const pay = await member('pay-1', { quorum: 1 });
  const news = await member('news-1', { ns: 'news', user: 'news', password: 'news-pw-0123456789', signing: { key: 'the-newsletter-key-0123456789' }, quorum: 1 });
  const news2 = await member('news-2', { ns: 'news', user: 'news', password: 'news-pw-0123456789', signing: { key: 'the-newsletter-key-0123456789' }, quorum: 1 });
  news.router.markDown('email');
  await until('the newsletter fleet to hear', () => news2.router.health('email').state === 'open');
  // Even copied into the payments channel (by someone with admin access), it is refused.
  const raw = await admin();
  await raw.publish(`shr:${NS}:deltas`, JSON.stringify((await sealer('n', { key: 'the-newsletter-key-0123456789', namespace: 'news', graph: news.fleet.graph })).seal(
    { tool: 'email', change: 'opened', cooldown: 60_000, version: Date.now() * 1024, origin: 'news-1' })));
  await until('payments to judge it', () => pay.fleet.stats.rejectedBy.wrong_namespace >= 1);
  console.log(`# two apps: payments refused ${JSON.stringify(pay.fleet.stats.rejectedBy)}`);
  assert.deepEqual(pay.fleet.stats.rejectedBy, { wrong_namespace: 1 });
  assert.equal(pay.router.health('email').state, 'closed');
  assert.ok(pay.router.route().path.includes('email'));
  await raw.close();
  await Promise.all([pay, news, news2].map((m) => m.close()));
});

test('one member whose network refuses stripe: the three healthy members keep calling it', async () => {
  await flush();
  const refused = async () => {
    const e = new Error('connect ECONNREFUSED 10.0.0.1:443');
    e.code = 'ECONNREFUSED';
    throw e;
  };
  const ms = [await member('sick', { stripe: refused }), ...(await Promise.all(['h1', 'h2', 'h3'].map((n) => member(n))))];
  await Promise.all(ms.map(async (m) => {
    for (let i = 0; i < 30; i += 1) {
      const o = await m.run();
      assert.equal(o.status, 'completed');
      await sleep(5);
    }
  }));
  const share = ms.slice(1).map((m) => m.calls.stripe / m.calls.runs);
  console.log(`# local fault over Redis: stripe calls ${ms.map((m) => `${m.name} ${m.calls.stripe}/${m.calls.runs}`).join(', ')}; evidence only at h1: ${ms[1].router.fleetStats().evidence}; h1 applied ${ms[1].fleet.stats.applied}, refused ${JSON.stringify(ms[1].fleet.stats.rejectedBy)}`);
  assert.ok(ms[1].router.fleetStats().evidence >= 1, 'the sick member was heard');
  for (const s of share) assert.ok(s >= 0.95, String(share));
  assert.ok(ms[0].calls.stripe < ms[0].calls.runs / 2);
  await Promise.all(ms.map((m) => m.close()));
});

test('rediss://: TLS options reach the client; without the CA the member routes alone and says why', async (t) => {
  let server;
  try {
    server = await startRedis({ tls: true, conf: `user default on >${ADMIN} ~* &* +@all` });
  } catch (e) {
    t.skip(`no TLS redis-server or openssl here: ${e.message}`);
    return;
  }
  try {
    const mk = async (name, tls, errors = []) => {
      const router = new Router(refundGraph(), { origin: name });
      const bus = await redisBus({ url: server.tlsUrl, namespace: NS, password: ADMIN, tls, timeoutMs: 1000, onError: (e) => errors.push(e.message) });
      const fleet = await joinFleet(router, bus, { key: KEY, quorum: 1, flushMs: 2 });
      return { router, bus, fleet, errors, close: () => fleet.close().then(() => bus.close()) };
    };
    const a = await mk('a', { ca: server.ca });
    const b = await mk('b', { ca: server.ca, servername: '127.0.0.1' });
    assert.ok(a.bus.connected && b.bus.connected);
    a.router.markDown('stripe');
    await until('b to hear over TLS', () => b.router.health('stripe').state === 'open');
    const blind = await mk('c', {});
    assert.equal(blind.bus.connected, false);
    assert.match(blind.errors.join('\n'), /self.signed|certificate/);
    await Promise.all([a, b, blind].map((m) => m.close()));
  } finally {
    await server.stop();
  }
});
