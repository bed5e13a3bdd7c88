// Discovery: from the `tools/list` of MCP servers, a proposed SHR graph and gateway config for a
// person to review. Pure and deterministic: the same tool lists give the same proposal, byte for
// byte. The rules (docs/discovery.md):
//  1. Alternatives. Two tools can stand in for each other when their input schemas are
//     compatible (the same required fields with the same types, no shared field typed
//     differently, no field one of them refuses), their output schemas too when both declare
//     one, and their name and description are similar: score = 0.6 x name + 0.4 x description
//     (Jaccard similarity of word sets after lower-casing, a plural `s` dropped, stop words
//     dropped and a few synonyms folded), at least SIMILARITY. Groups are made by complete
//     linkage: pairs in order of score (then of ids), two groups merge only when every pair
//     across them qualifies. Each group becomes a capability, with its reason.
//  2. Data flow. An edge from tool A to tool B when A's outputSchema has every field B's
//     inputSchema requires, by name and type (top level), A and B in different capabilities.
//  3. side_effect unless readOnlyHint is true (destructiveHint is named in the reason); retries
//     allowed (1 attempt) when readOnlyHint or idempotentHint is true, else none.
//  4. base_cost: max(1, latency / 100 ms) from a declared latency (`_meta["shr/latency_ms"]`) or
//     a measured one, else 1; always marked as a guess.
import { nodeId } from './config.mjs';

/** The lowest score that makes two compatible tools alternatives. */
export const SIMILARITY = 0.45;
const NAME_WEIGHT = 0.6;
/** A tool known to answer within this many ms costs 1, as an unknown one does. */
const COST_UNIT_MS = 100;
const MAX_REASON = 2000;
// The graph format's limits on a node id (bytes) and a label (characters).
const MAX_ID = 128;
const MAX_LABEL = 200;
/** Tools compared at most: grouping compares every pair, so a server listing a million is cut. */
export const MAX_TOOLS = 1000;

const STOP = new Set(
  'a an the of to and or by for in on with its it is as from this that be are one all any into at if then else can will use used using you your their them which when also only such given'.split(' '),
);
// Words that name the same action, folded to the first of each list.
const SYNONYMS = new Map(
  [
    ['get', 'read', 'fetch', 'lookup', 'retrieve', 'load', 'obtain', 'return'],
    ['search', 'find', 'query'],
    ['create', 'add', 'make', 'new', 'insert'],
    ['delete', 'remove', 'erase', 'destroy'],
    ['update', 'edit', 'modify', 'change', 'patch'],
    ['send', 'notify', 'deliver', 'dispatch'],
    ['list', 'enumerate'],
  ].flatMap(([head, ...rest]) => [head, ...rest].map((w) => [w, head])),
);

const stem = (w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);
const canonical = (w) => SYNONYMS.get(stem(w)) ?? SYNONYMS.get(w) ?? stem(w);
/** The words of a name or a description as written, lower-cased, stop words dropped. */
const rawWords = (text) =>
  (
    String(text ?? '')
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? []
  ).filter((w) => w.length > 1 && !STOP.has(w));
/** The word set of a name or a description, each word canonical (plural dropped, synonyms folded). */
export const words = (text) => new Set(rawWords(text).map(canonical));

const jaccard = (a, b) => {
  if (a.size === 0 && b.size === 0) return 0;
  let common = 0;
  for (const w of a) if (b.has(w)) common += 1;
  return common / (a.size + b.size - common);
};
const round2 = (x) => Math.round(x * 100) / 100;

/** A schema's type in one word (`string`, `array<number>`, `any`). */
function typeOf(s) {
  if (!s || typeof s !== 'object') return 'any';
  const t = Array.isArray(s.type) ? s.type.slice().sort().join('|') : s.type;
  if (t === 'array') return `array<${typeOf(s.items)}>`;
  if (t === 'integer') return 'number';
  return typeof t === 'string' ? t : 'any';
}

/** `{fields: Map name -> type, required: sorted names, closed}` of an object schema. */
export function shape(schema) {
  const props = schema && typeof schema === 'object' && schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const fields = new Map(Object.keys(props).sort().map((k) => [k, typeOf(props[k])]));
  const required = Array.isArray(schema?.required) ? [...new Set(schema.required.filter((r) => typeof r === 'string'))].sort() : [];
  return { fields, required, closed: schema?.additionalProperties === false };
}

const fieldList = (s, names) => names.map((n) => `${n}: ${s.fields.get(n) ?? 'any'}`).join(', ');

/** Whether arguments for one schema suit the other both ways; `why` says how or why not. */
export function compatible(a, b) {
  if (a.required.join() !== b.required.join()) return { ok: false, why: `required fields differ ([${a.required}] vs [${b.required}])` };
  for (const [k, t] of a.fields) {
    if (b.fields.has(k) && b.fields.get(k) !== t && t !== 'any' && b.fields.get(k) !== 'any') return { ok: false, why: `field ${k} is ${t} vs ${b.fields.get(k)}` };
    if (!b.fields.has(k) && b.closed) return { ok: false, why: `field ${k} is refused by the other` };
  }
  for (const k of b.fields.keys()) if (!a.fields.has(k) && a.closed) return { ok: false, why: `field ${k} is refused by the other` };
  for (const r of a.required) if (a.fields.get(r) !== b.fields.get(r)) return { ok: false, why: `required field ${r} is ${a.fields.get(r)} vs ${b.fields.get(r)}` };
  return { ok: true, why: a.required.length ? `same required fields (${fieldList(a, a.required)})` : 'no required fields' };
}

/** One tool of the lists, with what discovery reads from it. */
function readTool(server, t, rank, latency) {
  const ann = t.annotations && typeof t.annotations === 'object' ? t.annotations : {};
  const declared = Number(t._meta?.['shr/latency_ms']);
  return {
    id: `${server}/${t.name}`,
    node: nodeId(server, t.name),
    server,
    tool: t.name,
    rank,
    description: typeof t.description === 'string' ? t.description : '',
    input: shape(t.inputSchema),
    inputSchema: t.inputSchema,
    output: t.outputSchema ? shape(t.outputSchema) : null,
    name: words(t.name),
    text: words(t.description),
    readOnly: ann.readOnlyHint === true,
    destructive: ann.destructiveHint,
    idempotent: ann.idempotentHint === true,
    latency: Number.isFinite(declared) && declared >= 0 ? { ms: declared, how: 'declared (_meta["shr/latency_ms"])' } : latency,
  };
}

/** How well two tools stand in for each other: null when they cannot. */
export function pairScore(a, b) {
  const input = compatible(a.input, b.input);
  if (!input.ok) return null;
  let output = 'output schemas not both declared';
  if (a.output && b.output) {
    const o = compatible(a.output, b.output);
    if (!o.ok) return null;
    output = `outputs compatible (${o.why})`;
  }
  const name = jaccard(a.name, b.name);
  const description = jaccard(a.text, b.text);
  const score = NAME_WEIGHT * name + (1 - NAME_WEIGHT) * description;
  return { a: a.id, b: b.id, name: round2(name), description: round2(description), score: round2(score), input: input.why, output, ok: round2(score) >= SIMILARITY };
}

const clip = (s) => (s.length > MAX_REASON ? `${s.slice(0, MAX_REASON - 1)}…` : s);
const byId = (x, y) => (x < y ? -1 : x > y ? 1 : 0);

/** Complete-linkage groups of the tools; each `{members, pairs}`, members in tool order. */
function group(tools) {
  const scores = new Map();
  const pairs = [];
  for (let i = 0; i < tools.length; i += 1) {
    for (let j = i + 1; j < tools.length; j += 1) {
      const s = pairScore(tools[i], tools[j]);
      if (!s) continue;
      scores.set(`${i} ${j}`, s);
      if (s.ok) pairs.push([i, j, s]);
    }
  }
  pairs.sort((x, y) => y[2].score - x[2].score || byId(x[2].a, y[2].a) || byId(x[2].b, y[2].b));
  const of = tools.map((_, i) => i);
  const members = tools.map((_, i) => [i]);
  for (const [i, j] of pairs) {
    const gi = of[i];
    const gj = of[j];
    if (gi === gj) continue;
    const all = members[gi].every((x) => members[gj].every((y) => scores.get(`${Math.min(x, y)} ${Math.max(x, y)}`)?.ok));
    if (!all) continue;
    for (const y of members[gj]) of[y] = gi;
    members[gi].push(...members[gj]);
    members[gj] = [];
  }
  return members
    .filter((m) => m.length > 0)
    .map((m) => m.sort((x, y) => x - y))
    .sort((x, y) => x[0] - y[0])
    .map((m) => ({
      members: m.map((i) => tools[i]),
      pairs: m.flatMap((x, k) => m.slice(k + 1).map((y) => scores.get(`${x} ${y}`))),
    }));
}

const capName = (s) => String(s).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60) || 'tool';

/** The reason of a grouping, in words. */
function groupReason(g) {
  if (g.members.length === 1) return `${g.members[0].id} alone: no other tool has a compatible input schema and a similar name and description (score >= ${SIMILARITY})`;
  const worst = g.pairs.reduce((w, p) => (p.score < w.score ? p : w));
  const lines = g.pairs.map((p) => `${p.a} ~ ${p.b}: ${p.input}; ${p.output}; name ${p.name.toFixed(2)}, description ${p.description.toFixed(2)}, score ${p.score.toFixed(2)}`);
  return clip(`alternatives: every pair has compatible schemas and a score >= ${SIMILARITY} (lowest ${worst.score.toFixed(2)}). ${lines.join('. ')}`);
}

/** The starting cost: max(1, latency / 100 ms) when a latency is known, else 1. */
const guessCost = (t) => (t.latency ? round2(Math.max(1, t.latency.ms / COST_UNIT_MS)) : 1);

/** A tool's latency, side effect and retry, with the reason for each. */
function toolFacts(t) {
  const why = [];
  const sideEffect = !t.readOnly;
  if (t.readOnly) why.push('side_effect false: readOnlyHint true');
  else if (t.destructive === false) why.push('side_effect true: not read-only (readOnlyHint not true), though destructiveHint false (additive)');
  else why.push(`side_effect true: not read-only${t.destructive === true ? ', destructiveHint true' : ' (no annotations say otherwise)'}`);
  const retryable = t.readOnly || t.idempotent;
  why.push(retryable ? `retry allowed (1 attempt): ${t.readOnly ? 'readOnlyHint' : 'idempotentHint'} true` : 'no retry: neither readOnlyHint nor idempotentHint is true');
  const cost = guessCost(t);
  if (t.latency) {
    why.push(`base_cost ${cost} is a guess from a ${t.latency.how} latency of ${round2(t.latency.ms)} ms (max(1, ms / ${COST_UNIT_MS}))`);
  } else why.push('base_cost 1 is a guess: no latency known');
  return { sideEffect, retryable, cost, why: why.join('; ') };
}

/**
 * The proposal from tool lists: `servers` is `[{name, spec, tools, latency?}]` in config order
 * (`spec` the config's entry, `tools` the `tools/list` result, `latency` `{ms, how}` if
 * measured). `refine`, if given, is the host's grouping: `[["server/tool", ...], ...]` covering
 * every tool once, with a `reason`. Returns `{graph, config, report}`.
 */
export function propose(servers, { refined = null } = {}) {
  const tools = [];
  const seenNodes = new Map();
  const warnings = [];
  for (const s of servers) {
    for (const t of s.tools) {
      if (!t || typeof t.name !== 'string' || t.name.length === 0) {
        warnings.push(`${s.name}: a tool without a name was skipped`);
        continue;
      }
      if (tools.length >= MAX_TOOLS) {
        warnings.push(`${s.name}: more than ${MAX_TOOLS} tools in all; the rest skipped`);
        break;
      }
      const tool = readTool(s.name, t, tools.length, s.latency ?? null);
      if (Buffer.byteLength(tool.node) > MAX_ID || tool.id.length > MAX_LABEL) {
        warnings.push(`${tool.id.slice(0, 80)}…: the name is too long for a graph node (${MAX_ID} bytes); skipped`);
        continue;
      }
      const other = seenNodes.get(tool.node);
      if (other) {
        warnings.push(`${tool.id} and ${other} would be the same node ${tool.node}; ${tool.id} skipped`);
        continue;
      }
      seenNodes.set(tool.node, tool.id);
      tools.push(tool);
    }
  }
  let groups = group(tools);
  if (refined) groups = applyRefined(tools, groups, refined);
  // Preference within a group: the lower guessed cost first, then config order.
  for (const g of groups) g.members.sort((x, y) => guessCost(x) - guessCost(y) || x.rank - y.rank);

  const names = new Set();
  const caps = groups.map((g) => {
    // Named by the words every member's name shares (synonyms folded: get_order ~ fetch_order
    // is `get_order`), else by the first member's name.
    const shared = rawWords(g.members[0].tool).filter((w) => g.members.every((m) => m.name.has(canonical(w))));
    const base = capName(g.members.length > 1 && shared.length ? shared.join('_') : g.members[0].tool);
    let name = base;
    for (let k = 2; names.has(name); k += 1) name = `${base}_${k}`;
    names.add(name);
    return { name, group: g, reason: g.reason ?? groupReason(g) };
  });

  const nodes = [{ id: 'start', tool: false, label: 'any capability' }];
  const edges = [];
  const taken = new Set(['start', 'done', ...tools.map((t) => t.node)]);
  const waypoint = (base) => {
    let id = base;
    for (let k = 2; taken.has(id); k += 1) id = `${base}_${k}`;
    taken.add(id);
    return id;
  };
  const capOf = new Map();
  const facts = new Map();
  for (const c of caps) {
    c.start = waypoint(`start_${c.name}`);
    c.goal = waypoint(`done_${c.name}`);
    nodes.push({ id: c.start, tool: false, label: c.name, reason: c.reason });
    edges.push({ from: 'start', to: c.start, cost: 0 });
    c.group.members.forEach((t, k) => {
      capOf.set(t.id, c.name);
      const f = toolFacts(t);
      facts.set(t.id, f);
      const node = { id: t.node, label: t.id, stage: c.name, base_cost: f.cost, side_effect: f.sideEffect, retry: { attempts: f.retryable ? 1 : 0 }, reason: clip(f.why) };
      if (t.description) node.description = t.description;
      if (t.latency?.how.startsWith('declared')) node.baseline_latency_ms = t.latency.ms;
      if (node.base_cost === 1) delete node.base_cost;
      nodes.push(node);
      edges.push({ from: c.start, to: t.node, cost: k + 1, reason: k === 0 ? `${t.id}: first choice of ${c.name}` : `${t.id}: alternative ${k + 1} of ${c.name}` });
      edges.push({ from: t.node, to: c.goal, cost: 0 });
    });
    nodes.push({ id: c.goal, tool: false, label: `${c.name} done` });
    edges.push({ from: c.goal, to: 'done', cost: 0 });
  }
  nodes.push({ id: 'done', tool: false, label: 'done' });

  const flows = [];
  for (const a of tools) {
    if (!a.output) continue;
    for (const b of tools) {
      if (a === b || capOf.get(a.id) === capOf.get(b.id) || b.input.required.length === 0) continue;
      const matched = b.input.required.filter((f) => a.output.fields.has(f) && (a.output.fields.get(f) === b.input.fields.get(f) || b.input.fields.get(f) === 'any'));
      if (matched.length !== b.input.required.length) continue;
      const fields = matched.map((f) => ({ output: f, input: f, type: b.input.fields.get(f) }));
      const reason = clip(`${a.id} output feeds ${b.id} input: ${fields.map((m) => `output.${m.output} -> input.${m.input} (${m.type})`).join(', ')}`);
      edges.push({ from: a.node, to: b.node, cost: 1, reason });
      flows.push({ from: a.id, to: b.id, fields, reason });
    }
  }

  const graph = { name: 'discovered by shr discover', nodes, edges, start: 'start', goal: 'done', stages: caps.map((c) => c.name) };
  const config = {
    servers: Object.fromEntries(servers.map((s) => [s.name, s.spec])),
    capabilities: caps.map((c) => ({
      name: c.name,
      description: (c.group.members[0].description || `${c.name}, routed around failures by SHR`).slice(0, 1000),
      alternatives: c.group.members.map((t) => t.id),
      reason: c.reason,
    })),
    passThrough: false,
  };
  const report = {
    servers: servers.map((s) => ({ name: s.name, tools: s.tools.length, ...(s.latency ? { latency_ms: round2(s.latency.ms), latency: s.latency.how } : {}) })),
    tools: tools.length,
    capabilities: caps.map((c) => ({ name: c.name, alternatives: c.group.members.map((t) => t.id), reason: c.reason, pairs: c.group.pairs })),
    edges: flows,
    tools_detail: tools.map((t) => {
      const f = facts.get(t.id);
      return { tool: t.id, capability: capOf.get(t.id), side_effect: f.sideEffect, retry: f.retryable, base_cost: f.cost, cost_is_guess: true, reason: f.why };
    }),
    refined: Boolean(refined),
    warnings,
  };
  return { graph, config, report };
}

/** The host's grouping, checked: every tool exactly once, no unknown one. */
function applyRefined(tools, groups, refined) {
  const byName = new Map(tools.map((t) => [t.id, t]));
  const list = Array.isArray(refined) ? refined : refined?.groups;
  const why = typeof refined?.reason === 'string' ? refined.reason : 'grouped by the host\'s refine hook';
  if (!Array.isArray(list)) throw Object.assign(new Error('refine must give {groups: [["server/tool", ...], ...], reason?}'), { code: 'bad_refine' });
  const seen = new Set();
  const out = list.map((ids, i) => {
    if (!Array.isArray(ids) || ids.length === 0) throw Object.assign(new Error(`refine: group ${i} must be a non-empty list`), { code: 'bad_refine' });
    const members = ids.map((id) => {
      const t = byName.get(id);
      if (!t) throw Object.assign(new Error(`refine: group ${i} names an unknown tool ${JSON.stringify(id)}`), { code: 'bad_refine' });
      if (seen.has(id)) throw Object.assign(new Error(`refine: ${id} is in two groups`), { code: 'bad_refine' });
      seen.add(id);
      return t;
    });
    const pairs = members.flatMap((x, k) => members.slice(k + 1).map((y) => pairScore(x, y) ?? { a: x.id, b: y.id, score: 0, ok: false, input: 'incompatible schemas' }));
    const rule = groups.find((g) => g.members.length === members.length && g.members.every((m) => members.includes(m)));
    return { members, pairs, reason: clip(rule ? `${groupReason(rule)} (kept by the host's refine hook)` : `${why}; the rule's pair scores: ${pairs.map((p) => `${p.a} ~ ${p.b} ${p.score}`).join(', ') || 'none'}`) };
  });
  for (const t of tools) if (!seen.has(t.id)) out.push({ members: [t], pairs: [], reason: null });
  for (const g of out) if (g.reason === null) g.reason = groupReason(g);
  return out.sort((x, y) => Math.min(...x.members.map((m) => m.rank)) - Math.min(...y.members.map((m) => m.rank)));
}

/** The proposal in a few lines, for a person. */
export function summary({ report }) {
  const lines = [`${report.tools} tools from ${report.servers.length} servers: ${report.capabilities.length} capabilities, ${report.edges.length} data-flow edges${report.refined ? ' (grouping refined by the host)' : ''}`];
  for (const c of report.capabilities) if (c.alternatives.length > 1) lines.push(`  ${c.name}: ${c.alternatives.join(' | ')}`);
  for (const e of report.edges) lines.push(`  ${e.from} -> ${e.to}: ${e.fields.map((f) => f.input).join(', ')}`);
  const fx = report.tools_detail.filter((t) => t.side_effect).length;
  lines.push(`  ${fx} tools with side effects, ${report.tools_detail.filter((t) => t.retry).length} retryable; every base_cost is a guess`);
  for (const w of report.warnings) lines.push(`  warning: ${w}`);
  return lines.join('\n');
}
