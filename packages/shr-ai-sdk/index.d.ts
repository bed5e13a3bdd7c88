import type { Tool } from 'ai';
import type { Router } from 'shr-wasm';
import type { ToolRouterOptions, ToolCallResult } from '@shr/tools';

export interface ShrToolsOptions extends Omit<ToolRouterOptions, 'tools'> {
  /** With no healthy tool left: a result the model reads (default) or an `EscalatedError`. */
  onEscalation?: 'result' | 'throw';
  /** Every call's result, for logs. */
  onResult?: (tool: string, result: ToolCallResult) => void;
}

/** What the model reads when a call escalated (`onEscalation: 'result'`). */
export interface EscalatedResult {
  error: 'escalated';
  tool: string;
  reason: string;
  failed: string[];
  message: string;
}

export { EscalatedError } from '@shr/tools';

/** The same tools, each call routed through one shared Router. */
export declare function shrTools<TOOLS extends Record<string, Tool>>(
  tools: TOOLS,
  options?: ShrToolsOptions,
): { tools: TOOLS; router: Router };
