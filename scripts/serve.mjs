// A small static server for the built page (dist/), bound to 127.0.0.1 only.
// node scripts/serve.mjs --dir dist --port 8080   (--port 0 picks a free port)
// Prints the URL as the first line of stdout.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const root = resolve(opt('--dir', 'dist'));
const port = Number(opt('--port', '8080'));
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`serve: --port must be a number from 0 to 65535, not '${opt('--port')}'`);
  process.exit(2);
}

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

async function file(path) {
  try {
    const s = await stat(path);
    return s.isFile() ? path : null;
  } catch {
    return null;
  }
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const wanted = normalize(join(root, decodeURIComponent(url.pathname)));
  // Never serve outside the root; unknown paths get the page (client-side state lives in the URL).
  let path = wanted.startsWith(root + sep) || wanted === root ? await file(wanted) : null;
  path ??= await file(join(root, 'index.html'));
  if (!path) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`not found: ${url.pathname} (did the build run? ${root} has no index.html)\n`);
    return;
  }
  const body = await readFile(path);
  res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
  res.end(body);
});

server.on('error', (e) => {
  if (e.code === 'EADDRINUSE') {
    console.error(`serve: port ${port} on 127.0.0.1 is busy; pick another with --port N (e.g. scripts/demo --port 8081)`);
  } else {
    console.error(`serve: ${e.message}`);
  }
  process.exit(1);
});

server.listen(port, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}/`);
});
