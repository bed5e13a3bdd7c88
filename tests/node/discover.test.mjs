// Discovery (issue 47): the graph and gateway config proposed from MCP servers' tool lists.
// Against our fixtures (tests/fixtures/discover/server.mjs, overlapping tools whose expected
// groupings and edges are known) and against MCP servers from npm that no one here wrote
// (server-filesystem twice, server-everything). Every server is a stdio child started by the
// test (through discovery or the gateway) and stopped: each started PID is checked gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shr } from './helpers.mjs';
import { scratch, inProcess } from './mcp-helpers.mjs';
import { discover } from '../../packages/mcp-gateway/src/discover-run.mjs';
import { propose, summary } from '../../packages/mcp-gateway/src/discover.mjs';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(REPO, 'tests/fixtures/discover/server.mjs');
const BIN = join(REPO, 'node_modules/.bin/');
const GATEWAY = join(REPO, 'packages/mcp-gateway/src/cli.mjs');
const { dir, closers } = scratch('shr-discover-');

const fixtures = (extra = {}) => ({
  servers: {
    shop_a: { command: process.execPath, args: [FIXTURE, 'shop_a', '--page', '2', ...(extra.shop_a ?? [])] },
    shop_b: { command: process.execPath, args: [FIXTURE, 'shop_b', ...(extra.shop_b ?? [])] },
    notify: { command: process.execPath, args: [FIXTURE, 'notify'] },
  },
});

/** Discovery with the PIDs it started, to check they are gone after. */
async function discoverLogged(config, opts = {}) {
  const pids = [];
  const proposal = await discover(config, { ...opts, log: (event, f) => event === 'upstream_start' && f.pid && pids.push(f.pid) });
  return { proposal, pids };
}
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function assertGone(pids) {
  for (let i = 0; i < 40 && pids.some(alive); i += 1) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(pids.filter(alive), [], 'every server discovery started is stopped');
}
// The graph format's JSON Schema (generated from the core's types), checked with Ajv (the MCP
// SDK's own validator, in the lock file through it).
const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020.js').default;
const schemaValid = new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(
  JSON.parse(readFileSync(join(REPO, 'crates/core/graph.schema.json'), 'utf8')),
);
/** The graph checked against the JSON Schema, then built by the core and exported back. */
const built = (graph) => {
  assert.ok(schemaValid(graph), JSON.stringify(schemaValid.errors?.slice(0, 3)));
  const router = shr.Router.fromJson(graph);
  try {
    return router.toJson();
  } finally {
    router.free?.();
  }
};
const caps = (p) => Object.fromEntries(p.report.capabilities.map((c) => [c.name, c.alternatives]));
const flows = (p) => p.report.edges.map((e) => `${e.from} -> ${e.to}: ${e.fields.map((f) => f.input).join(',')}`);

test('fixtures: the expected groupings, edges, side effects, retries and guessed costs', async () => {
  const { proposal: p, pids } = await discoverLogged(fixtures());
  await assertGone(pids);
  assert.equal(pids.length, 3);
  assert.deepEqual(caps(p), {
    refund: ['shop_b/refund_payment', 'shop_a/create_refund'], // create_refund declares 250 ms: cost 2.5, second
    get_order: ['shop_a/get_order', 'shop_b/fetch_order'],
    delete_order: ['shop_a/delete_order'], // same input as get_order, other words
    search: ['shop_a/search'], // same name as shop_b/search, other input
    search_2: ['shop_b/search'],
    send_email: ['notify/send_email', 'notify/notify_email'], // send ~ notify folded
    send_sms: ['notify/send_sms'], // another input
  });
  const f = flows(p);
  for (const e of [
    'shop_a/search -> shop_a/get_order: order_id',
    'shop_a/search -> shop_b/fetch_order: order_id',
    'shop_a/get_order -> shop_a/create_refund: amount,order_id',
    'shop_b/fetch_order -> shop_b/refund_payment: amount,order_id',
    'shop_b/fetch_order -> notify/send_sms: phone',
  ]) assert.ok(f.includes(e), `edge ${e}`);
  assert.ok(!f.some((e) => e.startsWith('shop_a/get_order -> notify/send_sms')), 'get_order has no phone to give');
  assert.ok(!f.some((e) => e.includes('-> shop_a/create_refund') && e.startsWith('shop_a/search')), 'search gives no amount');
  assert.equal(f.length, 16);
  // Reasons: every grouping and every data-flow edge carries one, in the graph itself.
  const refund = p.report.capabilities.find((c) => c.name === 'refund');
  assert.match(refund.reason, /same required fields \(amount: number, order_id: string\)/);
  assert.match(refund.reason, /score 0\.\d\d/);
  const tools = Object.fromEntries(p.report.tools_detail.map((t) => [t.tool, t]));
  assert.equal(tools['shop_a/create_refund'].side_effect, true);
  assert.equal(tools['shop_a/create_refund'].retry, true); // idempotentHint
  assert.equal(tools['shop_b/refund_payment'].retry, false);
  assert.equal(tools['shop_a/get_order'].side_effect, false); // readOnlyHint
  assert.equal(tools['notify/notify_email'].side_effect, true); // no annotations: assumed
  assert.equal(tools['shop_a/create_refund'].base_cost, 2.5);
  assert.ok(p.report.tools_detail.every((t) => t.cost_is_guess));
  const g = built(p.graph);
  const node = (id) => g.nodes.find((n) => n.id === id);
  assert.match(node('start_refund').reason, /alternatives/);
  assert.match(node('shop_a__create_refund').reason, /base_cost 2.5 is a guess/);
  assert.equal(node('shop_a__create_refund').side_effect, true);
  assert.equal(node('shop_a__create_refund').baseline_latency_ms, 250);
  const edge = g.edges.find((e) => e.from === 'shop_b__fetch_order' && e.to === 'notify__send_sms');
  assert.match(edge.reason, /output\.phone -> input\.phone \(string\)/);
  assert.deepEqual(g.nodes.length, p.graph.nodes.length);
  assert.match(summary(p), /10 tools from 3 servers: 7 capabilities, 16 data-flow edges/);
});

test('fixtures: the proposal is the same every time', async () => {
  const a = (await discoverLogged(fixtures())).proposal;
  const b = (await discoverLogged(fixtures())).proposal;
  assert.equal(JSON.stringify(a), JSON.stringify(b));
});

test('real npm servers: a valid graph, mirrors grouped, hints read', async () => {
  const config = {
    servers: {
      files: { command: join(BIN, 'mcp-server-filesystem'), args: [dir] },
      mirror: { command: join(BIN, 'mcp-server-filesystem'), args: [dir] },
      everything: { command: join(BIN, 'mcp-server-everything'), args: ['stdio'] },
    },
  };
  const { proposal: p, pids } = await discoverLogged(config, { measure: 3 });
  await assertGone(pids);
  assert.equal(pids.length, 3);
  const g = built(p.graph); // valid against the core's rules (throws otherwise)
  assert.equal(g.nodes.filter((n) => n.tool !== false).length, p.report.tools);
  assert.ok(p.report.tools >= 20, `${p.report.tools} tools`);
  const c = caps(p);
  assert.ok(c.write_file.includes('files/write_file') && c.write_file.includes('mirror/write_file'));
  assert.ok(c.read_file.includes('files/read_text_file') && c.read_file.includes('mirror/read_text_file'));
  assert.ok(!Object.values(c).some((alts) => alts.includes('files/read_media_file') && alts.includes('files/read_text_file')), 'media and text outputs differ');
  const tools = Object.fromEntries(p.report.tools_detail.map((t) => [t.tool, t]));
  assert.equal(tools['files/write_file'].side_effect, true); // destructiveHint
  assert.equal(tools['files/read_text_file'].side_effect, false); // readOnlyHint
  assert.equal(tools['files/move_file'].retry, false); // idempotentHint false
  assert.equal(tools['everything/echo'].retry, true);
  assert.ok(p.report.servers.every((s) => s.latency_ms >= 0 && /measured/.test(s.latency)));
  process.stdout.write(`# real servers: ${summary(p).split('\n')[0]}\n`);
});

test('the gateway serves the discovered config, rerouting within a discovered capability', async () => {
  // shop_b's refund_payment is down (a JSON-RPC internal error): the gateway routes around it.
  const { proposal: p } = await discoverLogged(fixtures({ shop_b: ['--fail', 'refund_payment'] }));
  const file = join(dir, 'gateway.json');
  writeFileSync(file, JSON.stringify(p.config));
  const check = spawnSync(process.execPath, [GATEWAY, '--config', file, '--export-graph'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(check.status, 0, check.stderr);
  const { client } = await inProcess(JSON.parse(readFileSync(file, 'utf8')), closers);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['delete_order', 'get_order', 'refund', 'search', 'search_2', 'send_email', 'send_sms']);
  const r = await client.callTool({ name: 'refund', arguments: { order_id: 'o-7', amount: 3 } });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.equal(r._meta.shr.via, 'shop_a/create_refund');
  assert.match(r.content[0].text, /a-o-7/);
  const o = await client.callTool({ name: 'get_order', arguments: { order_id: 'o-7' } });
  assert.equal(o._meta.shr.via, 'shop_a/get_order');
  assert.equal(o.structuredContent.email, 'c@example.com');
});

test('the CLI: --discover --out writes the files; shr discover runs it', async () => {
  const cfg = join(dir, 'servers.json');
  writeFileSync(cfg, JSON.stringify(fixtures()));
  const out = join(dir, 'proposal');
  const r = spawnSync(process.execPath, [GATEWAY, '--config', cfg, '--discover', '--out', out], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /7 capabilities, 16 data-flow edges/);
  const graph = JSON.parse(readFileSync(join(out, 'graph.json'), 'utf8'));
  built(graph);
  assert.equal(JSON.parse(readFileSync(join(out, 'gateway.json'), 'utf8')).capabilities.length, 7);
  const bad = spawnSync(process.execPath, [GATEWAY, '--config', cfg, '--measure', '3'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /go with --discover/);
  const shrBin = join(REPO, 'target/debug/shr');
  if (!existsSync(shrBin)) return;
  const s = spawnSync(shrBin, ['discover', '--config', cfg], { encoding: 'utf8', timeout: 30_000, cwd: REPO });
  assert.equal(s.status, 0, s.stderr);
  assert.equal(JSON.parse(s.stdout).report.capabilities.length, 7);
  // The graph file passes `shr check` (the graph format's rules, as the schema's types read it).
  const checked = spawnSync(shrBin, ['check', join(out, 'graph.json')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  assert.match(checked.stdout, /ok \(26 nodes, 50 edges\)/);
});

test('bad input: a clear error or a warning, never a crash', async () => {
  await assert.rejects(discover({}), { code: 'bad_config' });
  await assert.rejects(discover({ servers: {} }), { code: 'bad_config' });
  await assert.rejects(discover({ servers: { x: { command: 'node', nope: 1 } } }), { code: 'bad_config' });
  await assert.rejects(discover(fixtures(), { measure: -1 }), { code: 'bad_config' });
  // A server that cannot start is a warning; the others are still discovered.
  const cfg = fixtures();
  cfg.servers.gone = { command: join(dir, 'no-such-server') };
  const { proposal: p, pids } = await discoverLogged(cfg);
  await assertGone(pids);
  assert.ok(p.report.warnings.some((w) => w.startsWith('gone: could not connect')));
  assert.equal(p.report.tools, 10);
  // Forged tool lists: odd schemas, a nameless tool, two names making one node id.
  const forged = propose([
    {
      name: 's',
      spec: { command: 'x' },
      tools: [
        { name: 'a.b', inputSchema: { type: 'object', properties: [], required: 'x' } },
        { name: 'a_b', inputSchema: null, outputSchema: 7 },
        { description: 'no name' },
        { name: 'x'.repeat(300), description: 'd'.repeat(5000), inputSchema: { type: 'object', properties: { p: { type: ['string', 'null'] } }, required: ['p', 'p', 3] } },
        { name: 'y', inputSchema: { type: 'object', properties: { p: { type: 'string' } }, required: ['p'] }, outputSchema: { type: 'object', properties: { p: { type: 'string' } } }, annotations: 'no' },
      ],
    },
  ]);
  assert.equal(forged.report.warnings.length, 3); // no name, one node id twice, a name too long
  built(forged.graph); // what is left is a valid graph
  // A server listing more tools than discovery compares: the rest are cut, with a warning.
  const many = propose([{ name: 'big', spec: { command: 'x' }, tools: Array.from({ length: 1100 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: 'object' } })) }]);
  assert.equal(many.report.tools, 1000);
  assert.match(many.report.warnings.join(), /more than 1000 tools/);
  // The host's refine hook is checked: an unknown tool or one in two groups is refused.
  await assert.rejects(discover(fixtures(), { refine: async () => ({ groups: [['shop_a/nope']] }) }), { code: 'bad_refine' });
  await assert.rejects(discover(fixtures(), { refine: async () => [['shop_a/search'], ['shop_a/search']] }), { code: 'bad_refine' });
});

test('the refine hook regroups; the default needs none', async () => {
  const refine = async ({ tools, proposal }) => {
    assert.equal(tools.length, 10);
    assert.equal(proposal.report.capabilities.length, 7);
    return { groups: [['notify/send_email', 'notify/send_sms']], reason: 'the LLM says a customer can be told either way' };
  };
  const { proposal: p } = await discoverLogged(fixtures(), { refine });
  const c = caps(p);
  assert.deepEqual(c.send, ['notify/send_email', 'notify/send_sms']);
  assert.ok(p.report.refined);
  assert.match(p.report.capabilities.find((x) => x.name === 'send').reason, /the LLM says/);
  built(p.graph);
});
