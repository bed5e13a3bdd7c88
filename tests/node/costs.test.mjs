// Learned costs from JavaScript (issue 47): shr-wasm's CostLearner over a Router. The opt-in
// adjustment moves a drifting tool's cost within bounds, past the hysteresis, as a CostAdjusted
// event, and the router's routes follow; bad input is a ShrError with a stable code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shr } from './helpers.mjs';

const graph = {
  nodes: [{ id: 's', tool: false }, { id: 'fast' }, { id: 'steady', base_cost: 1.5 }, { id: 'g', tool: false }],
  edges: [{ from: 's', to: 'fast' }, { from: 's', to: 'steady' }, { from: 'fast', to: 'g', cost: 0 }, { from: 'steady', to: 'g', cost: 0 }],
  start: 's',
  goal: 'g',
};

test('a drifting tool: suggested costs, then bounded changes as events, and the route follows', () => {
  const router = new shr.Router(graph);
  const learner = new shr.CostLearner(router, { halfLife: 10 });
  assert.deepEqual(router.route(null, null, 0).path, ['s', 'fast', 'g']);
  learner.setBounds('fast', { min: 0.5, max: 4 });
  const events = [];
  for (let i = 0; i < 300; i += 1) {
    learner.observe('fast', { ok: true, latencyMs: 100 + Math.min(i, 150) * 2 });
    learner.observe('steady', { ok: true, latencyMs: 150, price: 1.5 });
    events.push(...learner.adjust(i));
  }
  const [fast, steady] = learner.suggestedCosts();
  assert.equal(fast.tool, 'fast');
  assert.ok(fast.referenceMs >= 100 && fast.referenceMs < 115, `the EWMA at the 10th call: ${fast.referenceMs}`);
  assert.ok(fast.suggested > 3.5, JSON.stringify(fast));
  assert.equal(steady.suggested, 1.5);
  assert.ok(events.length >= 2);
  for (const e of events) {
    assert.equal(e.event, 'CostAdjusted');
    assert.equal(e.tool, 'fast');
    assert.ok(Math.abs(e.to - e.from) / e.from > 0.2, e.reason);
    assert.ok(e.to <= 4);
  }
  assert.deepEqual(router.route(null, null, 300).path, ['s', 'steady', 'g']);
  learner.free();
  router.free();
});

test('without bounds nothing moves; bad input is a ShrError with a code', () => {
  const router = new shr.Router(graph);
  const learner = new shr.CostLearner(router);
  for (let i = 0; i < 50; i += 1) learner.observe('fast', { ok: true, latencyMs: 100 * (i + 1) });
  assert.deepEqual(learner.adjust(0), []);
  const code = (f) => {
    try {
      f();
    } catch (e) {
      assert.equal(e.name, 'ShrError');
      return e.code;
    }
    return 'no error';
  };
  assert.equal(code(() => new shr.CostLearner(router, { halfLife: 0 })), 'bad_options');
  assert.equal(code(() => new shr.CostLearner(router, { half_life: 3 })), 'bad_options');
  assert.equal(code(() => learner.observe('nope', { ok: true })), 'unknown_tool');
  assert.equal(code(() => learner.observe('s', { ok: true })), 'unknown_tool'); // a waypoint
  assert.equal(code(() => learner.observe('fast', { ok: true, latencyMs: -1 })), 'bad_record');
  assert.equal(code(() => learner.observe('fast', { ok: true, latencyMs: Infinity })), 'bad_record');
  assert.equal(code(() => learner.observe('fast', { ok: 'yes' })), 'bad_record');
  assert.equal(code(() => learner.observe('fast', { ok: true, extra: 1 })), 'bad_record');
  assert.equal(code(() => learner.setBounds('fast', { min: 3, max: 1 })), 'bad_options');
  assert.equal(code(() => learner.setBounds('fast', { min: 0 })), 'bad_options');
  assert.equal(code(() => learner.adjust('soon')), 'bad_clock');
  learner.free();
  router.free();
});
