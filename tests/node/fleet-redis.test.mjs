// Fleet health over a real Redis (Debian's redis-server on a free loopback port, started and
// stopped here): sharing, a late joiner, Redis down at start, killed mid-run and restarted, slow
// behind a delaying proxy, and hostile messages on the channel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect } from 'node:net';
import { createClient } from 'redis';
import { Router, refundGraph } from './helpers.mjs';
import { startRedis, freePort } from './redis-server.mjs';
import { redisBus, joinFleet } from '../../packages/fleet/src/index.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const options = (origin) => ({ origin, config: { breaker: { cooldownMs: 60_000 } } });
async function until(what, ok, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

let redis;
before(async () => { redis = await startRedis(); });
after(async () => { await redis?.stop(); });

async function member(name, url, namespace) {
  const router = new Router(refundGraph(), options(name));
  const bus = await redisBus({ url, namespace, timeoutMs: 1000 });
  const fleet = await joinFleet(router, bus, { flushMs: 2 });
  return { router, bus, fleet, close: () => fleet.close().then(() => bus.close()) };
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

test('Redis killed mid-run and restarted: no crash, every task settles, sharing resumes', async () => {
  const port = await freePort();
  const server = await startRedis({ port });
  const url = `redis://127.0.0.1:${port}`;
  const ms = await Promise.all(['a', 'b', 'c'].map((n) => member(n, url, 'kill')));
  const tools = {
    crm: async () => ({ ok: true }),
    stripe: async () => ({ ok: true }),
    razorpay: async () => ({ ok: true }),
    email: async () => ({ ok: true }),
    sms: async () => ({ ok: true }),
  };
  let settled = 0;
  const work = ms.map(async (m) => {
    for (let i = 0; i < 30; i += 1) {
      const { outcome } = await m.router.run(null, m.fleet.options({ tools, deadlineMs: 5000 }));
      assert.equal(outcome.status, 'completed');
      settled += 1;
      await sleep(10);
    }
  });
  await sleep(50);
  await server.kill();
  // While Redis is down, a member learns something: it must reach the others after the restart.
  ms[1].router.markDown('razorpay');
  await ms[1].fleet.flush();
  await sleep(300);
  await server.restart();
  await Promise.all(work);
  assert.equal(settled, 90);
  await until('the others to hear of razorpay', () => ms.every((m) => m.router.health('razorpay').state === 'open'), 10_000);
  const reconnects = ms.map((m) => m.bus.stats.reconnects);
  console.log(`# killed mid-run: ${settled} tasks settled; reconnects ${reconnects}; buffered ${ms.map((m) => m.bus.stats.buffered)}; dropped ${ms.map((m) => m.bus.stats.dropped)}`);
  assert.ok(reconnects.every((n) => n >= 1));
  assert.ok(ms.every((m) => m.bus.stats.dropped === 0));
  await Promise.all(ms.map((m) => m.close()));
  await server.stop();
});

test('a slow Redis (a proxy delaying every packet 150 ms) still shares, within the timeouts', async () => {
  const port = await freePort();
  const proxy = createServer((client) => {
    const upstream = connect(redis.port, '127.0.0.1');
    const delay = (from, to) => from.on('data', (d) => setTimeout(() => to.write(d), 150));
    delay(client, upstream);
    delay(upstream, client);
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise((r) => proxy.listen(port, '127.0.0.1', r));
  const url = `redis://127.0.0.1:${port}`;
  const a = await member('a', url, 'slow');
  const b = await member('b', url, 'slow');
  const t0 = performance.now();
  a.router.markDown('email');
  await until('b to hear of email', () => b.router.health('email').state === 'open', 10_000);
  console.log(`# slow Redis: propagation ${(performance.now() - t0).toFixed(0)} ms`);
  await Promise.all([a.close(), b.close()]);
  await new Promise((r) => proxy.close(r));
});

test('hostile messages published to the channel are refused with a code; nothing crashes', async () => {
  const ns = `hostile-${process.pid}`;
  const m = await member('victim', redis.url, ns);
  const raw = createClient({ url: redis.url });
  raw.on('error', () => {});
  await raw.connect();
  const junk = ['', 'null', '{', '[]', '{"tool":"stripe"}', 'x'.repeat(100_000), '{"tool":"stripe","change":"closed","version":1,"origin":"victim","at":0}'];
  let seed = 11;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < 300; i += 1) {
    const bytes = Array.from({ length: Math.floor(rand() * 80) }, () => String.fromCharCode(32 + Math.floor(rand() * 94))).join('');
    junk.push(rand() < 0.5 ? bytes : `{"tool":"stripe","change":"opened","until":${rand() * 1e9},"version":${Math.floor(rand() * 3) - 1},"origin":"${bytes.slice(0, 5).replace(/["\\]/g, '')}","at":0${rand() < 0.3 ? ',"x":1' : ''}}`);
  }
  for (const j of junk) await raw.publish(`shr:${ns}:deltas`, j);
  await until('every message to be judged', () => m.fleet.stats.applied + m.fleet.stats.rejected >= junk.length);
  console.log(`# hostile over Redis: ${junk.length} messages, refused ${m.fleet.stats.rejected} ${JSON.stringify(m.fleet.stats.rejectedBy)}, applied ${m.fleet.stats.applied}`);
  assert.ok(m.fleet.stats.rejected >= junk.length - 300);
  assert.ok(m.router.route() !== undefined);
  await raw.close();
  await m.close();
});
