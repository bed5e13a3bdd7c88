//! Hand-written TypeScript for the values that cross the boundary as plain objects. One
//! convention: keys are camelCase both ways (mapped in `convert.rs`, nowhere else); string
//! values are the core's names (`"call_tools"`, `"half_open"`, `"hand_off"`), as in the
//! JSON-lines log; the graph description (`GraphSpec`) is a file format shared with the CLI and
//! keeps its snake_case fields.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A node of the graph description. */
export interface NodeSpec {
  id: string;
  label?: string;
  /** Capability tag, e.g. "payment"; risk rules and baselines refer to stages. */
  stage?: string;
  /** Multiplies the cost of every edge into this node (default 1). */
  base_cost?: number;
  /** False for waypoints (start, goals) that complete without a call (default true). */
  tool?: boolean;
  /** Needs k distinct completed inputs (k = in-degree is AND). Default: any one (OR). */
  join?: { quorum: number };
  /** What the tool does, for people and agents. */
  description?: string;
  /**
   * Retries of transient service failures: `attempts` extra calls after the first; the wait
   * before retry n is `backoff_ms x 2^(n-1)`, at most `max_backoff_ms` (30 s), drawn below that
   * with `jitter` (on). A field left out (or `retry` itself) takes the default: 1 attempt, no
   * backoff.
   */
  retry?: { attempts?: number; backoff_ms?: number; max_backoff_ms?: number; jitter?: boolean };
  /** Calls allowed per hour; the weight rises near it. */
  quota?: number;
  /** A token bucket shared by every run of the router: over it the tool is routed around. */
  rate_limit?: { calls: number; per_ms: number };
  /** Calls in flight at once, over every run (a bulkhead). */
  max_concurrent?: number;
  /**
   * How long a call may take before it is given up on and its `signal` aborted (the router's
   * `admission.callTimeoutMs` when absent; wins over `RunOptions.timeoutMs`). 1 ms to a day.
   */
  timeout_ms?: number;
  /**
   * For a side effect: the tool that tells whether a timed-out call acted. It is called with
   * that call's `callId` and answers `{done: true}` or `{done: false}`.
   */
  verify?: string;
  /**
   * Probe the tool while it is down: once the cooldown lets a probe through, at most every
   * `interval_ms`, the router hands out a probe call (`router.dueProbes()`) with `input`.
   */
  probe?: { interval_ms: number; input?: unknown };
  /** The tool changes the world: never branched back past unless `compensate` undoes it. */
  side_effect?: boolean;
  /** The tool that undoes this one's side effect. */
  compensate?: string;
  baseline_latency_ms?: number;
  /** Checks on the tool's output; a result failing one is an implicit failure. */
  validators?: Validator[];
  x?: number;
  y?: number;
  /** Why the node is what it is (a discovered grouping, a guessed cost), for people. */
  reason?: string;
}

export interface Validator {
  /** Dot path into the output, e.g. "refund.id". */
  field: string;
  required?: boolean;
  min?: number;
  max?: number;
  one_of?: unknown[];
  non_empty?: boolean;
  /** The field's JSON type. */
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  /** A list with at least this many items. */
  min_items?: number;
  /** Equals `context.<path>` (the task's context) or `output.<path>` (another output field). */
  equals?: string;
  /** A list whose length equals the number at `context.<path>` or `output.<path>`. */
  length_equals?: string;
  /** A time in ms on the router's clock, at most this old when the result arrives. */
  max_age_ms?: number;
}

export interface EdgeSpec {
  from: string;
  to: string;
  /** Non-negative and finite (default 1). */
  cost?: number;
  /** Taken only when the last output of `from` satisfies it (cyclic workflows). */
  guard?: { field: string; equals: unknown; negate?: boolean };
  /** Why the edge exists (the output fields that feed the input), for people. */
  reason?: string;
}

/** The JSON description of a tool graph (JSON Schema: `shr-wasm/graph.schema.json`). */
export interface GraphSpec {
  $schema?: string;
  /** The format version: 1 (the default). */
  version?: 1;
  name?: string;
  nodes: NodeSpec[];
  edges?: EdgeSpec[];
  start?: string;
  goal?: string;
  stages?: string[];
  risk_rules?: { key: string; max: number; stage: string; priority?: number }[];
  intents?: { keyword: string; priority?: number }[];
}

export type ProblemKind =
  | "malformed_json" | "duplicate_id" | "bad_id" | "unknown_node" | "negative_cost"
  | "non_finite_cost" | "missing_start" | "missing_goal" | "self_loop" | "duplicate_edge"
  | "bad_quorum" | "label_too_long" | "too_large" | "bad_value" | "goal_unreachable"
  | "cost_overflow" | "unsupported_version";

/**
 * One problem of a graph description; `at` names the offending id or field, `path` its place
 * as a JSON pointer (`/nodes/3/retry/attempts`).
 */
export interface Problem { kind: ProblemKind; at: string; path: string; message: string }

export interface BreakerConfig {
  failureRate?: number;
  consecutiveFailures?: number;
  windowMs?: number;
  windowCalls?: number;
  minCalls?: number;
  cooldownMs?: number;
  /** Trial calls let through at once while half-open (default 1). */
  halfOpenProbes?: number;
}

/**
 * Session limits (defaults: 64 tool calls, 4 escalations, 4 visits per tool). Keys are camelCase:
 * an unknown one, a snake_case one (`tool_budget` for `toolBudget`) or a setting out of range
 * throws `bad_options` naming it.
 */
export interface SessionConfig {
  toolBudget?: number;
  escalationBudget?: number;
  visitBudget?: number;
  breaker?: BreakerConfig;
  /** How calls are let through to each tool, for every run of the router together. */
  admission?: {
    /** Calls in flight per tool when its node says nothing (no ceiling by default). */
    maxConcurrent?: number | null;
    /** Slow start: calls a tool with no record may have in flight (default 3; 0: off). */
    initialConcurrency?: number;
    /** Retries in flight per tool: a share of its calls in flight, at least `minRetries`. */
    retryBudget?: { ratio?: number; minRetries?: number };
    /** How long a run waits for a tool that is only full or rate-limited (default 10 s). */
    maxWaitMs?: number;
    /** A call's timeout when its node gives none (default 10 s). */
    callTimeoutMs?: number;
    /**
     * A call's place (bulkhead, trial slot) is a lease that runs out this long after its
     * timeout if it is never reported (default 5 s); a side effect's late result is awaited
     * this long after its timeout.
     */
    leaseGraceMs?: number;
  };
  /** Where a run replans from when no plan leaves the tip of its work (default "completed"). */
  replanFrom?: "tip" | "completed";
}

/** Any other key throws `bad_options` naming it. */
export interface RouterOptions {
  config?: SessionConfig;
  /**
   * Milliseconds, used by markDown/markUp/record/health/route and runs. Default: a monotonic
   * clock on the epoch's scale (`performance.timeOrigin + performance.now()`), so that a wall
   * clock set back moves no cooldown, window or backoff. A `now` you pass is on this clock.
   */
  clock?: () => number;
  /**
   * This router's name in a fleet of routers sharing health (1-128 characters; default
   * "local"): the `origin` of the deltas it publishes. Deltas carrying it are refused as echoes.
   */
  origin?: string;
}

/**
 * One health change, as members of a fleet exchange it (see `drainHealthDeltas`). `opened`
 * carries `cooldown`, the ms of cooldown left when it was sent (a duration: clocks need not
 * agree); `version` is the sender's hybrid logical clock (`ms * 1024 + counter`), unique per
 * origin. `failed` is a failure seen while the breaker was closed: evidence against the tool.
 */
export interface HealthDelta {
  tool: string;
  change: "opened" | "closed" | "failed";
  cooldown?: number;
  version: number;
  origin: string;
}

/** What `applyHealthDelta` did: applied, or refused with a stable code and why. */
/** Why a fleet delta was refused (a verdict, never thrown). */
export type DeltaRefusal =
  | "unknown_tool" | "bad_origin" | "bad_version" | "stale_version" | "bad_change" | "ahead" | "replayed"
  | "bad_delta" | "too_large";

export interface DeltaVerdict {
  applied: boolean;
  code?: DeltaRefusal;
  message?: string;
  /** The breaker change it caused, if any. */
  transition?: { from: BreakerState; to: BreakerState };
}

/** Fleet traffic of one router. */
export interface FleetStats {
  published: number;
  applied: number;
  rejected: number;
  /** Deltas dropped from a full outbox (a host that never drains). */
  dropped: number;
  /** Applied deltas that were evidence only (fewer members than the quorum had seen a failure). */
  evidence: number;
}

/** What `configureFleet` takes: any of FleetConfig's settings (the others keep their defaults). */
export interface FleetSettings {
  quorum?: number;
  windowMs?: number;
  maxSkewMs?: number;
}

/** How a router weighs its fleet's news (`configureFleet`). */
export interface FleetConfig {
  /** Distinct members whose evidence opens a tool here; 1 trusts every member alone. */
  quorum: number;
  /** How long a member's evidence counts (once), ms; 0: the breaker's cooldown. */
  windowMs: number;
  /** How far ahead of this router's clock a version may run, ms. */
  maxSkewMs: number;
}

/**
 * A task: where to go (the graph's start and goal when omitted) and what monitors read. Any other
 * field throws `bad_task` naming it (a misspelt goal would otherwise route to the graph's own).
 */
export interface Task {
  /**
   * The run's key, unique across your agent processes: the prefix of its calls' idempotency
   * keys (`callId`). `Router.run` draws a random UUID when absent; a session uses `run-N`.
   */
  id?: string | null;
  goal?: string | null;
  start?: string | null;
  /**
   * Your data, passed to tools as written (keys are not mapped). The monitors read `request`
   * (intent), the keys of the graph's `risk_rules` and `known_bad` (tool ids), e.g.
   * {request: "refund please", amount: 150, known_bad: ["stripe"]}.
   */
  context?: Record<string, unknown>;
}

export type Category = "input" | "service" | "policy";
export type BreakerState = "closed" | "open" | "half_open";
export type Status = "completed" | "demoted" | "escalated";
export type EscalationReason =
  | "no_path" | "risk" | "budget" | "policy" | "input" | "compensation" | "deadline" | "outcome_unknown";
/** Why a tool would not take a call now. */
export type Refusal = "open" | "probing" | "full" | "rate_limited" | "retry_budget";
export type MonitorKind = "risk" | "tool_health" | "progress" | "memory" | "intent";

export type SignalKind =
  | { type: "intent"; intent: string }
  | { type: "risk"; rule: number; key: string; value: number; max: number; stage: string }
  | { type: "tool_down"; tools: string[] }
  | { type: "budget"; used: number; limit: number }
  | { type: "known_bad"; tool: string }
  | { type: "thrash"; cycle: string[]; repeats: number };

export type Signal = { source: MonitorKind; priority: number } & SignalKind;

/** A plan as ids. `cost` is null when infinite. */
export interface PlanView { nodes: string[]; edges: [string, string][]; cost: number | null }

/** What the session asks the LLM (or a person). */
export interface EscalationRequest {
  reason: EscalationReason;
  goal: string;
  failed: string[];
  completed: string[];
  agentAction?: string;
  signal?: Signal;
  /** The key of the side effect's call whose outcome is unknown (reason "outcome_unknown"). */
  callId?: string;
}

/**
 * The answer to an escalation. abort and hand_off end the task. A key its kind does not read
 * (`goal` on approve) is `bad_decision` naming it.
 */
export type Decision =
  | { decision: "demote"; goal: string }
  | { decision: "approve" }
  | { decision: "abort"; message: string }
  | { decision: "hand_off"; to: string };

/** How a task ended, over the whole run. */
export interface Outcome {
  status: Status;
  goal: string;
  originalGoal: string;
  /** The executed path the final plan used: completed nodes it built on, in completion order. */
  path: string[];
  /** Cost of the edges of `path`. */
  cost: number;
  /** Completed tools no plan built on in the end (branched back past). */
  abandoned?: string[];
  /** Cost spent on abandoned work, not on `path`. */
  sunkCost?: number;
  toolCalls: number;
  llmCalls: number;
  reroutes: number;
  retries: number;
  failures: number;
  revisits: number;
  message?: string;
}

export type EventKind =
  | { event: "PathPlanned"; plan: PlanView }
  | { event: "SignalRaised"; signal: Signal }
  | { event: "SignalWon"; signal: Signal }
  | { event: "ToolCalled"; tool: string; attempt: number; callId?: string }
  | { event: "ToolSucceeded"; tool: string; latencyMs: number }
  | { event: "ToolFailed"; tool: string; category: Category; implicit: boolean; transient: boolean; message: string; agentAction?: string }
  | { event: "Reweighted"; tool: string; weight: number | null }
  | { event: "Rerouted"; fromPlan: PlanView; toPlan: PlanView; around: string[]; abandoned?: string[] }
  | { event: "Retried"; tool: string; attempt: number; notBefore: number }
  | { event: "BreakerChanged"; tool: string; from: BreakerState; to: BreakerState }
  | { event: "Escalated"; reason: EscalationReason; goal: string; failed: string[]; completed: string[]; agentAction?: string; llmCall: number }
  | { event: "GoalDemoted"; from: string; to: string }
  | { event: "Revisited"; tool: string; visit: number }
  | { event: "Redirected"; from: string[]; to: string }
  | { event: "Shed"; tool: string; reason: Refusal }
  | { event: "Compensated"; tool: string; by: string }
  | { event: "Finished"; status: Status; goal: string; path: string[]; cost: number; message?: string };

/** One event of a session: position, clock value (ms) and what happened. */
export type ShrEvent = { seq: number; at: number } & EventKind;

/**
 * A call the session asks for; wait `delayMs` (a retry's backoff) before making it. `callId`
 * is its idempotency key (the same on a retry of one step, new for a new step); `timeoutMs` how
 * long it may take.
 */
export interface Call { tool: string; attempt: number; notBefore: number; delayMs: number; callId: string; timeoutMs: number }

/** Session.next's answer. */
export type Action =
  | { action: "call_tools"; calls: Call[] }
  | { action: "wait" }
  /** Other runs hold what this one needs: ask again at `until`, or after any report. */
  | { action: "pause"; until: number }
  | { action: "escalate"; request: EscalationRequest }
  | { action: "finished"; outcome: Outcome };

/**
 * Session.report's argument (camelCase keys; `output` is the tool's own data). A key the kind
 * of result does not read, or a snake_case one, is `bad_result` naming it; `null` is not given.
 */
export type ToolResult =
  | { result: "ok"; output?: unknown; latencyMs?: number }
  | { result: "err"; category: Category; transient?: boolean; message?: string; agentAction?: string; latencyMs?: number }
  /** Nobody knows what the call did (it timed out after it may have acted). */
  | { result: "unknown"; message?: string; latencyMs?: number };

export interface Factors { baseCost: number; latency: number; reliability: number; rateLimit: number | null; availability: number | null }

/**
 * A tool's health (`router.health(tool)`). `weight` is null when infinite (the tool is routed
 * around); `markDown`, `markUp` and `record` return the weight alone, as a number (`Infinity`).
 */
export interface ToolHealth { tool: string; state: BreakerState; weight: number | null; factors: Factors }

/** Router.route's answer: the nodes and edges of the cheapest healthy plan. */
export interface Route { path: string[]; edges: [string, string][]; cost: number }

/** Router.record's argument. */
export interface RecordOutcome { ok: boolean; latencyMs?: number; hard?: boolean; at?: number }
/** A probe call due now: call `tool` with `input`, then `router.settleProbe(probe, outcome)` once. */
export interface ProbeCall { probe: number; tool: string; input: unknown }

/**
 * The host's `AbortSignal` (from the DOM or Node's types) where the program has its type, else
 * what a tool reads of one: the definitions need neither `lib: ["dom"]` nor `@types/node`.
 */
export type HostAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer S } }
  ? S
  : { readonly aborted: boolean; readonly reason: unknown; throwIfAborted(): void;
      addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
      removeEventListener(type: "abort", listener: () => void): void };

/** What a tool function receives. */
export interface ToolInput {
  tool: string;
  /** 1 for the first call, 2 for the first retry... */
  attempt: number;
  /**
   * The call's idempotency key: the same on a retry of one step, a new one for a new step.
   * Pass it to the API (Stripe's `Idempotency-Key`) so a retried side effect acts once.
   */
  callId: string;
  /** Aborted at the call's timeout, the run's deadline, or the end of the run. */
  signal: HostAbortSignal;
  /** The task's context. */
  context: Record<string, unknown>;
  /** Outputs of the tools that succeeded earlier in this run, by id. */
  results: Record<string, unknown>;
}

/**
 * A structured failure a tool may return instead of throwing (seed 003). Any other key makes it
 * malformed data (a permanent service failure whose message names the key and keeps `error`).
 */
export interface ToolFailureReturn {
  success: false;
  error?: string;
  /** Default "service". */
  category?: Category;
  /** Recovery text carried verbatim into an escalation. */
  agentAction?: string;
  /** Seed 003's spelling of `agentAction`, read too so that a tool may return its API's error verbatim (give one of the two). */
  agent_action?: string;
  /** Worth retrying (default false). */
  transient?: boolean;
}

/**
 * A tool: returns (or resolves to) its output, which the core checks with the tool's
 * validators, or a ToolFailureReturn. Throwing or rejecting is a transient service failure; not
 * settling within the call's timeout aborts `signal` and leaves the outcome unknown (for a
 * side effect: its late result, its node's `verify`, or an escalation decides).
 */
export type ToolFn = (input: ToolInput) => unknown | Promise<unknown>;

/** Any other key rejects with `bad_options` naming it. */
export interface RunOptions {
  /** One function per tool id the run may call. A missing one is a service failure. */
  tools: Record<string, ToolFn>;
  /** Answers escalations (your LLM, or a person). Without it an escalation aborts the task. */
  escalate?: (request: EscalationRequest) => Decision | Promise<Decision>;
  /** Every event, as it happens. A listener that throws is ignored. */
  onEvent?: (event: ShrEvent) => void;
  /**
   * Per-call timeout in ms for nodes without `timeout_ms` (default: the router's
   * `admission.callTimeoutMs`, 10000; Infinity: a day). Every duration is at most 2147483647 ms
   * (what a timer holds); more is `bad_options`.
   */
  timeoutMs?: number;
  /**
   * How long `escalate` may take (default 300000): past it the run ends escalated, with an
   * `Escalated` event of reason "deadline" and the outcome's message saying so.
   */
  escalateTimeoutMs?: number;
  /**
   * The whole run's deadline in ms (default none): when it passes, calls in flight are given up,
   * an `Escalated` event of reason "deadline" names every failure seen, and the run resolves.
   */
  deadlineMs?: number;
  /**
   * Milliseconds (default: the router's clock, else a monotonic one). Pass a fake clock for
   * replay. Waits never read it: a backoff is slept as a duration, so a clock that steps back
   * changes none.
   */
  clock?: () => number;
  /**
   * Waits a call's `delayMs` (a retry's backoff) or a pause (default setTimeout). A sleep that
   * has not settled a second past the wait ends the run like the deadline, saying so.
   */
  sleep?: (ms: number) => Promise<void>;
}

export interface RunResult { outcome: Outcome; events: ShrEvent[] }

export type ErrorCode =
  | "invalid_graph" | "unknown_tool" | "unknown_node" | "bad_task" | "bad_options"
  | "bad_decision" | "bad_result" | "bad_record" | "bad_clock" | "not_in_flight"
  | "no_escalation" | "finished" | "escalation_failed" | "freed" | "unknown_probe" | "internal"
  /** The browser build used before `await init()` (or `initSync`). */
  | "not_initialized";

/* ShrError (a class) and isShrError are declared by the entry points (crates/wasm/js). */
"#;
