// The lean entry, shr-wasm/route: the same routes as the full module on the 19 scenario graphs
// (healthy, with each tool down, with pairs down), coded errors for bad input, and `free()`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG, Router as FullRouter } from './helpers.mjs';
import { BUDGET, assertWithinBudget } from '../size-budget.mjs';

const require = createRequire(import.meta.url);
const lean = require(join(PKG, 'route/node/index.cjs'));
const { Router } = lean;
const fixtures = JSON.parse(readFileSync(new URL('./fixtures/scenarios.json', import.meta.url), 'utf8'));
const NOW = 1_000;

function same(full, small, what) {
  const a = full.route(null, null, NOW);
  const b = small.route(null, null, NOW);
  assert.deepEqual(b, a, what);
  // The fast call: the same nodes, as indices into a reused buffer.
  const out = new Uint32Array(small.ids.length);
  const n = small.routeInto(small.start, small.goal, out, NOW);
  if (a === null) {
    assert.equal(n, -1, what);
  } else {
    assert.deepEqual([...out.subarray(0, n)].map((v) => small.ids[v]), a.path, what);
  }
}

test('routes equal the full module on the 19 scenario graphs, healthy and with tools down', () => {
  assert.equal(fixtures.length, 19);
  for (const f of fixtures) {
    const tools = f.graph.nodes.filter((n) => n.tool !== false).map((n) => n.id);
    const full = FullRouter.fromJson(f.graph);
    const small = Router.fromJson(JSON.stringify(f.graph));
    same(full, small, `${f.name}: healthy`);
    for (const t of tools) {
      assert.equal(small.markDown(t, NOW), full.markDown(t, NOW), `${f.name}: weight of ${t} down`);
      same(full, small, `${f.name}: ${t} down`);
      for (const u of tools) {
        if (u === t) continue;
        full.markDown(u, NOW);
        small.markDown(u, NOW);
        same(full, small, `${f.name}: ${t} and ${u} down`);
        assert.equal(small.markUp(u, NOW), full.markUp(u, NOW));
      }
      assert.equal(small.markUp(t, NOW), full.markUp(t, NOW), `${f.name}: weight of ${t} up`);
      assert.equal(small.health(t, NOW), full.health(t, NOW).weight, `${f.name}: ${t}'s weight`);
    }
    full.free();
    small.free();
  }
});

const refusal = (f) => { try { f(); } catch (e) { return e; } throw new Error('not refused'); };

test('a refused description is invalid_graph: the core\'s problems as the full module words them', () => {
  // Read by the core: the same problems, pointers and message as the full module.
  for (const bad of [
    '{"nodes": [{"id": "a"}, {"id": "a"}], "edges": [], "start": "a", "goal": "a"}',
    { nodes: [{ id: 's', tool: false }, { id: 't', base_cost: -2 }], edges: [{ from: 's', to: 'x', cost: -1 }, { from: 's', to: 't' }], start: 's', goal: 'g' },
    { nodes: [{ id: 'a', join: { quorum: 3 } }], edges: [], start: 'a', goal: 'a', version: 7 },
    // Negative costs: the lean module words no floats, its JS half writes them as Rust does.
    { nodes: [{ id: 's', base_cost: -1e21 }, { id: 't', base_cost: -1.5e-7 }, { id: 'u', base_cost: -0.1 }],
      edges: [{ from: 's', to: 't', cost: -123.456e30 }, { from: 't', to: 'u', cost: -5e-324 }, { from: 'u', to: 's', cost: -7 }],
      start: 's', goal: 'u' },
  ]) {
    const full = refusal(() => FullRouter.fromJson(bad));
    const e = refusal(() => Router.fromJson(bad));
    assert.ok(lean.isShrError(e) && e instanceof lean.ShrError);
    assert.equal(e.code, 'invalid_graph');
    assert.deepEqual(e.problems, full.problems);
    assert.equal(e.message, full.message);
  }
  // Read by the JS half (JSON.parse and the shape): the same kind and JSON pointer.
  for (const bad of ['not json', '{"nodes": [{"id": "a", "cots": 1}]}', '{"nodes": [{"id": 5}]}',
    '{"nodes": [], "edges": [{"from": "a", "to": "b", "cost": "1"}]}', '{"nodes": {}}', '[]', '{"edges": []}',
    '{"nodes": [{"id": "a", "join": {"quorum": -1}}]}', '{"nodes": [], "start": 5}']) {
    const full = refusal(() => FullRouter.fromJson(bad));
    const e = refusal(() => Router.fromJson(bad));
    assert.equal(e.code, 'invalid_graph', bad);
    assert.equal(e.problems.length, 1, bad);
    assert.deepEqual([e.problems[0].kind, e.problems[0].path], [full.problems[0].kind, full.problems[0].path], bad);
    assert.match(e.message, /^invalid tool graph \(1 problem\); json/, bad);
  }
  const cycle = {}; cycle.self = cycle;
  assert.throws(() => Router.fromJson(cycle), { code: 'invalid_graph' });
  const hostile = { get nodes() { throw new Error('no'); } };
  assert.throws(() => Router.fromJson(hostile), { code: 'invalid_graph' });
  assert.throws(() => Router.fromJson(42), { code: 'invalid_graph' });
  assert.throws(() => Router.fromJson({ nodes: Array.from({ length: 200_001 }, (_, i) => ({ id: `n${i}` })) }),
    (e) => e.code === 'invalid_graph' && e.problems[0].kind === 'too_large');
});

test('bad arguments get coded errors, never a trap', () => {
  const r = Router.fromJson(fixtures[0].graph);
  const tool = fixtures[0].graph.nodes.find((n) => n.tool !== false).id;
  const waypoint = fixtures[0].graph.nodes.find((n) => n.tool === false).id;
  const out = new Uint32Array(r.ids.length);
  assert.throws(() => r.route('nope'), { code: 'unknown_node' });
  assert.throws(() => r.route(null, 42), { code: 'unknown_node' });
  assert.throws(() => r.route(null, null, -5), { code: 'bad_clock' });
  assert.throws(() => r.route(null, null, NaN), { code: 'bad_clock' });
  assert.throws(() => r.routeInto(0, r.ids.length, out, NOW), { code: 'unknown_node' });
  assert.throws(() => r.routeInto(-1, 0, out, NOW), { code: 'unknown_node' });
  assert.throws(() => r.routeInto(1.5, 0, out, NOW), { code: 'unknown_node' });
  assert.throws(() => r.routeInto(r.start, r.goal, out, '5'), { code: 'bad_clock' });
  assert.throws(() => r.routeInto(r.start, r.goal, out, Infinity), { code: 'bad_clock' });
  assert.throws(() => r.routeInto(r.start, r.goal, new Uint32Array(1), NOW), { code: 'bad_buffer' });
  assert.throws(() => r.routeInto(r.start, r.goal, null, NOW), { code: 'bad_buffer' });
  assert.throws(() => r.markDown('nope'), { code: 'unknown_tool' });
  assert.throws(() => r.markDown(waypoint), { code: 'unknown_tool' });
  assert.throws(() => r.markDown(7), { code: 'unknown_tool' });
  assert.throws(() => r.markUp(tool, -1), { code: 'bad_clock' });
  assert.throws(() => r.health(tool, 'soon'), { code: 'bad_clock' });
  assert.throws(() => new Router({}), { code: 'bad_options' });
  assert.ok(r.route() !== null, 'the router still works after every refusal');
  r.free();
});

test('free() releases the router; every later call throws freed, a second free() does nothing', () => {
  const routers = Array.from({ length: 200 }, () => Router.fromJson(fixtures[1].graph));
  for (const r of routers) r.free();
  const r = routers[0];
  const tool = fixtures[1].graph.nodes.find((n) => n.tool !== false).id;
  for (const call of [() => r.route(), () => r.routeInto(0, 1, new Uint32Array(64)), () => r.markDown(tool),
    () => r.markUp(tool), () => r.health(tool)]) {
    assert.throws(call, { code: 'freed' });
  }
  r.free();
  // The memory went back: as many routers again fit where the freed ones were.
  const memory = require(join(PKG, 'route/node/shr_wasm_route.js')).routeMemory();
  const before = memory.buffer.byteLength;
  for (let i = 0; i < 5; i++) {
    const again = Array.from({ length: 200 }, () => Router.fromJson(fixtures[1].graph));
    for (const a of again) a.free();
  }
  assert.equal(memory.buffer.byteLength, before, 'routers made and freed again grow no memory');
});

test('the ES module and the package export shr-wasm/route', async () => {
  const esm = await import(join(PKG, 'route/node/index.mjs'));
  assert.equal(esm.Router, Router);
  await esm.default();
  const manifest = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(manifest.exports['./route'].node.require.default, './route/node/index.cjs');
});

test('the lean module stays within its size budget', () => {
  for (const flavour of ['node', 'web']) {
    assertWithinBudget(join(PKG, 'route', flavour, 'shr_wasm_route_bg.wasm'), BUDGET.lean);
  }
});

test('browser build: not_initialized before init, then the same routes', async () => {
  const web = await import(join(PKG, 'route/web/index.js'));
  assert.throws(() => web.Router.fromJson(fixtures[0].graph), (e) => web.isShrError(e) && e.code === 'not_initialized');
  web.initSync({ module: readFileSync(join(PKG, 'route/web/shr_wasm_route_bg.wasm')) });
  const r = web.Router.fromJson(fixtures[0].graph);
  assert.deepEqual(r.route(null, null, NOW), Router.fromJson(fixtures[0].graph).route(null, null, NOW));
  r.free();
});

test('types: shr-wasm/route type-checks in a browser project and a Node one (tsc --strict)', (t) => {
  let ts;
  try {
    ts = require('typescript');
  } catch {
    return t.skip('typescript is not installed: run scripts/setup');
  }
  const dir = mkdtempSync(join(tmpdir(), 'shr-lean-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(PKG, join(dir, 'node_modules', 'shr-wasm'), 'dir');
    const use = `import init, { Router, isShrError } from 'shr-wasm/route';
await init();
const r = Router.fromJson({ nodes: [{ id: 's', tool: false }, { id: 't' }], edges: [{ from: 's', to: 't' }], start: 's', goal: 't' });
const out = new Uint32Array(r.ids.length);
const n: number = r.routeInto(r.start, r.goal, out, 0);
const w: number = r.markDown('t');
const route = r.route();
const cost: number | undefined = route?.cost;
let code = '';
try { Router.fromJson('{'); } catch (e) { if (isShrError(e)) code = e.code + (e.problems?.[0]?.path ?? ''); }
r.free();
export const seen = [n, w, cost, code];
`;
    writeFileSync(join(dir, 'browser.ts'), use);
    writeFileSync(join(dir, 'node.mts'), use);
    const check = (files, options) => ts.getPreEmitDiagnostics(ts.createProgram(files.map((f) => join(dir, f)), {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, types: [], ...options,
    })).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    assert.deepEqual(check(['browser.ts'], { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'] }), []);
    assert.deepEqual(check(['node.mts'], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, lib: ['lib.es2022.d.ts', 'lib.esnext.disposable.d.ts'] }), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
