// Many runs through one router's driver at once, their tools settling in a seeded random order:
// at once with no promise, in a promise job, after a timer, by rejecting, or never (the call's
// timeout then ends it). Every run settles, each tool sees only its own run's context and the
// outputs of its own run's tools, and each outcome counts its own run's calls. Issue 48 gave the
// driver its own executor and one arming job per turn; this is what they must keep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, refundGraph } from './helpers.mjs';

/** xorshift32: a seeded stream of numbers in [0, 1). */
function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const RUNS = 300;

for (const seed of [1, 7, 48]) {
  test(`driver: ${RUNS} runs interleaved at random (seed ${seed}) settle, each with only its own data`, { timeout: 60_000 }, async () => {
    const r = Router.fromJson(refundGraph());
    const next = random(seed);
    const leaks = [];
    const calls = new Map();
    const tool = (name) => (input) => {
      const run = input.context.run;
      calls.set(run, (calls.get(run) ?? 0) + 1);
      for (const [from, v] of Object.entries(input.results)) {
        if (v === null || typeof v !== 'object' || v.run !== run) leaks.push(`${name} of run ${run} saw ${from}: ${JSON.stringify(v)}`);
      }
      const out = { run, tool: name };
      const x = next();
      if (x < 0.15) return out;
      if (x < 0.35) return Promise.resolve(out);
      if (x < 0.38) return Promise.reject(new Error('503'));
      if (x < 0.39) return new Promise(() => {});
      return new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 3), out));
    };
    const tools = Object.fromEntries(['crm', 'stripe', 'razorpay', 'email', 'sms'].map((t) => [t, tool(t)]));
    const started = Date.now();
    const settled = await Promise.allSettled(
      Array.from({ length: RUNS }, (_, run) => r.run({ context: { run } }, { tools, timeoutMs: 30 })),
    );
    const rejected = settled.filter((s) => s.status === 'rejected').map((s) => s.reason?.message);
    assert.deepEqual(rejected, [], 'every run resolves with an outcome');
    assert.deepEqual(leaks, [], "a tool sees only its own run's outputs");
    const statuses = {};
    settled.forEach(({ value: { outcome } }, run) => {
      statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
      assert.equal(outcome.toolCalls, calls.get(run) ?? 0, `run ${run}: its own calls`);
      if (outcome.status === 'completed') assert.equal(outcome.path.at(-1), 'done');
    });
    assert.ok(statuses.completed > 0, JSON.stringify(statuses));
    assert.match(r.metrics(), new RegExp(`shr_runs_finished_total\\{status="completed"\\} ${statuses.completed}\\n`));
    console.log(`# seed ${seed}: ${JSON.stringify(statuses)} in ${Date.now() - started} ms, ${[...calls.values()].reduce((a, b) => a + b, 0)} calls`);
  });
}

test('driver: a router freed while 50 runs are out, and 50 runs rejected: all settle, and later runs go on', async () => {
  // A run keeps what it drives: freeing the router's JS handle ends no run, and a run that
  // rejects (bad options) gives its place in the executor back like one that resolves.
  const r = Router.fromJson(refundGraph());
  const slow = (name) => () => new Promise((resolve) => setTimeout(resolve, 5, { tool: name }));
  const tools = Object.fromEntries(['crm', 'stripe', 'razorpay', 'email', 'sms'].map((t) => [t, slow(t)]));
  const out = Array.from({ length: 50 }, () => r.run(null, { tools }));
  const bad = Promise.allSettled(Array.from({ length: 50 }, () => r.run(null, { tools, timeoutMs: -1 })));
  r.free();
  const runs = await Promise.allSettled(out);
  assert.deepEqual(runs.map((s) => s.status === 'fulfilled' && s.value.outcome.status), Array(50).fill('completed'));
  const rejected = await bad;
  assert.deepEqual(rejected.map((s) => s.status === 'rejected' && s.reason.code), Array(50).fill('bad_options'));
  const next = Router.fromJson(refundGraph());
  const after = await Promise.all(Array.from({ length: 20 }, () => next.run(null, { tools })));
  assert.ok(after.every(({ outcome }) => outcome.status === 'completed'));
});
