// Redis (node-redis): deltas on a pub/sub channel, and the latest delta of each tool in a key
// with a TTL, so an agent that starts late, or comes back after Redis was away, begins with the
// fleet's view. One namespace per fleet. While Redis is down the member routes on its own
// health: what it would publish waits in a bounded buffer (the oldest dropped and counted) and
// goes out when Redis is back; what others published meanwhile is read back from the keys.
import { createClient } from 'redis';
import { within } from './order.mjs';

// Keeps a delta only if it is newer than the stored one ((version, origin) order), then
// publishes it, atomically. Returns 1 when stored.
const STORE = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local ok, c = pcall(cjson.decode, cur)
  if ok and type(c) == 'table' and type(c.version) == 'number' then
    local v = tonumber(ARGV[2])
    if c.version > v or (c.version == v and tostring(c.origin) >= ARGV[3]) then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
redis.call('PUBLISH', KEYS[2], ARGV[1])
return 1`;

export async function redisBus({
  url,
  namespace = 'default',
  ttlMs = 10 * 60 * 1000,
  bufferLimit = 1000,
  timeoutMs = 2000,
  onError = () => {},
} = {}) {
  const channel = `shr:${namespace}:deltas`;
  const prefix = `shr:${namespace}:tool:`;
  const socket = {
    connectTimeout: timeoutMs,
    // Back off from 50 ms to 2 s between attempts, forever: the fleet outlives Redis restarts.
    reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2000),
  };
  const pub = createClient({ url, socket, disableOfflineQueue: true });
  const sub = pub.duplicate();
  const stats = { published: 0, buffered: 0, dropped: 0, reconnects: 0, errors: 0, recovered: 0 };
  const handlers = new Set();
  const buffer = [];
  let closed = false;
  for (const c of [pub, sub]) {
    // node-redis emits 'error' on every failed attempt; unhandled, it would end the process.
    c.on('error', (e) => {
      stats.errors += 1;
      onError(e);
    });
  }
  const deliver = (message) => handlers.forEach((h) => h(message));
  const readKeys = async () => {
    const keys = [];
    for await (const batch of pub.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) keys.push(...batch);
    if (keys.length === 0) return [];
    const values = await pub.mGet(keys);
    return values.filter((v) => typeof v === 'string');
  };
  const store = (delta) => {
    const text = JSON.stringify(delta);
    return pub.eval(STORE, {
      keys: [`${prefix}${delta.tool}`, channel],
      arguments: [text, String(delta.version), String(delta.origin), String(ttlMs)],
    });
  };
  const flush = async () => {
    while (buffer.length > 0 && pub.isReady && !closed) {
      await within(timeoutMs, 'redis publish', store(buffer[0]));
      buffer.shift();
      stats.published += 1;
    }
  };
  let wasDown = false;
  pub.on('ready', () => {
    if (!wasDown) return;
    wasDown = false;
    stats.reconnects += 1;
    // Back: send what waited, and read what others stored while this member could not hear.
    flush().catch(onError);
    within(timeoutMs, 'redis snapshot', readKeys())
      .then((texts) => {
        stats.recovered += texts.length;
        texts.forEach(deliver);
      })
      .catch(onError);
  });
  pub.on('end', () => { wasDown = true; });
  pub.on('reconnecting', () => { wasDown = true; });
  // Redis down at start is not an error: the member routes alone and joins when it can.
  const connect = (c) => c.connect().catch((e) => { wasDown = true; onError(e); });
  await within(timeoutMs + 500, 'redis connect', Promise.all([connect(pub), connect(sub)])).catch(onError);
  const subscribed = () => sub.subscribe(channel, deliver);
  if (sub.isReady) await within(timeoutMs, 'redis subscribe', subscribed()).catch(onError);
  else sub.once('ready', () => subscribed().catch(onError));

  return {
    kind: 'redis',
    stats,
    get connected() {
      return pub.isReady;
    },
    async publish(delta) {
      if (buffer.length >= bufferLimit) {
        buffer.shift();
        stats.dropped += 1;
      }
      buffer.push(delta);
      if (!pub.isReady) {
        stats.buffered += 1;
        return;
      }
      await flush().catch((e) => {
        stats.buffered += 1;
        onError(e);
      });
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async snapshot() {
      if (!pub.isReady) return [];
      return within(timeoutMs, 'redis snapshot', readKeys()).catch((e) => {
        onError(e);
        return [];
      });
    },
    async close() {
      closed = true;
      for (const c of [sub, pub]) {
        try {
          if (c.isOpen) await within(timeoutMs, 'redis close', c.close());
        } catch {
          c.destroy();
        }
      }
    },
  };
}
