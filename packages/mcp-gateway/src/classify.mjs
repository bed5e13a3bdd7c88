// What an upstream's answer says, in MCP's terms, and what the router is told:
// - `answer`: the tool answered, `isError` or not. An isError result is the tool's own answer
//   (a missing file, a declined card): returned to the agent, and no mark against the server.
//   A capability with `on_is_error: "failure"` (tools whose errors mean an outage) makes it a
//   failure instead, routed around.
// - `input`: the agent's arguments were refused (-32602 as a JSON-RPC error, or an isError
//   result saying so, as the SDK's servers do): returned to the agent to fix; health untouched.
// - `failure`: the server failed: a transport error, a timeout, a crash, a JSON-RPC error other
//   than invalid params. Counted against its health and routed around.
// - `cancelled`: the agent cancelled the call: nothing is learnt of the server.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { RESULT_TOO_LARGE } from './stdio.mjs';

// The SDK's servers wrap a schema refusal as an isError result "MCP error -32602: Input
// validation error: ..." (server-everything, server-filesystem); others say it in words.
const INPUT_TEXT = /(MCP error -32602\b|\binput validation error\b|\binvalid (arguments|params|parameters)\b)/i;

export const textOf = (result) =>
  (Array.isArray(result?.content) ? result.content : [])
    .map((c) => (c?.type === 'text' && typeof c.text === 'string' ? c.text : ''))
    .join(' ')
    .trim();

/** A CallToolResult: `{kind: 'answer'}`, or `{kind: 'input'|'failure', failure}`. */
export function classifyResult(result, onIsError = 'answer') {
  if (!result?.isError) return { kind: 'answer' };
  const said = textOf(result).slice(0, 2000) || 'isError';
  const sc = result.structuredContent && typeof result.structuredContent === 'object' ? result.structuredContent : {};
  const agentAction = typeof sc.agent_action === 'string' ? { agentAction: sc.agent_action } : {};
  if (sc.category === 'input' || INPUT_TEXT.test(said)) {
    return { kind: 'input', failure: { success: false, error: said, category: 'input', transient: false, ...agentAction } };
  }
  if (onIsError !== 'failure') return { kind: 'answer' };
  const category = ['service', 'policy'].includes(sc.category) ? sc.category : 'service';
  return { kind: 'failure', failure: { success: false, error: said, category, transient: sc.transient === true, ...agentAction } };
}

/** An error thrown by Upstream.call (its `kind`: down, timeout, refused, broken, cancelled). */
export function classifyError(e) {
  const error = e?.message ?? String(e);
  if (e?.kind === 'cancelled') return { kind: 'cancelled', failure: { success: false, error, category: 'input', transient: false } };
  if (e?.kind === 'refused' && (e.code === ErrorCode.InvalidParams || e.code === RESULT_TOO_LARGE)) {
    return { kind: 'input', failure: { success: false, error, category: 'input', transient: false } };
  }
  return { kind: 'failure', failure: { success: false, error, category: 'service', transient: e?.kind === 'timeout' } };
}

/** The CallToolResult an agent gets for an error that has none of its own (a JSON-RPC error). */
export function errorResult(e) {
  const code = e?.code;
  const text = e?.message ?? String(e);
  return { content: [{ type: 'text', text }], isError: true, ...(typeof code === 'number' ? { _meta: { shr: { code } } } : {}) };
}
