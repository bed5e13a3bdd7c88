// Newline-delimited JSON-RPC framing for stdio, with a size limit that never loses the stream:
// a line over the limit is skipped to its newline (never held whole in memory), and what it was
// is reported with the request id read from its first or last bytes, so the peer can be answered and the
// next message is read as usual. The SDK's own reader throws at 10 MiB and its transports then
// close: a gateway deaf to its agent, or an upstream taken for crashed over one large result.

export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
// The id of an oversized message is looked for in this many of its first bytes, then in its
// last ones (a result message has its id after the result).
const SNIFF_BYTES = 64 * 1024;
const TAIL_BYTES = 256;

/**
 * The top-level `"id"` of a JSON object cut short: a number or string, or `undefined` when the
 * prefix does not show it (it comes after a large field, or the text is not JSON). Only keys at
 * depth 1 count: an `"id"` inside `params` is not the message's.
 */
export function sniffId(prefix) {
  let depth = 0;
  let i = 0;
  const n = prefix.length;
  let expectKey = false;
  while (i < n) {
    const c = prefix[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && prefix[j] !== '"') j += prefix[j] === '\\' ? 2 : 1;
      if (j >= n) return undefined;
      const str = prefix.slice(i + 1, j);
      i = j + 1;
      if (depth === 1 && expectKey) {
        while (i < n && /\s/.test(prefix[i])) i += 1;
        if (prefix[i] !== ':') return undefined;
        i += 1;
        if (str !== 'id') {
          expectKey = false;
          continue;
        }
        while (i < n && /\s/.test(prefix[i])) i += 1;
        const m = prefix.slice(i, i + 200).match(/^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.){0,160}")\s*[,}]/);
        return m ? idOf(m[1]) : undefined;
      }
      continue;
    }
    if (c === '{' || c === '[') {
      depth += 1;
      expectKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') depth -= 1;
    else if (c === ',' && depth === 1) expectKey = true;
    i += 1;
  }
  return undefined;
}

/** The `"id"` closing a message (`..., "id": 3}`), as the SDK writes a result: after it. */
export function sniffTailId(tail) {
  const m = tail.match(/[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,160}")\s*}\s*$/);
  return m ? idOf(m[1]) : undefined;
}

/** A JSON-RPC id read from its JSON text: a number or a string, else `undefined`. */
function idOf(text) {
  try {
    const id = JSON.parse(text);
    return typeof id === 'number' || typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits a byte stream into lines of at most `max` bytes. `push(chunk)` calls `onLine(text)` for
 * each whole line and `onOversize({bytes, id})` once for each line over the limit, when its
 * newline arrives.
 */
export class LineReader {
  constructor({ max = MAX_MESSAGE_BYTES, onLine, onOversize }) {
    this.max = max;
    this.onLine = onLine;
    this.onOversize = onOversize;
    this.parts = [];
    this.size = 0;
    // While skipping an oversized line: its size so far and the start kept to read its id.
    this.skipping = null;
  }

  push(chunk) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.skipping) {
        this.skipping.bytes += piece.length;
        this.skipping.tail = Buffer.concat([this.skipping.tail, piece]).subarray(-TAIL_BYTES);
      } else if (this.size + piece.length > this.max) {
        const all = Buffer.concat([...this.parts, piece]);
        this.skipping = { bytes: this.size + piece.length, head: all.subarray(0, SNIFF_BYTES).toString('utf8'), tail: all.subarray(-TAIL_BYTES) };
        this.parts = [];
        this.size = 0;
      } else {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) break;
      start = nl + 1;
      if (this.skipping) {
        const { bytes, head, tail } = this.skipping;
        this.skipping = null;
        this.onOversize({ bytes, id: sniffId(head) ?? sniffTailId(tail.toString('utf8').replace(/\r$/, '')) });
      } else {
        const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
        this.parts = [];
        this.size = 0;
        if (line.trim()) this.onLine(line);
      }
    }
  }

  clear() {
    this.parts = [];
    this.size = 0;
    this.skipping = null;
  }
}
