// An in-memory bus for tests and simulation: members of one hub hear each other's deltas
// asynchronously (as over a network), and the hub keeps the latest delta per tool for snapshots.
import { newer, checkOptions, badOptions } from './order.mjs';

export function memoryHub(opts) {
  checkOptions('memoryHub', opts, ['delayMs']);
  const { delayMs = 0 } = opts ?? {};
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw badOptions('memoryHub: `delayMs` must be a number of milliseconds, 0 or more');
  }
  const members = new Set();
  const latest = new Map();
  const deliver = (from, delta) => {
    for (const m of members) {
      if (m === from) continue;
      const send = () => m.handlers.forEach((h) => h(delta));
      if (delayMs > 0) setTimeout(send, delayMs).unref?.();
      else queueMicrotask(send);
    }
  };
  return {
    bus() {
      const me = { handlers: new Set() };
      members.add(me);
      return {
        kind: 'memory',
        async publish(delta) {
          if (newer(delta, latest.get(delta.tool))) latest.set(delta.tool, delta);
          deliver(me, structuredClone(delta));
        },
        subscribe(handler) {
          me.handlers.add(handler);
          return () => me.handlers.delete(handler);
        },
        async snapshot() {
          return [...latest.values()].map((d) => structuredClone(d));
        },
        async close() {
          members.delete(me);
        },
      };
    },
    /** Sends a raw message to every member, as a hostile or broken peer would. */
    inject(message) {
      for (const m of members) m.handlers.forEach((h) => h(message));
    },
  };
}
