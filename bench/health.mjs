// Health updates from JS against a route (issue 46): `markDown`, `markUp` and `record` are what
// every fleet delta and probe result calls, so each should cost at most about twice a route.
// On the refund graph of the README (5 nodes) and on a layered graph of 200 tools, each call is
// timed in a loop (after a warm-up) through the npm package's Node build; a route is the common
// case (weights remembered, nothing changed since the last route). Prints a markdown table.
//   node bench/health.mjs [--time S]
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Router } = require('../crates/wasm/pkg/node/index.cjs');

const i = process.argv.indexOf('--time');
const SECONDS = i > 0 ? Number(process.argv[i + 1]) : 1;

const refund = {
  start: 'start', goal: 'done',
  nodes: [{ id: 'start', tool: false }, { id: 'stripe' }, { id: 'razorpay' }, { id: 'email' }, { id: 'done', tool: false }],
  edges: [{ from: 'start', to: 'stripe', cost: 1 }, { from: 'start', to: 'razorpay', cost: 2 },
    { from: 'stripe', to: 'email' }, { from: 'razorpay', to: 'email' }, { from: 'email', to: 'done', cost: 0 }],
};

/** 20 layers of 10 tools, each tool joined to every tool of the next layer. */
function layered(layers = 20, width = 10) {
  const nodes = [{ id: 'start', tool: false }, { id: 'done', tool: false }];
  const edges = [];
  for (let l = 0; l < layers; l++) {
    for (let w = 0; w < width; w++) {
      nodes.push({ id: `t${l}_${w}` });
      if (l === 0) edges.push({ from: 'start', to: `t0_${w}`, cost: 1 + w });
      else for (let p = 0; p < width; p++) edges.push({ from: `t${l - 1}_${p}`, to: `t${l}_${w}`, cost: 1 + ((p + w) % 3) });
      if (l === layers - 1) edges.push({ from: `t${l}_${w}`, to: 'done', cost: 0 });
    }
  }
  return { start: 'start', goal: 'done', nodes, edges };
}

/** Nanoseconds per call of `f`, timed over about SECONDS / 7 after a warm-up. */
function time(f) {
  for (let k = 0; k < 20_000; k++) f(k);
  let n = 0;
  const t0 = process.hrtime.bigint();
  const until = t0 + BigInt(Math.round((SECONDS / 7) * 1e9));
  let now = t0;
  while (now < until) {
    for (let k = 0; k < 1000; k++) f(n + k);
    n += 1000;
    now = process.hrtime.bigint();
  }
  return Number(now - t0) / n;
}

/** Per call, the median over 7 rounds, each timing every call in turn (so that the machine's
 * other work weighs on all of them alike). */
function measure(name, graph, tool) {
  const r = new Router(graph, { config: { breaker: { cooldownMs: 1e9 } } });
  const at = 1000;
  const calls = {
    route: () => r.route(null, null, at),
    markDown: () => r.markDown(tool, at),
    markUp: () => r.markUp(tool, at),
    record: (k) => r.record(tool, { ok: true, latencyMs: 100 + (k & 7), at }),
    fail: () => r.record(tool, { ok: false, at }),
  };
  const rounds = Object.fromEntries(Object.keys(calls).map((k) => [k, []]));
  for (let round = 0; round < 7; round++) {
    for (const [k, f] of Object.entries(calls)) {
      if (k === 'route') r.route(null, null, at); // weights remembered again after the updates
      rounds[k].push(time(f));
    }
  }
  r.free();
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  return { name, ...Object.fromEntries(Object.entries(rounds).map(([k, xs]) => [k, median(xs)])) };
}

const rows = [measure('refund (5 nodes)', refund, 'stripe'), measure('layered (202 nodes, 1,810 edges)', layered(), 't10_4')];
const ns = (x) => `${x < 100 ? x.toFixed(1) : Math.round(x)} ns`;
const ratio = (x, r) => `${(x / r).toFixed(2)}x`;
console.log(`Node ${process.version}, ${SECONDS} s per call (median of 7 rounds); the ratio is to a route on the same graph, weights remembered.`);
console.log();
console.log('| graph | route | markDown | markUp | record (ok, latency) | record (failure) |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.name} | ${ns(r.route)} | ${ns(r.markDown)} (${ratio(r.markDown, r.route)}) | ${ns(r.markUp)} (${ratio(r.markUp, r.route)}) | ${ns(r.record)} (${ratio(r.record, r.route)}) | ${ns(r.fail)} (${ratio(r.fail, r.route)}) |`);
}
