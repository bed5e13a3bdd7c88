// Redis (node-redis): signed envelopes (see sign.mjs) on a pub/sub channel, and each member's
// latest breaker change of each tool in a key with a TTL (`shr:<ns>:tool:<tool>:<origin>`), so
// an agent that starts late, or comes back after Redis was away, begins with the fleet's view.
// Keys are per member, written unconditionally: Redis cannot check a signature, so no stored
// value (a forged one included) decides whether a member's next change is kept. One namespace
// per fleet, required. While Redis is down the member routes on its own health: what it would
// publish waits in a bounded buffer (the oldest dropped and counted) and goes out when Redis is
// back; what others stored meanwhile is read back from the keys whenever either connection
// (publishing or subscribed) comes back.
//
// What can be lost, and is counted: a `failed` observation is published with a plain PUBLISH
// and stored nowhere (it is evidence, not state); one published while a peer's subscription is
// down is not heard by that peer. An `opened` or `closed` change is stored, so a peer that
// missed its message reads it back from the key, with its age (the cooldown left is cut by it).
import { createClient } from 'redis';
import { z } from 'zod';
import { within, readOptions, badOptions, coded, option } from './order.mjs';

// Stores the envelope (with the TTL it was stored for, so a reader can tell its age) and
// publishes it, atomically. The channel is an argument, not a key: an ACL user's key patterns
// need only cover `shr:<ns>:tool:*`.
const STORE = `
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[1])
return 1`;

const nonEmpty = z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' }).optional();
const OPTIONS = {
  url: z.string({ error: 'must be a redis:// or rediss:// URL' }).regex(/^rediss?:\/\//, { error: 'must be a redis:// or rediss:// URL' }).optional(),
  namespace: option.any,
  ttlMs: option.positive(),
  bufferLimit: option.whole(1, 'a positive integer'),
  timeoutMs: option.positive(),
  onError: option.fn,
  username: nonEmpty,
  password: nonEmpty,
  tls: z.record(z.string(), z.unknown(), { error: 'must be an object of node:tls options' }).optional(),
};
const NAMESPACE = /^[A-Za-z0-9_.:-]{1,128}$/;
// What Redis answers when it will not let this client in, or not run a command.
const REFUSED = /^(WRONGPASS|NOAUTH|NOPERM|ERR AUTH|ERR invalid password|ERR Client sent AUTH)/;

/** A fleet's namespace: 1 to 128 of [A-Za-z0-9_.:-]; no glob character (it is a SCAN pattern). */
export function checkNamespace(namespace) {
  if (namespace === undefined || namespace === null) {
    throw coded('namespace_required', 'redisBus: `namespace` is required (1 to 128 of A-Z a-z 0-9 _ . : -): there is no default, so two apps on one Redis never share health by accident');
  }
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    const glob = typeof namespace === 'string' && /[*?[\]]/.test(namespace);
    throw badOptions(
      `redisBus: \`namespace\` must be 1 to 128 of A-Z a-z 0-9 _ . : -${glob ? ' (no glob character * ? [ ])' : ''}, got ${JSON.stringify(namespace)}`,
    );
  }
  return namespace;
}

/** Redis refused this client (bad credentials, or an ACL without a needed permission). */
function refused(e, namespace) {
  const out = new Error(`redisBus: Redis refused the connection or a command: ${e?.message ?? e}. ` +
    `Check \`username\`/\`password\`, and that the ACL user may use keys \`shr:${namespace}:*\` and channel \`shr:${namespace}:deltas\` (see packages/fleet/README.md)`);
  out.code = 'redis_refused';
  out.cause = e;
  return out;
}

/**
 * @param opts.url redis://host:port or rediss://host:port (TLS) (node-redis's default when absent)
 * @param opts.namespace the fleet's name (required)
 * @param opts.username, opts.password Redis ACL user (AUTH username password), or the URL's
 * @param opts.tls TLS options for a rediss:// URL, passed through to node:tls (ca, cert, key,
 *   servername, rejectUnauthorized...)
 * @param opts.ttlMs how long a stored change lives (default 10 min)
 * @param opts.bufferLimit deltas kept while Redis is away (default 1000; the oldest dropped)
 * @param opts.timeoutMs the longest any one wait on Redis lasts (default 2000)
 * @param opts.onError (error) for each error, which never throws out of the bus
 */
export async function redisBus(opts) {
  const where = 'redisBus';
  readOptions(where, OPTIONS, opts);
  const { url, namespace, ttlMs = 10 * 60 * 1000, bufferLimit = 1000, timeoutMs = 2000, onError = () => {}, username, password, tls } = opts ?? {};
  checkNamespace(namespace);
  if (tls !== undefined && url !== undefined && !url.startsWith('rediss://')) throw badOptions(`${where}: \`tls\` needs a rediss:// URL`);

  const channel = `shr:${namespace}:deltas`;
  const prefix = `shr:${namespace}:tool:`;
  const socket = {
    ...(tls ?? {}),
    ...(url?.startsWith('rediss://') ? { tls: true } : {}),
    connectTimeout: timeoutMs,
    // Back off from 50 ms to 2 s between attempts, forever: the fleet outlives Redis restarts.
    reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2000),
  };
  const pub = createClient({ url, socket, username, password, disableOfflineQueue: true });
  const sub = pub.duplicate();
  const stats = {
    /** Deltas that went out on the channel. */
    published: 0,
    /** Deltas that had to wait for Redis (down, or a send that failed). */
    buffered: 0,
    /** Deltas dropped from a full buffer. */
    dropped: 0,
    /** Sends with no answer within `timeoutMs` (the answer, when it comes, is counted above). */
    timeouts: 0,
    /** Times the publishing connection came back. */
    reconnects: 0,
    /** Times the subscribed connection came back (resubscribed). */
    resubscribes: 0,
    errors: 0,
    /** Stored changes read back after a connection came back. */
    recovered: 0,
  };
  const handlers = new Set();
  // Waiting deltas, oldest first: {delta, sending: Promise<boolean> | null, waited, done()}.
  const buffer = [];
  let closed = false;
  let refusal = null;
  const report = (e) => {
    if (REFUSED.test(String(e?.message ?? ''))) {
      e = refused(e, namespace);
      refusal ??= e;
    }
    try {
      onError(e);
    } catch {
      // A listener that throws changes nothing here.
    }
  };
  for (const c of [pub, sub]) {
    // node-redis emits 'error' on every failed attempt; unhandled, it would end the process.
    c.on('error', (e) => {
      stats.errors += 1;
      report(e);
    });
  }
  const deliver = (message) => handlers.forEach((h) => h(message));
  // Every stored change, each with its age (from the TTL it was stored with and the TTL left).
  const readKeys = async () => {
    const keys = [];
    for await (const batch of pub.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) keys.push(...(Array.isArray(batch) ? batch : [batch]));
    if (keys.length === 0) return [];
    const m = pub.multi();
    for (const k of keys) m.get(k).pTTL(k);
    const replies = await m.exec();
    const out = [];
    for (let i = 0; i < keys.length; i += 1) {
      const text = replies[2 * i];
      const left = Number(replies[2 * i + 1]);
      if (typeof text !== 'string') continue;
      // `{"ttl":N,"env":<envelope>}`; anything else is handed on for joinFleet to refuse.
      let stored = null;
      try {
        stored = JSON.parse(text);
      } catch {
        // Not JSON: refused downstream.
      }
      if (stored && typeof stored === 'object' && stored.env && typeof stored.env === 'object' && Number.isFinite(stored.ttl)) {
        const age = left > 0 ? Math.max(0, stored.ttl - left) : 0;
        out.push(age > 0 ? { ...stored.env, age } : stored.env);
      } else out.push(text);
    }
    return out;
  };
  // Reads back what others stored while this member could not hear (duplicates are refused by
  // the router as stale_version, so reading twice is harmless).
  const catchUp = () => {
    if (!pub.isReady || closed || handlers.size === 0) return;
    within(timeoutMs, 'redis snapshot', readKeys())
      .then((texts) => {
        stats.recovered += texts.length;
        texts.forEach(deliver);
      })
      .catch(report);
  };

  const settle = (entry, outcome) => {
    const i = buffer.indexOf(entry);
    if (i >= 0) buffer.splice(i, 1);
    if (outcome) stats[outcome] += 1;
    entry.done();
  };
  const wait = (entry) => {
    if (entry.waited) return;
    entry.waited = true;
    stats.buffered += 1;
  };
  // Sends one delta, once: a second call while it is on its way returns the same promise, so a
  // send that timed out is not sent again (a `failed` observation would count twice). Resolves
  // true when Redis answered (the delta left the buffer), false when the send failed (it stays,
  // for the next attempt); never rejects.
  const send = (entry) => {
    if (entry.sending) return entry.sending;
    const { delta: envelope } = entry;
    const text = JSON.stringify(envelope);
    const d = envelope?.delta ?? {};
    const stored = d.change === 'opened' || d.change === 'closed';
    const command = stored
      ? pub.eval(STORE, {
        keys: [`${prefix}${d.tool}:${d.origin}`],
        arguments: [text, `{"ttl":${Math.round(ttlMs)},"env":${text}}`, String(Math.round(ttlMs)), channel],
      })
      : pub.publish(channel, text);
    entry.sending = Promise.resolve(command).then(
      (reply) => {
        settle(entry, 'published');
        // An answer that came after its timeout: carry on with the rest.
        if (!looping && buffer.length > 0) queueMicrotask(kick);
        return true;
      },
      (e) => {
        entry.sending = null;
        wait(entry);
        report(e);
        return false;
      },
    );
    return entry.sending;
  };
  // One flush loop at a time, oldest first, each delta removed only once its own send answered.
  let looping = null;
  const flush = async () => {
    while (buffer.length > 0 && pub.isReady && !closed) {
      let ok;
      try {
        ok = await within(timeoutMs, 'redis publish', send(buffer[0]));
      } catch (e) {
        // No answer yet: the send stays on its way; its answer restarts the loop.
        stats.timeouts += 1;
        report(e);
        return;
      }
      if (!ok) return;
    }
  };
  const kick = () => {
    looping ??= flush().finally(() => {
      looping = null;
    });
    return looping;
  };

  let pubReadyBefore = false;
  pub.on('ready', () => {
    if (pubReadyBefore) stats.reconnects += 1;
    pubReadyBefore = true;
    // Back (or up for the first time): send what waited, and read what others stored.
    kick();
    catchUp();
  });
  // Subscribed once by this code; after that node-redis resubscribes on each reconnect before
  // it says ready again.
  let subscribed = false;
  let subscribing = null;
  const subscribe = () => {
    if (subscribed || closed || !sub.isReady) return Promise.resolve();
    subscribing ??= sub
      .subscribe(channel, deliver)
      .then(
        () => {
          subscribed = true;
          // Subscribed late (Redis was down at start): read what was stored before.
          catchUp();
        },
        report,
      )
      .finally(() => {
        subscribing = null;
      });
    return subscribing;
  };
  sub.on('ready', () => {
    if (!subscribed) return void subscribe();
    // Back: read what was stored while this member could not hear.
    stats.resubscribes += 1;
    catchUp();
  });
  // Redis down at start is not an error: the member routes alone and joins when it can.
  const connect = (c) => c.connect().catch(report);
  await within(timeoutMs + 500, 'redis connect', Promise.all([connect(pub), connect(sub)])).catch(report);
  await within(timeoutMs, 'redis subscribe', subscribe()).catch(report);
  // Redis up but refusing this client (bad credentials, an ACL too narrow): a configuration
  // error, said at once with its code, not a fleet that silently never hears anything.
  if (refusal) {
    closed = true;
    for (const c of [sub, pub]) c.destroy?.();
    throw refusal;
  }

  return {
    kind: 'redis',
    namespace,
    stats,
    get connected() {
      return pub.isReady;
    },
    /** Deltas waiting to go out (Redis away, or slow). */
    get pending() {
      return buffer.length;
    },
    /** Queues a delta and sends it; resolves when Redis answered, or after `timeoutMs` (it
     * then stays queued). Never rejects: errors go to `onError`. */
    publish(delta) {
      if (closed) return Promise.resolve();
      let done;
      const settled = new Promise((r) => {
        done = r;
      });
      const entry = { delta, sending: null, waited: false, done };
      if (buffer.length >= bufferLimit) {
        // The oldest that is not on its way (the one on its way is at the head).
        const i = buffer.findIndex((e) => !e.sending);
        const victim = i >= 0 ? buffer[i] : entry;
        if (victim !== entry) buffer.splice(i, 1);
        stats.dropped += 1;
        victim.done();
        if (victim === entry) return Promise.resolve();
      }
      buffer.push(entry);
      if (!pub.isReady) {
        wait(entry);
        return Promise.resolve();
      }
      kick();
      return within(timeoutMs, 'redis publish', settled).catch(() => {});
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    /** The stored view; [] while Redis is away. Rejects with `redis_refused` when the ACL
     * does not allow reading it (a misconfiguration, said at once). */
    async snapshot() {
      if (!pub.isReady) return [];
      return within(timeoutMs, 'redis snapshot', readKeys()).catch((e) => {
        report(e);
        if (REFUSED.test(String(e?.message ?? ''))) throw refused(e, namespace);
        return [];
      });
    },
    /** Closes both connections. Deltas still waiting are not sent (see `pending`). */
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
