// One upstream MCP server: an SDK client over stdio (a command the gateway starts, framed by
// ./stdio.mjs) or streamable HTTP (a URL). A server that crashes or disconnects is restarted with
// exponential backoff; calls made meanwhile fail at once (the router routes around them). The
// backoff starts over only once a restarted server has answered, so a server that dies as soon
// as it is up is not restarted ten times a second forever. Every start, exit and restart is a
// structured log line (`log(event, fields)`).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UpstreamStdio } from './stdio.mjs';

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
const MAX_TOOL_PAGES = 100;
const VERSION = '0.1.0';

export class Upstream {
  constructor(spec, { timeoutMs, maxBytes, log = () => {} }) {
    this.spec = spec;
    this.timeoutMs = timeoutMs;
    this.maxBytes = maxBytes;
    this.log = log;
    this.client = null;
    this.transport = null;
    this.tools = new Map();
    this.capabilities = {};
    this.restarts = 0;
    this.failures = 0;
    this.closed = false;
    this.ready = null;
    this.timer = null;
  }

  get name() {
    return this.spec.name;
  }

  get pid() {
    return this.transport?.pid ?? null;
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
    const server = spec.name;
    const transport = spec.command
      ? new UpstreamStdio({
          command: spec.command,
          args: spec.args,
          env: { ...process.env, ...(spec.env ?? {}) },
          maxBytes: this.maxBytes,
          onstderr: (line) => this.log('upstream_stderr', { server, line }),
        })
      : new StreamableHTTPClientTransport(new URL(spec.url));
    this.pending = transport;
    const client = new Client({ name: 'shr-mcp-gateway', version: VERSION });
    client.onerror = (e) => this.log('upstream_error', { server, error: e?.message ?? String(e) });
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = null;
      this.transport = null;
      const exit = transport.exit ?? null;
      this.log('upstream_crash', { server, pid: transport.pid ?? exit?.pid ?? null, ...(exit ? { code: exit.code, signal: exit.signal } : { reason: 'connection closed' }) });
      this.#restartLater();
    };
    try {
      // Starting a server (a process, its imports) can take longer than answering a call.
      const timeout = Math.max(this.timeoutMs, CONNECT_TIMEOUT_MS);
      await client.connect(transport, { timeout });
      // Every page of the list (a server may page it), at most MAX_TOOL_PAGES.
      let { tools, nextCursor } = await client.listTools(undefined, { timeout });
      for (let page = 1; nextCursor && page < MAX_TOOL_PAGES; page += 1) {
        const next = await client.listTools({ cursor: nextCursor }, { timeout });
        tools = tools.concat(next.tools);
        nextCursor = next.nextCursor;
      }
      if (this.closed) {
        // Closed while connecting: do not leave the child process behind.
        await client.close().catch(() => {});
        return false;
      }
      this.tools = new Map(tools.map((t) => [t.name, t]));
      this.capabilities = client.getServerCapabilities() ?? {};
      this.client = client;
      this.transport = transport;
      this.log(this.restarts ? 'upstream_restarted' : 'upstream_start', { server, pid: transport.pid ?? null, tools: tools.length, restarts: this.restarts });
      return true;
    } catch (e) {
      this.log('upstream_connect_failed', { server, error: e?.message ?? String(e) });
      client.close().catch(() => {});
      this.#restartLater();
      return false;
    } finally {
      if (this.pending === transport) this.pending = null;
    }
  }

  #restartLater() {
    if (this.closed || this.timer) return;
    const wait = Math.min(100 * 2 ** this.failures, 5000);
    this.failures += 1;
    this.log('upstream_restart', { server: this.name, in_ms: wait, attempt: this.failures });
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

  /**
   * Calls a tool; throws (an Error with `kind`: down, timeout, refused, broken, cancelled) when
   * the server is down, the call times out, is cancelled or the transport fails. A timeout or a
   * cancel (`signal`) sends `notifications/cancelled` to the server (the SDK does).
   */
  async call(tool, args, { signal, onprogress } = {}) {
    return this.#request(tool, (client) =>
      client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.timeoutMs, signal, ...(onprogress ? { onprogress } : {}) }), signal);
  }

  /** MCP `ping`: resolves when the server answers within `timeoutMs`. */
  async ping(timeoutMs = this.timeoutMs) {
    const client = this.client;
    if (!client) throw Object.assign(new Error(`${this.name} is down (restarting)`), { kind: 'down' });
    await client.ping({ timeout: timeoutMs });
  }

  /** Any other request (resources, prompts), with the call's time limit. */
  async request(what, run, signal) {
    return this.#request(what, run, signal);
  }

  async #request(what, run, signal) {
    const client = this.client;
    if (!client) throw Object.assign(new Error(`${this.name} is down (restarting)`), { kind: 'down' });
    try {
      const result = await run(client);
      this.failures = 0;
      return result;
    } catch (e) {
      if (signal?.aborted) throw Object.assign(new Error(`${this.name}/${what}: cancelled`), { kind: 'cancelled' });
      const kind = failureKind(e);
      if (kind === 'refused') this.failures = 0;
      if (kind === 'broken' && this.client === client) {
        // A broken transport (an HTTP server gone, a session it forgot) never closes by itself
        // the way a dead stdio child does: drop it and reconnect with backoff.
        this.client = null;
        this.transport = null;
        this.log('upstream_crash', { server: this.name, reason: e?.message ?? String(e) });
        client.close().catch(() => {});
        this.#restartLater();
      }
      throw Object.assign(new Error(`${this.name}/${what}: ${e?.message ?? e}`), { kind, code: e?.code });
    }
  }

  async close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = null;
    const c = this.client;
    this.client = null;
    this.transport = null;
    // A connect in flight: its transport (a child starting) is ended too.
    await Promise.all([c?.close().catch(() => {}), this.pending?.close().catch(() => {})]);
    await this.ready?.catch(() => {});
  }
}
