// Joins a router to a fleet over a bus: the fleet's snapshot first, then every delta received
// is applied (the router refuses bad ones with a code) and every change the router makes on its
// own evidence is published. Nothing here decides health: the core does, deterministically.
import { checkOptions, badOptions, positive, fn } from './order.mjs';

const OPTIONS = ['flushMs', 'onDelta', 'onPublish', 'now'];

/**
 * @param router a shr-wasm Router with a unique `origin` option (the default, `local`, is
 *   refused: two members named alike would refuse each other's deltas as bad_origin)
 * @param bus a bus: memoryHub().bus(), broadcastBus(name) or await redisBus({...})
 * @param opts.flushMs how often to publish changes made outside `fleet.options` runs (default 5)
 * @param opts.onDelta (delta, verdict) for each received message, applied or refused
 * @param opts.now () => ms, the clock the router runs on, if not its own
 * @param opts.onPublish (deltas) for each batch drained from the router and handed to the bus
 */
export async function joinFleet(router, bus, opts) {
  const where = 'joinFleet';
  checkOptions(where, opts, OPTIONS);
  const { flushMs = 5, onDelta = () => {}, onPublish = () => {}, now } = opts ?? {};
  positive(where, 'flushMs', flushMs);
  fn(where, 'onDelta', onDelta);
  fn(where, 'onPublish', onPublish);
  if (now !== undefined) fn(where, 'now', now);
  if (!router || typeof router.applyHealthDelta !== 'function' || typeof router.drainHealthDeltas !== 'function') {
    throw badOptions(`${where}: the first argument must be a shr-wasm Router`);
  }
  if (router.origin === 'local') {
    throw badOptions(`${where}: the router has the default origin \`local\`; give each member a unique one (new Router(graph, { origin: 'agent-7' }))`);
  }
  for (const m of ['publish', 'subscribe', 'snapshot']) {
    if (!bus || typeof bus[m] !== 'function') throw badOptions(`${where}: the bus has no \`${m}\` function`);
  }
  const stats = { published: 0, applied: 0, rejected: 0, rejectedBy: {} };
  const rejections = [];
  const receive = (message) => {
    let verdict;
    try {
      verdict = router.applyHealthDelta(message, now?.());
    } catch (e) {
      // Only a freed router or a bad clock throws; the message itself never does.
      verdict = { applied: false, code: e.code ?? 'internal', message: String(e.message ?? e) };
    }
    if (verdict.applied) stats.applied += 1;
    else {
      stats.rejected += 1;
      stats.rejectedBy[verdict.code] = (stats.rejectedBy[verdict.code] ?? 0) + 1;
      if (rejections.length < 100) rejections.push(verdict);
    }
    try {
      onDelta(message, verdict);
    } catch {
      // A listener that throws is ignored, as run's onEvent.
    }
  };
  bus.provide?.(() => router.healthSnapshot());
  for (const d of await bus.snapshot()) receive(d);
  const unsubscribe = bus.subscribe(receive);
  let flushing = Promise.resolve();
  const flush = () => {
    const deltas = router.drainHealthDeltas();
    if (deltas.length === 0) return flushing;
    stats.published += deltas.length;
    try {
      onPublish(deltas);
    } catch {
      // A listener that throws is ignored.
    }
    flushing = flushing.then(() => Promise.all(deltas.map((d) => bus.publish(d)))).catch(() => {});
    return flushing;
  };
  const timer = setInterval(flush, flushMs);
  timer.unref?.();
  return {
    stats,
    /** The last refused messages (at most 100), each with its code. */
    rejections,
    flush,
    /** Run options that publish a health change as soon as the run makes it. */
    options(runOptions) {
      const onEvent = runOptions.onEvent;
      return {
        ...runOptions,
        onEvent(event) {
          // After the router's current step returns: the router is busy while it emits.
          if (event.event === 'BreakerChanged') queueMicrotask(flush);
          onEvent?.(event);
        },
      };
    },
    async close() {
      clearInterval(timer);
      unsubscribe();
      await flush();
    },
  };
}
