// The package as a user installs it: `import init, { Router } from 'shr-wasm'` type-checks with
// tsc --strict in a browser project (bundler resolution, DOM lib, no esnext.disposable), a Node
// ES module project and a CommonJS one, and runs in Node both ways; the browser build throws a
// coded `not_initialized` before `init`; ShrError and isShrError recognize every error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG } from './helpers.mjs';

const GRAPH = "{ nodes: [{ id: 's', tool: false }, { id: 't' }], edges: [{ from: 's', to: 't' }], start: 's', goal: 't' }";
const USE = `import init, { Router, isShrError, ShrError, type ShrEvent } from 'shr-wasm';
await init();
const router = Router.fromJson(${GRAPH});
const weight: number = router.markDown('t', 0);
router[Symbol.dispose]();
let code = '';
try { Router.fromJson('{'); } catch (e) { if (isShrError(e)) code = e.code; if (e instanceof ShrError) code += '/' + e.problems?.length; }
const toolOf = (e: ShrEvent) => ('tool' in e ? e.tool : '');
// The default export also carries the API, as a CommonJS module's default did.
const viaDefault: number = new init.Router(${GRAPH}).markUp('t', 0);
export const seen = [weight, code, toolOf, viaDefault];
`;

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'shr-exports-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PKG, join(dir, 'node_modules', 'shr-wasm'), 'dir');
  return dir;
}

test('types: one import type-checks for the browser, Node ESM and Node CommonJS (tsc --strict)', (t) => {
  let ts;
  try {
    ts = createRequire(import.meta.url)('typescript');
  } catch {
    return t.skip('typescript is not installed: run scripts/setup');
  }
  const dir = project();
  try {
    writeFileSync(join(dir, 'browser.ts'), USE);
    writeFileSync(join(dir, 'node.mts'), USE);
    writeFileSync(join(dir, 'cjs.cts'), `import shr = require('shr-wasm');\nconst r = shr.Router.fromJson(${GRAPH});\nr.free();\nexport const ok: boolean = shr.isShrError(new Error());\nexport const init: () => Promise<void> = shr.init;\n`);
    const check = (files, options) => ts.getPreEmitDiagnostics(ts.createProgram(files.map((f) => join(dir, f)), {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, types: [], ...options,
    })).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    const bundler = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'] };
    assert.deepEqual(check(['browser.ts'], bundler), [], 'browser project (import condition)');
    assert.deepEqual(check(['browser.ts'], { ...bundler, customConditions: ['browser'] }), [], 'browser condition');
    assert.deepEqual(check(['browser.ts'], { ...bundler, lib: [...bundler.lib, 'lib.esnext.disposable.d.ts'] }), [], 'with esnext.disposable too');
    const node = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, lib: ['lib.es2022.d.ts'] };
    assert.deepEqual(check(['node.mts', 'cjs.cts'], node), [], 'Node ESM and CommonJS');
    // The browser types declare init's inputs; the Node ones say init does nothing.
    assert.match(readFileSync(`${PKG}web/index.d.ts`, 'utf8'), /declare const init: \(\(\s*input\?: InitInput/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Node: the same import runs as an ES module and through require', () => {
  const dir = project();
  try {
    writeFileSync(join(dir, 'a.mjs'), `import init, { Router, ShrError } from 'shr-wasm';\nimport shr from 'shr-wasm';\nawait init();\ntry { Router.fromJson('{'); } catch (e) { console.log(e instanceof ShrError, e.code, new shr.Router(${GRAPH}).route().cost); }\n`);
    writeFileSync(join(dir, 'b.cjs'), `const { Router, isShrError, initSync } = require('shr-wasm');\ninitSync();\ntry { new Router({}); } catch (e) { console.log(isShrError(e), e.code); }\n`);
    assert.equal(execFileSync(process.execPath, ['a.mjs'], { cwd: dir }).toString().trim(), 'true invalid_graph 1');
    assert.equal(execFileSync(process.execPath, ['b.cjs'], { cwd: dir }).toString().trim(), 'true invalid_graph');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('browser build: not_initialized before init, with the fix named; then it works', async () => {
  const web = await import(`${PKG}web/index.js`);
  for (const use of [() => new web.Router({ nodes: [] }), () => web.Router.fromJson({ nodes: [] }), () => web.version()]) {
    assert.throws(use, (e) => e instanceof web.ShrError && web.isShrError(e) && e.code === 'not_initialized' && /await init\(\)/.test(e.message));
  }
  web.initSync({ module: readFileSync(`${PKG}web/shr_wasm_bg.wasm`) });
  const r = new web.Router({ nodes: [{ id: 's', tool: false }, { id: 't' }], edges: [{ from: 's', to: 't' }], start: 's', goal: 't' });
  assert.ok(r instanceof web.Router);
  assert.equal(r.route().cost, 1);
  assert.equal(typeof web.version(), 'string');
  assert.throws(() => web.Router.fromJson('{'), (e) => e instanceof web.ShrError && e.code === 'invalid_graph');
  assert.equal(web.isShrError(new Error('x')), false);
  assert.equal(new Error('x') instanceof web.ShrError, false);
  const made = new web.ShrError('bad_options', 'made by hand', { tool: 't' });
  assert.ok(made instanceof Error && web.isShrError(made) && made.tool === 't');
});
