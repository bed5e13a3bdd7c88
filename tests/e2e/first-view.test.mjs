// The first view explains (issue 45): opened with no state in its URL, at 1280×800 and on a
// 390×844 phone, the first screen holds the idea in one sentence, the whole graph fitted, the
// replay controls and the story step being told, at the start of the tour's first stop (S1).
// Its screenshots are the README's (SHR_UPDATE_DOCS=1 writes docs/first-view-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, shot } from './harness.mjs';

const env = useBrowser();

/** Where an element is, relative to the window (null when absent or not shown). */
function where(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? { top: r.top, bottom: r.bottom, left: r.left, right: r.right } : null;
  }, selector);
}

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`first view at ${width}×${height}: idea, graph, controls and narration without scrolling`, async () => {
    const page = await open(env.browser, env.url, { width, height });
    await page.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'S1');
    assert.match(await page.textContent('[data-testid="replay-counter"]'), /^step 0 \/ \d+$/, 'at the start of the run');
    assert.match(await page.textContent('[data-testid="tour-where"]'), /Tour 1\/4: S1/);
    const idea = await page.textContent('[data-testid="idea"]');
    assert.equal(idea.trim().split(/[.!?](\s|$)/).filter((s) => s.trim()).length, 1, `one sentence: ${idea}`);
    const must = {
      idea: '[data-testid="idea"]',
      'the graph': 'svg.graph g.viewport',
      play: '[data-testid="replay-play"]',
      'step forward': '[data-testid="replay-step"]',
      'next event': '[data-testid="replay-next-event"]',
      'step counter': '[data-testid="replay-counter"]',
      'narration step being told': '[data-testid="story-step"][aria-current="step"]',
    };
    const problems = [];
    for (const [name, sel] of Object.entries(must)) {
      const r = await where(page, sel);
      if (!r) problems.push(`${name} is not shown`);
      else if (r.top < -1 || r.bottom > height + 1 || r.left < -1 || r.right > width + 1) {
        problems.push(`${name} is outside the first screen: ${JSON.stringify(r)}`);
      }
    }
    assert.deepEqual(problems, [], `at ${width}×${height}`);
    // The story step told is the first, and its words are on the page.
    assert.equal(await page.getAttribute('[data-testid="story"]', 'data-now'), '0');
    // The dashboard is one scroll away: on a phone it starts below the first screen.
    if (width < 640) {
      const panels = await where(page, '.panels');
      assert.ok(panels.top > height * 0.8, `the panels start at ${panels.top}`);
    }
    await shot(page, `first-view-${width}x${height}`);
    assert.deepEqual(page.errors, []);
  });
}
