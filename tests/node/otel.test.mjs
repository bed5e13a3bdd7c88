// @shr/otel with the OpenTelemetry SDK's in-memory exporter: a run's span and its tool calls'
// spans carry the GenAI semantic conventions' names and attributes; a reroute, a retry, a
// breaker change and an escalation are events on the run span.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { tracedRun, instrument } from '@shr/otel';
import { Router } from './helpers.mjs';

const graph = {
  name: 'refunds', start: 'start', goal: 'done',
  nodes: [{ id: 'start', tool: false }, { id: 'stripe' }, { id: 'razorpay' }, { id: 'email' }, { id: 'done', tool: false }],
  edges: [{ from: 'start', to: 'stripe', cost: 1 }, { from: 'start', to: 'razorpay', cost: 2 },
    { from: 'stripe', to: 'email' }, { from: 'razorpay', to: 'email' }, { from: 'email', to: 'done', cost: 0 }],
};

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('shr-test') };
}

const tools = {
  stripe: async () => { throw new Error('stripe: 503'); },
  razorpay: async () => ({ refundId: 'rp_1' }),
  email: async () => ({ sent: true }),
};

test('a run is an invoke_workflow span; each tool call an execute_tool span under it', async () => {
  const { exporter, tracer } = tracing();
  const router = new Router(graph);
  const { outcome } = await tracedRun(router, { id: 'refund-7' }, { tools }, { tracer });
  assert.equal(outcome.status, 'completed');
  const spans = exporter.getFinishedSpans();
  const run = spans.find((s) => s.name === 'invoke_workflow refunds');
  assert.ok(run, spans.map((s) => s.name).join());
  assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_workflow');
  assert.equal(run.attributes['gen_ai.workflow.name'], 'refunds');
  assert.equal(run.attributes['shr.task.id'], 'refund-7');
  assert.equal(run.attributes['shr.outcome.status'], 'completed');
  assert.deepEqual(run.attributes['shr.outcome.path'], ['start', 'razorpay', 'email', 'done']);

  const calls = spans.filter((s) => s.name.startsWith('execute_tool '));
  assert.deepEqual(calls.map((s) => s.name), ['execute_tool stripe', 'execute_tool stripe', 'execute_tool razorpay', 'execute_tool email']);
  for (const s of calls) {
    assert.equal(s.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(s.attributes['gen_ai.tool.name'], s.name.slice('execute_tool '.length));
    assert.equal(s.attributes['gen_ai.tool.type'], 'function');
    assert.match(s.attributes['gen_ai.tool.call.id'], /^refund-7:/, 'the call id is SHR\'s idempotency key');
    assert.equal(s.parentSpanContext?.spanId ?? s.parentSpanId, run.spanContext().spanId);
    assert.equal(s.spanContext().traceId, run.spanContext().traceId);
  }
  const [first, retry] = calls;
  assert.equal(first.attributes['gen_ai.tool.call.id'], retry.attributes['gen_ai.tool.call.id'], 'a retry keeps its key');
  assert.deepEqual([first.attributes['shr.attempt'], retry.attributes['shr.attempt']], [1, 2]);
  assert.equal(first.status.code, SpanStatusCode.ERROR);
  assert.equal(first.attributes['error.type'], 'service');
  assert.equal(calls[2].status.code, SpanStatusCode.UNSET);
  assert.equal(typeof calls[2].attributes['shr.latency_ms'], 'number');

  const events = run.events.map((e) => e.name);
  assert.ok(events.includes('shr.retried'), events.join());
  const rerouted = run.events.find((e) => e.name === 'shr.rerouted');
  assert.ok(rerouted, events.join());
  assert.deepEqual(rerouted.attributes['shr.around'], ['stripe']);
  assert.equal(rerouted.attributes['shr.plan.to'], 'start -> razorpay -> email -> done');
});

test('breaker changes and an escalation are run span events; an escalated run is an error', async () => {
  const { exporter, tracer } = tracing();
  const router = instrument(new Router(graph), { tracer });
  router.markDown('razorpay');
  const down = { ...tools, stripe: async () => ({ success: false, error: 'account closed', transient: false }) };
  const { outcome } = await router.run({}, { tools: down, escalate: () => ({ decision: 'abort', message: 'no payment tool' }) });
  assert.equal(outcome.status, 'escalated');
  const [run] = exporter.getFinishedSpans().filter((s) => s.name === 'invoke_workflow refunds');
  const breaker = run.events.find((e) => e.name === 'shr.breaker_changed');
  assert.ok(breaker, run.events.map((e) => e.name).join());
  assert.deepEqual([breaker.attributes['gen_ai.tool.name'], breaker.attributes['shr.breaker.to']], ['stripe', 'open']);
  const escalated = run.events.find((e) => e.name === 'shr.escalated');
  assert.equal(escalated.attributes['shr.escalation.reason'], 'no_path');
  assert.deepEqual(escalated.attributes['shr.failed'], ['stripe']);
  assert.equal(run.status.code, SpanStatusCode.ERROR);
  assert.equal(run.attributes['error.type'], 'escalated');
});

test('a run that rejects (a contract broken) ends its span as an error with the code', async () => {
  const { exporter, tracer } = tracing();
  const router = new Router(graph);
  await assert.rejects(tracedRun(router, { goal: 'nowhere' }, { tools }, { tracer }), (e) => e.code === 'bad_task');
  const [run] = exporter.getFinishedSpans();
  assert.equal(run.status.code, SpanStatusCode.ERROR);
  assert.equal(run.attributes['error.type'], 'bad_task');
});
