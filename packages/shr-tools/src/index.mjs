// A tool router for agents whose framework calls one tool at a time (the Vercel AI SDK,
// LangChain.js): each tool the agent sees is a small graph of its own, `<tool>` and its
// alternatives in order of preference between two waypoints, on ONE shared shr-wasm Router. A
// call that fails is retried as the node says, then rerouted to the next healthy alternative
// within the same tool call (no model call); a breaker opened by one call is routed around by
// every later call; with no healthy alternative left the call escalates, and the agent sees it.
import { Router } from 'shr-wasm';

/** Waypoint ids of the graph of tool `name` (ids are free text; this prefix keeps them apart). */
export const startOf = (name) => `shr:call:${name}`;
export const doneOf = (name) => `shr:done:${name}`;

/**
 * The graph: every tool a node (one health, shared by every entry that may reach it), and per
 * entry tool a start and a goal with the tool at cost 1 and its alternatives at 2, 3...
 */
export function alternativesGraph(names, alternatives = {}, nodes = {}) {
  const all = new Set(names);
  for (const [name, alts] of Object.entries(alternatives)) {
    if (!all.has(name)) throw badOptions(`alternatives.${name}: no tool of that name`);
    if (!Array.isArray(alts)) throw badOptions(`alternatives.${name} must be an array of tool names`);
    for (const alt of alts) if (!all.has(alt)) throw badOptions(`alternatives.${name}: no tool named ${JSON.stringify(alt)}`);
  }
  const graph = { nodes: [], edges: [] };
  for (const name of all) graph.nodes.push({ ...(nodes[name] ?? {}), id: name });
  for (const name of all) {
    graph.nodes.push({ id: startOf(name), tool: false }, { id: doneOf(name), tool: false });
    const chain = [name, ...(alternatives[name] ?? []).filter((alt) => alt !== name)];
    chain.forEach((tool, i) => {
      graph.edges.push({ from: startOf(name), to: tool, cost: i + 1 }, { from: tool, to: doneOf(name), cost: 0 });
    });
  }
  const [first] = all;
  if (first !== undefined) Object.assign(graph, { start: startOf(first), goal: doneOf(first) });
  return graph;
}

function badOptions(message) {
  const e = new Error(message);
  e.name = 'ShrError';
  e.code = 'bad_options';
  return e;
}

/**
 * Routes calls of a set of tools. `tools`: name -> async (input, ctx) => output, where ctx is
 * `{ ...extra, tool, requested, callId, attempt, signal }` (`extra` given to `call`); an alternative gets the requested tool's input,
 * or what `mapInput(tool, requested, input)` makes of it. Returns `{ router, call(name, input, opts) }`;
 * `call` resolves with `{ status: 'completed', tool, output, events }` or
 * `{ status: 'escalated', reason, failed, message, events }`.
 */
export function toolRouter({ tools, alternatives = {}, nodes = {}, router, routerOptions, runOptions = {}, mapInput }) {
  if (tools === null || typeof tools !== 'object') throw badOptions('tools must be an object of tool functions');
  const names = Object.keys(tools);
  for (const name of names) {
    if (typeof tools[name] !== 'function') throw badOptions(`tools.${name} must be a function`);
  }
  const shared = router ?? new Router(alternativesGraph(names, alternatives, nodes), routerOptions);

  async function call(name, input, { callId, signal, context = {}, extra = {} } = {}) {
    if (!Object.hasOwn(tools, name)) throw badOptions(`no tool named ${JSON.stringify(name)}`);
    const outputs = new Map();
    const run = {};
    for (const tool of names) {
      run[tool] = async (ctx) => {
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
        const given = tool === name || mapInput === undefined ? input : await mapInput(tool, name, input);
        const output = await tools[tool](given, { ...extra, tool, requested: name, callId: ctx.callId, attempt: ctx.attempt, signal: ctx.signal });
        outputs.set(tool, output);
        return output;
      };
    }
    const { outcome, events } = await shared.run(
      { id: callId, start: startOf(name), goal: doneOf(name), context },
      { ...runOptions, tools: run },
    );
    const failed = [...new Set(events.filter((e) => e.event === 'ToolFailed').map((e) => e.tool))];
    if (outcome.status === 'completed') {
      const tool = outcome.path.find((id) => outputs.has(id));
      return { status: 'completed', tool, output: outputs.get(tool), failed, events };
    }
    const escalated = events.findLast((e) => e.event === 'Escalated');
    return {
      status: 'escalated',
      reason: escalated?.reason ?? 'no_path',
      failed,
      message: outcome.message ?? `no healthy alternative for ${name}`,
      events,
    };
  }

  return { router: shared, call };
}

/** A call with no healthy tool left, thrown by the adapters with `onEscalation: 'throw'`. */
export class EscalatedError extends Error {
  constructor(tool, result) {
    super(`${tool}: no healthy tool left (${result.reason}): ${result.message}`);
    this.name = 'EscalatedError';
    this.code = 'escalated';
    this.tool = tool;
    this.reason = result.reason;
    this.failed = result.failed;
  }
}

/** Checks an adapter's `onEscalation` option: 'result' or 'throw'. */
export function checkEscalation(onEscalation) {
  if (onEscalation !== 'result' && onEscalation !== 'throw') {
    throw Object.assign(new Error(`onEscalation must be 'result' or 'throw', not ${JSON.stringify(onEscalation)}`), { name: 'ShrError', code: 'bad_options' });
  }
}
