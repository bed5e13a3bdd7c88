// Fleet health for shr-wasm routers. One small interface, three adapters, one wiring:
//   bus = memoryHub().bus() | broadcastBus(name) | await redisBus({url, namespace})
//   fleet = await joinFleet(router, bus)      // snapshot first, then live deltas both ways
//   router.run(task, fleet.options({tools}))  // optional: publishes a change the moment it happens
// A bus: publish(delta) -> Promise, subscribe(handler) -> unsubscribe, snapshot() -> Promise<delta[]>,
// close(). Deltas are router.drainHealthDeltas() items; every one received goes through
// router.applyHealthDelta, which refuses malformed or hostile ones with a code.
export { memoryHub } from './memory.mjs';
export { broadcastBus } from './broadcast.mjs';
export { redisBus } from './redis.mjs';
export { joinFleet } from './join.mjs';
export { startProbes } from './probe.mjs';
