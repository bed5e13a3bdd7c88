// Shared by the browser tests: serves dist/ on a free loopback port, drives Debian's Chromium
// through playwright-core, collects console errors, and saves screenshots.
import { spawn } from 'node:child_process';
import { mkdirSync, existsSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { before, after, afterEach } from 'node:test';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ARTIFACTS = `${ROOT}tests/artifacts/`;
const DIST = `${ROOT}dist/`;

if (!existsSync(`${DIST}index.html`)) {
  throw new Error(`${DIST}index.html is missing: run \`trunk build --release --offline\` first`);
}

/** Starts scripts/serve.mjs on a free port; resolves with { url, stop }. */
export async function serve() {
  const child = spawn(process.execPath, [`${ROOT}scripts/serve.mjs`, '--dir', DIST, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not print its URL within 10 s')), 10_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { url, stop: () => child.kill() };
}

const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', args: FLAGS });
}

/**
 * Registers a test file's server and browser: started before its first test, stopped after the
 * last. Read `env.url` and `env.browser` inside tests.
 */
export function useBrowser() {
  const env = {};
  before(async () => {
    env.server = await serve();
    env.url = env.server.url;
    env.browser = await launch();
  });
  // A test's pages close when it ends: left open, every earlier page kept its replay ticking and
  // its layout worker busy, and on CI's two cores a later test's 30 s wait ran out.
  afterEach(async () => {
    const contexts = [...opened];
    opened.clear();
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
  });
  after(async () => {
    await env.browser?.close();
    env.server?.stop();
  });
  return env;
}

/** The browser contexts `open` made for the running test (a context a test passes in is its own). */
const opened = new Set();

/**
 * Records on `page.errors` its console errors, uncaught exceptions, failed requests, and every
 * request to another origin than the page's own (`url`'s): the page fetches nothing from
 * elsewhere at run time. The page's workers' requests are its context's, so they are watched
 * there (once per context).
 */
export function watch(page, url) {
  const origin = new URL(url).origin;
  page.errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => page.errors.push(`page: ${e.message}`));
  page.on('requestfailed', (r) => page.errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  const context = page.context();
  if (!context.shrForeign) {
    context.shrForeign = new Set();
    context.on('request', (r) => {
      // data: URLs are inline, blob: URLs carry the origin that made them (ELK's worker).
      if (r.url().startsWith('data:')) return;
      const from = new URL(r.url()).origin;
      if (from !== origin) {
        for (const p of context.pages()) p.errors?.push(`request to another origin: ${r.url()}`);
      }
    });
  }
  return page;
}

/**
 * A fresh page at the given size (in a context of its own unless `context` is given),
 * recording what `watch` records. `page.errors` lists them; every test asserts it is empty.
 */
export async function open(browser, url, { width = 1280, height = 800, context } = {}) {
  const ctx = context ?? (await browser.newContext({ viewport: { width, height } }));
  if (!context) opened.add(ctx);
  // Every wait of a test has a limit: Playwright's own, unless a wait sets a shorter one.
  ctx.setDefaultTimeout(30_000);
  const page = watch(await ctx.newPage(), url);
  await page.goto(url, { timeout: 30_000 });
  await page.waitForSelector('[data-testid="graph"] [data-node]', { timeout: 30_000 });
  await drawn(page);
  return page;
}

/** Whether the page scrolls sideways: how many CSS pixels it is wider than its window. */
export async function overflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** Saves tests/artifacts/NAME.png (scrolled to the top unless `top: false`); with
 * SHR_UPDATE_DOCS=1 also docs/NAME.png for the README. */
export async function shot(page, name, { top = true } = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Clicks scroll the page; a picture for the README starts at its top, as a reader sees it.
  if (top) await page.evaluate(() => window.scrollTo(0, 0));
  const path = `${ARTIFACTS}${name}.png`;
  await page.screenshot({ path, fullPage: false });
  if (process.env.SHR_UPDATE_DOCS === '1') {
    mkdirSync(`${ROOT}docs`, { recursive: true });
    copyFileSync(path, `${ROOT}docs/${name}.png`);
  }
  return path;
}

/** The class list of a node of the graph. */
export async function nodeClass(page, id) {
  return page.getAttribute(`[data-node="${id}"]`, 'class');
}

/** Waits until the node's class list has (or, with `not`, lacks) a class. */
export async function waitClass(page, id, cls, { not = false, timeout = 15_000 } = {}) {
  await page.waitForFunction(
    ([id, cls, not]) => {
      const el = document.querySelector(`[data-node="${CSS.escape(id)}"]`);
      return !!el && el.classList.contains(cls) !== not;
    },
    [id, cls, not],
    { timeout },
  );
}

export async function text(page, testid) {
  return (await page.textContent(`[data-testid="${testid}"]`)) ?? '';
}

/** Skips the replay to the end of the run: what it ended with. */
export async function end(page) {
  await page.click('[data-testid="replay-end"]');
  await page.waitForFunction(() => {
    const m = document.querySelector('[data-testid="replay-counter"]').textContent.match(/step (\d+) \/ (\d+)/);
    return m && m[1] === m[2];
  }, null, { timeout: 30_000 });
}

export async function pick(page, scenario) {
  await page.selectOption('[data-testid="scenario"]', scenario);
  await page.waitForFunction((s) => new URL(location.href).searchParams.get('scenario') === s, scenario, { timeout: 15_000 });
  await drawn(page);
}

/** Waits until the graph on the page is drawn from the layout of the graph shown (ELK lays a
 * new graph out asynchronously, in a worker). */
export async function drawn(page) {
  await page.waitForFunction(() => {
    const svg = document.querySelector('svg.graph[data-key]');
    return !!svg && svg.dataset.key === document.querySelector('[data-testid="graph-wrap"]')?.dataset.want;
  }, null, { timeout: 30_000 });
}
