// Accessibility (issue 45): axe-core, injected from node_modules into the page, finds no
// violation on the first view, a scenario at its end, each executor's replay, projector mode
// and the phone view. Every rule axe runs by default counts (WCAG 2 A/AA and best practices).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { useBrowser, open, end, drawn } from './harness.mjs';

const env = useBrowser();
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe's violations on the page as it is: "rule: target (summary)" lines. */
async function violations(page) {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      nodes: v.nodes.map((n) => `${n.target.join(' ')} (${(n.failureSummary ?? '').split('\n').slice(1, 2).join('').trim()})`),
    }));
  });
  return found.flatMap((v) => v.nodes.slice(0, 4).map((n) => `${v.id}: ${n}`).concat(
    v.nodes.length > 4 ? [`${v.id}: … ${v.nodes.length - 4} more`] : []));
}

/** Pauses the replay, so the page holds still while axe reads it. */
async function pause(page) {
  if ((await page.getAttribute('[data-testid="replay-play"]', 'aria-label'))?.startsWith('Pause')) {
    await page.click('[data-testid="replay-play"]');
  }
}

test('axe-core: no violations on the first view, at 1280×800 and on a phone', async () => {
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    const page = await open(env.browser, env.url, { width, height });
    await pause(page);
    const v = await violations(page);
    console.log(`# first view at ${width}×${height}: ${v.length} violations`);
    assert.deepEqual(v, [], `first view at ${width}×${height}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('axe-core: no violations at a scenario\'s end, under each executor', async () => {
  for (const scenario of ['S6', 'M4']) {
    const page = await open(env.browser, `${env.url}?scenario=${scenario}`);
    for (const lane of ['shr', 'react', 'static']) {
      await page.click(`[data-testid="lane-${lane}"]`);
      await end(page);
      const v = await violations(page);
      console.log(`# ${scenario} ${lane} at its end: ${v.length} violations`);
      assert.deepEqual(v, [], `${scenario}, ${lane}, at its end`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('axe-core: no violations in projector mode, at 1280×800 and 1024×768', async () => {
  for (const [width, height] of [[1280, 800], [1024, 768]]) {
    const page = await open(env.browser, `${env.url}?scenario=S6`, { width, height });
    await page.click('[data-testid="projector"]');
    await drawn(page);
    await end(page);
    const v = await violations(page);
    console.log(`# projector mode at ${width}×${height}: ${v.length} violations`);
    assert.deepEqual(v, [], `projector mode at ${width}×${height}`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});
