// Writes web/layouts.js: ELK's layouts of the built-in scenarios, computed at build time so the
// page draws its first graph without fetching ELK (issue 48). It opens the built page (dist/, or
// --dir) in Chromium with the prebuilt layouts switched off, visits every scenario of
// tests/node/fixtures/scenarios.json, and keeps each graph ELK was asked to lay out (the key: the
// ELK graph as ELK received it, JSON.stringify'd) with ELK's answer, cut to what the page reads.
// tests/node/layouts.test.mjs checks every answer against elkjs run in Node on its key.
//   node scripts/prebuild-layouts.mjs [--dir dist]     then rebuild the page (trunk build)
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const i = process.argv.indexOf('--dir');
const dir = i >= 0 ? process.argv[i + 1] : `${ROOT}dist`;
const OUT = `${ROOT}web/layouts.js`;

/** What web/src/layout.rs reads of ELK's answer. */
export function trim(out) {
  const point = (p) => ({ x: p.x, y: p.y });
  return {
    width: out.width,
    height: out.height,
    children: (out.children ?? []).map(({ id, x, y, width, height }) => ({ id, x, y, width, height })),
    edges: (out.edges ?? []).map((e) => ({
      id: e.id,
      sections: (e.sections ?? []).map((s) => ({
        startPoint: point(s.startPoint), endPoint: point(s.endPoint), bendPoints: (s.bendPoints ?? []).map(point),
      })),
      labels: (e.labels ?? []).map(({ x, y, width, height }) => ({ x, y, width, height })),
    })),
  };
}

async function main() {
  const server = spawn(process.execPath, [`${ROOT}scripts/serve.mjs`, '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 10 s')), 10_000);
    createInterface({ input: server.stdout }).once('line', (line) => { clearTimeout(timer); resolve(line.trim()); });
    server.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const layouts = new Map();
  try {
    const scenarios = JSON.parse(readFileSync(`${ROOT}tests/node/fixtures/scenarios.json`, 'utf8')).map((s) => s.id);
    for (const [width, height] of [[1280, 800], [390, 844]]) {
      for (const id of scenarios) {
        const context = await browser.newContext({ viewport: { width, height } });
        await context.addInitScript(() => {
          self.SHR_NO_PREBUILT = true;
          self.__elkAsked = [];
          // Wraps ELK when elk-api.js defines it: every layout asked for, with its answer.
          let Elk;
          Object.defineProperty(self, 'ELK', {
            configurable: true,
            get: () => Elk,
            set(C) {
              Elk = class extends C {
                layout(graph, options) {
                  const key = JSON.stringify(graph);
                  return super.layout(graph, options).then((out) => {
                    self.__elkAsked.push([key, JSON.parse(JSON.stringify(out))]);
                    return out;
                  });
                }
              };
            },
          });
        });
        const page = await context.newPage();
        await page.goto(`${url}?scenario=${id}`);
        await page.waitForSelector('svg.graph[data-layout="elk"] [data-node]', { timeout: 60_000 });
        // Both directions of a small graph are laid out; wait until no more are asked for.
        let seen = -1;
        for (let k = 0; k < 40; k++) {
          const n = await page.evaluate(() => self.__elkAsked.length);
          if (n === seen && n > 0) break;
          seen = n;
          await page.waitForTimeout(250);
        }
        for (const [key, out] of await page.evaluate(() => self.__elkAsked)) layouts.set(key, trim(out));
        await context.close();
        process.stderr.write(`${id} at ${width}: ${layouts.size} layouts\n`);
      }
    }
  } finally {
    await browser.close();
    server.kill();
  }
  const version = JSON.parse(readFileSync(`${ROOT}node_modules/elkjs/package.json`, 'utf8')).version;
  const entries = [...layouts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  writeFileSync(OUT, `// Written by scripts/prebuild-layouts.mjs: ELK's layouts of the built-in scenarios, keyed by the\n`
    + `// ELK graph asked for (checked against elkjs by tests/node/layouts.test.mjs). Inlined into the page.\n`
    + `self.SHR_LAYOUTS = ${JSON.stringify({ elkjs: version, layouts: entries })};\n`);
  process.stderr.write(`${OUT}: ${entries.length} layouts\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
