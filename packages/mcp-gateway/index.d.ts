// Types of @shr/mcp-gateway (the module is ./src/gateway.mjs; the CLI is `shr-mcp-gateway`).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Router } from 'shr-wasm';

/** An upstream MCP server: a command the gateway starts (stdio) or a URL (streamable HTTP). */
export type ServerConfig =
  | { command: string; args?: string[]; env?: Record<string, string>; url?: never }
  | { url: string; command?: never; args?: never; env?: never };

/** One MCP tool the agent sees, routed over alternative upstream tools in order of preference. */
export interface CapabilityConfig {
  /** 1-64 letters, digits, `_` or `-`. */
  name: string;
  description?: string;
  /** `"server/tool"`, the preferred first. */
  alternatives: string[];
  /** JSON Schema (`"type": "object"`); default: the first alternative's. */
  inputSchema?: Record<string, unknown>;
  /**
   * `"answer"` (default): an isError result is the tool's answer, returned to the agent and not
   * held against the server. `"failure"`: it means an outage; routed around and counted.
   */
  on_is_error?: 'answer' | 'failure';
  /** Why `shr discover` proposed this grouping, for the person reviewing it; not used. */
  reason?: string;
}

export interface GatewayConfig {
  $schema?: string;
  servers: Record<string, ServerConfig>;
  capabilities: CapabilityConfig[];
  /** A call's time limit (default 10000); a timed-out call is cancelled at the upstream. */
  timeoutMs?: number;
  /** How long a failed upstream tool is kept out of service before a probe (default 30000). */
  cooldownMs?: number;
  /** The shortest time between two ping probes of a down tool (default min(cooldownMs, 5000)). */
  probeIntervalMs?: number;
  /** Expose upstream tools no capability names, as themselves (default true). */
  passThrough?: boolean;
  /** The largest message either way, in bytes (default 10 MiB). */
  maxMessageBytes?: number;
  /**
   * Share upstream health with other gateways over Redis (needs @shr/fleet). Signed with the
   * fleet key in `SHR_FLEET_KEY`, or with `members` (Ed25519 public keys by origin, as JWKs)
   * and this gateway's private key in `SHR_MEMBER_KEY`; `origin` is then required.
   */
  fleet?: { redis: string; namespace: string; origin?: string; members?: Record<string, unknown> };
}

/** One structured log event (the CLI writes each as a JSON line on stderr). */
export type LogEvent =
  | 'upstream_start' | 'upstream_restarted' | 'upstream_crash' | 'upstream_restart'
  | 'upstream_connect_failed' | 'upstream_error' | 'upstream_stderr' | 'breaker'
  | 'message_too_large' | 'forward_failed' | (string & {});

export interface GatewayStats {
  calls: number;
  /** Calls sent to each upstream tool, by `"server/tool"`. */
  upstreamCalls: Record<string, number>;
  reroutes: number;
  escalations: number;
  breakerChanges: number;
  /** The last 100 breaker changes. */
  breakers: { tool: string; from: string; to: string }[];
}

/** What an alternative came to in a call that escalated. */
export interface Tried {
  tool: string;
  server: string;
  server_up: boolean;
  outcome: 'failed' | 'skipped' | 'not_tried';
  category?: 'service' | 'policy' | 'input';
  why: string;
}

export class Gateway {
  constructor(config: GatewayConfig, opts?: { log?: (event: LogEvent, fields: Record<string, unknown>) => void; origin?: string });
  readonly stats: GatewayStats;
  /** The SHR router, once started. */
  readonly router: Router | null;
  /** Connects every upstream and makes the router; rejects with `code: 'bad_config' | 'no_wasm'`. */
  start(): Promise<this>;
  /** The MCP tools the agent sees: capabilities, then passed-through upstream tools. */
  listTools(): Tool[];
  /** One call; `_meta.shr` of the result says `via` (the upstream that answered) and `reroutes`. */
  callTool(name: string, args?: Record<string, unknown>, opts?: { signal?: AbortSignal; onprogress?: (p: { progress: number; total?: number; message?: string }) => void }): Promise<CallToolResult>;
  /** An MCP server answering tools, resources and prompts from this gateway. */
  mcpServer(): Server;
  /** Prometheus text: the router's metrics and the gateway's. */
  metrics(): string;
  /** Stops the probes and every upstream (child processes included). */
  close(): Promise<void>;
}

/** The shr-wasm Router class; throws `code: 'no_wasm'` when shr-wasm is not installed. */
export function loadRouter(): typeof Router;

/** A data-flow edge found by discovery: `from`'s outputSchema gives every field `to` requires. */
export interface DiscoveredEdge {
  from: string;
  to: string;
  fields: { output: string; input: string; type: string }[];
  reason: string;
}

/** How well two tools stand in for each other (null from `pairScore` when they cannot). */
export interface PairScore {
  a: string;
  b: string;
  /** Jaccard similarity of the names' and the descriptions' word sets. */
  name: number;
  description: number;
  /** 0.6 x name + 0.4 x description; alternatives at SIMILARITY or more. */
  score: number;
  input: string;
  output: string;
  ok: boolean;
}

export interface DiscoveryReport {
  servers: { name: string; tools: number; latency_ms?: number; latency?: string }[];
  tools: number;
  capabilities: { name: string; alternatives: string[]; reason: string; pairs: PairScore[] }[];
  edges: DiscoveredEdge[];
  tools_detail: { tool: string; capability: string; side_effect: boolean; retry: boolean; base_cost: number; cost_is_guess: true; reason: string }[];
  /** Whether the host's refine hook changed the grouping. */
  refined: boolean;
  /** Servers that could not be reached, tools skipped. */
  warnings: string[];
}

/** The proposal: a graph (shr-wasm's GraphSpec, with `reason` on groupings and edges), a gateway config, a report. */
export interface Proposal {
  graph: import('shr-wasm').GraphSpec;
  config: GatewayConfig & { passThrough: false };
  report: DiscoveryReport;
}

/** The host's regrouping (e.g. asked of an LLM): every listed tool in one group; the rest stay alone. */
export type RefineHook = (input: {
  tools: { id: string; description?: string; inputSchema?: unknown; outputSchema?: unknown; annotations?: unknown }[];
  proposal: Proposal;
}) => Promise<{ groups: string[][]; reason?: string } | string[][]>;

/**
 * Reads every `tools/list` of `config.servers` (other keys ignored), stops every server it
 * started, and proposes a graph and a gateway config. Rejects with `code: 'bad_config'`,
 * `'bad_refine'` or `'no_tools'`; an unreachable server is a warning in the report.
 */
export function discover(
  config: { servers: Record<string, ServerConfig> } & Partial<GatewayConfig>,
  opts?: { measure?: number; refine?: RefineHook; timeoutMs?: number; log?: (event: LogEvent, fields: Record<string, unknown>) => void },
): Promise<Proposal>;

/** The proposal from tool lists already read (pure and deterministic). */
export function propose(
  servers: { name: string; spec: ServerConfig; tools: Tool[]; latency?: { ms: number; how: string } }[],
  opts?: { refined?: { groups: string[][]; reason?: string } | string[][] | null },
): Proposal;

/** The proposal in a few lines, for a person. */
export function summary(proposal: Proposal): string;

/** The lowest score that makes two compatible tools alternatives (0.45). */
export const SIMILARITY: number;
