// One upstream MCP server: an SDK client over stdio (a command the gateway starts) or streamable
// HTTP (a URL). A server that crashes or disconnects is restarted with exponential backoff;
// calls made meanwhile fail at once (the router routes around them). The backoff starts over
// only once a restarted server has answered a call, so a server that dies as soon as it is up
// is not restarted ten times a second forever.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * What a failed call says of the upstream: `timeout` (no answer in time; the server may be
 * fine), `refused` (the server answered with a JSON-RPC error: its transport works), or
 * `broken` (the connection closed or the transport failed: reconnect).
 */
export function failureKind(e) {
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) return 'timeout';
  if (e instanceof McpError && e.code !== ErrorCode.ConnectionClosed) return 'refused';
  return 'broken';
}

const CONNECT_TIMEOUT_MS = 10_000;

export class Upstream {
  constructor(spec, { timeoutMs, log = () => {} }) {
    this.spec = spec;
    this.timeoutMs = timeoutMs;
    this.log = log;
    this.client = null;
    this.tools = new Map();
    this.restarts = 0;
    this.failures = 0;
    this.closed = false;
    this.ready = null;
  }

  /** Connects (once at a time); resolves true when up, false when it could not (a retry is scheduled). */
  connect() {
    if (this.ready) return this.ready;
    this.ready = this.#connect().finally(() => {
      this.ready = null;
    });
    return this.ready;
  }

  async #connect() {
    const { spec } = this;
    const transport = spec.command
      ? new StdioClientTransport({ command: spec.command, args: spec.args, env: { ...process.env, ...(spec.env ?? {}) }, stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(spec.url));
    const client = new Client({ name: 'shr-mcp-gateway', version: '0.1.0' });
    client.onerror = (e) => this.log(`${spec.name}: ${e?.message ?? e}`);
    client.onclose = () => {
      if (this.client === client) {
        this.client = null;
        this.#restartLater();
      }
    };
    try {
      // Starting a server (a process, its imports) can take longer than answering a call.
      const timeout = Math.max(this.timeoutMs, CONNECT_TIMEOUT_MS);
      await client.connect(transport, { timeout });
      const { tools } = await client.listTools(undefined, { timeout });
      if (this.closed) {
        // Closed while connecting: do not leave the child process behind.
        await client.close().catch(() => {});
        return false;
      }
      this.tools = new Map(tools.map((t) => [t.name, t]));
      this.client = client;
      return true;
    } catch (e) {
      this.log(`${spec.name}: could not connect: ${e?.message ?? e}`);
      client.close().catch(() => {});
      this.#restartLater();
      return false;
    }
  }

  #restartLater() {
    if (this.closed || this.timer) return;
    const wait = Math.min(100 * 2 ** this.failures, 5000);
    this.failures += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.restarts += 1;
      this.connect();
    }, wait);
    this.timer.unref?.();
  }

  get up() {
    return this.client !== null;
  }

  /** Calls a tool; throws when the server is down, the call times out or the transport fails. */
  async call(tool, args) {
    const client = this.client;
    if (!client) throw Object.assign(new Error(`${this.spec.name} is down (restarting)`), { kind: 'down' });
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.timeoutMs });
      this.failures = 0;
      return result;
    } catch (e) {
      const kind = failureKind(e);
      if (kind === 'broken' && this.client === client) {
        // A broken transport (an HTTP server gone, a session it forgot) never closes by itself
        // the way a dead stdio child does: drop it and reconnect with backoff.
        this.client = null;
        client.close().catch(() => {});
        this.#restartLater();
      }
      throw Object.assign(new Error(`${this.spec.name}/${tool}: ${e?.message ?? e}`), { kind, code: e?.code });
    }
  }

  async close() {
    this.closed = true;
    clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    await c?.close().catch(() => {});
  }
}
