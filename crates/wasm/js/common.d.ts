import type { ErrorCode, Problem, ShrEvent } from './shr_wasm.js';

export * from './shr_wasm.js';

declare global {
  // The classes' `[Symbol.dispose]()` (for `using`) needs `Symbol.dispose` declared; TypeScript
  // declares it in lib `esnext.disposable`, which this spares a project from adding.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/**
 * Every error shr-wasm throws or rejects with: an `Error` named "ShrError" with a stable `code`.
 * `e instanceof ShrError` and `isShrError(e)` tell it from any other error.
 */
export declare class ShrError extends Error {
  constructor(code: ErrorCode, message: string, details?: Partial<Pick<ShrError, 'problems' | 'tool' | 'node' | 'events'>>);
  name: "ShrError";
  code: ErrorCode;
  /** invalid_graph: every problem found. */
  problems?: Problem[];
  /** unknown_tool / not_in_flight: the tool named. */
  tool?: string;
  /** unknown_node / bad_task: the node named. */
  node?: string;
  /** A failed run: the events up to the failure. */
  events?: ShrEvent[];
}

/** Whether `value` is an error shr-wasm threw (narrows it to ShrError). */
export declare function isShrError(value: unknown): value is ShrError;
