// Traffic on the preferred tool across an outage and its recovery (issue 41), through the wasm
// package on a virtual clock: stripe (cost 1) and paypal (cost 3) refund; a run every 5 ms for
// 3 s; stripe fails from 500 ms to 1,550 ms (a transient 503); breaker cooldown 200 ms. Each
// column is one router: healing back by trial traffic alone, and with a configured probe
// (every 100 ms) beside it. Prints a markdown table: per 100 ms, the share of runs through
// stripe and the calls stripe got.
//   node bench/heal.mjs [--outage-ms 1050] [--cooldown-ms 200]
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Router } = require('../crates/wasm/pkg/node/shr_wasm.js');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const DOWN_AT = 500;
const UP_AT = DOWN_AT + arg('--outage-ms', 1050);
const COOLDOWN = arg('--cooldown-ms', 200);
const END = 3000;
const EVERY = 5;

const graph = (probe) => ({
  nodes: [
    { id: 'start', tool: false },
    { id: 'stripe', ...(probe ? { probe: { interval_ms: 100, input: {} } } : {}) },
    { id: 'paypal' },
    { id: 'done', tool: false },
  ],
  edges: [
    { from: 'start', to: 'stripe', cost: 1 }, { from: 'start', to: 'paypal', cost: 3 },
    { from: 'stripe', to: 'done', cost: 1 }, { from: 'paypal', to: 'done', cost: 1 },
  ],
  start: 'start',
  goal: 'done',
});

/** One router through the whole scenario: per 100 ms bucket, [runs, runs via stripe, stripe calls]. */
async function scenario(probe) {
  let now = 0;
  const r = Router.fromJson(graph(probe), { config: { breaker: { cooldownMs: COOLDOWN } }, clock: () => now });
  const buckets = Array.from({ length: END / 100 }, () => [0, 0, 0]);
  const stripeUp = () => now < DOWN_AT || now >= UP_AT;
  const stripe = async () => {
    buckets[Math.floor(now / 100)][2] += 1;
    return stripeUp() ? { refund: 'st' } : { success: false, error: '503', transient: true };
  };
  const tools = { stripe, paypal: async () => ({ refund: 'pp' }) };
  for (now = 0; now < END; now += EVERY) {
    if (probe) {
      for (const p of r.dueProbes(now)) {
        buckets[Math.floor(now / 100)][2] += 1;
        r.settleProbe(p.probe, { ok: stripeUp(), latencyMs: 1, at: now });
      }
    }
    const { events } = await r.run(null, { tools });
    const b = buckets[Math.floor(now / 100)];
    b[0] += 1;
    if (events.some((e) => e.event === 'ToolSucceeded' && e.tool === 'stripe')) b[1] += 1;
  }
  return buckets;
}

const trial = await scenario(false);
const probed = await scenario(true);
const pct = (b) => `${Math.round((100 * b[1]) / b[0])}%`;
console.log(`A run every ${EVERY} ms; stripe down from ${DOWN_AT} to ${UP_AT} ms; cooldown ${COOLDOWN} ms. Per 100 ms:`);
console.log('share of runs that refunded through stripe (cost 1; paypal costs 3), and calls stripe got');
console.log('(task calls and probes). Virtual clock: the figures are the router\'s decisions, not timings.');
console.log();
console.log('| from ms | stripe | trial traffic only: via stripe | stripe calls | with a probe every 100 ms: via stripe | stripe calls |');
console.log('|---:|---|---:|---:|---:|---:|');
for (let i = 0; i < trial.length; i++) {
  const t = i * 100;
  const state = t >= DOWN_AT && t < UP_AT ? 'down' : 'up';
  console.log(`| ${t} | ${state} | ${pct(trial[i])} | ${trial[i][2]} | ${pct(probed[i])} | ${probed[i][2]} |`);
}
const back = (buckets) => {
  const i = buckets.findIndex((b, k) => k * 100 >= UP_AT && b[1] === b[0]);
  return i < 0 ? 'never' : `${i * 100 - UP_AT} ms`;
};
const during = (buckets) => buckets.slice(DOWN_AT / 100, UP_AT / 100).reduce((n, b) => n + b[2], 0);
console.log();
console.log(`Every run through stripe again from: trial traffic only ${back(trial)} after recovery, with a probe ${back(probed)}.`);
console.log(`Calls stripe got while down: trial traffic only ${during(trial)}, with a probe ${during(probed)}.`);
