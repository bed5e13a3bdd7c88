// Shared mock tools for the fleet example: one HTTP server every agent process calls. A tool
// can be made to fail (503, transient) and to recover; every call is logged with its time.
import { createServer } from 'node:http';

export function startMockTools() {
  const failing = new Set();
  const log = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const tool = url.pathname.split('/').pop();
    if (url.pathname.startsWith('/call/')) {
      const ok = !failing.has(tool);
      log.push({ tool, at: Date.now(), ok, agent: url.searchParams.get('agent'), probe: url.searchParams.has('probe') });
      setTimeout(() => {
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ok ? { ok: true, tool } : { error: `${tool}: 503 Service Unavailable` }));
      }, 5);
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        log,
        fail: (tool) => failing.add(tool),
        recover: (tool) => failing.delete(tool),
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}
