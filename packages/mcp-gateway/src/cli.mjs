#!/usr/bin/env node
// shr-mcp-gateway --config shr.json [--http PORT] [--export-graph]
//   stdio (default): the agent starts the gateway as its MCP server. The gateway exits, and
//     stops every upstream it started, when the agent closes its stdin or dies.
//   --http PORT: streamable HTTP on 127.0.0.1:PORT/mcp (0: a free port, printed on stdout), and
//     Prometheus metrics on /metrics.
//   --export-graph: prints the SHR graph the config's capabilities make (the page imports it).
//   --discover [--out DIR] [--measure N] [--refine MODULE]: reads every tools/list of the
//     config's servers (capabilities not needed) and proposes a graph and a gateway config
//     (docs/discovery.md): one JSON {graph, config, report} on stdout, or with --out the files
//     DIR/graph.json, DIR/gateway.json, DIR/report.json and a short report on stdout.
// Logs are JSON lines on stderr. Exit codes: 0 done, 1 could not start, 2 bad usage or config.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { localhostHostValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { toGraph, readConfig } from './config.mjs';
import { AgentStdio } from './stdio.mjs';

const USAGE = 'usage: shr-mcp-gateway --config shr.json [--http PORT] [--export-graph] [--discover [--out DIR] [--measure N] [--refine MODULE]]';
const log = (event, fields = {}) => {
  try {
    process.stderr.write(`${JSON.stringify({ ts: new Date().toISOString(), event, ...fields })}\n`);
  } catch {
    // stderr gone: nothing to tell anyone
  }
};
// One line, then out: a bad flag or config (2), or a gateway that cannot start (1).
const die = (code, message) => {
  process.stderr.write(`shr-mcp-gateway: ${message}\n`);
  process.exit(code);
};
const usage = (why) => die(2, `${why} (${USAGE})`);
// Read strictly (node:util parseArgs): a misspelt flag (`--htpp 8080`) is an error, not a
// gateway on stdio. Its errors are said in the gateway's own words.
const OPTIONS = {
  config: { type: 'string' },
  http: { type: 'string' },
  'export-graph': { type: 'boolean', default: false },
  discover: { type: 'boolean', default: false },
  out: { type: 'string' },
  measure: { type: 'string' },
  refine: { type: 'string' },
};
let args;
try {
  ({ values: args } = parseArgs({ args: process.argv.slice(2), options: OPTIONS, strict: true, allowPositionals: false }));
} catch (e) {
  const flag = String(e?.message ?? '').match(/'(-[^' ]+)/)?.[1];
  if (e?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    usage(/does not take/.test(e.message) ? `${flag} takes no value` : `${flag} needs a value`);
  }
  if (e?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) usage(`unknown argument \`${flag}\``);
  const positional = String(e?.message ?? '').match(/argument '([^']*)'/)?.[1];
  usage(positional !== undefined ? `unknown argument \`${positional}\`` : (e?.message ?? String(e)));
}
const path = args.config;
if (!path) usage('--config is required');
if (!args.discover && (args.out ?? args.measure ?? args.refine) !== undefined) usage('--out, --measure and --refine go with --discover');
if (args.discover) {
  const { runDiscover } = await import('./discover-cli.mjs');
  process.exit(await runDiscover(path, args, { die, log }));
}
if (args.http !== undefined && !/^\d{1,5}$/.test(args.http)) usage(`--http takes a port number (0 for a free one), got \`${args.http}\``);
// Bodies of an MCP request are small; a larger one is refused before it is held in memory.
const MAX_BODY = 4 * 1024 * 1024;
let raw;
try {
  raw = JSON.parse(readFileSync(path, 'utf8'));
  const config = readConfig(raw);
  if (args['export-graph']) {
    process.stdout.write(`${JSON.stringify(toGraph(config), null, 2)}\n`);
    process.exit(0);
  }
} catch (e) {
  die(2, `${path}: ${e.message}`);
}
// The gateway outlives anything an upstream does: an error nobody awaited is logged, not fatal.
process.on('unhandledRejection', (e) => log('unhandled', { error: e?.message ?? String(e) }));
process.on('uncaughtException', (e) => log('uncaught', { error: e?.message ?? String(e) }));

let gateway;
try {
  const { Gateway } = await import('./gateway.mjs');
  gateway = await new Gateway(raw, { log, origin: raw.fleet?.origin ?? `gateway-${process.pid}` }).start();
} catch (e) {
  die(e?.code === 'bad_config' ? 2 : 1, `${path}: ${e?.message ?? e}`);
}
// With a `fleet` section, every gateway of the fleet shares one view of upstream health
// (@shr/fleet over Redis): one gateway seeing a server fail spares the others the call.
let fleet = null;
if (gateway.config.fleet) {
  let fleetPkg;
  try {
    fleetPkg = await import('@shr/fleet');
  } catch {
    await gateway.close();
    die(1, 'the config has a `fleet` section: install @shr/fleet next to @shr/mcp-gateway');
  }
  try {
    const bus = await fleetPkg.redisBus({ url: gateway.config.fleet.redis, namespace: gateway.config.fleet.namespace, onError: (e) => log('fleet_error', { error: e?.message ?? String(e) }) });
    fleet = await fleetPkg.joinFleet(gateway.router, bus, fleetSigning(gateway.config.fleet));
  } catch (e) {
    await gateway.close();
    die(1, `fleet: ${e?.code ? `${e.code}: ` : ''}${e?.message ?? e}`);
  }
}

/**
 * How this gateway signs its fleet's deltas. Secrets come from the environment, never the
 * config file: the fleet key (`SHR_FLEET_KEY`, HMAC-SHA256), or with `fleet.members` (the
 * public keys by origin) this gateway's own Ed25519 private key (`SHR_MEMBER_KEY`, a JWK).
 */
function fleetSigning(config) {
  if (!config.members) return { key: process.env.SHR_FLEET_KEY };
  const raw = process.env.SHR_MEMBER_KEY;
  if (raw === undefined || raw === '') return { members: config.members };
  try {
    return { members: config.members, memberKey: JSON.parse(raw) };
  } catch {
    throw new Error('SHR_MEMBER_KEY is not JSON: it must hold this gateway\'s private key as a JWK');
  }
}

let stopping = null;
const stop = (why) => {
  if (stopping) return stopping;
  log('stop', { why });
  // However the upstreams take it, the gateway is gone within 2 s (its exit kills what is left).
  setTimeout(() => process.exit(0), 1500).unref();
  stopping = (async () => {
    await fleet?.close().catch(() => {});
    await gateway.close().catch(() => {});
    process.exit(0);
  })();
  return stopping;
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGHUP', () => stop('SIGHUP'));

const port = args.http;
log('gateway_start', { pid: process.pid, transport: port === undefined ? 'stdio' : 'http', tools: gateway.routes.size });
if (port === undefined) {
  // The agent is gone when stdin ends, or when the gateway is orphaned (its parent died and
  // the pipe lives on in some other process).
  const transport = new AgentStdio({ maxBytes: gateway.config.maxMessageBytes, log, onend: () => stop('stdin closed') });
  await gateway.mcpServer().connect(transport);
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop('parent died');
  }, 250).unref();
} else {
  // The SDK's host check is Express middleware: its status().json() answer, on node:http.
  const checkHost = localhostHostValidation();
  const localHost = (req, res) => {
    let allowed = false;
    const reply = { status: (code) => ({ json: (body) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body)) }) };
    checkHost(req, reply, () => {
      allowed = true;
    });
    return allowed;
  };
  // Stateless streamable HTTP: a server and transport per request, one gateway (one health) for all.
  const http = createServer(async (req, res) => {
    // Only this machine's names: a page elsewhere cannot reach the gateway through DNS rebinding
    // (the MCP SDK's check, 403 with a JSON-RPC error otherwise).
    if (!localHost(req, res)) return undefined;
    if (req.url === '/metrics' && req.method === 'GET') {
      return res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(gateway.metrics());
    }
    if (!req.url.startsWith('/mcp')) return res.writeHead(404).end();
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
      log('http_error', { error: e?.message ?? String(e) });
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  http.listen(Number(port), '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}
