// The fleet example as a test: 4 agent processes against shared mock tools and a real Redis;
// stripe fails, then recovers. Sharing spares calls and probes; killing Redis loses no task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenario, table } from '../../examples/fleet/run.mjs';

test('four agent processes: sharing spares calls and probes, and survives Redis being killed', { timeout: 120_000 }, async () => {
  const alone = await scenario({ agents: 4, share: false });
  const shared = await scenario({ agents: 4, share: true });
  const killed = await scenario({ agents: 4, share: true, killRedis: true });
  console.log(table([alone, shared, killed]).split('\n').map((l) => `# ${l}`).join('\n'));
  for (const r of [alone, shared, killed]) {
    assert.equal(r.crashes, 0);
    assert.equal(r.settled, r.tasks, 'every task settles');
  }
  assert.ok(alone.probesAfterRecovery >= 3, 'alone, each agent probes');
  assert.ok(shared.probesAfterRecovery <= 1, 'the fleet probes once');
  assert.ok(shared.failedTaskCalls + shared.probesWhileDown < alone.failedTaskCalls + alone.probesWhileDown);
  assert.ok(killed.reconnects >= 4, `reconnects ${killed.reconnects}`);
  assert.ok(killed.probesAfterRecovery <= 1);
  assert.ok(Number.isFinite(shared.resumeMax), 'every agent routes through the tool again');
});
