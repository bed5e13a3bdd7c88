// The self-healing MCP gateway: an MCP server to the agent, an MCP client to the upstream
// servers. Each capability is one MCP tool; a call runs an SHR session over the capability's
// alternatives, so upstream errors, isError results, timeouts and crashed servers become
// failures the router routes around. When no alternative is left, the agent gets an MCP tool
// error whose text is the escalation request, with agent_action (seed 003): its LLM reasons
// only then. One Router for the gateway: every call in flight shares its health.
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { readConfig, toGraph } from './config.mjs';
import { Upstream } from './upstream.mjs';

const require = createRequire(import.meta.url);
const { Router } = require('../../../crates/wasm/pkg/node/shr_wasm.js');

const text = (t) => [{ type: 'text', text: t }];

export class Gateway {
  constructor(rawConfig, { log = () => {}, origin } = {}) {
    this.config = readConfig(rawConfig);
    this.graph = toGraph(this.config);
    this.router = new Router(this.graph, { ...(origin ? { origin } : {}), config: { breaker: { cooldownMs: this.config.cooldownMs } } });
    this.upstreams = new Map(Object.values(this.config.servers).map((s) => [s.name, new Upstream(s, { timeoutMs: this.config.timeoutMs, log })]));
    this.stats = { calls: 0, upstreamCalls: {}, reroutes: 0, escalations: 0 };
    this.log = log;
  }

  /**
   * Connects every upstream. A tool the config names that a connected server does not offer is
   * a misspelling: `bad_config`, naming it and what the server offers. (A server down at start
   * is checked when it is up: its calls fail and are routed around until then.)
   */
  async start() {
    await Promise.all([...this.upstreams.values()].map((u) => u.connect()));
    for (const c of this.config.capabilities) {
      for (const a of c.alternatives) {
        const up = this.upstreams.get(a.server);
        if (up.up && !up.tools.has(a.tool)) {
          await this.close();
          const e = new Error(`config: capability \`${c.name}\` names \`${a.server}/${a.tool}\`, but \`${a.server}\` offers ${[...up.tools.keys()].map((t) => `\`${t}\``).join(', ') || 'no tools'}`);
          e.code = 'bad_config';
          throw e;
        }
      }
    }
    return this;
  }

  /** The MCP tools the agent sees: one per capability. */
  listTools() {
    return this.config.capabilities.map((c) => ({
      name: c.name,
      description: c.description,
      inputSchema: c.inputSchema ?? this.#schemaOf(c) ?? { type: 'object' },
    }));
  }

  #schemaOf(c) {
    for (const a of c.alternatives) {
      const t = this.upstreams.get(a.server)?.tools.get(a.tool);
      if (t?.inputSchema) return t.inputSchema;
    }
    return null;
  }

  /** Runs one capability call as an SHR session; resolves with an MCP CallToolResult. */
  async callTool(name, args = {}) {
    const cap = this.config.capabilities.find((c) => c.name === name);
    if (!cap) return { content: text(`unknown tool \`${name}\``), isError: true };
    this.stats.calls += 1;
    let answer = null;
    const tools = {};
    for (const a of cap.alternatives) {
      tools[a.node] = async () => {
        const key = `${a.server}/${a.tool}`;
        this.stats.upstreamCalls[key] = (this.stats.upstreamCalls[key] ?? 0) + 1;
        const up = this.upstreams.get(a.server);
        let result;
        try {
          result = await up.call(a.tool, args);
        } catch (e) {
          // Arguments the server rejects are the agent's to fix (seed 003's `input`), not the
          // server's fault; a timeout may pass; a crashed or disconnected server is down until
          // restarted.
          const category = e.kind === 'refused' && e.code === ErrorCode.InvalidParams ? 'input' : 'service';
          return { success: false, error: e.message, category, transient: e.kind === 'timeout' };
        }
        if (result.isError) {
          const said = (result.content ?? []).map((c) => c.text ?? '').join(' ').trim();
          const sc = result.structuredContent ?? {};
          const category = ['input', 'service', 'policy'].includes(sc.category) ? sc.category : 'service';
          const failure = { success: false, error: `${key}: ${said || 'isError'}`, category, transient: sc.transient === true };
          if (typeof sc.agent_action === 'string') failure.agentAction = sc.agent_action;
          return failure;
        }
        answer = { via: key, result };
        return { ok: true };
      };
    }
    let request = null;
    const { outcome, events } = await this.router.run(
      { start: `start_${cap.name}`, goal: `done_${cap.name}`, context: { arguments: args } },
      {
        tools,
        timeoutMs: this.config.timeoutMs + 1000,
        deadlineMs: this.config.timeoutMs * (cap.alternatives.length + 1),
        escalate: (req) => {
          request = req;
          return { decision: 'abort', message: 'no upstream tool left for this capability: the agent decides' };
        },
      },
    );
    this.stats.reroutes += events.filter((e) => e.event === 'Rerouted').length;
    if (outcome.status === 'completed' && answer) {
      return { ...answer.result, content: answer.result.content ?? [], _meta: { ...(answer.result._meta ?? {}), shr: { via: answer.via, reroutes: events.filter((e) => e.event === 'Rerouted').length } } };
    }
    this.stats.escalations += 1;
    // Seed 003's failure shape: `success: false`, a stable `error` code, and what to do.
    const escalation = {
      success: false,
      error: 'no_upstream_left',
      capability: cap.name,
      escalation: request ?? { reason: outcome.status, message: outcome.message },
      agent_action: request?.agentAction ??
        `Every upstream tool for \`${cap.name}\` failed (${cap.alternatives.map((a) => `${a.server}/${a.tool}`).join(', ')}). ` +
        'Retry later, use another capability, or tell the user the action could not be done.',
    };
    return { content: text(JSON.stringify(escalation)), isError: true };
  }

  /** An MCP server object answering tools/list and tools/call from this gateway. */
  mcpServer() {
    const server = new Server({ name: 'shr-mcp-gateway', version: '0.1.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.listTools() }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      try {
        return await this.callTool(req.params.name, req.params.arguments ?? {});
      } catch (e) {
        // The gateway never dies of a call: anything unexpected is the call's error.
        return { content: text(`gateway error: ${e?.message ?? e}`), isError: true };
      }
    });
    return server;
  }

  async close() {
    await Promise.all([...this.upstreams.values()].map((u) => u.close()));
    this.router.free?.();
  }
}
