// The attacks of issue #42 against a fleet on a real Redis (started here with a password and an
// ACL user for the fleet's namespace): 4 members serve refund tasks while an attacker with the
// Redis admin password but no fleet key publishes and stores forged `opened` (one per tool, at
// version 2^53-1), forged `failed`, replays of the members' real messages, and copies of another
// app's deltas; a fifth member's own network refuses stripe. Prints, as a markdown table, what
// each healthy member refused (by reason) and how many of its runs called stripe.
// `--insider shared` gives the attacker the fleet key (a member taken over), `--insider members`
// gives each member its own key and the attacker one member's (mallory's): she then forges
// under other members' names and made-up ones, and reports her own failures of every tool.
//   node examples/fleet/attack.mjs [--tasks 40] [--insider shared|members]
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { createClient } from 'redis';
import { startRedis } from '../../tests/node/redis-server.mjs';
import { redisBus, joinFleet, memberKeyPair } from '../../packages/fleet/src/index.mjs';
import { sealer } from '../../packages/fleet/src/sign.mjs';

const require = createRequire(import.meta.url);
const { Router } = require('../../crates/wasm/pkg/node/shr_wasm.js');
const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const NS = 'payments';
const KEY = 'attack-demo-fleet-key-0123456789';
const ADMIN = 'attack-demo-admin-pw';
const graph = {
  name: 'refund',
  // A declared latency baseline: a call slowed by a loaded machine does not weigh stripe above
  // razorpay (the live weights' call, not the fleet's, and not what this measures).
  nodes: [{ id: 'start', tool: false }, ...['crm', 'stripe', 'razorpay', 'email'].map((id) => ({ id, baseline_latency_ms: 500 })), { id: 'done', tool: false }],
  edges: [{ from: 'start', to: 'crm' }, { from: 'crm', to: 'stripe' }, { from: 'crm', to: 'razorpay', cost: 2 },
    { from: 'stripe', to: 'email' }, { from: 'razorpay', to: 'email' }, { from: 'email', to: 'done', cost: 0 }],
  start: 'start', goal: 'done',
};
const acl = `user ${NS} on >member-pw-0123456789 resetkeys ~shr:${NS}:tool:* resetchannels &shr:${NS}:deltas -@all ` +
  '+get +set +pttl +scan +eval +publish +subscribe +unsubscribe +multi +exec +ping +client|setname';

const NAMES = ['agent-0', 'agent-1', 'agent-2', 'agent-3', 'sick'];

/** How members sign and what the attacker holds: `insider` undefined (no key), 'shared' or 'members'. */
async function signing(insider) {
  if (insider !== 'members') return { join: () => ({ key: KEY }), attacker: { key: insider === 'shared' ? KEY : 'a-guessed-key-0123456789abcdef' } };
  const pairs = Object.fromEntries(await Promise.all([...NAMES, 'mallory'].map(async (n) => [n, await memberKeyPair()])));
  const members = Object.fromEntries(Object.entries(pairs).map(([n, p]) => [n, p.publicKey]));
  return { join: (name) => ({ members, memberKey: pairs[name].privateKey }), attacker: { members, memberKey: pairs.mallory.privateKey, origin: 'mallory' } };
}

export async function attack({ tasks = 40, insider } = {}) {
  if (insider !== undefined && insider !== 'shared' && insider !== 'members') throw new Error('--insider must be shared or members');
  const redis = await startRedis({ conf: `user default on >${ADMIN} ~* &* +@all\n${acl}` });
  const ok = async () => ({ ok: true });
  const members = [];
  const keys = await signing(insider);
  try {
    for (const name of NAMES) {
      const router = new Router(graph, { origin: name, config: { breaker: { cooldownMs: 5000 } } });
      const bus = await redisBus({ url: redis.url, namespace: NS, username: NS, password: 'member-pw-0123456789', timeoutMs: 1000 });
      const fleet = await joinFleet(router, bus, { ...keys.join(name), flushMs: 2 });
      const m = { name, router, bus, fleet, stripe: 0, runs: 0, completed: 0 };
      const stripe = async () => {
        m.stripe += 1;
        if (name !== 'sick') return { ok: true };
        const e = new Error('connect ECONNREFUSED 10.0.0.1:443');
        e.code = 'ECONNREFUSED';
        throw e;
      };
      m.tools = { crm: ok, stripe, razorpay: ok, email: ok };
      members.push(m);
    }
    const raw = createClient({ url: redis.url, password: ADMIN });
    raw.on('error', () => {});
    await raw.connect();
    const channel = `shr:${NS}:deltas`;
    const captured = [];
    const spy = raw.duplicate();
    spy.on('error', () => {});
    await spy.connect();
    // The members' own messages, captured off the channel to be replayed.
    const seen = new Set();
    await spy.subscribe(channel, (m) => {
      if (/"origin":"(agent|sick)/.test(m) && !seen.has(m)) {
        seen.add(m);
        captured.push(m);
      }
    });
    const mallory = await sealer('attacker', { ...keys.attacker, namespace: NS, graph: members[0].fleet.graph });
    // Whose names the attacker signs under: made-up ones, and with a key, real members' too.
    const forgers = insider ? ['agent-1', 'agent-2', 'forger-0', 'forger-1'] : ['forger-0', 'forger-1', 'forger-2'];
    const newsletter = await sealer('newsletter', { key: 'the-newsletter-key-0123456789', namespace: 'newsletter', graph: members[0].fleet.graph });
    let forged = 0;
    // The attacker's own commands may time out on a loaded machine: counted, never thrown.
    let lost = 0;
    const send = (m) => raw.publish(channel, typeof m === 'string' ? m : JSON.stringify(m)).then(() => { forged += 1; }, () => { lost += 1; });
    const store = (k, v) => raw.set(k, v, { PX: 600_000 }).catch(() => { lost += 1; });
    let attacking = true;
    const replay = () => Promise.all(captured.splice(0).flatMap((c) => Array.from({ length: 10 }, () => send(c))));
    const attacker = (async () => {
      for (let round = 0; attacking || round < 3; round += 1) {
        const v = Date.now() * 1024;
        await Promise.all(['crm', 'stripe', 'razorpay', 'email'].flatMap((tool) => {
          const opened = { tool, change: 'opened', cooldown: 600_000, version: 2 ** 53 - 1, origin: 'zzz' };
          return [
            send(opened), send(mallory.seal(opened)),
            store(`shr:${NS}:tool:${tool}:zzz`, JSON.stringify({ ttl: 600_000, env: mallory.seal(opened) })),
            ...forgers.map((origin, i) => send(mallory.seal({ tool, change: 'failed', version: v + i, origin }))),
            ...(insider === 'members' ? [send(mallory.seal({ tool, change: 'failed', version: v + 9, origin: 'mallory' }))] : []),
            send(newsletter.seal({ tool, change: 'opened', cooldown: 60_000, version: v, origin: 'news-1' })),
          ];
        }));
        await replay();
        await sleep(20);
      }
    })();
    await Promise.all(members.map(async (m) => {
      for (let t = 0; t < tasks; t += 1) {
        const { outcome } = await m.router.run(null, m.fleet.options({ tools: m.tools, timeoutMs: 1000 }));
        m.runs += 1;
        if (outcome.status === 'completed') m.completed += 1;
        await sleep(10);
      }
    }));
    attacking = false;
    await attacker;
    await replay();
    await sleep(200);
    await spy.close();
    await raw.close();
    const rows = members.map((m) => ({
      name: m.name, runs: m.runs, completed: m.completed, stripe: m.stripe,
      applied: m.fleet.stats.applied, refused: { ...m.fleet.stats.rejectedBy }, state: m.router.health('stripe').state,
    }));
    return { forged, lost, rows };
  } finally {
    await Promise.all(members.map((m) => m.fleet.close().then(() => m.bus.close()).catch(() => {})));
    await redis.stop();
  }
}

const WHO = {
  none: 'an attacker with Redis admin access and no fleet key',
  shared: 'an attacker with Redis admin access and the shared fleet key (a member taken over)',
  members: "an attacker with Redis admin access and one member's own key (mallory's, listed in `members`)",
};

export function attackTable({ forged, lost, rows }, insider = 'none') {
  const reasons = [...new Set(rows.flatMap((r) => Object.keys(r.refused)))].sort();
  const lines = [
    `${forged} forged, foreign or replayed messages published during the run (plus forged keys${lost ? `; ${lost} of the attacker's commands timed out` : ''}), by ${WHO[insider]}; \`sick\`'s own network refuses stripe.`,
    '',
    `| Member | Runs completed | Runs calling stripe | Deltas applied | ${reasons.map((r) => `Refused: \`${r}\``).join(' | ')} | stripe's breaker at the end |`,
    `|---|---|---|---|${reasons.map(() => '---|').join('')}---|`,
  ];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${r.completed}/${r.runs} | ${r.stripe} (${Math.round((100 * r.stripe) / r.runs)}%) | ${r.applied} | ${reasons.map((k) => r.refused[k] ?? 0).join(' | ')} | ${r.state} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const insider = arg('insider', undefined);
  console.log(attackTable(await attack({ tasks: Number(arg('tasks', 40)), insider }), insider));
}
