// An in-memory bus for tests and simulation: members of one hub hear each other's messages
// asynchronously (as over a network), and the hub keeps each member's latest breaker change per
// tool for snapshots (with its age, so a late member opens a tool for the cooldown left).
import { z } from 'zod';
import { readOptions } from './order.mjs';

const OPTIONS = {
  delayMs: z
    .number({ error: 'must be a number of milliseconds, 0 or more' })
    .refine((v) => Number.isFinite(v) && v >= 0, { error: 'must be a number of milliseconds, 0 or more' })
    .optional(),
  namespace: z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' }).optional(),
};

export function memoryHub(opts) {
  readOptions('memoryHub', OPTIONS, opts);
  const { delayMs = 0, namespace = 'memory' } = opts ?? {};
  const members = new Set();
  // `${tool}\n${origin}` -> {message, at}: what a Redis bus keeps in its keys.
  const latest = new Map();
  const deliver = (from, message) => {
    for (const m of members) {
      if (m === from) continue;
      const send = () => m.handlers.forEach((h) => h(message));
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
        namespace,
        async publish(message) {
          const d = message?.delta;
          if (d && (d.change === 'opened' || d.change === 'closed')) latest.set(`${d.tool}\n${d.origin}`, { message, at: Date.now() });
          deliver(me, structuredClone(message));
        },
        subscribe(handler) {
          me.handlers.add(handler);
          return () => me.handlers.delete(handler);
        },
        async snapshot() {
          const now = Date.now();
          return [...latest.values()].map(({ message, at }) => ({ ...structuredClone(message), age: now - at }));
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
    /** Overwrites the stored change of (tool, origin), as anyone with write access could. */
    store(tool, origin, message) {
      latest.set(`${tool}\n${origin}`, { message, at: Date.now() });
    },
  };
}
