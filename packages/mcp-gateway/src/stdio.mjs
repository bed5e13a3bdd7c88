// The gateway's two stdio transports (the MCP SDK's Transport interface: start, send, close,
// onmessage, onerror, onclose), framed by ./framing.mjs so that no message size closes them:
// - AgentStdio: the agent's side (stdin/stdout). A message over the limit is answered with a
//   JSON-RPC error and the session goes on; a line that is not JSON-RPC gets -32700 / -32600.
//   stdin's end is the agent gone: `onend` says so.
// - UpstreamStdio: an upstream server as a child process. A result over the limit becomes a
//   JSON-RPC error response to its request (`result_too_large`): the server is fine, the answer
//   is too big. Its exit (code, signal) is kept for the logs; close() ends it within ~1.5 s
//   (stdin closed, then SIGTERM, then SIGKILL), and a gateway exiting kills what is left.
import { spawn } from 'node:child_process';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { LineReader, MAX_MESSAGE_BYTES, sniffId } from './framing.mjs';

/** The gateway's own JSON-RPC error code (server error range; the SDK uses -32000..-32042). */
export const RESULT_TOO_LARGE = -32070;
const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;

function parse(line) {
  let json;
  try {
    json = JSON.parse(line);
  } catch (e) {
    return { error: { code: PARSE_ERROR, message: `not JSON: ${e.message}` } };
  }
  const m = JSONRPCMessageSchema.safeParse(json);
  if (!m.success) return { error: { code: INVALID_REQUEST, message: 'not a JSON-RPC 2.0 message' }, id: json?.id };
  return { message: m.data };
}

const write = (stream, message) =>
  new Promise((resolve, reject) => {
    if (!stream.writable) return reject(new Error('the stream is closed'));
    if (stream.write(`${JSON.stringify(message)}\n`)) resolve();
    else stream.once('drain', resolve);
  });

export class AgentStdio {
  constructor({ stdin = process.stdin, stdout = process.stdout, maxBytes = MAX_MESSAGE_BYTES, onend = () => {}, log = () => {} } = {}) {
    Object.assign(this, { stdin, stdout, maxBytes, onend, log });
    this.reader = new LineReader({
      max: maxBytes,
      onLine: (line) => {
        const { message, error, id } = parse(line);
        if (message) return this.onmessage?.(message);
        const sniffed = id ?? sniffId(line.slice(0, 65536));
        this.#refuse(typeof sniffed === 'string' || typeof sniffed === 'number' ? sniffed : null, error);
      },
      onOversize: ({ bytes, id }) => {
        this.log('message_too_large', { bytes, limit: maxBytes, id: id ?? null });
        this.#refuse(id ?? null, {
          code: INVALID_REQUEST,
          message: `message_too_large: a message of ${bytes} bytes is over the gateway's limit of ${maxBytes} bytes`,
          data: { error: 'message_too_large', bytes, limit: maxBytes },
        });
      },
    });
    this.ondata = (chunk) => this.reader.push(chunk);
    this.onstdinend = () => this.onend();
    this.onstreamerror = (e) => this.onerror?.(e);
  }

  #refuse(id, error) {
    this.send({ jsonrpc: '2.0', id, error }).catch(() => {});
  }

  async start() {
    this.stdin.on('data', this.ondata);
    this.stdin.on('end', this.onstdinend);
    this.stdin.on('error', this.onstreamerror);
    this.stdout.on('error', this.onstreamerror);
  }

  send(message) {
    return write(this.stdout, message);
  }

  async close() {
    this.stdin.off('data', this.ondata);
    this.stdin.off('end', this.onstdinend);
    this.stdin.off('error', this.onstreamerror);
    this.stdin.pause();
    this.reader.clear();
    this.onclose?.();
  }
}

// Every upstream child alive: a gateway that exits, however, does not leave them behind.
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export class UpstreamStdio {
  constructor({ command, args = [], env, cwd, maxBytes = MAX_MESSAGE_BYTES, onstderr = () => {} }) {
    Object.assign(this, { command, args, env, cwd, maxBytes, onstderr });
    this.child = null;
    this.exit = null;
    this.reader = new LineReader({
      max: maxBytes,
      onLine: (line) => {
        const { message, error } = parse(line);
        if (message) this.onmessage?.(message);
        else this.onerror?.(new Error(`upstream sent ${error.message}`));
      },
      onOversize: ({ bytes, id }) => {
        const error = new Error(`result_too_large: an answer of ${bytes} bytes is over the gateway's limit of ${maxBytes} bytes`);
        if (id === undefined) return this.onerror?.(error);
        this.onmessage?.({ jsonrpc: '2.0', id, error: { code: RESULT_TOO_LARGE, message: error.message, data: { error: 'result_too_large', bytes, limit: maxBytes } } });
      },
    });
  }

  get pid() {
    return this.child?.pid ?? null;
  }

  start() {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, this.args, { env: this.env, cwd: this.cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
      this.child = child;
      child.once('error', (e) => {
        children.delete(child);
        reject(e);
        this.onerror?.(e);
      });
      child.once('spawn', () => {
        children.add(child);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.exit = { code, signal, pid: child.pid };
      });
      child.once('close', () => {
        children.delete(child);
        this.child = null;
        this.onclose?.();
      });
      child.stdin.on('error', (e) => this.onerror?.(e));
      child.stdout.on('data', (chunk) => this.reader.push(chunk));
      let tail = '';
      child.stderr.on('data', (chunk) => {
        const lines = (tail + chunk.toString('utf8')).split('\n');
        tail = lines.pop().slice(-4096);
        for (const l of lines) if (l.trim()) this.onstderr(l.slice(0, 2000));
      });
    });
  }

  send(message) {
    if (!this.child) return Promise.reject(new Error('the upstream process is not running'));
    return write(this.child.stdin, message);
  }

  /** Ends the child: stdin closed at once, SIGTERM after 300 ms, SIGKILL after 1.2 s. */
  async close() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    const within = (ms) => Promise.race([closed, new Promise((r) => setTimeout(r, ms).unref())]);
    child.stdin.end();
    await within(300);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await within(900);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await within(500);
  }
}
