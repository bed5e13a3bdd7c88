// One agent process of the fleet example: a Router serving refund tasks against the shared mock
// tools, optionally sharing health over Redis, probing a half-open tool on its own schedule.
// Prints one JSON line when done: what it did and when it stopped and resumed using stripe.
import { createRequire } from 'node:module';
import { redisBus, joinFleet, startProbes } from '../../packages/fleet/src/index.mjs';

const require = createRequire(import.meta.url);
const { Router } = require('../../crates/wasm/pkg/node/shr_wasm.js');
const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const id = arg('id', 'agent');
const toolsUrl = arg('tools');
const redisUrl = arg('redis', 'none');
const durationMs = Number(arg('duration-ms', 60_000));
const everyMs = Number(arg('every-ms', 20));
const cooldownMs = Number(arg('cooldown-ms', 500));
const probeMs = Number(arg('probe-ms', 50));

const graph = {
  name: 'refund',
  nodes: [
    { id: 'start', tool: false }, { id: 'crm' }, { id: 'stripe', probe: { interval_ms: probeMs } }, { id: 'razorpay' },
    { id: 'email' }, { id: 'done', tool: false },
  ],
  edges: [
    { from: 'start', to: 'crm' }, { from: 'crm', to: 'stripe' }, { from: 'crm', to: 'razorpay', cost: 2 },
    { from: 'stripe', to: 'email' }, { from: 'razorpay', to: 'email' }, { from: 'email', to: 'done', cost: 0 },
  ],
  start: 'start', goal: 'done',
};
const router = new Router(graph, { origin: id, config: { breaker: { cooldownMs } } });
// When this agent's route stopped and started going through stripe again (wall clock, ms).
const marks = { avoidAt: null, resumeAt: null };
function markResume() {
  const health = router.health('stripe');
  if (health.weight !== null && health.state === 'closed' && marks.avoidAt !== null && marks.resumeAt === null) marks.resumeAt = Date.now();
}
const call = async (tool, probe = false) => {
  // A task calling stripe while its breaker is closed is this agent routing through it again:
  // marked here, before the call, as the 1 ms watch below can be late on a loaded machine.
  if (tool === 'stripe' && !probe) markResume();
  const res = await fetch(`${toolsUrl}/call/${tool}?agent=${id}${probe ? '&probe' : ''}`, { signal: AbortSignal.timeout(2000) });
  const body = await res.json();
  if (res.ok) return body;
  return { success: false, error: body.error, transient: true };
};
const tools = Object.fromEntries(['crm', 'stripe', 'razorpay', 'email'].map((t) => [t, () => call(t)]));

let fleet = null;
let bus = null;
// Every delta this agent handed to the bus and every one it heard (for the parent to check that
// what was sent reached every agent): `origin|tool|change|version`, with the wall clock.
const key = (d) => `${d.origin}|${d.tool}|${d.change}|${d.version}`;
const sent = [];
const heard = [];
if (redisUrl !== 'none') {
  bus = await redisBus({ url: redisUrl, namespace: arg('namespace', 'example'), timeoutMs: 1000 });
  fleet = await joinFleet(router, bus, {
    // Every delta is signed with the fleet key; the example's, unless the environment gives one.
    key: process.env.SHR_FLEET_KEY ?? 'example-fleet-key-change-me-0123',
    flushMs: 2,
    onPublish: (deltas) => deltas.forEach((d) => sent.push([key(d), Date.now()])),
    onDelta: (message) => {
      try {
        const m = typeof message === 'string' ? JSON.parse(message) : message;
        heard.push(key(m.delta ?? m));
      } catch {
        // Not a delta: nothing to match.
      }
    },
  });
}
const probes = startProbes(router, { stripe: () => call('stripe', true).then((r) => { if (r.success === false) throw new Error(r.error); }) }, { pollMs: probeMs });

const watch = setInterval(() => {
  if (router.health('stripe').weight === null && marks.avoidAt === null) marks.avoidAt = Date.now();
  markResume();
}, 1);

// Ready: the parent starts the failure once every agent serves tasks.
process.stdout.write('ready\n');
// Serves until the parent says stop (a line on stdin), or for `--duration-ms` at most.
const end = Date.now() + durationMs;
let stopped = false;
process.stdin.on('data', () => { stopped = true; });
process.stdin.on('end', () => { stopped = true; });
let tasks = 0;
let completed = 0;
let failed = 0;
while (!stopped && Date.now() < end) {
  tasks += 1;
  try {
    const opts = { tools, timeoutMs: 2000, deadlineMs: 5000 };
    const { outcome } = await router.run(null, fleet ? fleet.options(opts) : opts);
    if (outcome.status === 'completed') completed += 1;
    else failed += 1;
  } catch {
    failed += 1;
  }
  await new Promise((r) => setTimeout(r, everyMs));
}
clearInterval(watch);
probes.stop();
if (fleet) await fleet.close();
const busStats = bus ? { ...bus.stats } : null;
if (bus) await bus.close();
process.stdout.write(`${JSON.stringify({ id, tasks, completed, failed, ...marks, probes: probes.counts, fleet: fleet?.stats ?? null, bus: busStats, sent, heard })}\n`);
process.stdin.destroy();
process.exit(0);
