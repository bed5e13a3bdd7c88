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
import { inProcess as joined } from './mcp-helpers.mjs';

const SERVER = fileURLToPath(new URL('../../packages/mcp-gateway/test/servers/tool.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../packages/mcp-gateway/src/cli.mjs', import.meta.url));
const upstream = (kind) => ({ command: process.execPath, args: [SERVER, kind] });
const config = {
  servers: { crashy: upstream('crashy'), hang: upstream('hang'), iserror: upstream('iserror'), healthy: upstream('healthy') },
  capabilities: [
    // These upstreams' isError results mean an outage (a 502, an account suspended).
    { name: 'refund', description: 'Refund an order', alternatives: ['crashy/refund', 'hang/refund', 'iserror/refund', 'healthy/refund'], on_is_error: 'failure' },
    { name: 'notify', alternatives: ['iserror/notify'], on_is_error: 'failure' },
  ],
  // Long enough for a healthy server on a loaded machine; the hanging one takes all of it.
  timeoutMs: 3000,
};
const dir = mkdtempSync(join(tmpdir(), 'shr-mcp-'));
const configPath = join(dir, 'shr.json');
writeFileSync(configPath, JSON.stringify(config));
const closers = [];
after(async () => { for (const c of closers.reverse()) await c().catch(() => {}); });

const inProcess = (cfg = config) => joined(cfg, closers);

const textOf = (r) => r.content.map((c) => c.text).join(' ');

test('a crash, a hang and an isError are routed around; then the healthy server is called directly', { timeout: 60_000 }, async () => {
  const { gateway, client } = await inProcess();
  const { tools } = await client.listTools();
  // The capabilities, then every upstream tool no capability names (two servers offer it: prefixed).
  assert.deepEqual(tools.map((t) => t.name).slice(0, 3), ['refund', 'notify', 'crashy__notify']);
  assert.ok(tools.some((t) => t.name === 'healthy__calls'));
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
  assert.ok(performance.now() - t0 < config.timeoutMs, 'no call waited for the hanging server again');
  assert.deepEqual(gateway.stats.upstreamCalls, { 'crashy/refund': 2, 'hang/refund': 1, 'iserror/refund': 1, 'healthy/refund': 11 });
  assert.equal(gateway.stats.reroutes, 3);
  // The servers' own counts agree with the gateway's tallies.
  const served = async (name) => Number(textOf(await gateway.upstreams.get(name).call('calls', {})));
  assert.equal(await served('healthy'), 11);
  assert.equal(await served('iserror'), 1);
  assert.equal(await served('hang'), 1);

  // The crashed server is restarted (with backoff) and answers again.
  const crashy = gateway.upstreams.get('crashy');
  const deadline = Date.now() + 10_000;
  while (!crashy.up && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(crashy.up && crashy.restarts >= 1, `crashy restarted (${crashy.restarts} restarts, up: ${crashy.up})`);
  assert.equal(await served('crashy'), 0, 'a new process');
});

test('a server that dies at once after each restart is restarted ever more slowly', { timeout: 60_000 }, async () => {
  const { Upstream } = await import('../../packages/mcp-gateway/src/upstream.mjs');
  // Starts, then exits before it answers: each connect fails, and the backoff doubles.
  const up = new Upstream({ name: 'dies', command: process.execPath, args: ['-e', 'process.exit(1)'] }, { timeoutMs: 1000 });
  closers.push(() => up.close());
  await up.connect();
  await new Promise((r) => setTimeout(r, 2000));
  // 100 + 200 + 400 + 800 ms of backoff fit in 2 s with the connects: at most 5 restarts, not 20.
  assert.ok(up.restarts >= 2 && up.restarts <= 5, `${up.restarts} restarts in 2 s`);
  assert.equal(up.up, false);
});

test('no alternative left: the agent gets an MCP tool error carrying the escalation and agent_action', { timeout: 60_000 }, async () => {
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

test("with no agent_action from upstream, the gateway's own says what the agent can do", { timeout: 60_000 }, async () => {
  const cfg = { servers: { iserror: upstream('iserror') }, capabilities: [{ name: 'refund', alternatives: ['iserror/refund'], on_is_error: 'failure' }], timeoutMs: 3000 };
  const { gateway, client } = await inProcess(cfg);
  const body = JSON.parse(textOf(await client.callTool({ name: 'refund', arguments: { order: 'o1' } })));
  assert.equal(body.success, false);
  assert.equal(body.error, 'no_upstream_left');
  assert.equal(body.capability, 'refund');
  assert.match(body.agent_action, /Every upstream tool for `refund` failed or is out of service \(iserror\/refund: /);
  assert.deepEqual(body.tried.map((t) => [t.tool, t.outcome]), [['iserror/refund', 'failed']]);
  assert.equal(gateway.stats.escalations, 1);
});

test('over stdio, the gateway process survives its upstreams crashing and keeps answering', { timeout: 60_000 }, async () => {
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

test('over streamable HTTP, one gateway health serves every request', { timeout: 60_000 }, async () => {
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

test('gateways that share health: one sees an upstream fail, the other never calls it', { timeout: 60_000 }, async () => {
  const { memoryHub, joinFleet } = await import('../../packages/fleet/src/index.mjs');
  const hub = memoryHub();
  const cfg = { servers: { iserror: upstream('iserror'), healthy: upstream('healthy') },
    capabilities: [{ name: 'refund', alternatives: ['iserror/refund', 'healthy/refund'], on_is_error: 'failure' }], timeoutMs: 3000 };
  const a = await new Gateway(cfg, { origin: 'gw-a' }).start();
  const b = await new Gateway(cfg, { origin: 'gw-b' }).start();
  closers.push(() => a.close(), () => b.close());
  // quorum 1: one gateway's evidence is enough for the other (the default needs two members).
  const fleetOpts = { key: 'gateway-test-fleet-key-0123456789', quorum: 1 };
  const fa = await joinFleet(a.router, hub.bus(), fleetOpts);
  const fb = await joinFleet(b.router, hub.bus(), fleetOpts);
  closers.push(() => fa.close(), () => fb.close());
  await a.callTool('refund', { order: 'x' });
  await fa.flush();
  const deadline = Date.now() + 2000;
  while (b.router.health('iserror__refund').state !== 'open' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const r = await b.callTool('refund', { order: 'y' });
  assert.equal(r._meta.shr.via, 'healthy/refund');
  assert.equal(b.stats.upstreamCalls['iserror/refund'], undefined, 'gateway b never called the failing upstream');
});

test('the config is read strictly, and exports the graph the page imports', { timeout: 60_000 }, async () => {
  assert.throws(() => new Gateway({ ...config, timeout: 5 }), /unknown key `timeout`/);
  assert.throws(() => new Gateway({ ...config, capabilities: [{ name: 'x', alternatives: ['nope/x'] }] }), /unknown server `nope`/);
  assert.throws(() => new Gateway({ ...config, capabilities: [{ name: 'x', alternatives: ['healthy/a__b'] }, { name: 'y', alternatives: ['healthy__a/b'] }],
    servers: { ...config.servers, healthy__a: upstream('healthy') } }), /would be the same tool/);
  assert.throws(() => new Gateway({ ...config, capabilities: [config.capabilities[0], config.capabilities[0]] }), /used twice/);
  // A fleet has no default namespace, and member keys need the name this gateway is listed under.
  assert.throws(() => new Gateway({ ...config, fleet: { redis: 'redis://127.0.0.1:1' } }), /fleet.namespace.*required/);
  assert.throws(() => new Gateway({ ...config, fleet: { redis: 'redis://127.0.0.1:1', namespace: 'n', members: {} } }), /fleet.origin.*needs `origin` with `members`/);
  assert.throws(() => new Gateway({ ...config, fleet: { redis: 'redis://127.0.0.1:1', namespace: 'n', origin: 'g', members: [] } }), /fleet.members.*must be an object/);
  assert.throws(() => new Gateway({ ...config, servers: { web: { url: 'not a url' } }, capabilities: [{ name: 'x', alternatives: ['web/x'] }] }), /not a URL/);
  // A tool name the server does not offer is a misspelling, named with what the server offers.
  await assert.rejects(
    new Gateway({ servers: { healthy: upstream('healthy') }, capabilities: [{ name: 'refund', alternatives: ['healthy/refnud'] }], timeoutMs: 3000 }).start(),
    (e) => e.code === 'bad_config' && /`healthy\/refnud`.*offers `refund`, `notify`, `calls`/.test(e.message),
  );
  const cli = (...args) => new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => resolve({ code, out, err }));
  });
  const typo = await cli('--config', configPath, '--htpp', '8080');
  assert.equal(typo.code, 2);
  assert.match(typo.err, /unknown argument `--htpp`/);
  assert.match((await cli('--config', configPath, '--http', 'eighty')).err, /--http takes a port number/);
  const exported = await cli('--config', configPath, '--export-graph');
  assert.equal(exported.code, 0);
  const router = new Router(JSON.parse(exported.out));
  assert.ok(router.tools().includes('healthy__refund'));
});
