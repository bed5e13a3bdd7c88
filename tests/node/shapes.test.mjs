// The hand-written TypeScript types (crates/wasm/src/types.rs, in the package's d.ts) follow what
// the router really returns. The 19 scenarios' graphs, tasks, events, escalations, the decisions
// that answered them and outcomes, as the package hands them to JS (tests/node/fixtures/
// scenarios.json, which scenarios.test.mjs holds equal to the wasm runs), are typed as object
// literals under `tsc --strict`: a field Rust adds and the d.ts lacks is an excess property, one
// the d.ts requires and Rust no longer sends is missing, a changed type does not assign. The
// unions are held to the Rust enums by crates/wasm/tests/ts_unions.rs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { PKG } from './helpers.mjs';

const REPO = resolve(new URL('../..', import.meta.url).pathname);
const runs = JSON.parse(readFileSync(join(REPO, 'tests/node/fixtures/scenarios.json'), 'utf8'));

/** tsc --strict diagnostics of one module that types `values` as the named d.ts types. */
function diagnostics(ts, typed) {
  const dir = mkdtempSync(join(REPO, '.shapes-'));
  try {
    const names = Object.values(typed).map(([type]) => type.replace('[]', ''));
    const lines = [`import type { ${[...new Set(names)].join(', ')} } from '${PKG}node/shr_wasm.js';`];
    for (const [name, [type, value]] of Object.entries(typed)) {
      lines.push(`export const ${name}: ${type} = ${JSON.stringify(value)};`);
    }
    const file = join(dir, 'shapes.mts');
    writeFileSync(file, lines.join('\n') + '\n');
    const program = ts.createProgram([file], {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [],
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true,
    });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function typescript(t) {
  try {
    return createRequire(import.meta.url)('typescript');
  } catch {
    t.skip('typescript is not installed: run scripts/setup');
    return null;
  }
}

test('every graph, task, event, escalation and outcome of the 19 scenarios fits the d.ts', (t) => {
  const ts = typescript(t);
  if (!ts) return;
  assert.ok(runs.length >= 19);
  const typed = {
    graphs: ['GraphSpec[]', runs.map((r) => r.graph)],
    tasks: ['Task[]', runs.map((r) => r.task)],
    events: ['ShrEvent[]', runs.flatMap((r) => r.events)],
    escalations: ['EscalationRequest[]', runs.flatMap((r) => r.escalations.map((e) => e.request))],
    decisions: ['Decision[]', runs.flatMap((r) => r.escalations.map((e) => e.decision))],
    outcomes: ['Outcome[]', runs.map((r) => r.outcome)],
  };
  // Every kind of event the scenarios produce is checked, not only the first ones.
  assert.ok(new Set(typed.events[1].map((e) => e.event)).size >= 10);
  assert.deepEqual(diagnostics(ts, typed), []);
});

test('the check has teeth: a field the d.ts lacks, or one it requires, is found', (t) => {
  const ts = typescript(t);
  if (!ts) return;
  const outcome = runs[0].outcome;
  const event = runs[0].events.find((e) => e.event === 'ToolCalled');
  const { goal, ...noGoal } = outcome;
  assert.ok(goal);
  const found = diagnostics(ts, {
    extra: ['Outcome', { ...outcome, newField: 1 }],
    missing: ['Outcome', noGoal],
    extraInEvent: ['ShrEvent', { ...event, queuedMs: 3 }],
  });
  assert.equal(found.length, 3, found.join('\n'));
  assert.match(found.join('\n'), /newField/);
  assert.match(found.join('\n'), /goal/);
  assert.match(found.join('\n'), /queuedMs/);
});
