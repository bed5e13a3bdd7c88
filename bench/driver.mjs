// The JS driver's CPU per run (issue 48, target 3): `Router.run` on the customer-support
// scenario graph, every tool an async function that returns at once, runs one after another on
// one thread. CPU time (process.cpuUsage: user + system) per run and runs per second of CPU,
// beside a bare `route` on the same graph. A run's `events` are parsed when first read, so the
// runs are timed twice: reading only the outcome (the target's row) and reading the events too.
//   node bench/driver.mjs [--runs N] [--graphs DIR] [--json]   (the wasm package must be built)
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { Router } = require(join(here, '../crates/wasm/pkg/node/shr_wasm.js'));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const runs = Number(arg('--runs', 20000));
const graphs = arg('--graphs', join(here, 'graphs'));
// gen_graphs writes scn_customer_support.json as the scenario file's `graph`, unchanged: read
// from there when the benchmark graphs are not written yet.
const file = join(graphs, 'scn_customer_support.json');
const text = existsSync(file)
  ? readFileSync(file, 'utf8')
  : JSON.stringify(JSON.parse(readFileSync(join(here, '../crates/eval/scenarios/customer_support.json'), 'utf8')).graph);
const ids = JSON.parse(text).nodes.filter((n) => n.tool !== false).map((n) => n.id);
const tools = Object.fromEntries(ids.map((id) => [id, async () => ({ ok: true })]));
const router = Router.fromJson(text);

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function timeRuns(n, readEvents = false) {
  const t0 = cpuUs();
  for (let i = 0; i < n; i++) {
    const result = await router.run(null, { tools });
    if (result.outcome.status !== 'completed') throw new Error(`run ${i}: ${result.outcome.status}`);
    if (readEvents && result.events.length === 0) throw new Error(`run ${i}: no events`);
  }
  return (cpuUs() - t0) / n;
}

function timeRoutes(n) {
  const t0 = cpuUs();
  for (let i = 0; i < n; i++) router.route('start', 'refund_done');
  return (cpuUs() - t0) / n;
}

await timeRuns(Math.min(2000, runs)); // warm-up
timeRoutes(20000);
const rounds = [];
for (let r = 0; r < 5; r++) {
  rounds.push({ run: await timeRuns(Math.ceil(runs / 5)), events: await timeRuns(Math.ceil(runs / 5), true), route: timeRoutes(20000) });
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const run = median(rounds.map((r) => r.run));
const withEvents = median(rounds.map((r) => r.events));
const route = median(rounds.map((r) => r.route));
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ graph: 'scn_customer_support', runs, cpu_us_per_run: run, runs_per_cpu_s: 1e6 / run, cpu_us_per_run_events_read: withEvents, cpu_us_per_route: route }));
} else {
  const met = run <= 30 ? 'met' : 'missed';
  console.log('| workload | CPU per run | runs per CPU second | bare route (same graph) | run / route | target (<= 30 us a run) |');
  console.log('|---|--:|--:|--:|--:|:-:|');
  const row = (what, us, target) =>
    `| ${what} | ${us.toFixed(1)} µs | ${Math.round(1e6 / us).toLocaleString('en')} | ${route.toFixed(2)} µs | ${(us / route).toFixed(0)}x | ${target} |`;
  console.log(row(`\`Router.run\`, scn_customer_support, ${runs.toLocaleString('en')} runs`, run, met));
  console.log(row('the same, each run\'s `events` read too', withEvents, ''));
}
