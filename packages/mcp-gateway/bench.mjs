// Gateway overhead per call: the same healthy upstream MCP server (stdio) called directly by an
// SDK client, and through shr-mcp-gateway (stdio): p50 / p99 of each and of the difference.
//   node packages/mcp-gateway/bench.mjs [--calls 500]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const SERVER = fileURLToPath(new URL('./test/servers/tool.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('./src/cli.mjs', import.meta.url));
const i = process.argv.indexOf('--calls');
const calls = i > 0 ? Number(process.argv[i + 1]) : 500;

async function client(command, args) {
  const c = new Client({ name: 'bench', version: '1.0.0' });
  await c.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return c;
}

async function measure(c, name) {
  for (let k = 0; k < 50; k += 1) await c.callTool({ name, arguments: { order: 'warm' } });
  const ms = [];
  for (let k = 0; k < calls; k += 1) {
    const t0 = performance.now();
    await c.callTool({ name, arguments: { order: `o${k}` } });
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b);
}
const q = (xs, p) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];

const dir = mkdtempSync(join(tmpdir(), 'shr-mcp-bench-'));
const config = join(dir, 'shr.json');
writeFileSync(config, JSON.stringify({
  servers: { pay: { command: process.execPath, args: [SERVER, 'healthy', 'pay'] } },
  capabilities: [{ name: 'refund', alternatives: ['pay/refund'] }],
}));
const direct = await client(process.execPath, [SERVER, 'healthy', 'pay']);
const viaGateway = await client(process.execPath, [CLI, '--config', config]);
// One after the other, in one run: the load (printed) falls on both.
const d = await measure(direct, 'refund');
const g = await measure(viaGateway, 'refund');
await direct.close();
await viaGateway.close();
const f = (x) => `${x.toFixed(2)} ms`;
const load = (await import('node:os')).loadavg()[0].toFixed(2);
console.log(`${calls} sequential calls each after 50 warm-up calls, one healthy upstream over stdio; load ${load}.\n`);
console.log('| Path | p50 | p99 |');
console.log('|---|---|---|');
console.log(`| agent -> upstream (direct) | ${f(q(d, 0.5))} | ${f(q(d, 0.99))} |`);
console.log(`| agent -> shr-mcp-gateway -> upstream | ${f(q(g, 0.5))} | ${f(q(g, 0.99))} |`);
console.log(`| gateway overhead | ${f(q(g, 0.5) - q(d, 0.5))} | ${f(q(g, 0.99) - q(d, 0.99))} |`);
