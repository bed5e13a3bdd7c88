// The lean entry of shr-wasm (`shr-wasm/route`): a router over a graph description, routes,
// mark down/up and a tool's weight; no sessions, driver, fleet, probes or metrics. The build
// script (scripts/build-wasm-pkg) puts this text into each entry after the shared ShrError text,
// with `raw` (the wasm-bindgen module of crates/wasm-route) in scope. Every argument is checked
// here, every error worded here from a code, and the wasm side gets numbers only.
const NO_ROUTE = -1;
// The default clock of the full module: milliseconds since the epoch that never step back.
const ORIGIN = typeof performance === 'object' && performance !== null && typeof performance.now === 'function'
  ? (typeof performance.timeOrigin === 'number' ? performance.timeOrigin : Date.now() - performance.now())
  : null;
const clock = () => (ORIGIN === null ? Date.now() : ORIGIN + performance.now());

let view = null;
function words() {
  // Growing memory detaches the old buffer, and a view of a detached buffer has length 0.
  if (view === null || view.length === 0) view = new Uint32Array(raw.routeMemory().buffer);
  return view;
}

const isTime = (x) => typeof x === 'number' && x >= 0 && x < Infinity;

function timeOf(now) {
  if (now === undefined || now === null) return clock();
  if (isTime(now)) return now;
  throw new ShrError('bad_clock', `now must be a time in milliseconds (a finite number >= 0), not ${String(now)}`);
}

function invalidGraph(text) {
  const problems = text.split('\u001e').map((record) => {
    const [kind, path, at, message] = record.split('\u001f');
    return { kind, at, path, message };
  });
  const n = problems.length;
  const parts = problems.map((p) => (p.path === '' ? `; ${p.at}: ${p.message}` : `; ${p.at} (${p.path}): ${p.message}`));
  return new ShrError('invalid_graph', `invalid tool graph (${n} problem${n === 1 ? '' : 's'})${parts.join('')}`, { problems });
}

// The description's keys, as the core's format has them (crates/core/src/graph/spec.rs): the
// lean entry reads the routing ones and, like the full module, refuses any other key.
const GRAPH_KEYS = new Set(['$schema', 'version', 'name', 'nodes', 'edges', 'start', 'goal', 'stages', 'risk_rules', 'intents']);
const NODE_KEYS = new Set(['id', 'label', 'stage', 'base_cost', 'tool', 'join', 'retry', 'description', 'quota',
  'side_effect', 'compensate', 'rate_limit', 'max_concurrent', 'probe', 'timeout_ms', 'verify', 'baseline_latency_ms',
  'validators', 'x', 'y', 'reason']);
const EDGE_KEYS = new Set(['from', 'to', 'cost', 'guard', 'reason']);
// crates/core/src/limits.rs
const MAX_NODES = 200_000;
const MAX_EDGES = 2_000_000;
const MAX_JSON_BYTES = 64 * 1024 * 1024;

// A shape problem: thrown as invalid_graph with one problem, as the full module's parser does.
class Shape {
  constructor(path, message, kind = 'malformed_json', at = 'json') {
    Object.assign(this, { path, message, kind, at });
  }
}

const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'a sequence' : typeof v === 'object' ? 'a map' : typeof v);

function object(v, path, keys, what) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Shape(path, `invalid type: ${typeName(v)}, expected ${what}`);
  for (const k in v) {
    if (Object.hasOwn(v, k) && !keys.has(k)) throw new Shape(`${path}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, `unknown field \`${k}\``);
  }
  return v;
}

function field(v, key, path, type, fallback) {
  const x = v[key];
  if (x === undefined) {
    if (fallback === undefined) throw new Shape(path, `missing field \`${key}\``);
    return fallback;
  }
  if (typeof x !== type) throw new Shape(`${path}/${key}`, `invalid type: ${typeName(x)}, expected a ${type}`);
  return x;
}

function optionalId(v, key) {
  const x = v[key];
  if (x === undefined || x === null) return undefined;
  if (typeof x !== 'string') throw new Shape(`/${key}`, `invalid type: ${typeName(x)}, expected a string`);
  return x;
}

// Hands the description's routing fields to a LeanBuilder; the core validates them.
function build(spec) {
  object(spec, '', GRAPH_KEYS, 'struct GraphSpec');
  const nodes = spec.nodes;
  if (!Array.isArray(nodes)) throw new Shape(nodes === undefined ? '' : '/nodes', nodes === undefined ? 'missing field `nodes`' : `invalid type: ${typeName(nodes)}, expected a sequence`);
  const edges = spec.edges === undefined ? [] : spec.edges;
  if (!Array.isArray(edges)) throw new Shape('/edges', `invalid type: ${typeName(edges)}, expected a sequence`);
  if (nodes.length > MAX_NODES) throw new Shape('/nodes', `${nodes.length} nodes, the limit is ${MAX_NODES}`, 'too_large', 'nodes');
  if (edges.length > MAX_EDGES) throw new Shape('/edges', `${edges.length} edges, the limit is ${MAX_EDGES}`, 'too_large', 'edges');
  const version = spec.version === undefined ? 0 : spec.version;
  if (!Number.isInteger(version) || version < 1 && spec.version !== undefined || version > 0xffffffff) {
    throw new Shape('/version', `invalid value: ${String(spec.version)}, expected u32`);
  }
  const start = optionalId(spec, 'start');
  const goal = optionalId(spec, 'goal');
  const builder = new raw.LeanBuilder();
  try {
    const index = new Map();
    for (let i = 0; i < nodes.length; i++) {
      const path = `/nodes/${i}`;
      const n = object(nodes[i], path, NODE_KEYS, 'struct NodeSpec');
      const id = field(n, 'id', path, 'string');
      const join = n.join === undefined || n.join === null ? null : object(n.join, `${path}/join`, new Set(['quorum']), 'struct JoinSpec');
      const quorum = join === null ? -1 : field(join, 'quorum', `${path}/join`, 'number');
      if (join !== null && !(Number.isInteger(quorum) && quorum >= 0 && quorum <= 0xffffffff)) {
        throw new Shape(`${path}/join/quorum`, `invalid value: ${quorum}, expected u32`);
      }
      if (!index.has(id)) index.set(id, i);
      builder.node(id, field(n, 'tool', path, 'boolean', true), field(n, 'base_cost', path, 'number', 1), quorum);
    }
    for (let i = 0; i < edges.length; i++) {
      const path = `/edges/${i}`;
      const e = object(edges[i], path, EDGE_KEYS, 'struct EdgeSpec');
      const from = field(e, 'from', path, 'string');
      const to = field(e, 'to', path, 'string');
      const cost = field(e, 'cost', path, 'number', 1);
      const u = index.get(from), v = index.get(to);
      if (u === undefined || v === undefined) builder.edgeNamed(from, to, cost);
      else builder.edge(u, v, cost);
    }
  } catch (e) {
    builder.free();
    throw e;
  }
  // `finish` takes the builder (freed by it).
  try {
    return [builder.finish(start, goal, version), nodes];
  } catch (e) {
    throw typeof e === 'string' ? withNumbers(e, spec) : e;
  }
}

// The core writes U+001A where a negative cost's message has the cost (so that this module links
// no float formatting): the cost at the problem's pointer, as Rust's `{}` writes an f64.
function withNumbers(text, spec) {
  if (!text.includes('\u001a')) return text;
  return text.split('\u001e').map((record) => {
    const fields = record.split('\u001f');
    const at = fields[1].split('/').slice(1).reduce((v, key) => (v === undefined || v === null ? undefined : v[key]), spec);
    fields[3] = fields[3].replace('\u001a', () => rustNumber(at));
    return fields.join('\u001f');
  }).join('\u001e');
}

// Rust's `{}` of an f64: the shortest digits that read back (as JS's), never an exponent.
function rustNumber(v) {
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(String(v));
  if (m === null) return String(v);
  const [, sign, first, rest = '', e] = m;
  const digits = first + rest;
  const exp = Number(e);
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  return digits.length > exp + 1 ? `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}` : sign + digits.padEnd(exp + 1, '0');
}

function parse(graph) {
  let spec = graph;
  if (typeof graph === 'string') {
    if (graph.length > MAX_JSON_BYTES) throw new Shape('', `description is at least ${graph.length} bytes, the limit is ${MAX_JSON_BYTES}`, 'too_large');
    try {
      spec = JSON.parse(graph);
    } catch (e) {
      throw new Shape('', `the graph is not JSON: ${e.message}`);
    }
  } else if (typeof graph !== 'object' || graph === null) {
    throw new Shape('', 'the graph must be an object or JSON text');
  }
  return build(spec);
}

const FREED = 0;

class Router {
  /** A router over a graph description (JSON text or the parsed object). */
  static fromJson(graph) {
    ensureReady();
    let made;
    try {
      made = parse(graph);
    } catch (e) {
      if (typeof e === 'string') throw invalidGraph(e);
      if (e instanceof Shape) throw invalidGraph(`${e.kind}\u001f${e.path}\u001f${e.at}\u001f${e.message}`);
      // A getter or proxy that throws while the description is read.
      throw invalidGraph(`malformed_json\u001f\u001fjson\u001freading the graph threw: ${e && e.message}`);
    }
    return new Router(made[0], made[1]);
  }

  constructor(inner, nodes) {
    if (!(inner instanceof raw.LeanRouter)) {
      throw new ShrError('bad_options', 'use Router.fromJson(graph) to make a router');
    }
    this._inner = inner;
    this._at = inner.outAddress();
    /** Node ids in index order. */
    this.ids = nodes.map((n) => n.id);
    this._index = new Map();
    this.ids.forEach((id, i) => { if (!this._index.has(id)) this._index.set(id, i); });
    this._tools = new Uint8Array(nodes.map((n) => (n.tool === false ? 0 : 1)));
    this.start = inner.start();
    this.goal = inner.goal();
  }

  _live(name) {
    if (this._inner === FREED) throw new ShrError('freed', `${name}: this object was freed (free() was called before)`);
    return this._inner;
  }

  /** The node index of `id`, -1 when no node has it. */
  index(id) {
    return this._index.get(id) ?? -1;
  }

  _node(id, fallback, field) {
    if (id === undefined || id === null) return fallback;
    const v = this._index.get(id);
    if (v !== undefined) return v;
    throw new ShrError('unknown_node', typeof id === 'string' ? `${field}: unknown node \`${id}\`` : `${field} must be a node id (a string)`, { node: id });
  }

  _ix(v, field) {
    if (Number.isInteger(v) && v >= 0 && v < this.ids.length) return v;
    throw new ShrError('unknown_node', `${field} must be a node index below ${this.ids.length}, not ${String(v)}`, { node: v });
  }

  // Throws the error a refused call deserves (checked in the order a reader would).
  _refused(name, from, to, now) {
    this._live(name);
    this._ix(from, 'from');
    this._ix(to, 'to');
    timeOf(now);
    throw new ShrError('internal', `${name}: the route did not fit its buffer`);
  }

  _tool(tool) {
    const v = typeof tool === 'string' ? this._index.get(tool) : undefined;
    if (v === undefined) {
      throw new ShrError('unknown_tool', typeof tool === 'string' ? `unknown tool \`${tool}\`` : `a tool id must be a string, not ${typeof tool}`, { tool });
    }
    if (this._tools[v] !== 1) throw new ShrError('unknown_tool', `\`${tool}\` is a waypoint, not a tool`, { tool });
    return v;
  }

  /**
   * The fast call: the cheapest healthy route from node index `from` to `to`, its node indices
   * written into `out` (a Uint32Array or Int32Array, reused across calls); their count, or -1
   * when no healthy route exists. With quorum joins the route is a tree and `out` lists its nodes.
   */
  routeInto(from, to, out, now) {
    const inner = this._inner;
    if (inner === FREED || (from >>> 0) !== from || (to >>> 0) !== to || !(now === undefined || typeof now === 'number')) {
      this._refused('routeInto', from, to, now);
    }
    const cost = inner.routeIx(from, to, now === undefined ? clock() : now);
    if (cost < 0) {
      if (cost === NO_ROUTE) return -1;
      this._refused('routeInto', from, to, now);
    }
    const v = words();
    const at = this._at + 2;
    const n = v[at - 2];
    if (!(out && out.length >= n)) {
      throw new ShrError('bad_buffer', `out must be a typed array with room for ${n} node indices`);
    }
    for (let i = 0; i < n; i++) out[i] = v[at + i];
    return n;
  }

  /** The cheapest healthy route from `start` to `goal` (the graph's own when omitted): `{path,
   * edges, cost}` of node ids, as the full module's `route`, or null. */
  route(start, goal, now) {
    const inner = this._live('route');
    const from = this._node(start, this.start, 'start');
    const to = this._node(goal, this.goal, 'goal');
    const cost = inner.routeIx(from, to, timeOf(now));
    if (cost === NO_ROUTE) return null;
    if (cost < 0) this._refused('route', from, to, now);
    const v = words();
    const ids = this.ids;
    const at = this._at;
    const nodes = v[at];
    const path = new Array(nodes);
    for (let i = 0; i < nodes; i++) path[i] = ids[v[at + 2 + i]];
    const edges = new Array(v[at + 1]);
    for (let j = 0, k = at + 2 + nodes; j < edges.length; j++, k += 2) edges[j] = [ids[v[k]], ids[v[k + 1]]];
    return { path, edges, cost };
  }

  _health(tool, op, now, name) {
    const inner = this._live(name);
    return inner.healthIx(this._tool(tool), op, timeOf(now));
  }

  /** Marks a tool down (routed around until marked up or its cooldown lets a probe through);
   * returns its weight (Infinity). */
  markDown(tool, now) {
    return this._health(tool, 0, now, 'markDown');
  }

  /** Marks a tool up (its breaker closes, its history is forgotten); returns its weight. */
  markUp(tool, now) {
    return this._health(tool, 1, now, 'markUp');
  }

  /** The tool's weight now: what its edges' costs are multiplied by (Infinity: routed around). */
  health(tool, now) {
    return this._health(tool, 2, now, 'health');
  }

  /** Releases the router's memory; any later call throws ShrError `freed`. */
  free() {
    if (this._inner === FREED) return;
    const inner = this._inner;
    this._inner = FREED;
    inner.free();
  }
}
// `using router = Router.fromJson(...)` where the engine has explicit resource management.
if (typeof Symbol.dispose === 'symbol') Router.prototype[Symbol.dispose] = Router.prototype.free;
