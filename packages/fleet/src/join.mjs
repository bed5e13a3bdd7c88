// Joins a router to a fleet over a bus: the fleet's snapshot first, then every message received
// is authenticated (under the fleet key, or under the key of the member it names; for this
// namespace and this graph) and
// applied (the router refuses bad deltas with a code), and every change the router makes on its
// own evidence is signed and published. Nothing here decides health: the core does,
// deterministically; this layer decides who may speak.
import { readOptions, badOptions, coded, option } from './order.mjs';
import { sealer, fingerprint } from './sign.mjs';

const OPTIONS = {
  flushMs: option.positive(),
  onDelta: option.fn,
  onPublish: option.fn,
  now: option.fn,
  key: option.any,
  previousKey: option.any,
  members: option.any,
  memberKey: option.any,
  verifyPerSecond: option.any,
  namespace: option.any,
  quorum: option.whole(1, 'an integer, 1 or more'),
  windowMs: option.whole(0, 'a whole number of ms, 0 or more'),
  maxSkewMs: option.whole(0, 'a whole number of ms, 0 or more'),
  crypto: option.any,
};

/**
 * @param router a shr-wasm Router with a unique `origin` option (the default, `local`, is
 *   refused: two members named alike would refuse each other's deltas as bad_origin)
 * @param bus a bus: memoryHub().bus(), broadcastBus(name) or await redisBus({...})
 * @param opts.key the fleet key: a string or bytes, 16 bytes or more (this or `members`)
 * @param opts.previousKey a second key accepted (not used to sign): for rotation
 * @param opts.members instead of `key`: every member's Ed25519 public key (JWK) by origin, so
 *   each member speaks only for itself; opts.memberKey this member's private key (JWK);
 *   opts.verifyPerSecond the signature checks allowed a second (default 1000)
 * @param opts.namespace the fleet's name, when the bus has none (a Redis bus has its own)
 * @param opts.quorum distinct members whose evidence opens a tool here (default 2; 1 trusts
 *   every member alone)
 * @param opts.windowMs how long one member's evidence counts, once (default: the cooldown)
 * @param opts.maxSkewMs how far ahead of this router's clock a version may run (default 60000)
 * @param opts.flushMs how often to publish changes made outside `fleet.options` runs (default 5)
 * @param opts.onDelta (message, verdict) for each received message, applied or refused
 * @param opts.now () => ms, the clock the router runs on, if not its own
 * @param opts.onPublish (deltas) for each batch drained from the router and handed to the bus
 * @param opts.crypto 'node' or 'webcrypto' (default: node:crypto where there is one)
 */
export async function joinFleet(router, bus, opts) {
  const where = 'joinFleet';
  readOptions(where, OPTIONS, opts);
  const { flushMs = 5, onDelta = () => {}, onPublish = () => {}, now, quorum = 2, windowMs = 0, maxSkewMs = 60_000 } = opts ?? {};
  if (!router || typeof router.applyHealthDelta !== 'function' || typeof router.drainHealthDeltas !== 'function') {
    throw badOptions(`${where}: the first argument must be a shr-wasm Router`);
  }
  if (router.origin === 'local') {
    throw badOptions(`${where}: the router has the default origin \`local\`; give each member a unique one (new Router(graph, { origin: 'agent-7' }))`);
  }
  for (const m of ['publish', 'subscribe', 'snapshot']) {
    if (!bus || typeof bus[m] !== 'function') throw badOptions(`${where}: the bus has no \`${m}\` function`);
  }
  const namespace = bus.namespace ?? opts?.namespace;
  if (typeof namespace !== 'string' || namespace === '') {
    throw coded('namespace_required', `${where}: a namespace is required (the bus's, or \`namespace\`): there is no default, so two fleets never share one by accident`);
  }
  if (bus.namespace !== undefined && opts?.namespace !== undefined && opts.namespace !== bus.namespace) {
    throw badOptions(`${where}: \`namespace\` ${JSON.stringify(opts.namespace)} is not the bus's (${JSON.stringify(bus.namespace)})`);
  }
  const signing = { key: opts?.key, previousKey: opts?.previousKey, members: opts?.members, memberKey: opts?.memberKey, verifyPerSecond: opts?.verifyPerSecond, origin: router.origin, namespace, crypto: opts?.crypto };
  const probe = await sealer(where, { ...signing, graph: '' });
  const memberCount = signing.members ? Object.keys(signing.members).length : Infinity;
  if (quorum > memberCount) {
    throw badOptions(`${where}: \`quorum\` ${quorum} is more than the ${memberCount} members listed: the fleet's evidence could never take a tool out of use`);
  }
  const graph = await fingerprint(router, probe.sha256);
  const seal = await sealer(where, { ...signing, graph });
  // Every option checked: only now is the router changed.
  router.configureFleet({ quorum, windowMs, maxSkewMs });
  const stats = { published: 0, applied: 0, rejected: 0, rejectedBy: {}, previousKey: 0 };
  const rejections = [];
  const judge = (message, opened) => {
    let verdict;
    if (opened.code) verdict = { applied: false, code: opened.code, message: opened.message };
    else {
      if (opened.key === 'previous') stats.previousKey += 1;
      try {
        verdict = router.applyHealthDelta(opened.delta, now?.());
      } catch (e) {
        // Only a freed router or a bad clock throws; the message itself never does.
        verdict = { applied: false, code: e.code ?? 'internal', message: String(e.message ?? e) };
      }
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
  // In arrival order, also when Web Crypto verifies asynchronously.
  let receiving = Promise.resolve();
  const receive = (message) => {
    const opened = seal.open(message);
    if (typeof opened?.then !== 'function') return judge(message, opened);
    receiving = receiving.then(() => opened).then((o) => judge(message, o), () => judge(message, { code: 'bad_signature', message: 'verification failed' }));
    return receiving;
  };
  const sealAll = (deltas) => Promise.all(deltas.map((d) => seal.seal(d)));
  bus.provide?.(() => sealAll(router.healthSnapshot(now?.())));
  for (const d of await bus.snapshot()) receive(d);
  await receiving;
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
    flushing = flushing.then(() => sealAll(deltas)).then((sealed) => Promise.all(sealed.map((e) => bus.publish(e)))).catch(() => {});
    return flushing;
  };
  const timer = setInterval(flush, flushMs);
  timer.unref?.();
  return {
    stats,
    namespace,
    /** The graph's fingerprint, carried (and signed) in every envelope. */
    graph,
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
