// Fleet health for shr-wasm routers. One small interface, three adapters, one wiring:
//   bus = memoryHub().bus() | broadcastBus(namespace) | await redisBus({url, namespace, username, password})
//   fleet = await joinFleet(router, bus, {key} | {members, memberKey})  // snapshot first, then signed deltas both ways
//   router.run(task, fleet.options({tools}))     // optional: publishes a change the moment it happens
// A bus: publish(envelope) -> Promise, subscribe(handler) -> unsubscribe, snapshot() -> Promise<envelope[]>,
// close(), and its `namespace`. joinFleet signs each router.drainHealthDeltas() item (HMAC-SHA256
// under the fleet key, or Ed25519 under the member's own key: sign.mjs, members.mjs) and verifies every message before router.applyHealthDelta,
// which refuses malformed, replayed, far-ahead or hostile ones with a code. Trust model and
// options: README.md; types: index.d.ts.
export { memoryHub } from './memory.mjs';
export { broadcastBus } from './broadcast.mjs';
export { redisBus } from './redis.mjs';
export { joinFleet } from './join.mjs';
export { startProbes } from './probe.mjs';
export { memberKeyPair } from './members.mjs';
