import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Router } from 'shr-wasm';
import type { ToolRouterOptions, ToolCallResult } from '@shr/tools';

export interface ShrToolsOptions extends Omit<ToolRouterOptions, 'tools'> {
  /** With no healthy tool left: a JSON text the agent reads (default) or an `EscalatedError`. */
  onEscalation?: 'result' | 'throw';
  /** Every call's result, for logs. */
  onResult?: (tool: string, result: ToolCallResult) => void;
}

export { EscalatedError } from '@shr/tools';

/** The same tools (names, descriptions, schemas), each call routed through one shared Router. */
export declare function shrTools(
  tools: StructuredToolInterface[],
  options?: ShrToolsOptions,
): { tools: StructuredToolInterface[]; router: Router };
