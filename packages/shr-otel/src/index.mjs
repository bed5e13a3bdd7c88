// OpenTelemetry traces of shr-wasm runs, following the GenAI semantic conventions: one span per
// run (`invoke_workflow {name}`, gen_ai.operation.name "invoke_workflow") and, under it, one per
// tool call (`execute_tool {tool}`, gen_ai.operation.name "execute_tool", gen_ai.tool.name,
// gen_ai.tool.call.id = the call's idempotency key, gen_ai.tool.type "function"), ended by the
// call's outcome (error.type = the failure's category). Reroutes, retries, escalations, sheds,
// goal demotions and breaker changes are events on the run span. `@opentelemetry/api` is a peer
// dependency: with no SDK registered every span is a no-op.
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';

const SCOPE = '@shr/otel';

/** Attribute names (GenAI semantic conventions; `shr.*` for the router's own). */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  workflow: 'gen_ai.workflow.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  errorType: 'error.type',
};

/** The graph's name per router (read once: `toJson` copies the whole graph). */
const graphNames = new WeakMap();
function graphName(router) {
  if (!graphNames.has(router)) graphNames.set(router, router.toJson().name ?? 'shr');
  return graphNames.get(router);
}

const plan = (p) => (p ? p.nodes.join(' -> ') : '');

/** What each run-level event adds to the run span: [event name, attributes]. */
function spanEvent(e) {
  switch (e.event) {
    case 'Rerouted':
      return ['shr.rerouted', { 'shr.around': e.around, 'shr.plan.from': plan(e.fromPlan), 'shr.plan.to': plan(e.toPlan) }];
    case 'Retried':
      return ['shr.retried', { [ATTR.toolName]: e.tool, 'shr.attempt': e.attempt }];
    case 'Escalated':
      return ['shr.escalated', { 'shr.escalation.reason': e.reason, 'shr.goal': e.goal, 'shr.failed': e.failed, 'shr.llm_call': e.llmCall }];
    case 'BreakerChanged':
      return ['shr.breaker_changed', { [ATTR.toolName]: e.tool, 'shr.breaker.from': e.from, 'shr.breaker.to': e.to }];
    case 'Shed':
      return ['shr.shed', { [ATTR.toolName]: e.tool, 'shr.shed.reason': e.reason }];
    case 'GoalDemoted':
      return ['shr.goal_demoted', { 'shr.goal.from': e.from, 'shr.goal.to': e.to }];
    default:
      return null;
  }
}

/**
 * Runs `router.run(task, options)` inside a run span, with a span per tool call. `config`:
 * `{ tracer?, name? }` (`name`: the workflow's name, default the graph's name or "shr").
 * Resolves and rejects as `router.run` does.
 */
export async function tracedRun(router, task, options, { tracer = trace.getTracer(SCOPE), name } = {}) {
  const workflow = name ?? graphName(router);
  const parent = context.active();
  const runSpan = tracer.startSpan(`invoke_workflow ${workflow}`, {
    kind: SpanKind.INTERNAL,
    attributes: { [ATTR.operation]: 'invoke_workflow', [ATTR.workflow]: workflow,
      ...(task?.id ? { 'shr.task.id': task.id } : {}), ...(task?.goal ? { 'shr.goal': task.goal } : {}) },
  }, parent);
  const runContext = trace.setSpan(parent, runSpan);
  const open = new Map(); // tool -> its call's span

  const endCall = (tool, failure) => {
    const span = open.get(tool);
    if (!span) return;
    open.delete(tool);
    if (failure) {
      span.setAttribute(ATTR.errorType, failure.category);
      span.setAttributes({ 'shr.failure.implicit': failure.implicit, 'shr.failure.transient': failure.transient });
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
    }
    span.end();
  };

  const tools = {};
  for (const [tool, fn] of Object.entries(options?.tools ?? {})) {
    tools[tool] = (input) => {
      endCall(tool); // a call of this tool left open (its outcome never reported)
      const span = tracer.startSpan(`execute_tool ${tool}`, {
        kind: SpanKind.INTERNAL,
        attributes: { [ATTR.operation]: 'execute_tool', [ATTR.toolName]: tool, [ATTR.toolCallId]: input.callId,
          [ATTR.toolType]: 'function', 'shr.attempt': input.attempt },
      }, runContext);
      open.set(tool, span);
      return context.with(trace.setSpan(runContext, span), () => fn(input));
    };
  }
  const onEvent = (e) => {
    if (e.event === 'ToolSucceeded') {
      open.get(e.tool)?.setAttribute('shr.latency_ms', e.latencyMs);
      endCall(e.tool);
    } else if (e.event === 'ToolFailed') {
      endCall(e.tool, e);
    } else {
      const added = spanEvent(e);
      if (added) runSpan.addEvent(added[0], added[1]);
    }
    options?.onEvent?.(e);
  };

  try {
    const result = await context.with(runContext, () => router.run(task, { ...options, tools, onEvent }));
    const { outcome } = result;
    runSpan.setAttributes({
      'shr.outcome.status': outcome.status, 'shr.outcome.path': outcome.path, 'shr.outcome.cost': outcome.cost,
      'shr.outcome.tool_calls': outcome.toolCalls, 'shr.outcome.llm_calls': outcome.llmCalls,
      'shr.outcome.reroutes': outcome.reroutes, 'shr.outcome.retries': outcome.retries,
    });
    if (outcome.status === 'escalated') {
      runSpan.setAttribute(ATTR.errorType, 'escalated');
      runSpan.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message ?? 'escalated' });
    }
    return result;
  } catch (e) {
    runSpan.setAttribute(ATTR.errorType, e?.code ?? 'error');
    runSpan.recordException(e);
    runSpan.setStatus({ code: SpanStatusCode.ERROR, message: e?.message });
    throw e;
  } finally {
    for (const tool of [...open.keys()]) endCall(tool);
    runSpan.end();
  }
}

/** Makes every `router.run` of this router traced (an own property; `uninstrument` removes it). */
export function instrument(router, config = {}) {
  const run = Object.getPrototypeOf(router).run;
  const name = config.name ?? graphName(router);
  const view = { run: (task, options) => run.call(router, task, options) };
  router.run = (task, options) => tracedRun(view, task, options, { ...config, name });
  return router;
}

export function uninstrument(router) {
  delete router.run;
  return router;
}
