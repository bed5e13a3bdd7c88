import type { Router, RouterOptions, NodeSpec, GraphSpec, RunOptions, ShrEvent, EscalationReason } from 'shr-wasm';

/** What a routed tool function receives besides its input. */
export interface ToolContext {
  /** The tool being called (the requested one, or an alternative). */
  tool: string;
  /** The tool the agent asked for. */
  requested: string;
  /** The call's idempotency key (the same on a retry). */
  callId: string;
  /** 1 for the first call, 2 for the first retry... */
  attempt: number;
  /** Aborted at the call's timeout or the end of the call. */
  signal: AbortSignal;
  [extra: string]: unknown;
}

export type RoutedTool = (input: any, ctx: ToolContext) => unknown | Promise<unknown>;

export interface ToolRouterOptions {
  /** One function per tool. */
  tools: Record<string, RoutedTool>;
  /** Per tool, the tools to fall back to, most preferred first. */
  alternatives?: Record<string, string[]>;
  /** Per tool, node settings (retry, timeout_ms, max_concurrent, validators...). */
  nodes?: Record<string, Omit<NodeSpec, 'id'>>;
  /** A router of your own, made from `alternativesGraph` (shared with a fleet, say). */
  router?: Router;
  routerOptions?: RouterOptions;
  /** Passed to every `router.run` (escalate, timeoutMs, deadlineMs, onEvent...). */
  runOptions?: Omit<RunOptions, 'tools'>;
  /** The input an alternative gets (default: the requested tool's input). */
  mapInput?: (tool: string, requested: string, input: any) => unknown;
}

export type ToolCallResult =
  | { status: 'completed'; tool: string; output: unknown; failed: string[]; events: ShrEvent[] }
  | { status: 'escalated'; reason: EscalationReason; failed: string[]; message: string; events: ShrEvent[] };

export interface ToolRouter {
  router: Router;
  call(name: string, input: unknown, options?: { callId?: string; signal?: AbortSignal; context?: Record<string, unknown>; extra?: Record<string, unknown> }): Promise<ToolCallResult>;
}

export declare function toolRouter(options: ToolRouterOptions): ToolRouter;
export declare function alternativesGraph(names: Iterable<string>, alternatives?: Record<string, string[]>, nodes?: Record<string, Omit<NodeSpec, 'id'>>): GraphSpec;
export declare function startOf(name: string): string;
export declare function doneOf(name: string): string;

/** A call with no healthy tool left (`onEscalation: 'throw'` in the adapters). */
export declare class EscalatedError extends Error {
  name: 'EscalatedError';
  code: 'escalated';
  tool: string;
  reason: string;
  failed: string[];
}
/** Throws a coded `bad_options` error unless `onEscalation` is 'result' or 'throw'. */
export declare function checkEscalation(onEscalation: unknown): void;
