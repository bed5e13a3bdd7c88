// The low-level Session of the wasm package, driven by hand: next, report, resolveEscalation,
// events, outcome. Split from api.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, symlinkSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { shr, PKG, Router, Session, VirtualTime, refundGraph, okTools, names, expectCode } from './helpers.mjs';

test('Session: the core loop driven by hand', async () => {
  const r = Router.fromJson(refundGraph());
  const s = r.session({ context: {} }, 0);
  assert.ok(s instanceof Session);
  assert.equal(s.isFinished, false);
  assert.equal(s.escalation(), null);
  assert.equal(s.outcome(), null);
  let a = s.next(0);
  const crm = { tool: 'crm', attempt: 1, notBefore: 0, delayMs: 0, callId: 'run-1:crm:1', timeoutMs: 10000 };
  assert.deepEqual(a, { action: 'call_tools', calls: [crm] });
  assert.deepEqual(s.next(1), { action: 'wait' });
  await expectCode(() => s.report('stripe', { result: 'ok' }, 2), 'not_in_flight', assert);
  await expectCode(() => s.report('crm', { result: 'maybe' }, 2), 'bad_result', assert);
  await expectCode(() => s.report('ghost', { result: 'ok' }, 2), 'unknown_tool', assert);
  await expectCode(() => s.resolveEscalation({ decision: 'approve' }, 2), 'no_escalation', assert);
  await expectCode(() => s.next(-5), 'bad_clock', assert);
  s.report('crm', { result: 'ok', output: { customer: 'c' }, latencyMs: 10 }, 10);
  a = s.next(10);
  assert.equal(a.calls[0].tool, 'stripe');
  s.report('stripe', { result: 'err', category: 'service', message: 'down' }, 20);
  a = s.next(20);
  assert.equal(a.calls[0].tool, 'razorpay');
  s.report('razorpay', { result: 'ok', latencyMs: 3 }, 30);
  a = s.next(30);
  s.report(a.calls[0].tool, { result: 'ok' }, 40);
  a = s.next(40);
  assert.equal(a.action, 'finished');
  assert.equal(s.isFinished, true);
  assert.deepEqual(s.outcome(), a.outcome);
  const all = s.events();
  assert.equal(all.at(-1).event, 'Finished');
  assert.deepEqual(s.events(all.length - 2), all.slice(-2));
  await expectCode(() => s.report('email', { result: 'ok' }, 50), 'finished', assert);
  // Events taken with pollEvents are gone from the session.
  assert.equal(s.pollEvents().length, all.length);
  assert.deepEqual(s.events(), []);
  s.free();
  // A session runs on the router's one live health: what it reported, the router knows.
  assert.equal(r.health('stripe', 50).state, 'open');
  await expectCode(() => r.session({ goal: 'nowhere' }), 'bad_task', assert);
});

test('Session: escalations and decisions by hand', async () => {
  const r = Router.fromJson(refundGraph());
  r.markDown('stripe', 0);
  r.markDown('razorpay', 0);
  const s = r.session(undefined, 0);
  const a = s.next(0);
  assert.equal(a.action, 'escalate');
  assert.equal(a.request.reason, 'no_path');
  assert.deepEqual(s.escalation(), a.request);
  await expectCode(() => s.resolveEscalation({ decision: 'demote', goal: 'atlantis' }, 1), 'bad_decision', assert);
  await expectCode(() => s.resolveEscalation({ decision: 'shrug' }, 1), 'bad_decision', assert);
  await expectCode(() => s.resolveEscalation('approve', 1), 'bad_decision', assert);
  s.resolveEscalation({ decision: 'hand_off', to: 'support team' }, 1);
  assert.equal(s.next(1).outcome.message, 'handed off to support team');
});
