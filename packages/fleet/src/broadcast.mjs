// BroadcastChannel: browser tabs (or Node workers) of one origin share health. A member that
// joins asks the others for their snapshot and takes what arrives within `snapshotMs`. The
// channel's name is the fleet's namespace (required: no default). joinFleet signs with Web
// Crypto in a browser.
import { within, readOptions, badOptions, coded, option } from './order.mjs';

export function broadcastBus(name, opts) {
  if (typeof name !== 'string' || name === '') {
    throw coded('namespace_required', 'broadcastBus: the channel name (the fleet\'s namespace) is required, a non-empty string');
  }
  readOptions('broadcastBus', { snapshotMs: option.positive() }, opts);
  const { snapshotMs = 200 } = opts ?? {};
  const channel = new BroadcastChannel(name);
  // In Node a channel keeps the process alive; a passive listener should not (browsers ignore this).
  channel.unref?.();
  const handlers = new Set();
  let provider = () => [];
  const waiting = new Map();
  channel.onmessage = ({ data }) => {
    if (data && data.kind === 'delta') handlers.forEach((h) => h(data.delta));
    else if (data && data.kind === 'snapshot?') {
      Promise.resolve()
        .then(provider)
        .then((deltas) => channel.postMessage({ kind: 'snapshot', id: data.id, deltas }))
        .catch(() => {});
    }
    else if (data && data.kind === 'snapshot') waiting.get(data.id)?.(data.deltas);
    // Anything else is a message from a broken or hostile peer: handed over for the router to refuse.
    else handlers.forEach((h) => h(data));
  };
  return {
    kind: 'broadcast',
    namespace: name,
    async publish(delta) {
      channel.postMessage({ kind: 'delta', delta });
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    /** joinFleet tells the bus how to answer a newcomer's snapshot request. */
    provide(fn) {
      provider = fn;
    },
    async snapshot() {
      const id = `${Date.now()}-${Math.random()}`;
      const got = [];
      const done = new Promise((resolve) => {
        waiting.set(id, (deltas) => Array.isArray(deltas) && got.push(...deltas));
        setTimeout(resolve, snapshotMs);
      });
      channel.postMessage({ kind: 'snapshot?', id });
      await within(snapshotMs + 1000, 'broadcast snapshot', done);
      waiting.delete(id);
      return got;
    },
    async close() {
      channel.close();
    },
  };
}
