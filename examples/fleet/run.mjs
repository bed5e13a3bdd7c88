// The fleet example: N agent processes serve refund tasks against shared mock tools; stripe fails
// for a while, then recovers. Run with and without shared health (Redis, started here on a free
// port) and compare. One command:
//   node examples/fleet/run.mjs [--agents 1,4,16] [--markdown] [--kill-redis]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startMockTools } from './mock-tools.mjs';
import { startRedis } from '../../tests/node/redis-server.mjs';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const AGENT = fileURLToPath(new URL('./agent.mjs', import.meta.url));
const COOLDOWN = 500;
const PROBE = 50;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function spawnAgent(id, toolsUrl, redisUrl, durationMs, namespace) {
  let ready;
  let proc;
  const isReady = new Promise((r) => { ready = r; });
  const done = new Promise((resolve) => {
    const p = (proc = spawn(process.execPath, [AGENT, '--id', id, '--tools', toolsUrl, '--redis', redisUrl, '--duration-ms', String(durationMs),
      '--cooldown-ms', String(COOLDOWN), '--probe-ms', String(PROBE), '--namespace', namespace], { stdio: ['pipe', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ready\n')) ready();
    });
    p.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => p.kill('SIGKILL'), durationMs + 20_000);
    p.on('exit', (code) => {
      clearTimeout(timer);
      let report = null;
      try { report = JSON.parse(out.trim().split('\n').pop()); } catch { /* a crash: no report */ }
      ready();
      resolve({ id, code, report, err });
    });
  });
  return { isReady, done, stop: () => proc.stdin.end('stop\n') };
}

const pct = (xs, q) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

/** One scenario: `agents` processes, sharing over Redis or not; stripe down at t0 for `downMs`. */
export async function scenario({ agents, share, killRedis = false, downMs = 1500 }) {
  const mock = await startMockTools();
  const redis = share ? await startRedis() : null;
  const warmup = 300;
  const durationMs = 60_000;
  const started = Date.now();
  const namespace = `example-${process.pid}-${started}`;
  const running = Array.from({ length: agents }, (_, i) =>
    spawnAgent(`agent-${String(i).padStart(2, '0')}`, mock.url, redis ? redis.url : 'none', durationMs, namespace));
  // Every agent serving tasks (a cold start of 16 processes takes a while on 2 cores), then a
  // little traffic before the failure.
  await Promise.race([Promise.all(running.map((a) => a.isReady)), sleep(30_000)]);
  await sleep(warmup);
  const t0 = Date.now();
  mock.fail('stripe');
  let killAt = null;
  let restartAt = null;
  if (killRedis && redis) {
    await sleep(200);
    killAt = Date.now();
    await redis.kill();
    await sleep(600);
    await redis.restart();
    restartAt = Date.now();
    await sleep(downMs - 800);
  } else {
    await sleep(downMs);
  }
  const tRecover = Date.now();
  // Which calls came after the recovery is told by the log's order, not its clock: a call that
  // failed in the millisecond before it would otherwise count as one after.
  const recoveredAt = mock.log.length;
  mock.recover('stripe');
  // Time to probe, hear of it and route through stripe again.
  await sleep(COOLDOWN * 2 + 1000);
  const stopAt = Date.now();
  running.forEach((a) => a.stop());
  const results = await Promise.all(running.map((a) => a.done));
  await mock.close();
  if (redis) await redis.stop();
  const stripe = mock.log.map((c, i) => ({ ...c, recovered: i >= recoveredAt })).filter((c) => c.tool === 'stripe');
  const firstFailure = stripe.find((c) => !c.ok)?.at ?? t0;
  const reports = results.map((r) => r.report).filter(Boolean);
  const avoid = reports.map((r) => (r.avoidAt ?? Infinity) - firstFailure);
  // Recovery: the calls to stripe after it came back made by an agent that did not route through
  // it yet (probes, and trial calls of a half-open breaker), each judged by its own agent's
  // resumption. Calls of agents already routing through it are the fleet's traffic, however
  // late the news reaches another agent (tens of ms on 2 loaded cores, longer than a task's
  // call interval).
  const firstOk = stripe.find((c) => c.ok && c.recovered);
  const firstOkAt = firstOk?.at ?? Infinity;
  const resume = reports.map((r) => (r.resumeAt ?? Infinity) - firstOkAt);
  const resumedAt = new Map(reports.map((r) => [r.id, r.resumeAt ?? Infinity]));
  const recovering = stripe.filter((c) => c.recovered && c.at < (resumedAt.get(c.agent) ?? Infinity));
  // What was lost in sharing: every delta an agent sent (before the last 500 ms, when agents
  // stop one by one) that another agent did not hear. A breaker change another agent did not
  // hear itself but superseded by a newer one it heard is not lost (the fleet keeps only the
  // latest); a `failed` observation is not stored, so one published while a peer's
  // subscription was down is.
  const lost = { stored: 0, failed: 0, sentWhileDown: 0 };
  if (share) {
    const parse = (k) => {
      const [origin, tool, change, version, at] = k.split('|');
      return { origin, tool, change, version: Number(version), at: Number(at) };
    };
    const laterThan = (a, b) => a.version > b.version || (a.version === b.version && a.origin > b.origin);
    const heardBy = reports.map((r) => ({ id: r.id, keys: new Set(r.heard), stored: r.heard.map(parse).filter((d) => d.change !== 'failed') }));
    for (const r of reports) {
      for (const [k, at] of r.sent) {
        if (at > stopAt - 500) continue;
        if (killAt !== null && at >= killAt && at <= restartAt) lost.sentWhileDown += 1;
        const d = parse(k);
        for (const peer of heardBy) {
          if (peer.id === r.id || peer.keys.has(k)) continue;
          if (d.change === 'failed') lost.failed += 1;
          else if (!peer.stored.some((h) => h.tool === d.tool && laterThan(h, d))) lost.stored += 1;
        }
      }
    }
  }
  return {
    agents,
    share,
    killRedis,
    crashes: results.filter((r) => r.code !== 0 || !r.report).length,
    tasks: reports.reduce((n, r) => n + r.tasks, 0),
    settled: reports.reduce((n, r) => n + r.completed + r.failed, 0),
    completed: reports.reduce((n, r) => n + r.completed, 0),
    failedCalls: stripe.filter((c) => !c.ok).length,
    failedTaskCalls: stripe.filter((c) => !c.ok && !c.probe).length,
    probesWhileDown: stripe.filter((c) => c.probe && !c.recovered).length,
    // Every probe after stripe recovered, to the end of the run.
    probesAfterRecovery: stripe.filter((c) => c.probe && c.recovered).length,
    callsToResume: recovering.length,
    probesToResume: recovering.filter((c) => c.probe).length,
    probeOkMs: firstOkAt - tRecover,
    avoidP50: pct(avoid, 0.5),
    avoidP99: pct(avoid, 0.99),
    resumeP50: pct(resume, 0.5),
    resumeMax: Math.max(...resume),
    buffered: reports.reduce((n, r) => n + (r.bus?.buffered ?? 0), 0),
    dropped: reports.reduce((n, r) => n + (r.bus?.dropped ?? 0), 0),
    reconnects: reports.reduce((n, r) => n + (r.bus?.reconnects ?? 0), 0),
    recovered: reports.reduce((n, r) => n + (r.bus?.recovered ?? 0), 0),
    applied: reports.reduce((n, r) => n + (r.fleet?.applied ?? 0), 0),
    lost,
    ms: Date.now() - started,
  };
}

const fmt = (x) => (x === null ? '-' : Number.isFinite(x) ? `${Math.round(x)} ms` : 'never');

export function table(rows) {
  const lines = [
    '| Agents | Health | Calls to the failed tool while down (tasks + probes) | First failure -> route avoids it, p50 / p99 | Calls to it after recovery by agents not yet routing through it (probes) | First successful probe -> routes through it, p50 / max | Probes after recovery | Tasks settled | Crashes |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(`| ${r.agents} | ${r.share ? (r.killRedis ? 'shared, Redis killed + restarted' : 'shared (Redis)') : 'each alone'} | ${r.failedTaskCalls} + ${r.probesWhileDown} | ${fmt(r.avoidP50)} / ${fmt(r.avoidP99)} | ${r.callsToResume} (${r.probesToResume}) | ${fmt(r.resumeP50)} / ${fmt(r.resumeMax)} | ${r.probesAfterRecovery} | ${r.settled}/${r.tasks} | ${r.crashes} |`);
  }
  const killed = rows.filter((r) => r.killRedis);
  if (killed.length > 0) {
    lines.push('', '| Redis killed 200 ms after t0, restarted 600 ms later | Reconnects | Deltas sent while down | Buffered | Dropped | Stored changes read back | Breaker changes not heard by a peer | `failed` observations not heard by a peer | Tasks settled | Crashes |', '|---|---|---|---|---|---|---|---|---|---|');
    for (const r of killed) lines.push(`| ${r.agents} agents | ${r.reconnects} | ${r.lost.sentWhileDown} | ${r.buffered} | ${r.dropped} | ${r.recovered} | ${r.lost.stored} | ${r.lost.failed} | ${r.settled}/${r.tasks} | ${r.crashes} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const counts = arg('agents', '1,4,16').split(',').map(Number);
  const rows = [];
  for (const agents of counts) {
    for (const share of [false, true]) rows.push(await scenario({ agents, share }));
  }
  if (process.argv.includes('--kill-redis')) rows.push(await scenario({ agents: 4, share: true, killRedis: true }));
  console.log(table(rows));
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
}
