// LangChain.js tools (`tool()` from @langchain/core/tools, any StructuredTool) behind the
// Self-Healing Router: `shrTools(tools, { alternatives })` returns `{ tools, router }`, the same
// tools (names, descriptions, schemas) whose calls go through one shared shr-wasm Router. A tool
// that throws is retried as its node says, then the call is rerouted to the next healthy
// alternative inside the same tool call, so the agent (a LangGraph ToolNode, createAgent, your
// loop) gets one ToolMessage and the model makes no extra call; an open breaker is skipped by
// every later call; with no healthy alternative left the call escalates: by default the tool
// returns a JSON text saying so (`{"error":"escalated",...}`), with `onEscalation: 'throw'` it
// throws an `EscalatedError`.
import { tool as makeTool } from '@langchain/core/tools';
import { EscalatedError, checkEscalation, toolRouter } from '@shr/tools';

export { EscalatedError };

export function shrTools(tools, { alternatives = {}, nodes, router, routerOptions, runOptions, mapInput, onEscalation = 'result', onResult } = {}) {
  checkEscalation(onEscalation);
  if (!Array.isArray(tools)) throw Object.assign(new Error('tools must be an array of LangChain tools'), { name: 'ShrError', code: 'bad_options' });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const routed = toolRouter({
    tools: Object.fromEntries(tools.map((t) => [t.name, (input, ctx) => {
      // Without the outer call's `toolCall`, the tool returns its output rather than a message.
      const { toolCall: _toolCall, ...config } = ctx.config ?? {};
      return t.invoke(input, { ...config, signal: ctx.signal });
    }])),
    alternatives, nodes, router, routerOptions, runOptions, mapInput,
  });
  const wrapped = [...byName.values()].map((t) => makeTool(async (input, config) => {
    const result = await routed.call(t.name, input, { callId: config?.toolCall?.id, signal: config?.signal, extra: { config } });
    onResult?.(t.name, result);
    if (result.status === 'completed') return result.output;
    if (onEscalation === 'throw') throw new EscalatedError(t.name, result);
    return JSON.stringify({ error: 'escalated', tool: t.name, reason: result.reason, failed: result.failed, message: result.message });
  }, { name: t.name, description: t.description, schema: t.schema }));
  return { tools: wrapped, router: routed.router };
}
