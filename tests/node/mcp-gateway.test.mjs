// The self-healing MCP gateway with real MCP servers (the SDK, over stdio): one healthy, one that
// crashes mid-session, one that hangs, one that answers isError. A real SDK client drives the
// gateway, in process, over stdio and over streamable HTTP.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Gateway } from '../../packages/mcp-gateway/src/gateway.mjs';
import { Router } from './helpers.mjs';

const SERVER = fileURLToPath(new URL('../../packages/mcp-gateway/test/servers/tool.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../packages/mcp-gateway/src/cli.mjs', import.meta.url));
const upstream = (kind) => ({ command: process.execPath, args: [SERVER, kind] });
const config = {
  servers: { crashy: upstream('crashy'), hang: upstream('hang'), iserror: upstream('iserror'), healthy: upstream('healthy') },
  capabilities: [
    { name: 'refund', description: 'Refund an order', alternatives: ['crashy/refund', 'hang/refund', 'iserror/refund', 'healthy/refund'] },
    { name: 'notify', alternatives: ['iserror/notify'] },
  ],
  timeoutMs: 1500,
};
const dir = mkdtempSync(join(tmpdir(), 'shr-mcp-'));
const configPath = join(dir, 'shr.json');
writeFileSync(configPath, JSON.stringify(config));
const closers = [];
after(async () => { for (const c of closers.reverse()) await c().catch(() => {}); });

async function inProcess(cfg = config) {
  const gateway = await new Gateway(cfg).start();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await gateway.mcpServer().connect(a);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(b);
  closers.push(() => client.close(), () => gateway.close());
  return { gateway, client };
}

const textOf = (r) => r.content.map((c) => c.text).join(' ');

test('a crash, a hang and an isError are routed around; then the healthy server is called directly', async () => {
  const { gateway, client } = await inProcess();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['refund', 'notify']);
  assert.deepEqual(tools[0].inputSchema.required, ['order'], 'the capability takes its upstream input schema');

  const first = await client.callTool({ name: 'refund', arguments: { order: 'o1' } });
  assert.match(textOf(first), /crashy refund ok for o1/);

  // crashy dies mid-call, hang times out, iserror refuses: three reroutes, one answer.
  const second = await client.callTool({ name: 'refund', arguments: { order: 'o2' } });
  assert.equal(second.isError, undefined);
  assert.match(textOf(second), /healthy refund ok for o2/);
  assert.equal(second._meta.shr.via, 'healthy/refund');
  assert.equal(second._meta.shr.reroutes, 3);

  // Their breakers are open: the next calls, ten at once, go straight to the healthy server.
  const t0 = performance.now();
  const many = await Promise.all(Array.from({ length: 10 }, (_, i) => client.callTool({ name: 'refund', arguments: { order: `o${i + 3}` } })));
  assert.ok(many.every((r) => /healthy refund ok/.test(textOf(r))));
  assert.ok(performance.now() - t0 < 1500, 'no call waited for the hanging server again');
  assert.deepEqual(gateway.stats.upstreamCalls, { 'crashy/refund': 2, 'hang/refund': 1, 'iserror/refund': 1, 'healthy/refund': 11 });
  assert.equal(gateway.stats.reroutes, 3);
});

test('no alternative left: the agent gets an MCP tool error carrying the escalation and agent_action', async () => {
  const { gateway, client } = await inProcess();
  const r = await client.callTool({ name: 'notify', arguments: { order: 'o1' } });
  assert.equal(r.isError, true);
  const body = JSON.parse(textOf(r));
  assert.deepEqual(body.escalation.failed, ['iserror__notify']);
  assert.equal(body.agent_action, 'Ask the user for another payment method.', "the upstream's agent_action reaches the agent");
  assert.equal(gateway.stats.escalations, 1);
  const unknown = await client.callTool({ name: 'refnud', arguments: {} });
  assert.equal(unknown.isError, true);
});

test('over stdio, the gateway process survives its upstreams crashing and keeps answering', async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', configPath], stderr: 'ignore' });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  closers.push(() => client.close());
  for (let i = 0; i < 4; i += 1) {
    const r = await client.callTool({ name: 'refund', arguments: { order: `s${i}` } });
    assert.match(textOf(r), /refund ok/);
  }
  await client.ping();
  const again = await client.callTool({ name: 'refund', arguments: { order: 'last' } });
  assert.match(textOf(again), /healthy refund ok for last/);
});

test('over streamable HTTP, one gateway health serves every request', async () => {
  const proc = spawn(process.execPath, [CLI, '--config', configPath, '--http', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  closers.push(async () => { proc.kill(); });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no URL in 20 s')), 20_000);
    proc.stdout.once('data', (d) => { clearTimeout(timer); resolve(String(d).trim()); });
  });
  const call = async (order) => {
    const client = new Client({ name: 'http-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const r = await client.callTool({ name: 'refund', arguments: { order } });
    await client.close();
    return r;
  };
  await call('h1');
  const second = await call('h2');
  assert.equal(second._meta.shr.via, 'healthy/refund');
  const third = await call('h3');
  assert.equal(third._meta.shr.reroutes, 0, 'the second request taught the gateway: no reroute now');
  assert.equal(proc.exitCode, null, 'the gateway is still running');
});

test('gateways that share health: one sees an upstream fail, the other never calls it', async () => {
  const { memoryHub, joinFleet } = await import('../../packages/fleet/src/index.mjs');
  const hub = memoryHub();
  const cfg = { servers: { iserror: upstream('iserror'), healthy: upstream('healthy') },
    capabilities: [{ name: 'refund', alternatives: ['iserror/refund', 'healthy/refund'] }], timeoutMs: 1500 };
  const a = await new Gateway(cfg, { origin: 'gw-a' }).start();
  const b = await new Gateway(cfg, { origin: 'gw-b' }).start();
  closers.push(() => a.close(), () => b.close());
  const fa = await joinFleet(a.router, hub.bus());
  const fb = await joinFleet(b.router, hub.bus());
  closers.push(() => fa.close(), () => fb.close());
  await a.callTool('refund', { order: 'x' });
  await fa.flush();
  const deadline = Date.now() + 2000;
  while (b.router.health('iserror__refund').state !== 'open' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const r = await b.callTool('refund', { order: 'y' });
  assert.equal(r._meta.shr.via, 'healthy/refund');
  assert.equal(b.stats.upstreamCalls['iserror/refund'], undefined, 'gateway b never called the failing upstream');
});

test('the config is read strictly, and exports the graph the page imports', async () => {
  assert.throws(() => new Gateway({ ...config, timeout: 5 }), /unknown key `timeout`/);
  assert.throws(() => new Gateway({ ...config, capabilities: [{ name: 'x', alternatives: ['nope/x'] }] }), /unknown server `nope`/);
  const out = await new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, '--config', configPath, '--export-graph'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let s = '';
    p.stdout.on('data', (d) => { s += d; });
    p.on('exit', () => resolve(s));
  });
  const router = new Router(JSON.parse(out));
  assert.ok(router.tools().includes('healthy__refund'));
});
