// The Vercel AI SDK's tools (`tool({ inputSchema, execute })`) behind the Self-Healing Router:
// `shrTools(tools, { alternatives })` returns `{ tools, router }`: the same tools (names, descriptions, schemas), whose
// `execute` goes through one shared shr-wasm Router. A tool that throws is retried as its node
// says, then the call is rerouted to the next healthy alternative inside the same `execute`, so
// the model sees one tool result and makes no extra call; a tool whose breaker is open is skipped
// by every later call; with no healthy alternative left the call escalates: by default the model
// gets a result saying so (`{ error: 'escalated', ... }`), with `onEscalation: 'throw'` an
// `EscalatedError` (the AI SDK reports it to the model as a tool error).
import { EscalatedError, checkEscalation, toolRouter } from '@shr/tools';

export { EscalatedError };

export function shrTools(tools, { alternatives = {}, nodes, router, routerOptions, runOptions, mapInput, onEscalation = 'result', onResult } = {}) {
  checkEscalation(onEscalation);
  // Tools the SDK executes itself (no `execute`: client-side tools) pass through untouched.
  const executable = Object.fromEntries(Object.entries(tools).filter(([, t]) => typeof t?.execute === 'function'));
  const routed = toolRouter({
    tools: Object.fromEntries(Object.entries(executable).map(([name, t]) => [name, (input, ctx) =>
      t.execute(input, { ...ctx.options, abortSignal: ctx.signal })])),
    alternatives, nodes, router, routerOptions, runOptions, mapInput,
  });
  const wrapped = {};
  for (const [name, t] of Object.entries(tools)) {
    if (!Object.hasOwn(executable, name)) {
      wrapped[name] = t;
      continue;
    }
    wrapped[name] = {
      ...t,
      execute: async (input, options) => {
        const result = await routed.call(name, input, { callId: options?.toolCallId, signal: options?.abortSignal, extra: { options } });
        onResult?.(name, result);
        if (result.status === 'completed') return result.output;
        if (onEscalation === 'throw') throw new EscalatedError(name, result);
        return { error: 'escalated', tool: name, reason: result.reason, failed: result.failed, message: result.message };
      },
    };
  }
  // The router: health, metrics, fleets (`joinFleet`), OpenTelemetry (`@shr/otel`).
  return { tools: wrapped, router: routed.router };
}
