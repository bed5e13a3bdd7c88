// A real redis-server (Debian's, installed by scripts/setup) on a free loopback port with a temp
// dir and no persistence, started and stopped by the test that needs it. Every wait has a timeout.
// `conf` adds lines to its config file (e.g. `user` ACL lines, `requirepass`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

export async function startRedis({ port, conf = '' } = {}) {
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'shr-redis-'));
  const confFile = join(dir, 'redis.conf');
  writeFileSync(confFile, `${conf}\n`, { mode: 0o600 });
  let proc = null;
  const start = () =>
    new Promise((resolve, reject) => {
      proc = spawn('redis-server', [confFile, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
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
    /** Kills it as a crash would (no shutdown). */
    kill: () => stop('SIGKILL'),
    restart: start,
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
