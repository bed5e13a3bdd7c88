// The graph format as a contract (issue 28): the npm package ships the JSON Schema the core's
// types generate, and a malformed description gets the same problems, each with its JSON
// pointer, from the JS API and from `shr check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shr, PKG } from './helpers.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

test('the package ships graph.schema.json, the one the core generates', () => {
  const shipped = readFileSync(join(PKG, 'graph.schema.json'), 'utf8');
  assert.equal(shipped, readFileSync(join(REPO, 'crates/core/graph.schema.json'), 'utf8'));
  const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['./graph.schema.json'], './graph.schema.json');
  assert.ok(pkg.files.includes('graph.schema.json'));
  assert.equal(JSON.parse(shipped).$schema, 'https://json-schema.org/draft/2020-12/schema');
});

/** An LLM-style malformed graph of each kind, and the pointer its problem names. */
const MALFORMED = [
  [{ nodes: [{ id: 'a' }, { id: 'b', retry: { attemps: 2 } }], edges: [], start: 'a', goal: 'b' }, '/nodes/1/retry/attemps'],
  [{ nodes: [{ id: 'a' }, { id: 'b' }], edges: [{ from: 'a', to: 'b', cost: '3' }], start: 'a', goal: 'b' }, '/edges/0/cost'],
  [{ nodes: [{ id: 'a' }, { id: 'b' }], edges: [{ from: 'a', to: 'b' }], start: 'a' }, '/goal'],
  [{ version: 2, nodes: [{ id: 'a' }], edges: [], start: 'a', goal: 'a' }, '/version'],
];

test('the JS API and shr check name the same problems with their JSON pointers', () => {
  const cli = join(REPO, 'target/debug/shr');
  const dir = mkdtempSync(join(tmpdir(), 'shr-schema-'));
  for (const [graph, path] of MALFORMED) {
    let err;
    try {
      shr.Router.fromJson(graph);
    } catch (e) {
      err = e;
    }
    assert.equal(err?.code, 'invalid_graph', JSON.stringify(graph));
    assert.deepEqual(err.problems.map((p) => p.path), [path]);
    if (existsSync(cli)) {
      const file = join(dir, 'g.json');
      writeFileSync(file, JSON.stringify(graph));
      const run = spawnSync(cli, ['check', file], { encoding: 'utf8', timeout: 30_000 });
      assert.notEqual(run.status, 0);
      assert.ok(run.stdout.includes(`(${path})`), `shr check does not name ${path}:\n${run.stdout}`);
      assert.ok(run.stdout.includes(err.problems[0].message.split(' at line')[0].slice(0, 40)), run.stdout);
    }
  }
});
