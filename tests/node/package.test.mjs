// The package itself: it installs (require, import and types resolve through package.json), the
// web build initializes from bytes and behaves like the Node build, and its version. Split from
// api.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, symlinkSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { shr, PKG, Router, Session, VirtualTime, refundGraph, okTools, names, expectCode } from './helpers.mjs';

test('version', () => {
  assert.match(shr.version(), /^\d+\.\d+\.\d+$/);
});

test('the package installs: require, import and types resolve through package.json', () => {
  const pkg = JSON.parse(readFileSync(`${PKG}package.json`, 'utf8'));
  assert.equal(pkg.name, 'shr-wasm');
  assert.equal(pkg.main, './node/index.cjs');
  assert.equal(pkg.browser, './web/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'shr-wasm-install-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PKG, join(dir, 'node_modules', 'shr-wasm'), 'dir');
  writeFileSync(join(dir, 'a.mjs'), "import { Router } from 'shr-wasm';\nconsole.log(Router.fromJson({nodes:[{id:'s',tool:false},{id:'t'}],edges:[{from:'s',to:'t'}],start:'s',goal:'t'}).route().cost);\n");
  writeFileSync(join(dir, 'b.cjs'), "const { Router } = require('shr-wasm');\nconsole.log(typeof Router.fromJson);\n");
  assert.equal(execFileSync(process.execPath, ['a.mjs'], { cwd: dir }).toString().trim(), '1');
  assert.equal(execFileSync(process.execPath, ['b.cjs'], { cwd: dir }).toString().trim(), 'function');
  const dts = readFileSync(`${PKG}node/shr_wasm.d.ts`, 'utf8') + readFileSync(`${PKG}node/index.d.ts`, 'utf8');
  for (const t of ['export interface RunOptions', 'export type ShrEvent', 'export type Decision', 'export interface Outcome', 'export interface EscalationRequest', 'export interface Task', 'export declare class ShrError', 'export declare function isShrError', 'run(task: Task | null | undefined, options: RunOptions): Promise<RunResult>', 'route(start?: string | null, goal?: string | null, now?: number | null): Route | null']) {
    assert.ok(dts.includes(t), `d.ts lacks ${t}`);
  }
  assert.ok(readFileSync(`${PKG}web/shr_wasm.d.ts`, 'utf8').includes('export default function __wbg_init'));
  assert.ok(readFileSync(`${PKG}web/index.d.ts`, 'utf8').includes('export default init'));
});

test('the web build initializes from bytes and behaves like the Node build', async () => {
  const web = await import(`${PKG}web/shr_wasm.js`);
  web.initSync({ module: readFileSync(`${PKG}web/shr_wasm_bg.wasm`) });
  const r = web.Router.fromJson(refundGraph(), { clock: () => 0 });
  r.markDown('stripe');
  assert.deepEqual(r.route(), {
    path: ['start', 'crm', 'razorpay', 'email', 'done'],
    edges: [['start', 'crm'], ['crm', 'razorpay'], ['razorpay', 'email'], ['email', 'done']],
    cost: 4,
  });
  const down = okTools({ razorpay: async () => { throw new Error('down'); } });
  const { outcome } = await r.run(null, { tools: down, escalate: () => ({ decision: 'abort', message: 'no payment tool' }) });
  assert.equal(outcome.status, 'escalated');
  assert.equal(outcome.message, 'no payment tool');
  const e = await expectCode(() => web.Router.fromJson('{'), 'invalid_graph', assert);
  assert.equal(e.problems[0].kind, 'malformed_json');
});

/** Every key of every object in `v`, at any depth. */

test('the web build loads two JS modules besides its glue', () => {
  // Each wasm-bindgen snippet is one more module a browser fetches before the first call. With
  // five, the headless browser tests hung now and then: wasm-bindgen-test-runner's server
  // (tiny_http 0.12) can leave a connection unread when more open at once than it has idle
  // threads. The driver's JS is one module (crates/wasm/src/driver/driver.js).
  const modules = readdirSync(`${PKG}web/snippets`, { recursive: true }).filter((f) => f.endsWith('.js'));
  assert.equal(modules.length, 2, modules.join(', '));
});
