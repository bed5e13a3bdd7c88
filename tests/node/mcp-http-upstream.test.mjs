// An upstream over streamable HTTP (a second gateway with --http on a loopback port, in front of
// the project's test server) that dies and comes back on the same port: the calls reroute to
// the stdio alternative, the gateway reconnects, and its ping probe puts the HTTP one back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Gateway } from '../../packages/mcp-gateway/src/gateway.mjs';
import { freePort } from './redis-server.mjs';
import { sleep } from './helpers.mjs';
import { scratch } from './mcp-helpers.mjs';

const PKG = fileURLToPath(new URL('../../packages/mcp-gateway/', import.meta.url));
const SERVER = join(PKG, 'test/servers/tool.mjs');
const CLI = join(PKG, 'src/cli.mjs');
const { dir, closers } = scratch('shr-mcp-http-');

/** The far gateway over HTTP on `port`; resolves once it listens. */
function farGateway(port) {
  const config = join(dir, 'far.json');
  writeFileSync(config, JSON.stringify({ servers: { pay: { command: process.execPath, args: [SERVER, 'healthy', 'far'] } }, capabilities: [{ name: 'refund', alternatives: ['pay/refund'] }] }));
  const proc = spawn(process.execPath, [CLI, '--config', config, '--http', String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
  closers.push(async () => proc.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the far gateway did not listen in 20 s')), 20_000);
    proc.stdout.once('data', () => {
      clearTimeout(timer);
      resolve(proc);
    });
  });
}

test('an HTTP upstream that dies is routed around, and serves again once it is back', { timeout: 60_000 }, async () => {
  const port = await freePort();
  let far = await farGateway(port);
  const gateway = await new Gateway({
    servers: { web: { url: `http://127.0.0.1:${port}/mcp` }, local: { command: process.execPath, args: [SERVER, 'healthy', 'local'] } },
    capabilities: [{ name: 'refund', alternatives: ['web/refund', 'local/refund'] }],
    timeoutMs: 3000,
    cooldownMs: 2000,
    probeIntervalMs: 500,
  }).start();
  closers.push(() => gateway.close());
  const via = async (order) => (await gateway.callTool('refund', { order }))._meta.shr.via;
  assert.equal(await via('h1'), 'web/refund');

  far.kill('SIGKILL');
  await new Promise((r) => far.once('exit', r));
  assert.equal(await via('h2'), 'local/refund');
  assert.equal(gateway.router.health('web__refund').state, 'open');
  assert.equal(await via('h3'), 'local/refund', 'no call waits for the dead one');

  far = await farGateway(port);
  const backAt = Date.now();
  // No calls meanwhile: the ping probe alone must put the HTTP upstream back. (A call made when
  // the breaker turns HALF_OPEN may take its one trial before the probe does, and close it just
  // as well: under load that race went to the call, and the test must not depend on it.)
  while (gateway.probes.counts.ok < 1 && Date.now() - backAt < 15_000) await sleep(50);
  const served = Date.now() - backAt;
  assert.ok(gateway.probes.counts.ok >= 1, 'a ping probe was answered');
  assert.equal(gateway.router.health('web__refund').state, 'closed');
  assert.equal(await via('h4'), 'web/refund', 'the HTTP upstream serves again');
  assert.ok(gateway.upstreams.get('web').restarts >= 1, 'reconnected');
  console.log(`# a probe put the HTTP upstream back ${served} ms after it was back (cooldown 2000 ms, probe interval 500 ms)`);
});
