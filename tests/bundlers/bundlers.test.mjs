// shr-wasm in a browser app built by a bundler: esbuild and Vite each build tests/bundlers/app
// (the package resolved through its `browser`/`import` conditions), the build is served on a free
// loopback port and opened in Chromium, where the app uses the API before `init` (a coded
// `not_initialized` ShrError), initializes it the bundler's way, and routes a graph around a
// failed tool. Needs the built package (scripts/build-wasm-pkg) and Debian's chromium.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const APP = fileURLToPath(new URL('./app/', import.meta.url));
const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
const scratch = mkdtempSync(join(tmpdir(), 'shr-bundlers-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Serves `dir` on 127.0.0.1 at a free port; `stop()` closes it. */
async function serve(dir) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    let file = join(dir, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, stop: () => new Promise((r) => server.close(r)) };
}

/** Opens `url` in Chromium and waits (at most 30 s) for the app's `window.__shr`. */
async function runInChromium(url) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const failed = [];
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
    page.on('pageerror', (e) => failed.push(String(e)));
    await page.goto(url, { timeout: 30_000 });
    await page.waitForFunction(() => window.__shr !== undefined, null, { timeout: 30_000 });
    return { ...(await page.evaluate(() => window.__shr)), failed };
  } finally {
    await browser.close();
  }
}

function assertRouted({ result, error, failed }) {
  assert.equal(error, undefined, `the app failed: ${error}`);
  assert.deepEqual(failed, [], 'no request failed, no error on the page');
  assert.deepEqual(result.before, { code: 'not_initialized', name: 'ShrError', isShrError: true, instance: true });
  assert.deepEqual(result.healthy, ['start', 'stripe', 'done']);
  assert.equal(result.weight, 'Infinity');
  assert.deepEqual(result.rerouted, ['start', 'razorpay', 'done']);
  assert.equal(result.outcome, 'completed');
}

test('esbuild: the .wasm copied by the file loader, loaded by init(url), routes in Chromium', async (t) => {
  if (!existsSync(CHROMIUM)) return t.skip(`${CHROMIUM} not found: run scripts/setup`);
  const esbuild = await import('esbuild');
  const out = join(scratch, 'esbuild');
  await esbuild.build({
    entryPoints: [join(APP, 'esbuild.js')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022',
    outdir: out, loader: { '.wasm': 'file' }, logLevel: 'error',
  });
  const wasm = readdirSync(out).filter((f) => f.endsWith('.wasm'));
  assert.equal(wasm.length, 1, `one .wasm copied: ${readdirSync(out)}`);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./esbuild.js"></script>');
  const server = await serve(out);
  try {
    assertRouted(await runInChromium(server.url));
  } finally {
    await server.stop();
  }
});

test('Vite: init() finds the .wasm Vite emitted, routes in Chromium', async (t) => {
  if (!existsSync(CHROMIUM)) return t.skip(`${CHROMIUM} not found: run scripts/setup`);
  const { build } = await import('vite');
  const out = join(scratch, 'vite');
  await build({ root: APP, logLevel: 'error', configFile: false, build: { outDir: out, emptyOutDir: true, target: 'es2022' } });
  const assets = readdirSync(join(out, 'assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `Vite emitted the .wasm: ${assets}`);
  const server = await serve(out);
  try {
    assertRouted(await runInChromium(server.url));
  } finally {
    await server.stop();
  }
});
