// Fuzzing the wasm boundary: seeded random calls of every exported method with random JS values
// (numbers, strings, nullish, objects, arrays, symbols, bigints, functions, getters that throw,
// proxies). Each call returns or throws an Error with a stable `code`; none traps the instance
// (a `WebAssembly.RuntimeError`), and the module still routes and runs afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, Session, refundGraph, okTools } from './helpers.mjs';

/** SplitMix-like 32-bit generator: the same seed, the same calls. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  };
}

function value(r, depth = 0) {
  const pick = Math.floor(r() * 18);
  switch (pick) {
    case 0: return undefined;
    case 1: return null;
    case 2: return Math.floor(r() * 10) - 3;
    case 3: return [NaN, Infinity, -Infinity, -0, 2 ** 53, 1e308, -1e308, 0.5][Math.floor(r() * 8)];
    case 4: return ['stripe', 'crm', 'start', 'done', 'ghost', '', '__proto__', 'constructor', 'toString'][Math.floor(r() * 9)];
    case 5: return 'x'.repeat(Math.floor(r() * 3) * 1000);
    case 6: return true;
    case 7: return Symbol('s');
    case 8: return BigInt(7);
    case 9: return () => value(r, depth + 1);
    case 10: return depth > 2 ? {} : { ok: value(r, depth + 1), latencyMs: value(r, depth + 1), latency_ms: value(r, depth + 1) };
    case 11: return depth > 2 ? [] : [value(r, depth + 1), value(r, depth + 1)];
    case 12: return { get ok() { throw new Error('getter'); } };
    case 13: return new Proxy({}, { get() { throw new Error('proxy'); }, ownKeys() { throw new Error('keys'); } });
    case 14: return { result: 'ok', output: value(r, depth + 1) };
    case 15: return { decision: ['approve', 'abort', 'demote', 'hand_off', 'shrug'][Math.floor(r() * 5)], goal: value(r, depth + 1) };
    case 16: return refundGraph();
    default: return { tools: okTools(), timeoutMs: value(r, depth + 1) };
  }
}

const ROUTER_CALLS = ['route', 'markDown', 'markUp', 'record', 'health', 'session', 'metrics', 'tools', 'toJson'];
const SESSION_CALLS = ['next', 'report', 'resolveEscalation', 'events', 'pollEvents', 'outcome', 'escalation'];

for (const seed of [20, 1, 3, 7]) test(`random calls with random values never trap the module (seed ${seed})`, async () => {
  const r = rng(seed);
  let calls = 0;
  const codes = new Map();
  const note = (e) => {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `trap: ${e?.stack ?? e}`);
    // A failed call is a ShrError with a code, whatever the value: every argument crosses as a
    // JS value and is checked in Rust (no TypeError from wasm-bindgen's glue, no proxy's own throw).
    const code = e?.code ?? e?.constructor?.name ?? typeof e;
    if (process.env.SHR_FUZZ_VERBOSE && !e?.code) console.log(code, e?.message);
    assert.ok(e instanceof Error && e.name === 'ShrError' && typeof e.code === 'string', `an error without a code: ${e?.stack ?? e}`);
    codes.set(code, (codes.get(code) ?? 0) + 1);
  };
  for (let round = 0; round < 40; round++) {
    let router;
    try {
      router = r() < 0.8 ? Router.fromJson(refundGraph()) : Router.fromJson(value(r), value(r));
    } catch (e) {
      note(e);
      continue;
    }
    const sessions = [];
    for (let i = 0; i < 60; i++) {
      calls += 1;
      try {
        if (sessions.length > 0 && r() < 0.4) {
          const s = sessions[Math.floor(r() * sessions.length)];
          const m = SESSION_CALLS[Math.floor(r() * SESSION_CALLS.length)];
          s[m](value(r), value(r), value(r));
        } else {
          const m = ROUTER_CALLS[Math.floor(r() * ROUTER_CALLS.length)];
          const out = router[m](value(r), value(r), value(r));
          if (out instanceof Session) sessions.push(out);
        }
      } catch (e) {
        note(e);
      }
    }
    // A run with hostile options settles: it resolves or rejects with a code, never traps.
    try {
      await Promise.race([
        router.run(value(r), value(r)),
        new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'test_timeout' })), 15_000)),
      ]);
    } catch (e) {
      note(e);
      assert.notEqual(e.code, 'test_timeout', 'a run with hostile options did not settle');
    }
    for (const s of sessions) s.free();
    router.free();
  }
  // The module still works.
  const fresh = Router.fromJson(refundGraph());
  assert.deepEqual(fresh.route().path, ['start', 'crm', 'stripe', 'email', 'done']);
  const { outcome } = await fresh.run(null, { tools: okTools() });
  assert.equal(outcome.status, 'completed');
  console.log(`${calls} calls; failures by code: ${JSON.stringify(Object.fromEntries(codes))}`);
});
