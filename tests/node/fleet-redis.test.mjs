// Fleet health over a real Redis (Debian's redis-server on a free loopback port, started and
// stopped here): sharing, a late joiner, Redis down at start, killed mid-run and restarted, slow
// behind a delaying proxy, and hostile messages on the channel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { createClient } from 'redis';
import { Router, refundGraph, sleep, until } from './helpers.mjs';
import { startRedis, freePort } from './redis-server.mjs';
import { redisBus, joinFleet } from '../../packages/fleet/src/index.mjs';
import { hostileMessages } from '../../examples/fleet/hostile.mjs';
import { sealer } from '../../packages/fleet/src/sign.mjs';

const KEY = 'redis-test-fleet-key-0123456789';


let redis;
before(async () => { redis = await startRedis(); });
after(async () => { await redis?.stop(); });

/** A member that records every delta it hands to the bus (`sent`, with whether Redis was
 * reachable) and every message it receives (`heard`, with the verdict). */
async function member(name, url, namespace, { timeoutMs = 1000, cooldownMs = 60_000, quorum = 1, busOpts = {} } = {}) {
  const router = new Router(refundGraph(), { origin: name, config: { breaker: { cooldownMs } } });
  const bus = await redisBus({ url, namespace, timeoutMs, ...busOpts });
  const sent = [];
  const heard = [];
  const fleet = await joinFleet(router, bus, {
    key: KEY,
    quorum,
    flushMs: 2,
    onPublish: (deltas) => deltas.forEach((d) => sent.push({ delta: d, up: bus.connected, at: Date.now() })),
    onDelta: (message, verdict) => {
      let delta = message;
      try { delta = typeof message === 'string' ? JSON.parse(message) : message; } catch { /* junk */ }
      delta = delta?.delta ?? delta;
      heard.push({ delta, code: verdict.applied ? 'applied' : verdict.code });
    },
  });
  return { name, router, bus, fleet, sent, heard, close: () => fleet.close().then(() => bus.close()) };
}

const key = (d) => `${d.origin}|${d.tool}|${d.change}|${d.version}`;
const stored = (d) => d.change === 'opened' || d.change === 'closed';
const later = (a, b) => a.version > b.version || (a.version === b.version && a.origin > b.origin);

/**
 * End to end: for every delta a member sent and every other member, did it arrive? `heard`: the
 * peer received that very message (applied, or refused as stale_version because it knew it or
 * something newer). `superseded`: a stored change the peer did not receive itself, but it
 * received a newer change of that tool (the key holds only the latest: a member that missed
 * both reads the newer back). `missing`: neither. `failed` observations are not stored, so one
 * the peer could not hear is missing; `duplicated` counts failed observations heard more often
 * than sent (each would count twice toward a threshold).
 */
function reach(ms, which = () => true) {
  const out = { stored: { heard: 0, superseded: 0, missing: 0 }, failed: { heard: 0, missing: 0, duplicated: 0 }, missed: [] };
  for (const from of ms) {
    const sentCount = new Map();
    for (const s of from.sent) if (which(s)) sentCount.set(key(s.delta), [s.delta, (sentCount.get(key(s.delta))?.[1] ?? 0) + 1]);
    for (const to of ms) {
      if (to === from) continue;
      const heardCount = new Map();
      for (const h of to.heard) heardCount.set(key(h.delta), (heardCount.get(key(h.delta)) ?? 0) + 1);
      for (const [k, [d, n]] of sentCount) {
        const got = heardCount.get(k) ?? 0;
        if (stored(d)) {
          if (got > 0) out.stored.heard += n;
          else if (to.heard.some((h) => h.delta?.tool === d.tool && stored(h.delta) && later(h.delta, d))) out.stored.superseded += n;
          else { out.stored.missing += n; out.missed.push(`${to.name} missed ${k}`); }
        } else {
          out.failed.heard += Math.min(got, n);
          out.failed.missing += Math.max(0, n - got);
          out.failed.duplicated += Math.max(0, got - n);
          if (got < n) out.missed.push(`${to.name} missed ${n - got} x ${k}`);
        }
      }
    }
  }
  return out;
}

test('members on one Redis share health, and a late member starts from the stored view', async () => {
  const ns = `share-${process.pid}`;
  const ms = await Promise.all(['a', 'b', 'c', 'd'].map((n) => member(n, redis.url, ns)));
  const t0 = performance.now();
  ms[0].router.markDown('stripe');
  await until('every member to see stripe open', () => ms.every((m) => m.router.health('stripe').state === 'open'));
  console.log(`# propagation over Redis: ${(performance.now() - t0).toFixed(1)} ms`);
  const late = await member('late', redis.url, ns);
  assert.equal(late.router.health('stripe').state, 'open');
  // Another fleet (namespace) hears nothing.
  const other = await member('z', redis.url, `${ns}-other`);
  assert.equal(other.router.health('stripe').state, 'closed');
  await Promise.all([...ms, late, other].map((m) => m.close()));
});

test('failed observations all go out, publishes at once lose none, a repeated change is refused by the receiver', async () => {
  const ns = `count-${process.pid}`;
  const [a, b] = await Promise.all(['a', 'b'].map((n) => member(n, redis.url, ns)));
  // Twelve failures and an opened change sent twice, all published at once (signed as a's
  // fleet would sign them).
  const seal = await sealer('t', { key: KEY, namespace: ns, graph: a.fleet.graph });
  const v0 = Date.now() * 1024;
  const failed = Array.from({ length: 12 }, (_, i) => seal.seal({ tool: 'sms', change: 'failed', version: v0 + i, origin: 'a' }));
  const opened = seal.seal({ tool: 'crm', change: 'opened', cooldown: 60_000, version: v0 + 20, origin: 'a' });
  await Promise.all([...failed, opened, opened].map((d) => a.bus.publish(d)));
  await until('b to hear them', () => b.heard.length >= 14);
  await sleep(50);
  assert.equal(b.heard.filter((h) => h.delta.change === 'failed').length, 12);
  assert.deepEqual(b.heard.filter((h) => h.delta.tool === 'crm').map((h) => h.code), ['applied', 'stale_version']);
  assert.deepEqual([a.bus.stats.published, a.bus.pending], [14, 0]);
  await Promise.all([a.close(), b.close()]);
});

test('Redis down at start: members route alone, then join when it comes up', async () => {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const a = await member('a', url, 'late-start');
  const b = await member('b', url, 'late-start');
  assert.equal(a.bus.connected, false);
  // Routing works on local health while Redis is away.
  a.router.markDown('stripe');
  assert.ok(!a.router.route().path.includes('stripe'));
  await a.fleet.flush();
  const server = await startRedis({ port });
  try {
    await until('both to connect', () => a.bus.connected && b.bus.connected, 10_000);
    // What a published while Redis was down went out when it came back.
    await until('b to hear of stripe', () => b.router.health('stripe').state === 'open', 10_000);
    assert.ok(a.bus.stats.buffered >= 1);
  } finally {
    await Promise.all([a.close(), b.close()]);
    await server.stop();
  }
});

test('Redis killed mid-run and restarted: no crash, every task settles, every change reaches every member', async () => {
  const port = await freePort();
  const server = await startRedis({ port });
  const url = `redis://127.0.0.1:${port}`;
  const ms = await Promise.all(['a', 'b', 'c'].map((n) => member(n, url, 'kill', { timeoutMs: 500 })));
  const fault = { stripe: false };
  const ok = async () => ({ ok: true });
  // Only a calls a failing stripe: its failures (`failed` observations, then its breaker
  // opening) are what the others must learn.
  const toolsOf = (m) => ({
    crm: ok, razorpay: ok, email: ok, sms: ok,
    stripe: async () => (fault.stripe && m.name === 'a' ? { success: false, error: 'stripe: 503', transient: true } : { ok: true }),
  });
  let settled = 0;
  const work = ms.map(async (m) => {
    for (let i = 0; i < 40; i += 1) {
      const { outcome } = await m.router.run(null, m.fleet.options({ tools: toolsOf(m), deadlineMs: 5000 }));
      assert.equal(outcome.status, 'completed', `${m.name}: ${JSON.stringify(outcome).slice(0, 600)}`);
      settled += 1;
      await sleep(10);
    }
  });
  await sleep(50);
  await server.kill();
  const killedAt = Date.now();
  // While Redis is down, every member learns something: a sees stripe fail; b and c both see
  // sms go down (the same version from two origins: c's wins), then c sees it back up. (No
  // moment leaves a stage without a tool: every task must complete.)
  fault.stripe = true;
  ms[1].router.markDown('sms');
  ms[2].router.markDown('sms');
  ms[2].router.markUp('sms');
  await sleep(300);
  await server.restart();
  await until('every connection to come back', () => ms.every((m) => m.bus.connected && m.bus.stats.reconnects >= 1 && m.bus.stats.resubscribes >= 1), 10_000);
  const backAt = Date.now();
  fault.stripe = false;
  await Promise.all(work);
  assert.equal(settled, 120);
  await Promise.all(ms.map((m) => m.fleet.flush()));
  await until('every stored change to reach every member', () => reach(ms).stored.missing === 0 && ms.every((m) => m.bus.pending === 0), 10_000);
  const during = (s) => s.at >= killedAt && s.at <= backAt;
  const outage = reach(ms, during);
  const rest = reach(ms, (s) => !during(s));
  const sentDuring = ms.flatMap((m) => m.sent.filter(during));
  const bus = (k) => ms.map((m) => m.bus.stats[k]).join('/');
  console.log(`# killed mid-run: ${settled} tasks settled; sent while down ${sentDuring.length} (${sentDuring.filter((s) => stored(s.delta)).length} stored, ${sentDuring.filter((s) => !stored(s.delta)).length} failed); ` +
    `reached peers: stored ${JSON.stringify(outage.stored)}, failed ${JSON.stringify(outage.failed)}; reconnects ${bus('reconnects')}; buffered ${bus('buffered')}; dropped ${bus('dropped')}; recovered ${bus('recovered')}`);
  if (outage.missed.length) console.log(`# not heard: ${outage.missed.join('; ')}`);
  assert.ok(sentDuring.some((s) => stored(s.delta)) && sentDuring.some((s) => !stored(s.delta)), 'both kinds were sent while down');
  // Every breaker change sent while Redis was down reached every other member.
  assert.equal(outage.stored.missing, 0, outage.missed.join('; '));
  // The only events that can be lost: a `failed` observation buffered while Redis was down,
  // published once its sender is back, before a peer's subscription is back. Outside the
  // outage nothing is lost, and nothing is heard twice.
  assert.deepEqual([rest.stored.missing, rest.failed.missing], [0, 0], rest.missed.join('; '));
  assert.equal(outage.failed.duplicated + rest.failed.duplicated, 0);
  for (const m of ms) {
    assert.equal(m.router.health('sms').state, 'closed', `${m.name}: sms`);
    assert.equal(m.router.health('stripe').state, 'open', `${m.name}: stripe`);
    assert.equal(m.bus.stats.dropped, 0);
    assert.ok(m.bus.stats.published === m.sent.length, `${m.name}: ${JSON.stringify(m.bus.stats)} vs ${m.sent.length} sent`);
  }
  await Promise.all(ms.map((m) => m.close()));
  await server.stop();
});

test('a subscription cut alone: what was published meanwhile is read back when it resubscribes', async () => {
  const ns = `resub-${process.pid}`;
  const a = await member('a', redis.url, ns);
  const raw = createClient({ url: redis.url });
  raw.on('error', () => {});
  await raw.connect();
  // In one pipeline, so Redis runs them back to back: cut every subscribed connection (a's
  // publishing one stays up), then store and publish another member's change, as its bus
  // would. a cannot hear the message live: it must read the key back once it resubscribes.
  const seal = await sealer('t', { key: KEY, namespace: ns, graph: a.fleet.graph });
  const text = JSON.stringify(seal.seal({ tool: 'crm', change: 'opened', cooldown: 60_000, version: Date.now() * 1024, origin: 'b' }));
  const [killed] = await Promise.all([
    raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']),
    raw.sendCommand(['SET', `shr:${ns}:tool:crm:b`, `{"ttl":60000,"env":${text}}`, 'PX', '60000']),
    raw.sendCommand(['PUBLISH', `shr:${ns}:deltas`, text]),
  ]);
  assert.ok(killed >= 1);
  await until('a to hear of crm', () => a.router.health('crm').state === 'open', 5000);
  assert.equal(a.bus.stats.reconnects, 0, 'the publishing connection never dropped');
  assert.ok(a.bus.stats.resubscribes >= 1 && a.bus.stats.recovered >= 1, JSON.stringify(a.bus.stats));
  assert.deepEqual(a.heard.map((h) => [h.delta.tool, h.code]), [['crm', 'applied']]);
  await raw.close();
  await a.close();
});

/** A TCP proxy to the test's Redis that delays every packet `delayMs` each way. */
async function slowProxy(delayMs) {
  const port = await freePort();
  const sockets = new Set();
  const proxy = createServer((client) => {
    const upstream = connect(redis.port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const delay = (from, to) => from.on('data', (d) => setTimeout(() => to.writable && to.write(d), delayMs));
    delay(client, upstream);
    delay(upstream, client);
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise((r) => proxy.listen(port, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () => new Promise((r) => { sockets.forEach((s) => s.destroy()); proxy.close(r); }),
  };
}

/** a sends a `failed` observation and three breaker changes; b must hear each, once. */
async function slowCase(delayMs, timeoutMs, ns) {
  const proxy = await slowProxy(delayMs);
  const a = await member('a', proxy.url, ns, { timeoutMs });
  const b = await member('b', proxy.url, ns, { timeoutMs });
  await until('both to subscribe', () => a.bus.connected && b.bus.connected, 20_000);
  await sleep(delayMs * 3);
  const t0 = performance.now();
  a.router.record('stripe', { ok: false });
  a.router.markDown('email');
  a.router.markUp('email');
  a.router.markDown('sms');
  await a.fleet.flush();
  await until('b to hear every delta', () => reach([a, b]).stored.missing + reach([a, b]).failed.missing === 0 && a.bus.pending === 0, 30_000);
  const ms = performance.now() - t0;
  const r = reach([a, b]);
  await Promise.all([a.close(), b.close()]);
  await proxy.close();
  return { a, b, r, ms };
}

test('a slow Redis (a proxy delaying every packet 150 ms) shares every delta, within the timeouts', async () => {
  const { a, b, r, ms } = await slowCase(150, 1000, `slow-${process.pid}`);
  console.log(`# slow Redis (150 ms each way): every delta in ${ms.toFixed(0)} ms; ${JSON.stringify(r.stored)} ${JSON.stringify(r.failed)}; timeouts ${a.bus.stats.timeouts}`);
  assert.ok(a.sent.some((s) => s.delta.change === 'failed'));
  assert.equal(r.failed.duplicated, 0);
  assert.equal(b.router.health('sms').state, 'open');
  assert.equal(b.router.health('email').state, 'closed');
});

test('Redis slower than the command timeout: sends time out, stay queued, and every delta still arrives once', { timeout: 60_000 }, async () => {
  // 400 ms each way: every command takes 800 ms or more, the client waits 300 ms.
  const { a, b, r, ms } = await slowCase(400, 300, `slower-${process.pid}`);
  console.log(`# slower than the timeout: every delta in ${ms.toFixed(0)} ms; ${JSON.stringify(r.stored)} ${JSON.stringify(r.failed)}; a: ${JSON.stringify(a.bus.stats)}`);
  assert.ok(a.bus.stats.timeouts >= 1, 'the timeout path ran');
  assert.equal(r.failed.duplicated, 0, 'a send that timed out is not sent again');
  assert.equal(a.bus.stats.published, a.sent.length);
  assert.equal(a.bus.stats.dropped, 0);
  assert.equal(b.router.health('sms').state, 'open');
  assert.equal(b.router.health('email').state, 'closed');
});

test('hostile messages published to the channel are all refused with a code, none applied; nothing crashes', async () => {
  const ns = `hostile-${process.pid}`;
  const m = await member('victim', redis.url, ns);
  const raw = createClient({ url: redis.url });
  raw.on('error', () => {});
  await raw.connect();
  const junk = ['', 'null', '{', '[]', '{"tool":"stripe"}', 'x'.repeat(100_000), '{"tool":"stripe","change":"closed","version":1,"origin":"victim"}',
    ...hostileMessages({ n: 400, seed: 11, victim: 'victim', tools: ['crm', 'stripe', 'razorpay', 'email', 'sms'], asText: true })];
  for (const j of junk) await raw.publish(`shr:${ns}:deltas`, j);
  await until('every message to be judged', () => m.fleet.stats.applied + m.fleet.stats.rejected >= junk.length);
  await sleep(20);
  console.log(`# hostile over Redis: ${junk.length} messages, refused ${m.fleet.stats.rejected} ${JSON.stringify(m.fleet.stats.rejectedBy)}, applied ${m.fleet.stats.applied}`);
  assert.equal(m.fleet.stats.applied, 0);
  assert.equal(m.fleet.stats.rejected, junk.length);
  assert.deepEqual(m.router.healthSnapshot(), []);
  assert.ok(m.router.route() !== undefined);
  await raw.close();
  await m.close();
});
