// The built-in scenarios are drawn from the layouts computed at build time (web/layouts.js):
// their first drawing fetches no ELK (issue 48: the first graph within a second on a slow
// network). A layout input changed without `node scripts/prebuild-layouts.mjs` fails here; a
// graph that is not built in still loads ELK and is laid out by it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useBrowser, watch } from './harness.mjs';

const env = useBrowser();
const scenarios = JSON.parse(readFileSync(new URL('../node/fixtures/scenarios.json', import.meta.url), 'utf8')).map((s) => s.id);

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`at ${width}×${height}, every scenario is drawn by ELK's prebuilt layout, ELK not fetched`, async () => {
    const context = await env.browser.newContext({ viewport: { width, height } });
    try {
      const fetched = [];
      context.on('request', (r) => fetched.push(new URL(r.url()).pathname));
      const page = watch(await context.newPage(), env.url);
      for (const id of scenarios) {
        await page.goto(`${env.url}?scenario=${id}`, { timeout: 30_000 });
        await page.waitForSelector('svg.graph[data-layout="elk"] [data-node]', { timeout: 30_000 });
      }
      assert.deepEqual(fetched.filter((p) => p.includes('elk-')), [], 'no ELK script or worker fetched');
      assert.deepEqual(page.errors, []);
    } finally {
      await context.close();
    }
  });
}
