// The gateway's stdio framing, fed forged, split, oversized and malformed input: every line
// comes out whole or is reported as oversized with the id it carried; nothing is lost after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineReader, sniffId, sniffTailId } from '../../packages/mcp-gateway/src/framing.mjs';
import { classifyError, classifyResult } from '../../packages/mcp-gateway/src/classify.mjs';

function feed(chunks, max = 64) {
  const out = [];
  const r = new LineReader({ max, onLine: (l) => out.push(['line', l]), onOversize: (o) => out.push(['big', o]) });
  for (const c of chunks) r.push(Buffer.from(c));
  return out;
}

test('lines split anywhere come out whole; CRLF and blank lines are handled', () => {
  const text = '{"a":1}\r\n\n{"b":2}\n{"c":3}\n';
  for (let size = 1; size <= text.length; size += 1) {
    const chunks = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    assert.deepEqual(feed(chunks), [['line', '{"a":1}'], ['line', '{"b":2}'], ['line', '{"c":3}']], `chunks of ${size}`);
  }
  assert.deepEqual(feed(['{"a":1}']), [], 'no newline yet: nothing');
});

test('an oversized line is skipped to its newline, reported once with its id, and the next line is read', () => {
  const big = `{"jsonrpc":"2.0","id":7,"method":"x","params":{"p":"${'y'.repeat(500)}"}}`;
  for (const size of [1, 7, 64, 1000]) {
    const text = `${big}\n{"ok":true}\n`;
    const chunks = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    assert.deepEqual(feed(chunks), [['big', { bytes: big.length, id: 7 }], ['line', '{"ok":true}']], `chunks of ${size}`);
  }
  // A result: the SDK writes its id after the result.
  const result = `{"result":{"text":"${'z'.repeat(500)}"},"jsonrpc":"2.0","id":"r-9"}`;
  assert.deepEqual(feed([`${result}\n`]), [['big', { bytes: result.length, id: 'r-9' }]]);
  // No id to be found: reported with none.
  assert.deepEqual(feed([`${'q'.repeat(100)}\n`]), [['big', { bytes: 100, id: undefined }]]);
});

test('only a top-level id counts, whatever the nesting and strings say', () => {
  assert.equal(sniffId('{"params":{"id":1},"id":2,"x":"'), 2);
  assert.equal(sniffId('{"params":{"id":1},"x":"'), undefined);
  assert.equal(sniffId('{"a":"\\"id\\":5","id":"s"}'), 's');
  assert.equal(sniffId('{"a":["id",{"id":3}],"id":-4}'), -4);
  assert.equal(sniffId('{"id":{"forged":1}}'), undefined, 'an id that is not a number or string');
  assert.equal(sniffId('{"id":null}'), undefined);
  assert.equal(sniffId('not json at all'), undefined);
  assert.equal(sniffTailId('...}},"id":12}'), 12);
  assert.equal(sniffTailId('...{"id":12}}'), undefined, 'a nested id closing the message');
});

test('classification: MCP failures, input refusals and answers', () => {
  const isError = (text, sc) => ({ content: [{ type: 'text', text }], isError: true, ...(sc ? { structuredContent: sc } : {}) });
  assert.equal(classifyResult({ content: [] }).kind, 'answer');
  assert.equal(classifyResult(isError("ENOENT: no such file or directory, open '/x'")).kind, 'answer');
  assert.equal(classifyResult(isError("ENOENT: no such file or directory, open '/x'"), 'failure').kind, 'failure');
  assert.equal(classifyResult(isError('MCP error -32602: Input validation error: Invalid arguments for tool get-sum')).kind, 'input');
  assert.equal(classifyResult(isError('MCP error -32602: Input validation error'), 'failure').kind, 'input', 'bad input is never an outage');
  assert.equal(classifyResult(isError('no', { category: 'input' })).kind, 'input');
  const policy = classifyResult(isError('suspended', { category: 'policy', agent_action: 'Ask.' }), 'failure');
  assert.deepEqual([policy.kind, policy.failure.category, policy.failure.agentAction], ['failure', 'policy', 'Ask.']);
  assert.equal(classifyError({ kind: 'refused', code: -32602, message: 'bad' }).kind, 'input');
  assert.equal(classifyError({ kind: 'refused', code: -32603, message: 'internal' }).failure.category, 'service');
  assert.equal(classifyError({ kind: 'refused', code: -32070, message: 'result_too_large' }).kind, 'input');
  assert.equal(classifyError({ kind: 'timeout', message: 't' }).failure.transient, true);
  assert.equal(classifyError({ kind: 'broken', message: 'closed' }).failure.category, 'service');
  assert.equal(classifyError({ kind: 'down', message: 'down' }).failure.category, 'service');
  assert.equal(classifyError({ kind: 'cancelled', message: 'c' }).kind, 'cancelled');
});
