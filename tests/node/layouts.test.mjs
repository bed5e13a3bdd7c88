// The prebuilt layouts the page draws its built-in scenarios with (web/layouts.js, written by
// scripts/prebuild-layouts.mjs) are what ELK computes: each key (the ELK graph the page asks
// for) laid out again by elkjs, here in Node, gives the stored answer exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { trim } from '../../scripts/prebuild-layouts.mjs';

const require = createRequire(import.meta.url);
const ELK = require('elkjs/lib/elk.bundled.js');
const root = new URL('../../', import.meta.url);
const sandbox = { self: {} };
runInNewContext(readFileSync(new URL('web/layouts.js', root), 'utf8'), sandbox);
// Through JSON: objects of the sandbox have its own Object prototype.
const { elkjs, layouts } = JSON.parse(JSON.stringify(sandbox.self.SHR_LAYOUTS));

test('the prebuilt layouts come from the elkjs the page ships', () => {
  assert.equal(elkjs, JSON.parse(readFileSync(new URL('node_modules/elkjs/package.json', root), 'utf8')).version);
  assert.ok(layouts.length >= 6, `the scenarios' graphs in both directions: ${layouts.length}`);
});

test('every prebuilt layout is what ELK computes for its graph', async () => {
  const elk = new ELK();
  for (const [key, stored] of layouts) {
    const graph = JSON.parse(key);
    const out = trim(await elk.layout(graph));
    assert.deepEqual(out, stored, `${graph.children.length} nodes, ${graph.layoutOptions['elk.direction']}`);
  }
});
