// A small static server for the built page (dist/), bound to 127.0.0.1 only. Needs nothing but Node.
//   node scripts/serve.mjs --dir dist --port 8080     (--port 0 picks a free port)
// The first line of stdout is the URL, e.g. "http://127.0.0.1:41234/"; tests read it to find the port.
// A path that names no file gets index.html (the page keeps its state in the URL), except a path with a
// file extension (a missing .wasm or .js), which gets a 404 so a broken build fails loudly.
// A file with a brotli (.br) or gzip (.gz) copy next to it (scripts/compress-dist.mjs, run after
// every trunk build) is sent compressed to a browser that accepts it (Content-Encoding).
// A busy port exits 1 with a message naming it.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const usage = 'usage: node scripts/serve.mjs [--dir DIR] [--port N]';
const args = process.argv.slice(2);
const options = { dir: 'dist', port: '8080' };
for (let i = 0; i < args.length; i++) {
  const m = /^--(dir|port)(?:=(.*))?$/.exec(args[i]);
  if (args[i] === '-h' || args[i] === '--help') {
    console.log(usage);
    process.exit(0);
  } else if (m && m[2] !== undefined) {
    options[m[1]] = m[2];
  } else if (m && i + 1 < args.length) {
    options[m[1]] = args[++i];
  } else {
    console.error(`serve: unknown or incomplete argument '${args[i]}' (${usage})`);
    process.exit(2);
  }
}
const root = resolve(options.dir);
const port = /^\d+$/.test(options.port) ? Number(options.port) : NaN;
if (!Number.isInteger(port) || port > 65535) {
  console.error(`serve: --port must be a number from 0 to 65535, not '${options.port}'`);
  process.exit(2);
}

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};

async function isFile(path) {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

// The file for a URL path, or null. Never anything outside root.
async function lookup(pathname) {
  const wanted = normalize(join(root, pathname));
  if (wanted !== root && !wanted.startsWith(root + sep)) return null;
  if (await isFile(wanted)) return wanted;
  const index = join(wanted, 'index.html');
  if (await isFile(index)) return index;
  if (extname(wanted) === '' && (await isFile(join(root, 'index.html')))) return join(root, 'index.html');
  return null;
}

function send(res, status, type, body, head, extra = {}) {
  res.writeHead(status, { 'content-type': type, 'content-length': body.length, 'cache-control': 'no-store', ...extra });
  res.end(head ? undefined : body);
}

// The compressed copy of `path` the request accepts (brotli first), or null.
async function encoded(req, path) {
  const accepted = new Set(String(req.headers['accept-encoding'] ?? '').split(',').map((e) => e.split(';')[0].trim()));
  for (const [encoding, ext] of [['br', '.br'], ['gzip', '.gz']]) {
    if (accepted.has(encoding) && (await isFile(path + ext))) return { encoding, path: path + ext };
  }
  return null;
}

const server = createServer(async (req, res) => {
  const head = req.method === 'HEAD';
  try {
    if (req.method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, 'text/plain; charset=utf-8', Buffer.from('only GET and HEAD\n'), head);
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      return send(res, 400, 'text/plain; charset=utf-8', Buffer.from('bad URL\n'), head);
    }
    const path = await lookup(pathname);
    if (!path) {
      const hint = (await isFile(join(root, 'index.html'))) ? '' : ` (${root} has no index.html: did the build run?)`;
      return send(res, 404, 'text/plain; charset=utf-8', Buffer.from(`not found: ${pathname}${hint}\n`), head);
    }
    const type = types[extname(path).toLowerCase()] ?? 'application/octet-stream';
    const copy = await encoded(req, path);
    if (copy) {
      const body = await readFile(copy.path);
      return send(res, 200, type, body, head, { 'content-encoding': copy.encoding, vary: 'accept-encoding' });
    }
    const body = await readFile(path);
    send(res, 200, type, body, head, { vary: 'accept-encoding' });
  } catch (e) {
    if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', Buffer.from(`error: ${e.message}\n`), head);
    else res.destroy();
  }
});

server.on('error', (e) => {
  if (e.code === 'EADDRINUSE') {
    console.error(
      `serve: port ${port} on 127.0.0.1 is busy (another server is using it).\n` +
        `Pick another port: scripts/demo --port 8081, or PORT=8081 scripts/demo (--port 0 takes any free port).`,
    );
  } else if (e.code === 'EACCES') {
    console.error(`serve: not allowed to listen on port ${port}; pick another with --port N`);
  } else {
    console.error(`serve: ${e.message}`);
  }
  process.exit(1);
});

// Ctrl-C (and a test's kill) ends it quietly with status 0.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));

server.listen(port, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}/`);
  isFile(join(root, 'index.html')).then((ok) =>
    console.error(ok ? `serving ${root} (Ctrl-C stops)` : `serve: warning: ${root} has no index.html (did the build run?)`),
  );
});
