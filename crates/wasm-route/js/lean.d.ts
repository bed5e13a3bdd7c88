// shr-wasm/route: the lean entry (a router over a graph description, routes, mark down/up and a
// tool's weight; no sessions, driver, fleet, probes or metrics).

/** Every error is an `Error` named "ShrError" with a stable `code`. */
export declare class ShrError extends Error {
  constructor(code: string, message: string, details?: Record<string, unknown>);
  code: string;
  /** For `invalid_graph`: every problem found, with its JSON pointer. */
  problems?: { kind: string; at: string; path: string; message: string }[];
  [key: string]: unknown;
}
export declare function isShrError(value: unknown): value is ShrError;

export interface LeanRoute {
  path: string[];
  edges: [string, string][];
  cost: number;
}

export declare class Router {
  /** A router over a graph description (JSON text or the parsed object). */
  static fromJson(graph: string | object): Router;
  private constructor();
  /** Node ids in index order. */
  readonly ids: string[];
  /** The graph's own start and goal node indices. */
  readonly start: number;
  readonly goal: number;
  /** The node index of `id`, -1 when no node has it. */
  index(id: string): number;
  /** Node indices of the cheapest healthy route written into `out`; their count, -1 if none. */
  routeInto(from: number, to: number, out: Uint32Array | Int32Array, now?: number): number;
  /** The cheapest healthy route between node ids (the graph's own when omitted), or null. */
  route(start?: string | null, goal?: string | null, now?: number | null): LeanRoute | null;
  /** Marks a tool down; returns its weight (Infinity). */
  markDown(tool: string, now?: number | null): number;
  /** Marks a tool up; returns its weight. */
  markUp(tool: string, now?: number | null): number;
  /** The tool's weight now (Infinity: routed around). */
  health(tool: string, now?: number | null): number;
  free(): void;
  [Symbol.dispose](): void;
}
