// A real redis-server (Debian's, installed by scripts/setup) on a free loopback port with a temp
// dir and no persistence, started and stopped by the test that needs it. Every wait has a timeout.
// `conf` adds lines to its config file (e.g. `user` ACL lines, `requirepass`).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A CA and a server certificate for 127.0.0.1 in `dir`, made with openssl (10 s at most each). */
function makeCerts(dir) {
  const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore', timeout: 10_000 });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=shr-test-ca');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'ext.cnf');
  return readFileSync(join(dir, 'ca.crt'));
}

/** `tls: true` also serves TLS on `tlsPort` (certificates made with openssl): `tlsUrl`, `ca`. */
export async function startRedis({ port, conf = '', tls = false } = {}) {
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'shr-redis-'));
  const confFile = join(dir, 'redis.conf');
  writeFileSync(confFile, `${conf}\n`, { mode: 0o600 });
  const tlsPort = tls ? await freePort() : null;
  const ca = tls ? makeCerts(dir) : null;
  const tlsArgs = tls
    ? ['--tls-port', String(tlsPort), '--tls-cert-file', join(dir, 'server.crt'), '--tls-key-file', join(dir, 'server.key'),
      '--tls-ca-cert-file', join(dir, 'ca.crt'), '--tls-auth-clients', 'no']
    : [];
  let proc = null;
  const start = () =>
    new Promise((resolve, reject) => {
      proc = spawn('redis-server', [confFile, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...tlsArgs], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start in 10 s:\n${out}`)), 10_000);
      proc.stdout.on('data', (d) => {
        out += d;
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${out}`));
      });
    });
  const stop = (signal = 'SIGTERM') =>
    new Promise((resolve) => {
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
      }, 5_000);
      proc.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      proc.kill(signal);
    });
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    tlsUrl: tls ? `rediss://127.0.0.1:${tlsPort}` : null,
    ca,
    /** Kills it as a crash would (no shutdown). */
    kill: () => stop('SIGKILL'),
    restart: start,
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
