// Installable: `npm pack` of shr-wasm (crates/wasm/pkg, built by scripts/build-wasm-pkg),
// @shr/fleet and @shr/mcp-gateway, the tarballs installed in an empty folder outside the
// repository (their registry dependencies from npm's cache: --prefer-offline), and the gateway's
// bin and the fleet package run from there, finding shr-wasm by name.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PKG } from './helpers.mjs';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = join(REPO, 'packages/mcp-gateway/test/servers/tool.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'shr-pack-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('the packed packages install in an empty folder and run from there', { timeout: 120_000 }, async () => {
  assert.ok(!tmp.startsWith(REPO), 'outside the repository');
  const tarballs = join(tmp, 'tarballs');
  const app = join(tmp, 'app');
  mkdirSync(tarballs);
  mkdirSync(app);
  const files = [];
  for (const dir of [PKG, join(REPO, 'packages/fleet'), join(REPO, 'packages/mcp-gateway')]) {
    const { stdout } = await run('npm', ['pack', dir, '--pack-destination', tarballs, '--json', '--loglevel=error'], { cwd: tmp, timeout: 60_000 });
    const [packed] = JSON.parse(stdout);
    files.push(join(tarballs, packed.filename));
  }
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'shr-try', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...files], { cwd: app, timeout: 100_000 });

  // Nothing installed reaches back into a repository by relative path.
  const src = join(app, 'node_modules/@shr/mcp-gateway/src');
  for (const f of readdirSync(src)) assert.doesNotMatch(readFileSync(join(src, f), 'utf8'), /crates\/wasm|\.\.\/\.\.\/\.\./, f);
  const bin = join(app, 'node_modules/.bin/shr-mcp-gateway');
  const config = join(app, 'shr.json');
  writeFileSync(config, JSON.stringify({
    servers: { pay: { command: process.execPath, args: [SERVER, 'healthy', 'pay'] } },
    capabilities: [{ name: 'refund', alternatives: ['pay/refund'] }],
    timeoutMs: 5000,
  }));
  const { stdout: graph } = await run(bin, ['--config', config, '--export-graph'], { cwd: app, timeout: 20_000 });
  assert.ok(JSON.parse(graph).nodes.some((n) => n.id === 'pay__refund'));

  // A short stdio session with the installed bin.
  const client = new Client({ name: 'installed-agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: bin, args: ['--config', config], cwd: app, stderr: 'ignore' }));
  try {
    const r = await client.callTool({ name: 'refund', arguments: { order: 'p1' } });
    assert.match(r.content[0].text, /pay refund ok for p1/);
    assert.equal(r._meta.shr.via, 'pay/refund');
  } finally {
    await client.close();
  }

  // The fleet package with shr-wasm, both by name: a failure one member sees, the other knows.
  const fleet = `
    import { memoryHub, joinFleet } from '@shr/fleet';
    import shr from 'shr-wasm';
    const graph = { nodes: [{ id: 's', tool: false }, { id: 'pay' }, { id: 'g', tool: false }],
      edges: [{ from: 's', to: 'pay', cost: 1 }, { from: 'pay', to: 'g', cost: 0 }], start: 's', goal: 'g' };
    const hub = memoryHub();
    const a = new shr.Router(graph, { origin: 'a' });
    const b = new shr.Router(graph, { origin: 'b' });
    // Signed deltas (the fleet key), and one member's word is enough here (quorum 1).
    const opts = { key: 'a fleet key of 16 bytes or more', quorum: 1 };
    const fa = await joinFleet(a, hub.bus(), opts);
    const fb = await joinFleet(b, hub.bus(), opts);
    for (let i = 0; i < 10; i += 1) a.record('pay', { ok: false, hard: true });
    await fa.flush();
    const t0 = Date.now();
    while (b.health('pay').state !== 'open' && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
    console.log(b.health('pay').state);
    await fa.close();
    await fb.close();`;
  const { stdout: state } = await run(process.execPath, ['--input-type=module', '-e', fleet], { cwd: app, timeout: 20_000 });
  assert.equal(state.trim(), 'open');
});
