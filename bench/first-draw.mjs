// The page's first drawn scenario graph (issue 48, target 6): the time from navigation to the
// first graph drawn by ELK's layout (`svg.graph[data-layout="elk"]` with its nodes), cold cache
// (a new browser context per load, the cache disabled), in Chromium through playwright-core,
// on loopback and at 10 Mbit/s with 40 ms latency (CDP Network.emulateNetworkConditions). The
// page is dist/ served by scripts/serve.mjs (brotli copies when dist/ has them). Prints the
// BENCHMARKS.md section.
//   node bench/first-draw.mjs [--dir dist] [--runs N]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const dir = arg('--dir', `${ROOT}dist`);
const RUNS = Number(arg('--runs', '5'));
const TARGET_MS = 1000;

const server = spawn(process.execPath, [`${ROOT}scripts/serve.mjs`, '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('the server did not start within 10 s')), 10_000);
  createInterface({ input: server.stdout }).once('line', (l) => { clearTimeout(timer); resolve(l.trim()); });
  server.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
});
const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});

/** One cold load: ms from navigation to the first drawn graph, the bytes it took, what it fetched. */
async function load(network) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    if (network) await cdp.send('Network.emulateNetworkConditions', { offline: false, ...network });
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
    const fetched = [];
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    // The moment the first drawn graph is in the document, on the page's own clock (from the
    // navigation's start).
    await page.addInitScript(() => {
      const seen = () => document.querySelector('svg.graph[data-layout="elk"] [data-node]');
      new MutationObserver((_, observer) => {
        if (self.__firstDraw === undefined && seen()) {
          self.__firstDraw = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true, attributes: true });
    });
    await page.goto(url, { waitUntil: 'commit', timeout: 60_000 });
    await page.waitForFunction(() => self.__firstDraw !== undefined, null, { timeout: 60_000 });
    const ms = await page.evaluate(() => self.__firstDraw);
    return { ms, bytes, elk: fetched.some((p) => p.includes('elk-')) };
  } finally {
    await context.close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const conditions = [
  ['loopback', null],
  ['10 Mbit/s, 40 ms latency', { latency: 40, downloadThroughput: (10e6 / 8), uploadThroughput: (10e6 / 8) }],
];
const rows = [];
try {
  await load(null); // a first load warms the server's file cache, not the browser's
  for (const [name, network] of conditions) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await load(network));
    rows.push({ name, runs });
    process.stderr.write(`${name}: ${runs.map((r) => r.ms.toFixed(0)).join(', ')} ms\n`);
  }
} finally {
  await browser.close();
  server.kill();
}

const lines = ['## The page\'s first drawn graph (`scripts/bench --first-draw`)', ''];
lines.push(`Issue 48, target 6: from navigation to the first scenario graph drawn (\`svg.graph[data-layout="elk"]\` with its nodes), cold cache (a new Chromium context per load, cache disabled), ${RUNS} loads per row (\`bench/first-draw.mjs\`; network emulated by CDP \`Network.emulateNetworkConditions\`). The page is \`dist/\` served by \`scripts/serve.mjs\`, which sends the brotli copies \`trunk build\` writes; the built-in scenarios' layouts are ELK's, computed at build time, so ELK is not fetched for them.`, '');
lines.push('| network | each load (ms) | median | transferred | ELK fetched | target |');
lines.push('| --- | --- | ---: | ---: | --- | --- |');
for (const { name, runs } of rows) {
  const m = median(runs.map((r) => r.ms));
  const kb = (median(runs.map((r) => r.bytes)) / 1000).toFixed(0);
  const target = name.startsWith('10 Mbit') ? (m <= TARGET_MS ? '≤ 1.0 s: met' : '≤ 1.0 s: **not met**') : '';
  lines.push(`| ${name} | ${runs.map((r) => r.ms.toFixed(0)).join(', ')} | ${m.toFixed(0)} ms | ${kb} kB | ${runs.some((r) => r.elk) ? 'yes' : 'no'} | ${target} |`);
}
console.log(lines.join('\n'));
