#!/usr/bin/env node
// shr-mcp-gateway --config shr.json [--http PORT] [--export-graph]
//   stdio (default): the agent starts the gateway as its MCP server.
//   --http PORT: streamable HTTP on 127.0.0.1:PORT/mcp (0: a free port, printed on stdout).
//   --export-graph: prints the SHR graph the config makes (the page imports it) and exits.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Gateway } from './gateway.mjs';
import { toGraph, readConfig } from './config.mjs';

const USAGE = 'usage: shr-mcp-gateway --config shr.json [--http PORT] [--export-graph]';
const log = (m) => process.stderr.write(`shr-mcp-gateway: ${m}\n`);
const usage = (why) => {
  log(`${why}\n${USAGE}`);
  process.exit(2);
};
// Read strictly: a misspelt flag (`--htpp 8080`) is an error, not a gateway on stdio.
const args = { config: undefined, http: undefined, 'export-graph': false };
for (let i = 2; i < process.argv.length; i += 1) {
  const a = process.argv[i];
  const name = a.startsWith('--') ? a.slice(2) : null;
  if (name === 'export-graph') args[name] = true;
  else if (name === 'config' || name === 'http') {
    if (process.argv[i + 1] === undefined) usage(`--${name} needs a value`);
    args[name] = process.argv[(i += 1)];
  } else usage(`unknown argument \`${a}\``);
}
const path = args.config;
if (!path) usage('--config is required');
if (args.http !== undefined && !/^\d{1,5}$/.test(args.http)) usage(`--http takes a port number (0 for a free one), got \`${args.http}\``);
// Bodies of an MCP request are small; a larger one is refused before it is held in memory.
const MAX_BODY = 4 * 1024 * 1024;
let raw;
try {
  raw = JSON.parse(readFileSync(path, 'utf8'));
  if (args['export-graph']) {
    process.stdout.write(`${JSON.stringify(toGraph(readConfig(raw)), null, 2)}\n`);
    process.exit(0);
  }
} catch (e) {
  log(`${path}: ${e.message}`);
  process.exit(2);
}
// The gateway outlives anything an upstream does: an error nobody awaited is logged, not fatal.
process.on('unhandledRejection', (e) => log(`unhandled: ${e?.message ?? e}`));
process.on('uncaughtException', (e) => log(`uncaught: ${e?.message ?? e}`));

const origin = raw.fleet?.origin ?? `gateway-${process.pid}`;
const gateway = await new Gateway(raw, { log, origin }).start();
// With a `fleet` section, every gateway of the fleet shares one view of upstream health
// (packages/fleet over Redis): one gateway seeing a server fail spares the others the call.
let fleet = null;
if (gateway.config.fleet) {
  const { redisBus, joinFleet } = await import('../../fleet/src/index.mjs');
  const bus = await redisBus({ url: gateway.config.fleet.redis, namespace: gateway.config.fleet.namespace, onError: (e) => log(`fleet: ${e?.message ?? e}`) });
  // The fleet key (HMAC-SHA256 over every delta) comes from the environment, not the config file.
  fleet = await joinFleet(gateway.router, bus, { key: process.env.SHR_FLEET_KEY });
}
const port = args.http;
if (port === undefined) {
  await gateway.mcpServer().connect(new StdioServerTransport());
} else {
  // Stateless streamable HTTP: a server and transport per request, one gateway (one health) for all.
  const http = createServer(async (req, res) => {
    if (!req.url.startsWith('/mcp')) return res.writeHead(404).end();
    // Only this machine's names: a page elsewhere cannot reach the gateway through DNS rebinding.
    const host = String(req.headers.host ?? '').replace(/:\d+$/, '');
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) return res.writeHead(403).end('forbidden host');
    const chunks = [];
    let size = 0;
    for await (const c of req) {
      size += c.length;
      if (size > MAX_BODY) return res.writeHead(413).end('request too large');
      chunks.push(c);
    }
    let body;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      return res.writeHead(400).end('bad JSON');
    }
    const server = gateway.mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (e) {
      log(`http: ${e?.message ?? e}`);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  http.listen(Number(port), '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}
const stop = async () => {
  await fleet?.close().catch(() => {});
  await gateway.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
