// scripts/serve.mjs sends a file's brotli or gzip copy (scripts/compress-dist.mjs) to a client
// that accepts it, the file itself to one that does not, and never a copy that is not there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

const ROOT = new URL('../../', import.meta.url).pathname;

function get(url, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

test('compressed copies are sent to clients that accept them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shr-serve-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const text = 'export const x = 1;\n'.repeat(200);
  writeFileSync(join(dir, 'index.html'), '<!doctype html><p>hi</p>');
  writeFileSync(join(dir, 'app.js'), text);
  writeFileSync(join(dir, 'plain.css'), 'p { color: red }');
  execFileSync(process.execPath, [join(ROOT, 'scripts/compress-dist.mjs'), dir], { stdio: 'ignore' });
  assert.ok(existsSync(join(dir, 'app.js.br')) && existsSync(join(dir, 'app.js.gz')));
  rmSync(join(dir, 'plain.css.br'));
  rmSync(join(dir, 'plain.css.gz'));
  const server = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => server.kill());
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 10 s')), 10_000);
    createInterface({ input: server.stdout }).once('line', (l) => { clearTimeout(timer); resolve(l.trim()); });
  });
  const br = await get(`${url}app.js`, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(brotliDecompressSync(br.body).toString(), text);
  const gz = await get(`${url}app.js`, { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.body).toString(), text);
  const raw = await get(`${url}app.js`, {});
  assert.equal(raw.headers['content-encoding'], undefined);
  assert.equal(raw.body.toString(), text);
  const q = await get(`${url}app.js`, { 'accept-encoding': 'brotli, identity' });
  assert.equal(q.headers['content-encoding'], undefined, 'only the exact token br counts');
  const css = await get(`${url}plain.css`, { 'accept-encoding': 'br' });
  assert.equal(css.headers['content-encoding'], undefined, 'no copy, the file itself');
  assert.equal(css.body.toString(), 'p { color: red }');
});
