import type { Tracer } from '@opentelemetry/api';
import type { Router, RunOptions, RunResult, Task } from 'shr-wasm';

export interface TracingOptions {
  /** Default: `trace.getTracer('@shr/otel')` (the registered provider's). */
  tracer?: Tracer;
  /** The workflow's name (`gen_ai.workflow.name`); default the graph's name, else "shr". */
  name?: string;
}

/** Attribute names used (GenAI semantic conventions). */
export declare const ATTR: {
  operation: 'gen_ai.operation.name';
  workflow: 'gen_ai.workflow.name';
  toolName: 'gen_ai.tool.name';
  toolCallId: 'gen_ai.tool.call.id';
  toolType: 'gen_ai.tool.type';
  errorType: 'error.type';
};

/** `router.run(task, options)` inside an `invoke_workflow` span, with an `execute_tool` span per call. */
export declare function tracedRun(
  router: Pick<Router, 'run'> & Partial<Pick<Router, 'toJson'>>,
  task: Task | null | undefined,
  options: RunOptions,
  tracing?: TracingOptions,
): Promise<RunResult>;

/** Makes every `router.run` of this router traced. */
export declare function instrument<R extends Router>(router: R, tracing?: TracingOptions): R;
export declare function uninstrument<R extends Router>(router: R): R;
