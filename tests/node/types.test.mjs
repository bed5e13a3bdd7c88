// The generated TypeScript definitions (pkg/node and pkg/web shr_wasm.d.ts) declare every name
// the module exports, every member of its classes, and every type those signatures mention,
// so a TypeScript agent never meets an `any` the crate could have named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shr, PKG } from './helpers.mjs';

const dts = {
  node: readFileSync(`${PKG}node/shr_wasm.d.ts`, 'utf8'),
  web: readFileSync(`${PKG}web/shr_wasm.d.ts`, 'utf8'),
};

/** The body of `export class Name { ... }` (class bodies hold no nested braces but comments). */
function classBody(text, name) {
  const start = text.indexOf(`export class ${name} {`);
  assert.ok(start >= 0, `no export class ${name}`);
  const end = text.indexOf('\n}', start);
  return text.slice(start, end);
}

/** Names of the types a TypeScript file declares at top level. */
const declared = (text) => new Set([...text.matchAll(/^export (?:interface|type|class) (\w+)/gm)].map((m) => m[1]));

// The API surface. A new export must be added here, and to the tests of api.test.mjs.
const SURFACE = {
  Router: {
    statics: ['fromJson'],
    methods: ['applyHealthDelta', 'configureFleet', 'drainHealthDeltas', 'dueProbes', 'fleetStats', 'free', 'health', 'healthSnapshot', 'markDown',
      'markUp', 'metrics', 'nextProbeAt', 'record', 'releaseProbe', 'route', 'run', 'session', 'settleProbe', 'toJson', 'tools'],
    getters: ['origin', 'warnings'],
  },
  Session: {
    statics: [],
    methods: ['free', 'escalation', 'events', 'next', 'outcome', 'pollEvents', 'report', 'resolveEscalation'],
    getters: ['isFinished'],
  },
  // Learned costs (issue 47; tests/node/costs.test.mjs).
  CostLearner: {
    statics: [],
    methods: ['adjust', 'free', 'observe', 'setBounds', 'suggestedCosts'],
    getters: [],
  },
};

test('the runtime surface is exactly the documented one', () => {
  assert.deepEqual(Object.keys(shr).sort(), ['CostLearner', 'Router', 'Session', 'version']);
  // The entry points add the error class and guard, and `init` (automatic in Node).
  const entry = createRequire(import.meta.url)(`${PKG}node/index.cjs`);
  assert.deepEqual(Object.keys(entry).sort(), ['Router', 'Session', 'ShrError', 'default', 'init', 'initSync', 'isShrError', 'version']);
  for (const [name, want] of Object.entries(SURFACE)) {
    const cls = shr[name];
    // wasm-bindgen's own, and the exports only the JS half of `route` calls (not in the d.ts).
    const internal = new Set(['constructor', '__destroy_into_raw', '__wrap', 'length', 'name', 'prototype',
      '__routeIx', '__routeError', '__routeState', '__healthIx']);
    const statics = Object.getOwnPropertyNames(cls).filter((k) => !internal.has(k)).sort();
    const members = Object.getOwnPropertyNames(cls.prototype).filter((k) => !internal.has(k));
    const getters = members.filter((k) => Object.getOwnPropertyDescriptor(cls.prototype, k).get).sort();
    const methods = members.filter((k) => !getters.includes(k)).sort();
    const sorted = Object.fromEntries(Object.entries(want).map(([k, v]) => [k, [...v].sort()]));
    assert.deepEqual({ statics, methods, getters }, sorted, name);
  }
});

for (const [target, text] of Object.entries(dts)) {
  test(`${target} d.ts declares every export and class member`, () => {
    for (const name of Object.keys(SURFACE)) {
      const body = classBody(text, name);
      for (const m of SURFACE[name].statics) assert.match(body, new RegExp(`\\n {4}static ${m}\\(`), `${name}.${m}`);
      for (const m of SURFACE[name].methods) assert.match(body, new RegExp(`\\n {4}${m}\\(`), `${name}.${m}`);
      for (const g of SURFACE[name].getters) assert.match(body, new RegExp(`\\n {4}readonly ${g}: `), `${name}.${g}`);
    }
    assert.match(text, /\nexport function version\(\): string;/);
    if (target === 'web') {
      // The browser build must be initialized before use.
      assert.match(text, /\nexport function initSync\(/);
      assert.match(text, /\nexport default function __wbg_init \(/);
    }
    assert.match(classBody(text, 'Router'), /\n {4}constructor\(graph: GraphSpec \| string, options\?: RouterOptions\);/);
  });

  test(`${target} d.ts: signatures use precise types, each of them declared`, () => {
    const router = classBody(text, 'Router');
    const session = classBody(text, 'Session');
    for (const sig of [
      'static fromJson(graph: GraphSpec | string, options?: RouterOptions): Router;',
      'route(start?: string | null, goal?: string | null, now?: number | null): Route | null;',
      'markDown(tool: string, now?: number | null): number;',
      'markUp(tool: string, now?: number | null): number;',
      'record(tool: string, outcome: RecordOutcome): number;',
      'health(tool: string, now?: number | null): ToolHealth;',
      'run(task: Task | null | undefined, options: RunOptions): Promise<RunResult>;',
      'session(task?: Task | null, now?: number | null): Session;',
      'toJson(): GraphSpec;',
      'tools(): string[];',
      'readonly warnings: Problem[];',
    ]) assert.ok(router.includes(sig), `Router lacks ${sig}`);
    for (const sig of [
      'next(now: number): Action;',
      'report(tool: string, result: ToolResult, now: number): void;',
      'resolveEscalation(decision: Decision, now: number): void;',
      'events(since?: number | null): ShrEvent[];',
      'outcome(): Outcome | null;',
      'escalation(): EscalationRequest | null;',
    ]) assert.ok(session.includes(sig), `Session lacks ${sig}`);
    const uncommented = (t) => t.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    assert.ok(!/\bany\b/.test(uncommented(router + session)), 'no `any` in the classes');

    const names = declared(text);
    // Standard library and DOM names (the web glue's init takes a URL, a Response...).
    const globals = new Set(['Promise', 'Symbol', 'Error', 'Record', 'URL', 'Response', 'RequestInfo', 'BufferSource', 'WebAssembly']);
    // Every capitalized identifier in a type position of the hand-written section or a class.
    const code = uncommented(text);
    const used = new Set([...code.matchAll(/[:|<(,]\s*([A-Z]\w*)/g)].map((m) => m[1]).filter((n) => !globals.has(n)));
    for (const n of used) assert.ok(names.has(n), `${n} is used but not declared`);
    for (const n of ['GraphSpec', 'NodeSpec', 'EdgeSpec', 'Route', 'ToolHealth', 'RunOptions', 'RunResult', 'ShrEvent', 'Outcome',
      'EscalationRequest', 'Decision', 'Task', 'ToolInput', 'ToolFailureReturn', 'Action', 'ToolResult', 'Problem', 'ErrorCode', 'ProbeCall']) {
      assert.ok(names.has(n), `${n} is not declared`);
    }
  });
}

test('the error codes in the d.ts are the ones the module throws', () => {
  const codes = [.../export type ErrorCode =([^;]+);/.exec(dts.node)[1].matchAll(/"(\w+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 10, 'ErrorCode is a union of literals');
  // Every source file of the crate, so that a module split off later is read too.
  const dir = new URL('../../crates/wasm/src/', import.meta.url);
  const source = readdirSync(dir, { recursive: true })
    // types.rs is the TypeScript text itself: its unions are what is checked, not a source.
    .filter((f) => f.endsWith('.rs') && f !== 'types.rs')
    .map((f) => readFileSync(new URL(f, dir), 'utf8'))
    .join('\n')
    // The entry points' JS throws `not_initialized`.
    + readFileSync(new URL('../../crates/wasm/js/web.js', import.meta.url), 'utf8');
  // Codes are literals given to ShrError::new, or `bad_*` literals handed to the converters.
  const thrown = new Set([
    ...[...source.matchAll(/ShrError::new\(\s*"(\w+)"/g)].map((m) => m[1]),
    ...[...source.matchAll(/"(bad_\w+)"/g)].map((m) => m[1]),
  ]);
  // A fleet delta's refusal is a verdict's code, typed apart from the errors thrown.
  const verdicts = [.../export type DeltaRefusal =([^;]+);/.exec(dts.node)[1].matchAll(/"(\w+)"/g)].map((m) => m[1]);
  for (const c of thrown) assert.ok(codes.includes(c) || verdicts.includes(c), `${c} is thrown but not in ErrorCode`);
  const core = readFileSync(new URL('../../crates/core/src/health/fleet.rs', import.meta.url), 'utf8');
  for (const c of verdicts) assert.ok(source.includes(`"${c}"`) || core.includes(`"${c}"`), `${c} is never given`);
  for (const c of codes) assert.ok(source.includes(`"${c}"`), `${c} is in ErrorCode but never thrown`);
});

// A strict type check of real data against the definitions: every scenario's graph, task,
// events, outcome and escalations as typed literals (excess and missing fields are errors).
// Needs the `typescript` package (a dev dependency, installed by scripts/setup).
test('scenario fixtures type-check against the d.ts (tsc --strict)', (t) => {
  let ts;
  try {
    ts = createRequire(import.meta.url)('typescript');
  } catch {
    t.skip('typescript is not installed: run scripts/setup');
    return;
  }
  const fixtures = JSON.parse(readFileSync(new URL('./fixtures/scenarios.json', import.meta.url), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'shr-dts-'));
  let src = `import type { GraphSpec, Task, ShrEvent, Outcome, EscalationRequest, Decision } from ${JSON.stringify(`${PKG}node/shr_wasm`)};\n`;
  fixtures.forEach((f, i) => {
    src += `export const g${i}: GraphSpec = ${JSON.stringify(f.graph)};\n`;
    src += `export const t${i}: Task = ${JSON.stringify(f.task)};\n`;
    src += `export const e${i}: ShrEvent[] = ${JSON.stringify(f.events)};\n`;
    src += `export const o${i}: Outcome = ${JSON.stringify(f.outcome)};\n`;
    src += `export const x${i}: { request: EscalationRequest; decision: Decision }[] = ${JSON.stringify(f.escalations)};\n`;
  });
  writeFileSync(join(dir, 'fixtures.ts'), src);
  const program = ts.createProgram([join(dir, 'fixtures.ts')], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.esnext.disposable.d.ts'],
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(errors, []);
});
