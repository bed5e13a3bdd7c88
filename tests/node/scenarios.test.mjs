// A JS-driven run equals the native run of the same scenario: the paper's 19 scenarios, each
// replayed through Router.run with mock tools on a virtual clock, give exactly the events and
// the outcome that crates/wasm/tests/native.rs recorded from the core in Rust.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Router, VirtualTime } from './helpers.mjs';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/scenarios.json', import.meta.url), 'utf8'));

// The paper's pack (crates/eval's PAPER_SCENARIOS): each is present; scenarios of our own may follow.
const PAPER = [...[1, 2, 3, 4, 5, 6, 7].map((i) => `S${i}`), ...[1, 2, 3, 4, 5, 6].map((i) => `T${i}`),
  ...[1, 2, 3, 4, 5, 6].map((i) => `M${i}`)];

test("the fixture holds the paper's scenarios", () => {
  const ids = new Set(fixtures.map((f) => f.id));
  for (const id of PAPER) assert.ok(ids.has(id), `${id} is in the fixture`);
});

for (const f of fixtures) {
  test(`${f.id}: JS-driven events equal the native run (${f.title})`, async () => {
    const vt = new VirtualTime();
    let calls = 0;
    const tools = {};
    for (const node of f.graph.nodes) {
      if (node.tool === false) continue;
      const id = node.id;
      // A mock outage is a structured permanent failure (seed 003); a thrown error would be a
      // transient one, retried (tests/node/hostile.test.mjs has those).
      tools[id] = async () => {
        const down = f.failures.some((x) => x.tool === id && calls >= (x.after_calls ?? 0));
        calls += 1;
        await vt.sleep(f.latency[id]);
        const message = `${id} is unavailable (connection refused)`;
        if (down) return { success: false, error: message, category: 'service', transient: false };
        return { tool: id, ok: true };
      };
    }
    const escalations = [...f.escalations];
    const streamed = [];
    const router = Router.fromJson(f.graph);
    const { outcome, events } = await vt.drive(
      // The native run's key (`run-1`): a run without an id gets a random one.
      router.run({ ...(f.task ?? {}), id: 'run-1' }, {
        tools,
        clock: vt.clock,
        sleep: vt.sleep,
        onEvent: (e) => streamed.push(e),
        escalate: async (request) => {
          const want = escalations.shift();
          assert.ok(want, `unexpected escalation ${JSON.stringify(request)}`);
          assert.deepEqual(request, want.request);
          return want.decision;
        },
      }),
    );
    assert.equal(escalations.length, 0, 'every recorded escalation was asked');
    // One convention: every key JS reads is camelCase, over every event kind the scenarios make.
    const keys = (v, out = []) => {
      if (Array.isArray(v)) v.forEach((x) => keys(x, out));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push(k); keys(x, out); }
      return out;
    };
    assert.deepEqual(keys([events, outcome, f.escalations.map((e) => e.request)]).filter((k) => k.includes('_')), []);
    assert.deepEqual(events, f.events);
    assert.deepEqual(streamed, f.events, 'onEvent saw the same stream');
    assert.deepEqual(outcome, f.outcome);
    router.free();
  });
}
