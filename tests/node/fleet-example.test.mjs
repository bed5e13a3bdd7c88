// The fleet example as a test: agent processes against shared mock tools and a real Redis;
// stripe fails, then recovers. Sharing spares calls and probes; killing Redis loses no task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenario, table } from '../../examples/fleet/run.mjs';

// The calls to the failed tool with sharing are at most the threshold (what one agent alone
// spends: the call and its retry) plus the calls of agents that started one before the fleet's
// news reached them, each at most a call and its retry. That is N-independent only while the
// news (a few ms over an idle local Redis) is fast next to an agent's call interval (20 ms plus
// the task). On 2 shared cores at load 2-4 it is not: propagation measures 40-100 ms at N = 4
// and hundreds of ms at N = 16, every other agent overlaps, and the honest bound is the
// mechanism's, 2 per other agent (`EXTRA` below, 6 at N = 4), not a constant. The N = 16 run is
// left to `scripts/bench --fleet` (its figures are in BENCHMARKS.md): it starves on 2 cores.
const EXTRA = (agents) => 2 * (agents - 1);
// The breaker's default `half_open_probes`.
const HALF_OPEN_PROBES = 1;

test('agent processes: sharing keeps calls to a failed tool near one threshold, the fleet probes once, and Redis being killed loses no task', { timeout: 120_000 }, async () => {
  const one = await scenario({ agents: 1, share: false });
  const threshold = one.failedTaskCalls;
  const alone = await scenario({ agents: 4, share: false });
  const shared = await scenario({ agents: 4, share: true });
  const killed = await scenario({ agents: 4, share: true, killRedis: true });
  console.log(table([one, alone, shared, killed]).split('\n').map((l) => `# ${l}`).join('\n'));
  for (const r of [one, alone, shared, killed]) {
    assert.equal(r.crashes, 0);
    assert.equal(r.settled, r.tasks, 'every task settles');
  }
  assert.ok(threshold >= 2, `one agent alone: ${threshold}`);
  assert.ok(alone.failedTaskCalls >= 4 * threshold, `alone: ${alone.failedTaskCalls}`);
  assert.ok(shared.failedTaskCalls <= threshold + EXTRA(4), `shared: ${shared.failedTaskCalls} > ${threshold} + ${EXTRA(4)}`);
  // Sharing spares calls: fewer task calls, and the fleet probes a failed tool once per cooldown.
  assert.ok(shared.failedTaskCalls + shared.probesWhileDown < alone.failedTaskCalls + alone.probesWhileDown);
  assert.ok(alone.probesAfterRecovery >= 3, 'alone, each agent probes');
  // Recovery: the calls to stripe after it recovered by agents not yet routing through it (each
  // agent's own resumption, so a peer's late news does not count its traffic), and every probe
  // to the end of the run (after the recovery by the mock's log order, not its clock).
  for (const r of [shared, killed]) {
    assert.ok(r.probesAfterRecovery <= HALF_OPEN_PROBES, `probes after recovery: ${r.probesAfterRecovery}`);
    assert.ok(r.callsToResume <= HALF_OPEN_PROBES, `calls by agents not yet routing through it: ${r.callsToResume}`);
    assert.ok(Number.isFinite(r.resumeMax), 'every agent routes through the tool again');
    // From the first successful probe: propagation only (one probe interval is 50 ms).
    assert.ok(r.resumeMax <= 500, `first probe -> last agent: ${r.resumeMax} ms`);
  }
  assert.ok(killed.reconnects >= 4, `reconnects ${killed.reconnects}`);
  assert.equal(killed.dropped, 0);
  // Breaker changes are stored: none is lost. `failed` observations published while a peer's
  // subscription was still down can be (counted in the table).
  assert.equal(killed.lost.stored, 0);
});
