// The gateway in front of MCP servers from npm that no one here wrote (installed by `npm ci`:
// @modelcontextprotocol/server-filesystem twice, server-everything once), driven by the SDK's
// client over the gateway's MCP server. What the servers served is counted at the servers: each
// filesystem instance resolves a relative path in its own directory, so a `write_file` of
// `calls/N.txt` lands in the directory of the instance that took it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Gateway } from '../../packages/mcp-gateway/src/gateway.mjs';

const BIN = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shr-mcp-real-'));
const closers = [];
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

const home = (name) => {
  const d = join(dir, name);
  mkdirSync(join(d, 'calls'), { recursive: true });
  writeFileSync(join(d, 'who.txt'), name);
  return d;
};
const served = (name) => readdirSync(join(dir, name, 'calls')).length;
const textOf = (r) => r.content.map((c) => c.text ?? '').join(' ');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const COOLDOWN = 3000;
const PROBE = 1000;

async function connect(config) {
  const logs = [];
  const gateway = await new Gateway(config, { log: (event, f) => logs.push({ event, ...f }) }).start();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await gateway.mcpServer().connect(a);
  const client = new Client({ name: 'real-agent', version: '1.0.0' });
  await client.connect(b);
  closers.push(() => client.close(), () => gateway.close());
  return { gateway, client, logs };
}

const config = {
  servers: {
    primary: { command: join(BIN, 'mcp-server-filesystem'), args: [home('primary')] },
    backup: { command: join(BIN, 'mcp-server-filesystem'), args: [home('backup')] },
    everything: { command: join(BIN, 'mcp-server-everything'), args: ['stdio'] },
  },
  capabilities: [
    { name: 'read', description: 'Read a text file', alternatives: ['primary/read_text_file', 'backup/read_text_file'] },
    { name: 'write', description: 'Write a text file', alternatives: ['primary/write_file', 'backup/write_file'] },
    { name: 'sum', alternatives: ['everything/get-sum'] },
  ],
  timeoutMs: 5000,
  cooldownMs: COOLDOWN,
  probeIntervalMs: PROBE,
};

test('a missing file and bad arguments never open a breaker; a killed server reroutes, and the restarted one serves again', { timeout: 60_000 }, async () => {
  const { gateway, client, logs } = await connect(config);
  const nodes = gateway.graph.nodes.filter((n) => n.tool !== false).map((n) => n.id);

  // A missing file is the tool's answer: returned as it is, five times, from the preferred server.
  for (let i = 0; i < 5; i += 1) {
    const r = await client.callTool({ name: 'read', arguments: { path: 'missing.txt' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /ENOENT/);
    assert.equal(r._meta.shr.via, 'primary/read_text_file');
    assert.equal(r._meta.shr.reroutes, 0);
  }
  // Passed through, each server's own read_file (named server__tool: both offer it).
  const own = await client.callTool({ name: 'backup__read_file', arguments: { path: 'missing.txt' } });
  assert.match(textOf(own), /ENOENT/);
  // Bad arguments (isError "MCP error -32602 ...") go back to the agent: an input failure.
  const sum = await client.callTool({ name: 'sum', arguments: { a: 1 } });
  assert.equal(sum.isError, true);
  assert.match(textOf(sum), /-32602/);
  assert.equal(sum._meta.shr.input, true);
  const write = await client.callTool({ name: 'write', arguments: { path: 'calls/bad.txt' } });
  assert.match(textOf(write), /-32602/);
  assert.equal(write._meta.shr.reroutes, 0, 'bad input is not tried on the backup');
  assert.equal(gateway.stats.breakerChanges, 0, `no breaker changed: ${JSON.stringify(gateway.stats.breakers)}`);
  for (const n of nodes) assert.equal(gateway.router.health(n).state, 'closed', n);

  // Valid calls keep working, on the preferred server.
  assert.match(textOf(await client.callTool({ name: 'read', arguments: { path: 'who.txt' } })), /primary/);
  assert.match(textOf(await client.callTool({ name: 'sum', arguments: { a: 1, b: 2 } })), /3/);
  for (let i = 0; i < 3; i += 1) await client.callTool({ name: 'write', arguments: { path: `calls/a${i}.txt`, content: 'x' } });
  assert.deepEqual([served('primary'), served('backup')], [3, 0]);
  assert.equal(gateway.stats.breakerChanges, 0);

  // The preferred server is killed: the next call reroutes to the backup.
  const primary = gateway.upstreams.get('primary');
  const pid = primary.pid;
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  const moved = await client.callTool({ name: 'write', arguments: { path: 'calls/b0.txt', content: 'x' } });
  assert.equal(moved._meta.shr.via, 'backup/write_file');
  assert.deepEqual([served('primary'), served('backup')], [3, 1]);
  assert.equal(gateway.router.health('primary__write_file').state, 'open');

  // It is restarted (a new process), then serves again within the cooldown and one probe interval.
  let deadline = Date.now() + 15_000;
  while (!(primary.up && primary.pid !== pid) && Date.now() < deadline) await sleep(20);
  assert.ok(primary.up && primary.pid !== pid, 'the preferred server was restarted');
  const upAt = Date.now();
  // No calls meanwhile: the ping probe alone must put it back. (A call made when the breaker
  // turns HALF_OPEN may take its one trial before the probe does, and close it just as well:
  // the test must not depend on that race.)
  deadline = upAt + COOLDOWN + PROBE + 3000;
  while (gateway.probes.counts.ok < 1 && Date.now() < deadline) await sleep(20);
  const back = Date.now() - upAt;
  assert.ok(gateway.probes.counts.ok >= 1, 'a ping probe closed the breaker');
  // Slack for a loaded machine: the bound is the cooldown (from the crash) plus one probe interval.
  assert.ok(back <= COOLDOWN + PROBE + 1000, `put back ${back} ms after its restart`);
  const again = await client.callTool({ name: 'write', arguments: { path: 'calls/c0.txt', content: 'x' } });
  assert.equal(again._meta.shr.via, 'primary/write_file', 'the restarted preferred server serves again');
  assert.deepEqual([served('primary'), served('backup')], [4, 1], 'the preferred server counted the call');
  assert.equal(gateway.router.health('primary__write_file').state, 'closed');
  // Each step is a structured log line.
  const events = logs.map((l) => l.event);
  for (const e of ['upstream_start', 'upstream_crash', 'upstream_restart', 'upstream_restarted', 'breaker']) assert.ok(events.includes(e), e);
  assert.deepEqual(logs.filter((l) => l.event === 'upstream_crash').map((l) => [l.server, l.pid, l.signal]), [['primary', pid, 'SIGKILL']]);
  assert.deepEqual(logs.filter((l) => l.event === 'breaker').map((l) => [l.tool, l.from, l.to]),
    [['primary__write_file', 'closed', 'open'], ['primary__write_file', 'half_open', 'closed']]);
  console.log(`# a probe put the restarted preferred server back ${back} ms after its restart, ${upAt + back - killedAt} ms after the kill (cooldown ${COOLDOWN} ms, probe interval ${PROBE} ms)`);
});

test('progress, resources, prompts, annotations and outputSchema pass through', { timeout: 60_000 }, async () => {
  const { client } = await connect({ ...config, capabilities: [config.capabilities[0]] });
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  // Every upstream tool: 2 capabilities' worth named in `read`, the rest passed through.
  assert.ok(tools.length >= 30, `${tools.length} tools`);
  assert.ok(byName.get('read').outputSchema, "the capability keeps its alternatives' outputSchema");
  assert.equal(byName.get('read').annotations.readOnlyHint, true);
  assert.ok(byName.get('primary__write_file').outputSchema);
  assert.equal(byName.get('get-sum').annotations.readOnlyHint, true);
  // Progress notifications of the upstream reach the agent.
  const progress = [];
  const r = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } }, undefined, { onprogress: (p) => progress.push(p) });
  assert.match(textOf(r), /completed/);
  assert.ok(progress.length >= 2, `${progress.length} progress notifications`);
  // Resources and prompts of server-everything.
  const { resources } = await client.listResources();
  assert.ok(resources.length > 0);
  const read = await client.readResource({ uri: resources[0].uri });
  assert.ok(read.contents.length > 0);
  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === 'simple-prompt'));
  const prompt = await client.getPrompt({ name: 'simple-prompt' });
  assert.ok(prompt.messages.length > 0);
});
