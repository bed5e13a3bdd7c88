// Shared by the Node tests: the wasm package (Node build), a virtual clock, a refund graph.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const PKG = fileURLToPath(new URL('../../crates/wasm/pkg/', import.meta.url));
if (!existsSync(`${PKG}node/shr_wasm.js`)) {
  throw new Error(`${PKG}node/shr_wasm.js is missing: run scripts/build-wasm-pkg first`);
}
export const shr = require(`${PKG}node/shr_wasm.js`);
export const { Router, Session } = shr;

/**
 * Virtual time: `clock()` reads it, `sleep(ms)` resolves when it reaches now + ms. `drive(p)`
 * runs a promise to the end, advancing time to the next timer only when nothing else can run
 * (all microtasks drained), so a run is a deterministic discrete-event simulation.
 */
export class VirtualTime {
  constructor(start = 0) {
    this.now = start;
    this.timers = [];
    this.seq = 0;
    this.clock = () => this.now;
    this.sleep = (ms) =>
      new Promise((resolve) => this.timers.push({ at: this.now + ms, seq: this.seq++, resolve }));
  }

  async drive(promise) {
    let done = false;
    promise.then(() => { done = true; }, () => { done = true; });
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (done) return promise;
      if (this.timers.length === 0) {
        // Waiting on something real (e.g. a real timeout): let real time pass.
        await new Promise((r) => setTimeout(r, 1));
        continue;
      }
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const t = this.timers.shift();
      this.now = Math.max(this.now, t.at);
      t.resolve();
    }
  }
}

/** start -> crm -> stripe|razorpay -> email|sms -> done; primary edges cost 1, backups 2. */
export const refundGraph = () => ({
  name: 'refund',
  nodes: [
    { id: 'start', tool: false },
    { id: 'crm', stage: 'lookup' },
    { id: 'stripe', stage: 'payment' },
    { id: 'razorpay', stage: 'payment' },
    { id: 'email', stage: 'notify' },
    { id: 'sms', stage: 'notify' },
    { id: 'done', tool: false },
  ],
  edges: [
    { from: 'start', to: 'crm', cost: 1 },
    { from: 'crm', to: 'stripe', cost: 1 },
    { from: 'crm', to: 'razorpay', cost: 2 },
    { from: 'stripe', to: 'email', cost: 1 },
    { from: 'stripe', to: 'sms', cost: 2 },
    { from: 'razorpay', to: 'email', cost: 1 },
    { from: 'razorpay', to: 'sms', cost: 2 },
    { from: 'email', to: 'done', cost: 0 },
    { from: 'sms', to: 'done', cost: 0 },
  ],
  start: 'start',
  goal: 'done',
});

/** Tools that all succeed with `{tool, ok: true}`, overridable one by one. */
export const okTools = (over = {}) => ({
  crm: async () => ({ customer: 'c_42', ok: true }),
  stripe: async () => ({ refund: 'rf_1', ok: true }),
  razorpay: async () => ({ refund: 'rp_1', ok: true }),
  email: async () => ({ sent: true }),
  sms: async () => ({ sent: true }),
  ...over,
});

/** Event names in order. */
export const names = (events) => events.map((e) => e.event);

/** Asserts a call throws/rejects a ShrError with this code; returns the error. */
export async function expectCode(fn, code, assert) {
  let err;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected a ShrError with code ${code}, nothing was thrown`);
  assert.ok(err instanceof Error, `expected an Error, got ${typeof err}`);
  assert.equal(err.name, 'ShrError');
  assert.equal(err.code, code, `code ${err.code}: ${err.message}`);
  return err;
}

/** Resolves after `ms` of real time. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until `ok()` holds, looking every 5 ms; throws naming `what` after `ms`. */
export async function until(what, ok, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${ms} ms)`);
    await sleep(5);
  }
}
