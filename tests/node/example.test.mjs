// examples/js-agent runs as a user would run it (a child process, one command) and reroutes
// the refund through razorpay when stripe throws; the crate README's example runs as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, mkdirSync, symlinkSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG } from './helpers.mjs'; // fails early, with the fix, when the package is not built

const REPO = fileURLToPath(new URL('../../', import.meta.url));

test('examples/js-agent reroutes the refund through razorpay and exits 0', () => {
  const run = spawnSync(process.execPath, ['examples/js-agent/agent.mjs'], { cwd: REPO, encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
  assert.equal(run.stderr, '');
  const lines = run.stdout.trim().split('\n');
  const line = (event, pattern) => {
    const i = lines.findIndex((l) => l.includes(` ${event} `) && pattern.test(l));
    assert.ok(i >= 0, `no ${event} line matching ${pattern} in:\n${run.stdout}`);
    return i;
  };
  const planned = line('PathPlanned', /start -> lookup_order -> stripe -> email -> done/);
  // A thrown error is transient: retried once (the default policy), then routed around.
  const failed = line('ToolFailed', /stripe: service, transient: stripe: 503 Service Unavailable/);
  line('Retried', /stripe attempt 2 after \d+ ms/);
  const rerouted = line('Rerouted', /around stripe: lookup_order -> razorpay -> email -> done \(cost 3\)/);
  const paid = line('ToolSucceeded', /razorpay in \d+ ms/);
  assert.ok(planned < failed && failed < rerouted && rerouted < paid, 'plan, failure, reroute, backup paid, in order');
  assert.ok(!lines.some((l) => / ToolCalled +sms /.test(l)), 'email stays the notifier');
  assert.equal(
    lines.at(-1),
    'outcome: completed via start -> lookup_order -> razorpay -> email -> done (5 tool calls, 1 reroute(s), 0 LLM calls)',
  );
});

test('examples/js-agent serves its router metrics over HTTP on --metrics', async () => {
  const { spawn } = await import('node:child_process');
  const agent = spawn(process.execPath, ['examples/js-agent/agent.mjs', '--metrics', '0', '--serve-ms', '20000'], { cwd: REPO });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no metrics line in:\n${out}`)), 20_000);
      agent.stdout.on('data', (d) => {
        out += d;
        const m = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      agent.on('exit', (c) => reject(new Error(`agent exited ${c}:\n${out}`)));
    });
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /text\/plain/);
    const text = await res.text();
    assert.match(text, /# TYPE shr_tool_calls_total counter/);
    assert.match(text, /shr_tool_failures_total\{tool="stripe"\} 2\n/, 'a thrown 503 and its retry');
    assert.match(text, /shr_breaker_state\{tool="stripe"\} 2\n/);
    assert.match(text, /shr_runs_finished_total\{status="completed"\} 1\n/);
    assert.match(text, /shr_tool_call_duration_seconds_bucket\{tool="razorpay",le="\+Inf"\} 1\n/);
  } finally {
    agent.kill('SIGTERM');
  }
});

test('the JS example in crates/wasm/README.md runs as written', () => {
  const readme = readFileSync(join(REPO, 'crates/wasm/README.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(readme)[1];
  assert.ok(code.split('\n').length <= 16, 'about 15 lines');
  // Installed as a user would have it: `shr-wasm` resolved from node_modules.
  const dir = mkdtempSync(join(tmpdir(), 'shr-readme-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PKG, join(dir, 'node_modules', 'shr-wasm'), 'dir');
  writeFileSync(join(dir, 'example.mjs'), code);
  const run = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.ok(lines.includes('ToolFailed stripe'), run.stdout);
  assert.equal(lines.at(-1), 'completed start -> razorpay -> email -> done');
});
