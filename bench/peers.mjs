// JavaScript columns of the routing benchmark, on the graph files of bench/graphs/index.json:
//   shr-wasm   crates/wasm/pkg through its JS API: Router.fromJson(graph), router.route(start, goal)
//              (the wasm boundary is inside the timing)
//   ngraph     ngraph.path aStar with no heuristic (plain Dijkstra), oriented, distance = cost
//   graphology graphology-shortest-path dijkstra.bidirectional, weight attribute `cost`
// Building each library's graph is not timed; one timed call is one start-to-goal query that
// returns the path. Costs are checked against bench/graphs/index.json before timing.
//
//   node bench/peers.mjs [--graphs DIR] [--warmup S] [--time S] [--only a,b] > peers.json
//   node bench/peers.mjs --workloads [--graphs DIR] [--warmup S] [--time S] > workloads.json
//              the queries of bench/graphs/workloads.json (layered tool graphs with 0-3 failed
//              tools per query, random start/goal pairs), taken in turn; every library's cost is
//              checked against each query's before timing
//   node bench/peers.mjs --mem LIB FILE    peak RSS of loading FILE and routing it 10 times
//   node bench/peers.mjs --mem idle        peak RSS of a Node process that does nothing
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import createGraph from 'ngraph.graph';
import ngraphPath from 'ngraph.path';
import Graph from 'graphology';
import dijkstra from 'graphology-shortest-path/dijkstra.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// ---- shr-wasm: loaded from crates/wasm/pkg when it has been built --------------------------

async function loadWasm() {
  const pkg = join(repo, 'crates/wasm/pkg');
  const meta = join(pkg, 'package.json');
  if (!existsSync(meta)) return { error: 'crates/wasm/pkg not built' };
  const manifest = JSON.parse(readFileSync(meta, 'utf8'));
  const entry = manifest.main || manifest.module || 'shr_wasm.js';
  try {
    const mod = await import(pathToFileURL(join(pkg, entry)).href);
    // --target web packages export an initializer; give it the module's bytes.
    const wasmFile = (manifest.files || []).find((f) => f.endsWith('.wasm'));
    if (typeof mod.initSync === 'function' && wasmFile) {
      mod.initSync({ module: readFileSync(join(pkg, wasmFile)) });
    } else if (typeof mod.default === 'function' && wasmFile) {
      await mod.default({ module_or_path: readFileSync(join(pkg, wasmFile)) });
    }
    const Router = mod.Router || (mod.default && mod.default.Router);
    if (!Router || typeof Router.fromJson !== 'function') return { error: 'pkg has no Router.fromJson' };
    return { Router };
  } catch (e) {
    return { error: `loading crates/wasm/pkg failed: ${e.message}` };
  }
}

// ---- the libraries: build (untimed) and query (timed) ---------------------------------------

function costOf(spec, ids) {
  const cost = new Map(spec.edges.map((e) => [`${e.from}\u0000${e.to}`, e.cost ?? 1]));
  let sum = 0;
  for (let i = 1; i < ids.length; i++) sum += cost.get(`${ids[i - 1]}\u0000${ids[i]}`);
  return sum;
}

const libs = {
  'shr-wasm': {
    build(spec, text, wasm) {
      if (!wasm.Router) return null;
      // The API takes the JSON text; fall back to the parsed object.
      let router;
      try {
        router = wasm.Router.fromJson(text);
      } catch {
        router = wasm.Router.fromJson(spec);
      }
      return () => router.route(spec.start, spec.goal);
    },
    cost(spec, result) {
      if (result && typeof result.cost === 'number') return result.cost;
      const ids = result && (result.ids || result.nodes || result.path || result);
      return Array.isArray(ids) ? costOf(spec, ids.map((v) => (typeof v === 'string' ? v : spec.nodes[v].id))) : NaN;
    },
  },
  ngraph: {
    build(spec) {
      const g = createGraph();
      for (const n of spec.nodes) g.addNode(n.id);
      for (const e of spec.edges) g.addLink(e.from, e.to, { cost: e.cost ?? 1 });
      const finder = ngraphPath.aStar(g, { oriented: true, distance: (_a, _b, link) => link.data.cost });
      return () => finder.find(spec.start, spec.goal);
    },
    // ngraph returns the path goal-first.
    cost: (spec, path) => costOf(spec, path.map((n) => n.id).reverse()),
  },
  graphology: {
    build(spec) {
      const g = new Graph({ type: 'directed' });
      for (const n of spec.nodes) g.addNode(n.id);
      for (const e of spec.edges) g.addEdge(e.from, e.to, { cost: e.cost ?? 1 });
      return () => dijkstra.bidirectional(g, spec.start, spec.goal, 'cost');
    },
    cost: (spec, path) => costOf(spec, path),
  },
};

// ---- workloads: many queries taken in turn, some with failed tools -----------------------------

// Each builds a query function taking the query's index. A failed tool is one that cannot be
// entered: shr-wasm marks it down (one router per failure set, as a host holding routers does),
// ngraph.path blocks the links into it, graphology weighs them Infinity.
const workloadLibs = {
  'shr-wasm': {
    build(text, queries, wasm) {
      if (!wasm.Router) return null;
      const bySet = new Map();
      const routers = queries.map((q) => {
        const key = q.failed.join('\u0000');
        if (!bySet.has(key)) {
          const r = wasm.Router.fromJson(text);
          for (const t of q.failed) r.markDown(t);
          bySet.set(key, r);
        }
        return bySet.get(key);
      });
      return (i) => routers[i].route(queries[i].start, queries[i].goal);
    },
    cost: (result) => (result ? result.cost : null),
  },
  ngraph: {
    build(text, queries) {
      const spec = JSON.parse(text);
      const g = createGraph();
      for (const n of spec.nodes) g.addNode(n.id);
      for (const e of spec.edges) g.addLink(e.from, e.to, { cost: e.cost ?? 1 });
      const failed = queries.map((q) => new Set(q.failed));
      let down = failed[0];
      const finder = ngraphPath.aStar(g, {
        oriented: true,
        distance: (_a, _b, link) => link.data.cost,
        blocked: (_from, to) => down.has(to.id),
      });
      const cost = new Map(spec.edges.map((e) => [`${e.from}\u0000${e.to}`, e.cost ?? 1]));
      this.costOf = (path) => {
        const ids = path.map((n) => n.id).reverse();
        let sum = 0;
        for (let k = 1; k < ids.length; k++) sum += cost.get(`${ids[k - 1]}\u0000${ids[k]}`);
        return ids.length ? sum : null;
      };
      return (i) => {
        down = failed[i];
        return finder.find(queries[i].start, queries[i].goal);
      };
    },
    cost(path) {
      return this.costOf(path);
    },
  },
  graphology: {
    build(text, queries) {
      const spec = JSON.parse(text);
      const g = new Graph({ type: 'directed' });
      for (const n of spec.nodes) g.addNode(n.id);
      for (const e of spec.edges) g.addEdge(e.from, e.to, { cost: e.cost ?? 1 });
      const failed = queries.map((q) => new Set(q.failed));
      let down = failed[0];
      // graphology gives the getter the edge and its attributes only.
      const weight = (e, attr) => (down.has(g.target(e)) ? Infinity : attr.cost);
      const cost = new Map(spec.edges.map((e) => [`${e.from}\u0000${e.to}`, e.cost ?? 1]));
      this.costOf = (ids) => {
        let sum = 0;
        for (let k = 1; k < ids.length; k++) sum += cost.get(`${ids[k - 1]}\u0000${ids[k]}`);
        return ids.length ? sum : null;
      };
      return (i) => {
        down = failed[i];
        return dijkstra.bidirectional(g, queries[i].start, queries[i].goal, weight);
      };
    },
    cost(path) {
      return path ? this.costOf(path) : null;
    },
  },
};

function runWorkloads(dir, only, warmupS, timeS) {
  const workloads = JSON.parse(readFileSync(join(dir, 'workloads.json'), 'utf8'));
  const out = { node: process.version, wasm: wasm.error || 'loaded', results: [] };
  for (const w of workloads) {
    const text = readFileSync(join(dir, w.file), 'utf8');
    for (const lib of only) {
      const row = { workload: w.name, kind: w.kind, nodes: w.nodes, lib };
      const l = workloadLibs[lib];
      const query = l.build(text, w.queries, wasm);
      if (!query) {
        row.error = wasm.error;
      } else {
        const wrong = w.queries.findIndex((q, i) => l.cost(query(i)) !== q.cost);
        if (wrong >= 0) {
          row.error = `query ${wrong}: cost ${l.cost(query(wrong))}, expected ${w.queries[wrong].cost}`;
        } else {
          let i = 0;
          const n = w.queries.length;
          Object.assign(row, measure(() => query((i = (i + 1) % n)), warmupS, timeS));
        }
      }
      process.stderr.write(`${lib} ${w.name}: ${row.median_ns ? (row.median_ns / 1e3).toFixed(2) + ' us' : row.error}\n`);
      out.results.push(row);
    }
  }
  return out;
}

// ---- timing: warm up, then samples of a batch each; the median time per call -----------------

function now() {
  return Number(process.hrtime.bigint());
}

function measure(fn, warmupS, timeS) {
  let sink = 0;
  // Warm-up, which also sizes a batch to about 1/30 of the measurement time.
  let calls = 0;
  const w0 = now();
  while (now() - w0 < warmupS * 1e9) {
    sink ^= fn() ? 1 : 0;
    calls++;
  }
  const perCall = (warmupS * 1e9) / calls;
  const samples = 30;
  const batch = Math.max(1, Math.round((timeS * 1e9) / samples / perCall));
  const times = [];
  const m0 = now();
  while (times.length < samples || now() - m0 < timeS * 1e9) {
    const t0 = now();
    for (let i = 0; i < batch; i++) sink ^= fn() ? 1 : 0;
    times.push((now() - t0) / batch);
    if (times.length >= 10 && now() - m0 > 3 * timeS * 1e9) break;
  }
  times.sort((a, b) => a - b);
  return { median_ns: times[times.length >> 1], min_ns: times[0], samples: times.length, batch, sink };
}

function peakRssKiB() {
  const m = readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) : null;
}

// ---- main -----------------------------------------------------------------------------------

const wasm = await loadWasm();

const mem = arg('--mem');
if (mem) {
  if (mem !== 'idle') {
    const text = readFileSync(process.argv[process.argv.indexOf('--mem') + 2], 'utf8');
    const spec = JSON.parse(text);
    const query = libs[mem].build(spec, text, wasm);
    if (!query) throw new Error(`${mem}: ${wasm.error}`);
    for (let i = 0; i < 10; i++) query();
  }
  console.log(JSON.stringify({ lib: mem, peak_rss_kib: peakRssKiB() }));
  process.exit(0);
}

const dir = resolve(arg('--graphs', join(repo, 'bench/graphs')));
const warmupS = Number(arg('--warmup', '1'));
const timeS = Number(arg('--time', '3'));
const only = arg('--only', Object.keys(libs).join(',')).split(',');
if (process.argv.includes('--workloads')) {
  console.log(JSON.stringify(runWorkloads(dir, only, warmupS, timeS), null, 1));
  process.exit(0);
}
const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));

const out = { node: process.version, wasm: wasm.error || 'loaded', results: [] };
for (const entry of index) {
  const text = readFileSync(join(dir, entry.file), 'utf8');
  const spec = JSON.parse(text);
  for (const lib of only) {
    const row = { graph: entry.name, lib };
    const query = libs[lib].build(spec, text, wasm);
    if (!query) {
      row.error = wasm.error;
    } else {
      const cost = libs[lib].cost(spec, query());
      row.cost = cost;
      // Peers know no quorum joins: on a graph with joins they solve plain shortest path.
      if (!entry.joins && cost !== entry.cost) row.error = `cost ${cost}, expected ${entry.cost}`;
      Object.assign(row, measure(query, warmupS, timeS));
    }
    process.stderr.write(`${lib} ${entry.name}: ${row.median_ns ? (row.median_ns / 1e3).toFixed(2) + ' us' : row.error}\n`);
    out.results.push(row);
  }
}
console.log(JSON.stringify(out, null, 1));
