// Fit fits (issue 45): after "Fit" the whole graph's bounding box is inside the stage and the
// window at 390, 1024, 1280 and 1920 px wide, for every view the picker offers and for 60- and
// 500-node imported graphs. Where its type would be under 11 px the drawing is lite: no text
// drawn at that size (a tool under the pointer or focused is drawn full size), route and failures kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, drawn, ARTIFACTS } from './harness.mjs';
import { layered } from './graphs.mjs';

const env = useBrowser();
const SIZES = [[390, 844], [1024, 768], [1280, 800], [1920, 1080]];

/** After Fit: the graph's box against the stage's and the window's, and its type. */
async function fitted(page) {
  await page.click('[data-testid="zoom-fit"]');
  return page.evaluate(() => {
    const wrap = document.querySelector('[data-testid="graph-wrap"]');
    const stage = wrap.getBoundingClientRect();
    const g = document.querySelector('svg.graph g.viewport').getBoundingClientRect();
    const shown = [...document.querySelectorAll('svg.graph text')]
      .filter((t) => t.textContent.trim() !== '' && getComputedStyle(t).display !== 'none' && t.getBBox().width > 0)
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    return {
      graph: g.toJSON(),
      stage: stage.toJSON(),
      window: { width: document.documentElement.clientWidth },
      lite: wrap.classList.contains('lite'),
      k: Number(document.querySelector('svg.graph').dataset.k),
      smallest: shown.length ? Math.min(...shown) : null,
      texts: shown.length,
    };
  });
}

function check(f, what) {
  const { graph: g, stage: s } = f;
  const inside = g.left >= s.left - 1 && g.right <= s.right + 1 && g.top >= s.top - 1 && g.bottom <= s.bottom + 1;
  const problems = [];
  if (!inside) problems.push(`${what}: graph ${JSON.stringify(g)} is not inside the stage ${JSON.stringify(s)}`);
  if (s.right > f.window.width + 1 || s.left < -1) problems.push(`${what}: the stage is wider than the window`);
  if (f.lite && f.texts > 0) problems.push(`${what}: lite, yet ${f.texts} texts drawn (smallest ${f.smallest})`);
  if (!f.lite && f.smallest !== null && f.smallest < 11) problems.push(`${what}: text ${f.smallest.toFixed(1)} px`);
  return problems;
}

test('after Fit the whole graph is in view, every picker entry, at 390, 1024, 1280 and 1920 px', { timeout: 900_000 }, async () => {
  const problems = [];
  for (const [width, height] of SIZES) {
    const page = await open(env.browser, `${env.url}?scenario=S1`, { width, height });
    const ids = await page.$$eval('[data-testid="scenario"] option:not([disabled])', (os) => os.map((o) => o.value));
    let lite = 0;
    for (const id of ids) {
      await page.selectOption('[data-testid="scenario"]', id);
      await page.waitForFunction((s) => new URL(location.href).searchParams.get('scenario') === s, id);
      await drawn(page);
      const f = await fitted(page);
      if (f.lite) lite++;
      problems.push(...check(f, `${id} at ${width} px`));
    }
    console.log(`# ${width}×${height}: ${ids.length} views fitted, ${lite} of them lite`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
  assert.deepEqual(problems, []);
});

test('after Fit a 60- and a 500-node graph are whole in view, lite where type would be small', { timeout: 600_000 }, async () => {
  const problems = [];
  for (const [width, height] of SIZES) {
    const page = await open(env.browser, `${env.url}?scenario=S1`, { width, height });
    for (const [n, across] of [[60, 8], [500, 25]]) {
      await page.fill('[data-testid="graph-json"]', JSON.stringify(layered(n, across)));
      await page.click('[data-testid="import"]');
      await page.waitForFunction((n) => document.querySelectorAll('svg.graph[data-layout] [data-node]').length === n, n, { timeout: 30_000 });
      await drawn(page);
      const f = await fitted(page);
      console.log(`# ${n} nodes at ${width} px: scale ${f.k}, ${f.lite ? 'lite' : `text ≥ ${f.smallest?.toFixed(1)} px`}`);
      problems.push(...check(f, `${n} nodes at ${width} px`));
      if (f.lite) {
        // A focused tool is drawn at full size, its label readable.
        await page.focus('[data-node="t0_0"]');
        const label = await page.$eval('[data-node="t0_0"] text.label', (t) => ({
          shown: getComputedStyle(t).display !== 'none',
          px: t.getBoundingClientRect().height,
          text: t.textContent,
        }));
        assert.ok(label.shown && label.px >= 11, `the focused tool's label: ${JSON.stringify(label)}`);
      }
      if (width === 1280) await page.screenshot({ path: `${ARTIFACTS}fit-${n}-${width}.png` });
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
  assert.deepEqual(problems, []);
});
