// The self-healing MCP gateway: an MCP server to the agent, an MCP client to the upstream
// servers. Each capability is one MCP tool over a list of alternative upstream tools; every
// other upstream tool is passed through as itself (its own breaker). A call runs an SHR session
// over the route's alternatives: crashes, timeouts, transport and internal errors are failures
// the router routes around; invalid arguments (-32602) go back to the agent; an isError result
// is the tool's answer (./classify.mjs). When no alternative is left, the agent gets an MCP tool
// error whose text is the escalation, naming every server tried and why each was passed over.
// One Router for the gateway: every call in flight shares its health, and a down tool is
// probed with an MCP ping of its server until it answers (./probes.mjs).
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { classifyError, classifyResult, errorResult } from './classify.mjs';
import { readConfig, toGraph, nodeId } from './config.mjs';
import { forward, forwardedCapabilities } from './forward.mjs';
import { startPingProbes } from './probes.mjs';
import { Upstream } from './upstream.mjs';

const require = createRequire(import.meta.url);
const VERSION = '0.1.0';

/** The shr-wasm Router class, or a `no_wasm` error saying how to get it. */
export function loadRouter() {
  try {
    return require('shr-wasm').Router;
  } catch (e) {
    if (e?.code !== 'MODULE_NOT_FOUND') throw e;
    const err = new Error('the shr-wasm package is missing: install it next to @shr/mcp-gateway (in the SHR repository: run scripts/build-wasm-pkg)');
    err.code = 'no_wasm';
    throw err;
  }
}

const text = (t) => [{ type: 'text', text: t }];
const same = (xs) => xs.length > 0 && xs.every((x) => JSON.stringify(x) === JSON.stringify(xs[0]));
const label = (v) => String(v).replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));

export class Gateway {
  /** @param log (event, fields) => void: one structured log line per event */
  constructor(rawConfig, { log = () => {}, origin } = {}) {
    this.config = readConfig(rawConfig);
    this.graph = toGraph(this.config);
    this.origin = origin;
    this.log = log;
    this.router = null;
    this.routes = new Map();
    this.upstreams = new Map(Object.values(this.config.servers).map((s) => [s.name, new Upstream(s, { timeoutMs: this.config.timeoutMs, maxBytes: this.config.maxMessageBytes, log })]));
    this.stats = { calls: 0, upstreamCalls: {}, reroutes: 0, escalations: 0, breakerChanges: 0, breakers: [] };
  }

  /**
   * Connects every upstream, then makes the router: one route per capability and one per
   * upstream tool no capability names (under its own name, or `server__tool` when two servers
   * offer it). A tool a capability names that a connected server does not offer is a
   * misspelling: `bad_config`. A server down at start is routed around until it is up; its
   * tools are passed through only if it was up at start.
   */
  async start() {
    const Router = loadRouter();
    await Promise.all([...this.upstreams.values()].map((u) => u.connect()));
    const named = new Set();
    for (const c of this.config.capabilities) {
      for (const a of c.alternatives) {
        named.add(`${a.server}/${a.tool}`);
        const up = this.upstreams.get(a.server);
        if (up.up && !up.tools.has(a.tool)) {
          await this.close();
          const e = new Error(`config: capability \`${c.name}\` names \`${a.server}/${a.tool}\`, but \`${a.server}\` offers ${[...up.tools.keys()].map((t) => `\`${t}\``).join(', ') || 'no tools'}`);
          e.code = 'bad_config';
          throw e;
        }
      }
    }
    const routes = this.config.capabilities.map((c) => ({ ...c, kind: 'capability' }));
    if (this.config.passThrough) {
      const offered = [];
      for (const up of this.upstreams.values()) for (const t of up.tools.values()) if (!named.has(`${up.name}/${t.name}`)) offered.push({ up, t });
      const count = new Map();
      for (const { t } of offered) count.set(t.name, (count.get(t.name) ?? 0) + 1);
      const taken = new Set(routes.map((r) => r.name));
      for (const { up, t } of offered) {
        let name = count.get(t.name) > 1 || taken.has(t.name) ? nodeId(up.name, t.name) : t.name;
        for (let k = 2; taken.has(name); k += 1) name = `${nodeId(up.name, t.name)}_${k}`;
        taken.add(name);
        routes.push({ name, kind: 'tool', alternatives: [{ server: up.name, tool: t.name, node: nodeId(up.name, t.name) }], onIsError: 'answer' });
      }
    }
    this.graph = toGraph(this.config, routes);
    this.routes = new Map(routes.map((r) => [r.name, r]));
    this.serverOf = new Map(routes.flatMap((r) => r.alternatives.map((a) => [a.node, this.upstreams.get(a.server)])));
    this.router = new Router(this.graph, { ...(this.origin ? { origin: this.origin } : {}), config: { breaker: { cooldownMs: this.config.cooldownMs } } });
    this.probes = startPingProbes(this.router, (node) => this.serverOf.get(node), {
      timeoutMs: Math.min(this.config.timeoutMs, 5000),
      pollMs: Math.min(this.config.probeIntervalMs, 1000),
      onSettled: (p, health) => {
        if (health.state !== 'half_open') this.#breakerChanged(p.tool, 'half_open', health.state, 'probe');
      },
    });
    return this;
  }

  #breakerChanged(tool, from, to, via) {
    this.stats.breakerChanges += 1;
    this.stats.breakers.push({ tool, from, to });
    if (this.stats.breakers.length > 100) this.stats.breakers.shift();
    this.log('breaker', { tool, server: this.serverOf.get(tool)?.name, from, to, via });
  }

  /** The MCP tools the agent sees: the capabilities, then the tools passed through. */
  listTools() {
    return [...this.routes.values()].map((r) => {
      const defs = r.alternatives.map((a) => this.upstreams.get(a.server)?.tools.get(a.tool)).filter(Boolean);
      if (r.kind === 'tool') return { ...defs[0], name: r.name };
      const tool = { name: r.name, description: r.description, inputSchema: r.inputSchema ?? defs.find((t) => t.inputSchema)?.inputSchema ?? { type: 'object' } };
      // Kept when every alternative says the same: a result is checked against it.
      if (defs.length === r.alternatives.length && same(defs.map((t) => t.outputSchema ?? null)) && defs[0].outputSchema) tool.outputSchema = defs[0].outputSchema;
      if (defs[0]?.annotations) tool.annotations = defs[0].annotations;
      return tool;
    });
  }

  /**
   * Runs one call as an SHR session; resolves with an MCP CallToolResult.
   * @param opts.signal the agent's cancel (notifications/cancelled): cancels the upstream call
   * @param opts.onprogress forwards the upstream's progress notifications
   */
  async callTool(name, args = {}, { signal, onprogress } = {}) {
    const route = this.routes.get(name);
    if (!route) return { content: text(`unknown tool \`${name}\``), isError: true };
    if (!this.router) throw new Error('the gateway is not started');
    this.stats.calls += 1;
    let answer = null;
    let refused = null;
    let cancelled = false;
    const tools = {};
    for (const a of route.alternatives) {
      tools[a.node] = async (input) => {
        const via = `${a.server}/${a.tool}`;
        this.stats.upstreamCalls[via] = (this.stats.upstreamCalls[via] ?? 0) + 1;
        const signals = [signal, input?.signal].filter((s) => s instanceof AbortSignal);
        const callSignal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
        let result;
        try {
          result = await this.upstreams.get(a.server).call(a.tool, args, { signal: callSignal, onprogress });
        } catch (e) {
          // Aborted by the agent: cancelled, nobody's fault. Aborted by the router's driver
          // alone (its call timeout or the run's deadline): a timeout, counted as one.
          const c = classifyError(e.kind === 'cancelled' && !signal?.aborted ? { ...e, message: e.message, kind: 'timeout' } : e);
          if (c.kind === 'cancelled') cancelled = true;
          if (c.kind === 'input') refused = { via, result: errorResult(e) };
          return c.failure; // its message names the server and tool already
        }
        const c = classifyResult(result, route.onIsError);
        if (c.kind === 'answer') {
          answer = { via, result };
          return { ok: true };
        }
        if (c.kind === 'input') refused = { via, result };
        return { ...c.failure, error: `${via}: ${c.failure.error}` };
      };
    }
    let request = null;
    const { outcome, events } = await this.router.run(
      { start: route.start, goal: route.goal, context: { arguments: args } },
      {
        tools,
        timeoutMs: this.config.timeoutMs + 1000,
        deadlineMs: this.config.timeoutMs * (route.alternatives.length + 1),
        escalate: (req) => {
          request = req;
          return { decision: 'abort', message: 'no upstream tool left: the agent decides' };
        },
      },
    );
    const reroutes = events.filter((e) => e.event === 'Rerouted').length;
    this.stats.reroutes += reroutes;
    for (const e of events) if (e.event === 'BreakerChanged') this.#breakerChanged(e.tool, e.from, e.to, 'call');
    const withMeta = (r, via, extra = {}) => ({ ...r, content: r.content ?? [], _meta: { ...(r._meta ?? {}), shr: { ...(r._meta?.shr ?? {}), via, reroutes, ...extra } } });
    if (outcome.status === 'completed' && answer) return withMeta(answer.result, answer.via);
    // The agent's own doing: its arguments refused (fix them) or its cancel. Nobody's health.
    if (refused) return withMeta(refused.result, refused.via, { input: true });
    if (cancelled) return { content: text(`cancelled: the call of \`${name}\` was cancelled`), isError: true };
    this.stats.escalations += 1;
    const tried = this.#tried(route, events);
    // Seed 003's failure shape: `success: false`, a stable `error` code, and what to do.
    const escalation = {
      success: false,
      error: 'no_upstream_left',
      capability: route.name,
      tried,
      escalation: request ?? { reason: outcome.status, message: outcome.message },
      agent_action: request?.agentAction ??
        `Every upstream tool for \`${route.name}\` failed or is out of service (${tried.map((t) => (t.outcome === 'failed' ? t.why : `${t.tool}: ${t.why}`)).join('; ')}). ` +
        'Retry later, use another tool, or tell the user the action could not be done.',
    };
    return { content: text(JSON.stringify(escalation)), isError: true };
  }

  /** Each alternative of the route: failed (and how), skipped (and why), or not reached. */
  #tried(route, events) {
    const failed = new Map();
    const shed = new Map();
    for (const e of events) {
      if (e.event === 'ToolFailed') failed.set(e.tool, e);
      if (e.event === 'Shed') shed.set(e.tool, e.reason);
    }
    return route.alternatives.map((a) => {
      const tool = `${a.server}/${a.tool}`;
      const up = this.upstreams.get(a.server);
      const server = { server: a.server, server_up: up.up };
      const f = failed.get(a.node);
      if (f) return { tool, ...server, outcome: 'failed', category: f.category, why: f.message };
      if (shed.has(a.node)) return { tool, ...server, outcome: 'skipped', why: `not taking calls: ${shed.get(a.node)}` };
      const state = this.router.health(a.node).state;
      if (state !== 'closed') return { tool, ...server, outcome: 'skipped', why: `breaker ${state} (failed recently; probed until its server answers)` };
      return { tool, ...server, outcome: 'not_tried', why: 'the run ended before it' };
    });
  }

  /** Prometheus text: the router's per-tool metrics and the gateway's own. */
  metrics() {
    const lines = [this.router?.metrics() ?? ''];
    const counter = (name, help, rows) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${name.endsWith('_total') ? 'counter' : 'gauge'}`, ...rows);
    };
    counter('shr_gateway_calls_total', 'Tool calls from the agent.', [`shr_gateway_calls_total ${this.stats.calls}`]);
    counter('shr_gateway_escalations_total', 'Calls with no upstream left.', [`shr_gateway_escalations_total ${this.stats.escalations}`]);
    counter('shr_gateway_breaker_changes_total', 'Breaker changes seen by the gateway.', [`shr_gateway_breaker_changes_total ${this.stats.breakerChanges}`]);
    counter('shr_gateway_upstream_calls_total', 'Calls sent to each upstream tool.',
      Object.entries(this.stats.upstreamCalls).map(([k, n]) => `shr_gateway_upstream_calls_total{upstream="${label(k)}"} ${n}`));
    const ups = [...this.upstreams.values()];
    counter('shr_gateway_upstream_up', '1 while the upstream server is connected.', ups.map((u) => `shr_gateway_upstream_up{server="${label(u.name)}"} ${u.up ? 1 : 0}`));
    counter('shr_gateway_upstream_restarts_total', 'Restarts of each upstream server.', ups.map((u) => `shr_gateway_upstream_restarts_total{server="${label(u.name)}"} ${u.restarts}`));
    return `${lines.join('\n').trim()}\n`;
  }

  /** An MCP server object answering from this gateway: tools, resources and prompts. */
  mcpServer() {
    const caps = forwardedCapabilities(this.upstreams.values());
    const server = new Server({ name: 'shr-mcp-gateway', version: VERSION }, { capabilities: { tools: {}, ...caps } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.listTools() }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const token = req.params._meta?.progressToken;
      const onprogress = token === undefined ? undefined : (p) => {
        extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(() => {});
      };
      try {
        return await this.callTool(req.params.name, req.params.arguments ?? {}, { signal: extra.signal, onprogress });
      } catch (e) {
        // The gateway never dies of a call: anything unexpected is the call's error.
        return { content: text(`gateway error: ${e?.message ?? e}`), isError: true };
      }
    });
    forward(server, this, caps);
    return server;
  }

  async close() {
    this.probes?.stop();
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
    this.router?.free?.();
    this.router = null;
  }
}

// Discovery (docs/discovery.md): the graph and config proposed from the servers' tool lists.
export { discover } from './discover-run.mjs';
export { propose, summary, SIMILARITY } from './discover.mjs';
