// Hostile input the package must refuse without harm: a 48 MiB description, getters that change
// what a tool returned, use after free of every method and getter. Split from hostile.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Router, VirtualTime, PKG, refundGraph, okTools, names, expectCode } from './helpers.mjs';

test('a 48 MiB description is refused before anything big is built; the router stays usable', () => {
  // In a child process, so that its memory is measured alone: before the checks came first, the
  // core parsed all 4 million nodes (about 2 GB) before counting them.
  const child = `
    const { Router } = require(${JSON.stringify(`${PKG}node/shr_wasm.js`)});
    const MiB = 1 << 20;
    const out = {};
    const attempt = (name, graph) => {
      global.gc?.();
      const before = process.memoryUsage().rss;
      try { Router.fromJson(graph); out[name] = { accepted: true }; }
      catch (e) { out[name] = { name: e.name, code: e.code, problems: e.problems }; }
      out[name].grewMiB = Math.round((process.memoryUsage().rss - before) / MiB);
    };
    const node = '{"id":"a"},';
    attempt('nodes', '{"nodes":[' + node.repeat(Math.floor(48 * MiB / node.length)) + '{"id":"b"}]}');
    const edge = '{"from":"a","to":"b"},';
    attempt('edges', '{"nodes":[{"id":"a"},{"id":"b"}],"edges":[' + edge.repeat(Math.floor(48 * MiB / edge.length)) + '{"from":"a","to":"b"}]}');
    attempt('bytes', ' '.repeat(65 * MiB) + '{}');
    attempt('object', { nodes: Array.from({ length: 250000 }, (_, i) => ({ id: 'n' + i })) });
    const r = Router.fromJson({ nodes: [{ id: 's', tool: false }, { id: 't' }], edges: [{ from: 's', to: 't' }], start: 's', goal: 't' });
    out.after = r.route().path;
    console.log(JSON.stringify(out));
  `;
  const run = spawnSync(process.execPath, ['--expose-gc', '-e', child], { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 20 });
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  const problem = (name) => {
    assert.equal(out[name].name, 'ShrError', name);
    assert.equal(out[name].code, 'invalid_graph', name);
    assert.equal(out[name].problems.length, 1, name);
    return out[name].problems[0];
  };
  assert.deepEqual(problem('nodes'), { kind: 'too_large', at: 'nodes', path: '/nodes', message: `${Math.floor((48 << 20) / 11) + 1} nodes, the limit is 200000` });
  assert.deepEqual(problem('edges'), { kind: 'too_large', at: 'edges', path: '/edges', message: `${Math.floor((48 << 20) / 22) + 1} edges, the limit is 2000000` });
  assert.deepEqual({ ...problem('bytes'), message: undefined }, { kind: 'too_large', at: 'json', path: '', message: undefined });
  assert.match(problem('bytes').message, /description is at least 68157442 bytes, the limit is 67108864/);
  assert.deepEqual(problem('object'), { kind: 'too_large', at: 'nodes', path: '/nodes', message: '250000 nodes, the limit is 200000' });
  // At most the text's own copy in wasm memory (48 MiB), not the structures it describes.
  for (const name of ['nodes', 'edges', 'bytes', 'object']) {
    assert.ok(out[name].grewMiB < 300, `${name}: memory grew ${out[name].grewMiB} MiB`);
  }
  assert.deepEqual(out.after, ['s', 't']);
});

test('a later tool receives the value that was validated, even from a getter', async () => {
  const g = refundGraph();
  g.nodes[1] = { id: 'crm', stage: 'lookup', validators: [{ field: 'amount', min: 0 }] };
  let reads = 0;
  let seen;
  const tools = okTools({
    // The first read (the one validated) is 40; any later read would be -1.
    crm: async () => ({ get amount() { reads += 1; return reads === 1 ? 40 : -1; } }),
    stripe: async ({ results }) => {
      seen = [results.crm.amount, results.crm.amount];
      return {};
    },
  });
  const { outcome } = await Router.fromJson(g).run(null, { tools });
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(seen, [40, 40]);
  assert.equal(reads, 1, 'the getter was read once, for the value validated');
});

test('use after free throws a ShrError with code freed, for every method and getter', async () => {
  const r = Router.fromJson(refundGraph());
  const s = r.session(null, 0);
  s.free();
  r.free();
  for (const call of [
    () => r.route(), () => r.markDown('stripe'), () => r.markUp('stripe'), () => r.record('stripe', { ok: true }),
    () => r.health('stripe'), () => r.session(), () => r.metrics(), () => r.tools(), () => r.toJson(),
    () => r.warnings, () => r.run(null, { tools: okTools() }),
    () => s.next(0), () => s.report('crm', { result: 'ok' }, 0), () => s.resolveEscalation({ decision: 'approve' }, 0),
    () => s.events(), () => s.pollEvents(), () => s.outcome(), () => s.escalation(), () => s.isFinished,
  ]) {
    const e = await expectCode(call, 'freed', assert);
    assert.match(e.message, /this object was freed/);
  }
  // Freeing twice is harmless.
  assert.doesNotThrow(() => { r.free(); s.free(); });
});
