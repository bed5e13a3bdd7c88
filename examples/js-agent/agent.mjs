// A small refund agent: SHR sits in front of its tools, so when the primary payment provider
// (stripe) throws, the run reroutes through the backup (razorpay) without asking the LLM.
// Run `scripts/build-wasm-pkg` once, then `node examples/js-agent/agent.mjs`.
// `--metrics PORT` also serves the router's Prometheus metrics on http://127.0.0.1:PORT/metrics
// (0 picks a free port) for `--serve-ms` milliseconds after the run (default 60000).
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';

const flag = (name) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};

const pkg = new URL('../../crates/wasm/pkg/node/shr_wasm.js', import.meta.url);
if (!existsSync(pkg)) {
  console.error('shr-wasm is not built: run scripts/build-wasm-pkg first');
  process.exit(2);
}
const { Router } = await import(pkg);

// Payment first choice stripe (cost 1), backup razorpay (2); notify by email (1) or sms (2).
const router = Router.fromJson({
  name: 'refund',
  nodes: [
    { id: 'start', tool: false },
    { id: 'lookup_order', stage: 'lookup' },
    { id: 'stripe', stage: 'payment', validators: [{ field: 'refund_id', required: true }] },
    { id: 'razorpay', stage: 'payment', validators: [{ field: 'refund_id', required: true }] },
    { id: 'email', stage: 'notify' },
    { id: 'sms', stage: 'notify' },
    { id: 'done', tool: false },
  ],
  edges: [
    { from: 'start', to: 'lookup_order', cost: 1 },
    { from: 'lookup_order', to: 'stripe', cost: 1 },
    { from: 'lookup_order', to: 'razorpay', cost: 2 },
    { from: 'stripe', to: 'email', cost: 1 },
    { from: 'stripe', to: 'sms', cost: 2 },
    { from: 'razorpay', to: 'email', cost: 1 },
    { from: 'razorpay', to: 'sms', cost: 2 },
    { from: 'email', to: 'done', cost: 0 },
    { from: 'sms', to: 'done', cost: 0 },
  ],
  start: 'start',
  goal: 'done',
});

// Mock tools with a little latency, as real network calls would have.
const after = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms));
const tools = {
  lookup_order: ({ context }) => after(15, { order: context.order, customer: 'c_42', amount: context.amount }),
  stripe: async () => {
    await after(20);
    throw new Error('stripe: 503 Service Unavailable');
  },
  razorpay: ({ results }) =>
    after(25, { refund_id: `rfnd_${results.lookup_order.order}`, amount: results.lookup_order.amount }),
  email: ({ results }) => after(10, { sent: true, to: results.lookup_order.customer }),
  sms: ({ results }) => after(10, { sent: true, to: results.lookup_order.customer }),
};

const plan = (p) => `${p.nodes.join(' -> ')} (cost ${p.cost ?? 'infinite'})`;
const describe = (e) => {
  switch (e.event) {
    case 'PathPlanned': return plan(e.plan);
    case 'Rerouted': return `around ${e.around.join(', ')}: ${plan(e.toPlan)}`;
    case 'ToolCalled': return `${e.tool} (attempt ${e.attempt}, key ${e.callId})`;
    case 'Retried': return `${e.tool} attempt ${e.attempt} after ${e.notBefore - e.at} ms`;
    case 'ToolSucceeded': return `${e.tool} in ${e.latencyMs} ms`;
    case 'ToolFailed': return `${e.tool}: ${e.category}, ${e.transient ? 'transient' : 'permanent'}: ${e.message}`;
    case 'Reweighted': return `${e.tool} weight ${e.weight ?? 'infinite'}`;
    case 'BreakerChanged': return `${e.tool} ${e.from} -> ${e.to}`;
    case 'SignalRaised':
    case 'SignalWon': return `${e.signal.source} (priority ${e.signal.priority})`;
    case 'Finished': return `${e.status}: ${e.path.join(' -> ')}`;
    default: return JSON.stringify(e);
  }
};

// Event times are on the router's clock (monotonic by default): shown from the run's first event.
let t0;
const { outcome } = await router.run(
  { context: { request: 'refund order 1042 please', order: '1042', amount: 40 } },
  {
    tools,
    timeoutMs: 2000, // per tool call
    deadlineMs: 30_000, // the whole run, LLM included
    // The agent's LLM would answer here; this one hands the refund to a person.
    escalate: async (request) => ({ decision: 'hand_off', to: `support (${request.reason})` }),
    onEvent: (e) => {
      t0 ??= e.at;
      console.log(`${String(e.at - t0).padStart(5)} ms  ${e.event.padEnd(14)} ${describe(e)}`);
    },
  },
);

console.log(
  `outcome: ${outcome.status} via ${outcome.path.join(' -> ')} ` +
    `(${outcome.toolCalls} tool calls, ${outcome.reroutes} reroute(s), ${outcome.llmCalls} LLM calls)`,
);
const code = outcome.status === 'completed' ? 0 : 1;
const port = flag('--metrics');
if (port === undefined) process.exit(code);

// What a scraper (Prometheus, an agent dashboard) reads: calls, failures, sheds, breaker states.
const server = createServer((req, res) => {
  if (req.url !== '/metrics') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(router.metrics());
});
server.listen(Number(port), '127.0.0.1', () => {
  console.log(`metrics on http://127.0.0.1:${server.address().port}/metrics`);
});
// Served for a bounded time, then the agent ends as it would have.
setTimeout(() => server.close(() => process.exit(code)), Number(flag('--serve-ms') ?? 60_000)).unref();
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(code)));
