// The gateway's process as an agent's MCP client sees it: messages too large both ways, a
// client that goes away (stdin closed, parent killed: the gateway and every upstream child are
// gone within 2 s, checked by PID), a bad config (exit 2, one line), cancels and timeouts passed
// on to the upstream, an escalation naming every server, /metrics, and no shr-wasm installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './helpers.mjs';
import { inProcess as joined, scratch } from './mcp-helpers.mjs';

const PKG = fileURLToPath(new URL('../../packages/mcp-gateway/', import.meta.url));
const SERVER = join(PKG, 'test/servers/tool.mjs');
const CLI = join(PKG, 'src/cli.mjs');
const FS = fileURLToPath(new URL('../../node_modules/.bin/mcp-server-filesystem', import.meta.url));
const upstream = (kind, name = kind) => ({ command: process.execPath, args: [SERVER, kind, name] });
const { dir, closers } = scratch('shr-mcp-life-');
const textOf = (r) => r.content.map((c) => c.text ?? '').join(' ');
const writeConfig = (name, cfg) => {
  const p = join(dir, name);
  writeFileSync(p, typeof cfg === 'string' ? cfg : JSON.stringify(cfg));
  return p;
};
const healthyConfig = writeConfig('healthy.json', {
  servers: { pay: upstream('healthy', 'pay'), files: { command: FS, args: [dir] } },
  capabilities: [{ name: 'refund', alternatives: ['pay/refund'] }],
  timeoutMs: 5000,
});

/** Alive, and not a zombie waiting for a parent that does not reap. */
function alive(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The gateway CLI over raw stdio: JSON-RPC lines out, JSON log lines from stderr. */
function gatewayProcess(configPath, { command = process.execPath, args = [CLI, '--config', configPath], stdin = 'pipe', env } = {}) {
  const proc = spawn(command, args, { stdio: [stdin, 'pipe', 'pipe'], env: { ...process.env, ...env } });
  closers.push(async () => proc.kill('SIGKILL'));
  const messages = [];
  const logs = [];
  const waiters = new Set();
  const wake = () => { for (const w of waiters) w(); };
  let out = '';
  proc.stdout.on('data', (d) => {
    out += d;
    const lines = out.split('\n');
    out = lines.pop();
    for (const l of lines) if (l.trim()) messages.push(JSON.parse(l));
    wake();
  });
  let err = '';
  proc.stderr.on('data', (d) => {
    err += d;
    const lines = err.split('\n');
    err = lines.pop();
    for (const l of lines) {
      try {
        logs.push(JSON.parse(l));
      } catch {
        logs.push({ line: l });
      }
    }
    wake();
  });
  const until = (what, pred, ms = 20_000) => new Promise((resolve, reject) => {
    const check = () => {
      const found = pred();
      if (found) {
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      }
    };
    const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`no ${what} in ${ms} ms`)); }, ms);
    waiters.add(check);
    check();
  });
  return {
    proc,
    logs,
    send: (m) => proc.stdin.write(`${JSON.stringify(m)}\n`),
    reply: (id) => until(`reply ${id}`, () => messages.find((m) => m.id === id)),
    log: (event, n = 1) => until(`log ${event}`, () => (logs.filter((l) => l.event === event).length >= n ? logs.filter((l) => l.event === event) : null)),
  };
}

const initialize = async (g) => {
  g.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  await g.reply(1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
};

test('an 11 MiB message gets a JSON-RPC error, a line that is not JSON a parse error, and the next request is answered', { timeout: 60_000 }, async () => {
  const g = gatewayProcess(healthyConfig);
  await initialize(g);
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'refund', arguments: { order: 'x'.repeat(11 * 1024 * 1024) } } });
  const big = await g.reply(2);
  assert.equal(big.error.code, -32600);
  assert.equal(big.error.data.error, 'message_too_large');
  g.proc.stdin.write('this is not json\n');
  g.send({ id: 9, not: 'a JSON-RPC message' });
  assert.equal((await g.reply(9)).error.code, -32600);
  g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'refund', arguments: { order: 'next' } } });
  const next = await g.reply(3);
  assert.match(textOf(next.result), /pay refund ok for next/);
  assert.equal((await g.reply(null)).error.code, -32700);
  assert.ok(g.logs.some((l) => l.event === 'message_too_large'));
});

async function pidsOf(g) {
  const [start] = await g.log('gateway_start');
  const children = (await g.log('upstream_start', 2)).map((l) => l.pid);
  assert.equal(children.length, 2);
  for (const pid of [start.pid, ...children]) assert.ok(alive(pid), `${pid} runs`);
  return [start.pid, ...children];
}

async function goneWithin(pids, ms) {
  const t0 = Date.now();
  while (pids.some(alive) && Date.now() - t0 < 5000) await sleep(20);
  const took = Date.now() - t0;
  assert.deepEqual(pids.filter(alive), [], 'every process is gone');
  assert.ok(took <= ms, `gone in ${took} ms`);
  return took;
}

test('the client closes stdin: the gateway and its upstream children are gone within 2 s', { timeout: 60_000 }, async () => {
  const g = gatewayProcess(healthyConfig);
  const pids = await pidsOf(g);
  g.proc.stdin.end();
  const took = await goneWithin(pids, 2000);
  console.log(`# stdin closed: gateway and 2 upstreams gone in ${took} ms`);
});

test('the parent dies (stdin still open elsewhere): the gateway and its children are gone within 2 s', { timeout: 60_000 }, async () => {
  // A parent that hands its own stdin (whose other end this test holds) to the gateway.
  const parent = `require('node:child_process').spawn(process.execPath, ${JSON.stringify([CLI, '--config', healthyConfig])}, { stdio: 'inherit' }); setInterval(() => {}, 1000);`;
  const g = gatewayProcess(null, { args: ['-e', parent] });
  const pids = await pidsOf(g);
  g.proc.kill('SIGKILL');
  const took = await goneWithin(pids, 2000);
  console.log(`# parent killed: gateway and 2 upstreams gone in ${took} ms`);
});

test('a bad config exits 2 with one clear line', { timeout: 60_000 }, async () => {
  const run = (path, ...more) => new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, '--config', path, ...more], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    // Log lines (JSON) may come first, from upstreams started before the config was found bad.
    p.on('exit', (code) => resolve({ code, lines: err.trim().split('\n').filter((l) => !l.startsWith('{')) }));
  });
  const cases = [
    [writeConfig('typo.json', { servers: {}, capabilities: [], timeout: 5 }), /unknown key `timeout`/],
    [writeConfig('broken.json', '{"servers": '), /Unexpected end of JSON|JSON/],
    [join(dir, 'absent.json'), /ENOENT/],
    [writeConfig('nothere.json', { servers: { pay: upstream('healthy') }, capabilities: [{ name: 'r', alternatives: ['pay/refnud'] }] }), /`pay\/refnud`.*offers `refund`/],
    [writeConfig('isError.json', { servers: { pay: upstream('healthy') }, capabilities: [{ name: 'r', alternatives: ['pay/refund'], on_is_error: 'fail' }] }), /on_is_error must be/],
  ];
  for (const [path, why] of cases) {
    const { code, lines } = await run(path);
    assert.equal(code, 2, path);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0], /^shr-mcp-gateway: /);
    assert.match(lines[0], why);
  }
});

const inProcess = (cfg) => joined(cfg, closers);

test("an upstream answer over the limit is a clear error, not a crash; an isError is the tool's answer", { timeout: 60_000 }, async () => {
  const { gateway, client } = await inProcess({
    servers: { pay: upstream('healthy', 'pay'), bank: upstream('iserror', 'bank') },
    capabilities: [{ name: 'refund', alternatives: ['bank/refund', 'pay/refund'] }],
    timeoutMs: 10_000,
  });
  const pay = gateway.upstreams.get('pay');
  const pid = pay.pid;
  const r = await client.callTool({ name: 'pay__big', arguments: { bytes: 11 * 1024 * 1024 } });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /result_too_large: an answer of \d+ bytes is over the gateway's limit/);
  assert.equal(pay.pid, pid, 'the same process');
  assert.equal(pay.restarts, 0);
  assert.match(textOf(await client.callTool({ name: 'pay__big', arguments: { bytes: 1000 } })), /^x{1000}$/);
  // The project's own server answering isError (no on_is_error): returned, no reroute, no breaker.
  const answer = await client.callTool({ name: 'refund', arguments: { order: 'o1' } });
  assert.equal(answer.isError, true);
  assert.match(textOf(answer), /bank: 502/);
  assert.equal(answer._meta.shr.via, 'bank/refund');
  assert.equal(gateway.stats.breakerChanges, 0);
});

test('an escalation names every server tried and why each was passed over', { timeout: 60_000 }, async () => {
  const { client } = await inProcess({
    servers: { a: upstream('iserror', 'a'), b: upstream('iserror', 'b') },
    capabilities: [{ name: 'refund', alternatives: ['a/refund', 'b/refund'], on_is_error: 'failure' }],
    timeoutMs: 5000,
  });
  const first = JSON.parse(textOf(await client.callTool({ name: 'refund', arguments: { order: 'o1' } })));
  assert.deepEqual(first.tried.map((t) => [t.tool, t.outcome]), [['a/refund', 'failed'], ['b/refund', 'failed']]);
  assert.match(first.tried[0].why, /502/);
  const second = JSON.parse(textOf(await client.callTool({ name: 'refund', arguments: { order: 'o2' } })));
  assert.deepEqual(second.tried.map((t) => [t.tool, t.outcome]), [['a/refund', 'skipped'], ['b/refund', 'skipped']]);
  assert.match(second.tried[0].why, /breaker open/);
  assert.match(second.agent_action, /a\/refund: breaker open/);
});

test("the agent's cancel and the gateway's timeout reach the upstream as notifications/cancelled", { timeout: 60_000 }, async () => {
  const { gateway, client } = await inProcess({ servers: { slow: upstream('hang', 'slow') }, capabilities: [{ name: 'wait', alternatives: ['slow/refund'] }], timeoutMs: 1000 });
  const slow = gateway.upstreams.get('slow');
  const cancels = async () => Number(textOf(await slow.call('cancels', {})));
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 200);
  await assert.rejects(client.callTool({ name: 'wait', arguments: { order: 'c' } }, undefined, { signal: ac.signal }));
  let deadline = Date.now() + 5000;
  while ((await cancels()) < 1 && Date.now() < deadline) await sleep(50);
  assert.equal(await cancels(), 1, 'the cancel reached the upstream');
  assert.equal(gateway.stats.breakerChanges, 0, "a cancel says nothing of the server's health");
  const timedOut = await client.callTool({ name: 'wait', arguments: { order: 't' } });
  assert.equal(timedOut.isError, true);
  deadline = Date.now() + 5000;
  while ((await cancels()) < 2 && Date.now() < deadline) await sleep(50);
  assert.equal(await cancels(), 2, 'the timeout reached the upstream');
});

test('over HTTP, /metrics is Prometheus text of the router and the gateway', { timeout: 60_000 }, async () => {
  const proc = spawn(process.execPath, [CLI, '--config', healthyConfig, '--http', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  closers.push(async () => proc.kill());
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no URL in 20 s')), 20_000);
    proc.stdout.once('data', (d) => { clearTimeout(timer); resolve(new URL(String(d).trim())); });
  });
  const get = (path, headers = {}) => new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: url.port, path, headers }, (res) => {
      let s = '';
      res.on('data', (d) => { s += d; });
      res.on('end', () => resolve({ status: res.statusCode, s }));
    }).on('error', reject).end();
  });
  const body = await get('/metrics');
  assert.equal(body.status, 200);
  assert.match(body.s, /shr_tool_calls_total\{tool="pay__refund"\} 0/);
  assert.match(body.s, /shr_gateway_upstream_up\{server="pay"\} 1/);
  // DNS rebinding: a page on another name that resolves here is refused, whatever the path.
  for (const host of ['evil.example', `evil.example:${url.port}`, '127.0.0.1.evil.example', 'localhost@evil.example']) {
    const forged = await get('/metrics', { host });
    assert.equal(forged.status, 403, host);
    assert.equal(JSON.parse(forged.s).error.code, -32000, host);
  }
  assert.equal((await get('/mcp', { host: 'evil.example' })).status, 403);
  assert.equal((await get('/metrics', { host: `localhost:${url.port}` })).status, 200);
});

test('with no shr-wasm installed the gateway says so in one line; --export-graph needs none', { timeout: 60_000 }, async () => {
  const bare = join(dir, 'bare');
  mkdirSync(join(bare, 'node_modules', '@modelcontextprotocol'), { recursive: true });
  cpSync(join(PKG, 'src'), join(bare, 'src'), { recursive: true });
  writeFileSync(join(bare, 'package.json'), '{"type": "module"}');
  symlinkSync(fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/sdk', import.meta.url)), join(bare, 'node_modules', '@modelcontextprotocol', 'sdk'));
  symlinkSync(fileURLToPath(new URL('../../node_modules/zod', import.meta.url)), join(bare, 'node_modules', 'zod'));
  const run = (...args) => new Promise((resolve) => {
    const p = spawn(process.execPath, [join(bare, 'src', 'cli.mjs'), '--config', healthyConfig, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => resolve({ code, out, err: err.trim() }));
  });
  const none = await run();
  assert.equal(none.code, 1);
  assert.equal(none.err.split('\n').length, 1, none.err);
  assert.match(none.err, /the shr-wasm package is missing/);
  const graph = await run('--export-graph');
  assert.equal(graph.code, 0, graph.err);
  assert.ok(JSON.parse(graph.out).nodes.some((n) => n.id === 'pay__refund'));
});

test('with a fleet section the CLI joins the fleet (@shr/fleet by name, a real Redis)', { timeout: 60_000 }, async () => {
  const { startRedis } = await import('./redis-server.mjs');
  const redis = await startRedis();
  closers.push(() => redis.stop());
  const path = writeConfig('fleet.json', {
    servers: { pay: upstream('healthy', 'pay') },
    capabilities: [{ name: 'refund', alternatives: ['pay/refund'] }],
    fleet: { redis: redis.url, namespace: 'shr-life', origin: 'gw-life' },
  });
  // The fleet key signs every delta; it comes from the environment, never the config file.
  const g = gatewayProcess(path, { env: { SHR_FLEET_KEY: 'a fleet key of 16 bytes or more' } });
  await initialize(g);
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'refund', arguments: { order: 'f1' } } });
  assert.match(textOf((await g.reply(2)).result), /pay refund ok for f1/);
  assert.ok(!g.logs.some((l) => l.event === 'fleet_error'), JSON.stringify(g.logs));
  g.proc.stdin.end();
  const code = g.proc.exitCode ?? (await new Promise((r) => g.proc.once('exit', r)));
  assert.equal(code, 0);

  // Member keys: the public keys in the config, this gateway's private key in the environment.
  const { memberKeyPair } = await import('../../packages/fleet/src/index.mjs');
  const [mine, other] = await Promise.all([memberKeyPair(), memberKeyPair()]);
  const membersPath = writeConfig('fleet-members.json', {
    servers: { pay: upstream('healthy', 'pay') },
    capabilities: [{ name: 'refund', alternatives: ['pay/refund'] }],
    fleet: { redis: redis.url, namespace: 'shr-life', origin: 'gw-life', members: { 'gw-life': mine.publicKey, 'gw-2': other.publicKey } },
  });
  const m = gatewayProcess(membersPath, { env: { SHR_MEMBER_KEY: JSON.stringify(mine.privateKey) } });
  await initialize(m);
  m.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'refund', arguments: { order: 'f2' } } });
  assert.match(textOf((await m.reply(2)).result), /pay refund ok for f2/);
  m.proc.stdin.end();
  assert.equal(m.proc.exitCode ?? (await new Promise((r) => m.proc.once('exit', r))), 0);
  // Without its key, or with another member's, the gateway stops at start and says why.
  for (const [env, want] of [[{}, /fleet: key_required: .*memberKey/], [{ SHR_MEMBER_KEY: JSON.stringify(other.privateKey) }, /fleet: bad_options: .*not a key `members` lists for this router's origin "gw-life"/], [{ SHR_MEMBER_KEY: '{not json' }, /SHR_MEMBER_KEY is not JSON/]]) {
    const bad = gatewayProcess(membersPath, { env: { SHR_MEMBER_KEY: '', ...env } });
    assert.equal(await new Promise((r) => bad.proc.once('close', r)), 1, 'after stderr is read');
    assert.ok(bad.logs.some((l) => want.test(l.line ?? '')), JSON.stringify(bad.logs));
  }
});
