"""Writes BENCHMARKS.md (to stdout) from the results of one scripts/bench run.

    python3 bench/report.py bench/results bench/graphs/index.json > BENCHMARKS.md
"""

import glob
import json
import os
import subprocess
import sys

from units import fmt_ns

RESULTS, INDEX = sys.argv[1], sys.argv[2]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
index = json.load(open(INDEX))
criterion = json.load(open(os.path.join(RESULTS, "criterion.json")))
node = json.load(open(os.path.join(RESULTS, "node.json")))
python = json.load(open(os.path.join(RESULTS, "python.json")))
memory = [json.loads(line) for line in open(os.path.join(RESULTS, "memory.jsonl")) if line.strip()]

COLUMNS = ["shr-core", "shr-core-live", "shr-core-one-sided", "shr-wasm", "petgraph", "ngraph", "graphology", "python-seed001"]
HEADS = {
    "shr-core": "shr-core native",
    "shr-core-live": "shr-core native, live weights",
    "shr-core-one-sided": "shr-core native, one-sided",
    "shr-wasm": "shr-wasm from JS",
    "petgraph": "petgraph astar (h=0)",
    "ngraph": "ngraph.path aStar (h=0)",
    "graphology": "graphology dijkstra.bidirectional",
    "python-seed001": "seed 001 (python3)",
}

# times[graph][column] = median ns; errors[graph][column] = text
times, errors = {}, {}
for r in criterion:
    if r["group"] == "route":
        col = {"shr": "shr-core", "shr_one_sided": "shr-core-one-sided", "shr_live": "shr-core-live", "petgraph_astar": "petgraph"}[r["lib"]]
        times.setdefault(r["param"], {})[col] = r["median_ns"]
for r in node["results"] + python["results"]:
    if "median_ns" in r:
        times.setdefault(r["graph"], {})[r["lib"]] = r["median_ns"]
    if "error" in r:
        errors.setdefault(r["graph"], {})[r["lib"]] = r["error"]


# Paired rounds (shr-wasm and native alternately): pair[round] = {(graph, column): median ns}.
pair = {}
for f in sorted(glob.glob(os.path.join(RESULTS, "pair", "*_*.json"))):
    side, rnd = os.path.basename(f)[:-len(".json")].split("_")
    data = json.load(open(f))
    slot = pair.setdefault(int(rnd), {})
    if side == "native":
        for r in data:
            col = {"shr": "shr-core", "shr_live": "shr-core-live"}.get(r["lib"])
            if col:
                slot[(r["param"], col)] = r["median_ns"]
    else:
        for r in data["results"]:
            if "median_ns" in r:
                slot[(r["graph"], r["lib"])] = r["median_ns"]


def median(values):
    v = sorted(values)
    return None if not v else (v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2)


def paired(graph, slow, fast):
    """The ratio slow / fast within each paired round (rounds with both), in round order."""
    return [t[(graph, slow)] / t[(graph, fast)] for _, t in sorted(pair.items())
            if (graph, slow) in t and (graph, fast) in t]


def paired_ratio(graph, slow, fast):
    return median(paired(graph, slow, fast))


def each_round(graph, slow, fast):
    """The ratio of every paired round, for a table cell."""
    return ", ".join(f"{x:.2f}x" for x in paired(graph, slow, fast)) or "—"


def paired_time(graph, col):
    """The median over the paired rounds of one column's time."""
    return median([t[(graph, col)] for t in pair.values() if (graph, col) in t])


def cmd(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def cell(graph, col):
    t = times.get(graph, {}).get(col)
    err = errors.get(graph, {}).get(col)
    if t is None:
        return "pending" if col == "shr-wasm" else (err or "—")
    return fmt_ns(t) + (" ⚠" if err else "")


def ratio(graph, slow, fast):
    a, b = times.get(graph, {}).get(slow), times.get(graph, {}).get(fast)
    return None if a is None or b is None else a / b


def fmt_ratio(x):
    return "—" if x is None else f"{x:.2f}x"


cpu = "unknown"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break

out = []
w = out.append
w("# Benchmarks")
w("")
w("Routing latency of SHR against its peers, measured in one run on the same graph files.")
w("Regenerate everything (graphs, every column, this file) with one command:")
w("")
w("```")
w("scripts/bench")
w("```")
w("")
try:
    load = open(os.path.join(RESULTS, "load_before")).read().strip()
except OSError:
    load = "unknown"
w(f"Machine: {cmd('nproc')} cores ({cpu}), load average {load} (1 min) just before the run; "
  f"{cmd('rustc', '--version')}; Node {node['node']}; Python {python['python']}. "
  "Criterion with `--warm-up-time 1 --measurement-time 3`; the Node and Python harnesses warm up 1 s, "
  "then take at least 30 samples (a batch of calls each) over 3 s; the paired rounds (below) measure "
  "1 s a side. Every figure is the median "
  "time of one start-to-goal query that returns the path; building each library's graph is not timed.")
w("")
w("## Graphs")
w("")
w("| graph | nodes | edges | cheapest cost | nodes on the plan | notes |")
w("| --- | ---: | ---: | ---: | ---: | --- |")
for g in index:
    note = "paper scenario graph" if g["kind"] == "scenario" else "seeded random, out-degree 4, costs 1-10"
    if g["joins"]:
        note += f"; {g['joins']} quorum join (SHR honours it, the peers cannot and solve plain shortest path)"
    w(f"| {g['name']} | {g['nodes']:,} | {g['edges']:,} | {g['cost']:g} | {g['plan_nodes']} | {note} |")
w("")
w("Random graphs: start `n0`; goal the node whose cheapest path has the most hops, so a "
  "one-directional search settles nearly the whole graph. Written by "
  "`cargo bench -p shr-core --bench gen_graphs` (SplitMix64, fixed seeds) into `bench/graphs/` "
  "(not in git).")
w("")
w("## Route latency (median per query)")
w("")
w("| graph | " + " | ".join(HEADS[c] for c in COLUMNS) + " |")
w("| --- | " + " | ".join("---:" for _ in COLUMNS) + " |")
for g in index:
    w(f"| {g['name']} | " + " | ".join(cell(g["name"], c) for c in COLUMNS) + " |")
w("")
if node.get("wasm") != "loaded":
    w(f"shr-wasm is **pending**: {node.get('wasm')} (another engineer builds it with "
      "`scripts/build-wasm-pkg`; `scripts/bench` runs that script when it exists and fills the column).")
    w("")
flagged = [(g, c, e) for g, cols in errors.items() for c, e in cols.items()]
if flagged:
    w("⚠ " + "; ".join(f"{c} on {g}: {e}" for g, c, e in flagged))
    w("")
w("### Ratios: peer time / SHR time (above 1 = SHR faster)")
w("")
peers = ["petgraph", "ngraph", "graphology", "python-seed001"]
w("| graph | " + " | ".join(f"{HEADS[p]} / native" for p in peers) + " | "
  + " | ".join(f"{HEADS[p]} / wasm (paired rounds)" for p in ["ngraph", "graphology"])
  + " | wasm / native, live weights (paired rounds) | wasm / native (paired rounds) |")
w("| --- | " + " | ".join("---:" for _ in range(len(peers) + 4)) + " |")
for g in index:
    n = g["name"]
    cells = [fmt_ratio(ratio(n, p, "shr-core")) for p in peers]
    cells += [fmt_ratio(paired_ratio(n, p, "shr-wasm")) for p in ["ngraph", "graphology"]]
    cells.append(fmt_ratio(paired_ratio(n, "shr-wasm", "shr-core-live")))
    cells.append(fmt_ratio(paired_ratio(n, "shr-wasm", "shr-core")))
    w(f"| {n} | " + " | ".join(cells) + " |")
w("")
w("The ratios to native divide two cells of the table above (petgraph's from the same criterion "
  "run; the JS peers' and python's from other processes, where the gaps dwarf this machine's "
  "drift). Every ratio of shr-wasm is the median of paired rounds instead: `scripts/bench` runs "
  f"native and the Node side (shr-wasm, ngraph.path, graphology) in {len(pair)} short rounds, "
  "alternately (order swapped each round), and takes each ratio within a round, so that a slow "
  "spell of this shared machine falls on both sides of it. Those columns need not equal a quotient "
  "of the table above; each round's figure is in the tables below.")
w("")
w("### shr-wasm against native, paired rounds")
w("")
w("| graph | native, live weights (median of rounds) | shr-wasm from JS (median of rounds) | "
  "wasm / native, live weights, each round | median | wasm / native (plain cost), median |")
w("| --- | ---: | ---: | --- | ---: | ---: |")
for g in index:
    n = g["name"]
    each = each_round(n, "shr-wasm", "shr-core-live")
    w(f"| {n} | {fmt_ns(paired_time(n, 'shr-core-live'))} | {fmt_ns(paired_time(n, 'shr-wasm'))} | {each} | {fmt_ratio(paired_ratio(n, 'shr-wasm', 'shr-core-live'))} "
      f"| {fmt_ratio(paired_ratio(n, 'shr-wasm', 'shr-core'))} |")
w("")

js_peers = ["ngraph", "graphology"]
w("### shr-wasm against the JS peers, paired rounds")
w("")
w("| graph | " + " | ".join(f"{HEADS[p]} / wasm, each round | median" for p in js_peers) + " |")
w("| --- | " + " | ".join("--- | ---:" for _ in js_peers) + " |")
for g in index:
    n = g["name"]
    cells = []
    for p in js_peers:
        cells.append(each_round(n, p, "shr-wasm"))
        cells.append(fmt_ratio(paired_ratio(n, p, "shr-wasm")))
    w(f"| {n} | " + " | ".join(cells) + " |")
w("")

# ---- targets --------------------------------------------------------------------------------
small = [g["name"] for g in index if g["kind"] == "scenario"]
big = ["rand_1000", "rand_100000"]


def verdict(values, ok):
    if any(v is None for v in values):
        return "pending"
    return "met" if all(ok(v) for v in values) else "**not met**"


def figures(pairs):
    return ", ".join(f"{n}: {fmt_ratio(v)}" for n, v in pairs)


targets = []
pairs = [(g["name"], ratio(g["name"], "petgraph", "shr-core")) for g in index]
targets.append(("shr-core native at least as fast as petgraph astar at every size", verdict([v for _, v in pairs], lambda v: v >= 1), figures(pairs)))
pairs = [(n, ratio(n, "petgraph", "shr-core")) for n in big]
targets.append(("shr-core native 2x faster than petgraph at 1,000 and 100,000 nodes", verdict([v for _, v in pairs], lambda v: v >= 2), figures(pairs)))
pairs = [(n, ratio(n, "petgraph", "shr-core-one-sided")) for n in big]
targets.append(("(for reference, not a target) the one-sided search alone against petgraph at 1,000 and 100,000 nodes", "—", figures(pairs)))
for p in js_peers:
    pairs = [(n, paired_ratio(n, p, "shr-wasm")) for n in big]
    targets.append((f"shr-wasm from JS 3x faster than {p} at 1,000 and 100,000 nodes (median of the paired rounds)", verdict([v for _, v in pairs], lambda v: v >= 3), figures(pairs)))
    pairs = [(n, paired_ratio(n, p, "shr-wasm")) for n in small]
    targets.append((f"shr-wasm from JS no slower than {p} on the scenario graphs, 11-13 nodes (median of the paired rounds)", verdict([v for _, v in pairs], lambda v: v >= 1), figures(pairs)))
pairs = [(g["name"], paired_ratio(g["name"], "shr-wasm", "shr-core-live")) for g in index]
targets.append(("shr-wasm within 2.5x of native: the same route (live weights), wasm and JS boundary against native (median of the paired rounds)", verdict([v for _, v in pairs], lambda v: v <= 2.5), figures(pairs)))
pairs = [(g["name"], paired_ratio(g["name"], "shr-wasm", "shr-core")) for g in index]
targets.append(("shr-wasm within 2.5x of native: against the plain-cost native route (median of the paired rounds)", verdict([v for _, v in pairs], lambda v: v <= 2.5), figures(pairs)))

# reroute[(graph, search)][K] = median ns; work[...][K] = mean nodes settled over the placements;
# search is "shr" (as routed) or "shr_one_sided". From the `reroute` bench.
reroute, work, rounds = {}, {}, set()
reroute_file = os.path.join(RESULTS, "reroute.json")
for r in json.load(open(reroute_file)) if os.path.exists(reroute_file) else []:
    reroute.setdefault((r["graph"], r["search"]), {})[r["k"]] = r["median_ns"]
    work.setdefault((r["graph"], r["search"]), {})[r["k"]] = sum(r["settled"]) / len(r["settled"])
    rounds.add(r["rounds"])
SEARCH = {"shr": "two-sided (as routed)", "shr_one_sided": "one-sided"}


def spread(ks):
    vals = [ks[k] for k in sorted(ks) if k > 0]
    return max(vals) / min(vals) if vals else None


def peak_k(ks):
    vals = {k: v for k, v in ks.items() if k > 0}
    return max(vals, key=vals.get) if vals else None


for lib in SEARCH:
    flat = [(n, spread(ks)) for (n, l), ks in sorted(reroute.items()) if l == lib]
    peaks = ", ".join(f"{n}: slowest at K={peak_k(ks)}" for (n, l), ks in sorted(reroute.items()) if l == lib)
    targets.append((f"reroute time flat in K = 1..10 (max/min within 1.5x), {SEARCH[lib]} search",
                    verdict([v for _, v in flat], lambda v: v <= 1.5), figures(flat) + (f"; {peaks}" if flat else "")))
    flat = [(n, spread(ks)) for (n, l), ks in sorted(work.items()) if l == lib]
    targets.append((f"(the work behind it, not a target) nodes settled per reroute over K = 1..10, max/min, {SEARCH[lib]} search",
                    "—", figures(flat)))
    growth = [(n, ks[10] / ks[1]) for (n, l), ks in sorted(reroute.items()) if l == lib and 1 in ks and 10 in ks]
    targets.append((f"(for reading the row above, not a target) time after K = 10 failures / after K = 1, {SEARCH[lib]} search: "
                    "below 1 = ten failures cost less than one",
                    "—", figures(growth)))
targets.append(("zero heap allocations per route on the steady path", "met (test)",
                "`cargo test -p shr-core --test alloc_count`: counting `#[global_allocator]`, 0 allocations in 100 repeated `route_into` calls (12, 1,000, 20,000 nodes) and in 60 reroutes"))

w("## Targets (issue #8)")
w("")
w("| target | status | figures (ratios from this run) |")
w("| --- | --- | --- |")
for t, s, f in targets:
    w(f"| {t} | {s} | {f} |")
w("")

# ---- reroute --------------------------------------------------------------------------------
w("## Reroute after K simultaneous failures (shr-core native)")
w("")
w("K tools of the current best path (spread along it) are marked failed, infinite weight on every "
  "edge into them, and the path is recomputed once; a timed call marks the K tools in one failure "
  "table, recomputes, and clears them. Each K is timed over 8 placements of its K failures (the "
  "spread shifted along the path), because the two-sided search's cost depends on where the "
  "failures sit; each placement is rerouted many times in a row, so that every K runs on a warm "
  "cache (placements taken in turn made K = 1, whose 8 failure sets touch 8 parts of the graph, "
  "pay cache misses that K = 0, one set repeated, did not: the one-sided search, the same work at "
  "every K, ran 1.5x slower at K = 1 on rand_1000). A tool whose failure would cut the goal off (an "
  "escalation, not a reroute) is passed over for the next one. K = 0 is the healthy route with the "
  "same weight function. The K values take turns (`crates/core/benches/reroute.rs`): in each round "
  "every K times one batch over its placements, and each figure is the median of "
  "its K's batches, so that a slow spell of the machine falls on every K alike "
  f"({min(rounds, default=0)} to {max(rounds, default=0)} rounds per graph and search: more for "
  "shorter reroutes).")
w("")
ks = sorted({k for v in reroute.values() for k in v})
w("| graph | search | " + " | ".join(f"K={k}" for k in ks) + " | max/min over K=1..10 |")
w("| --- | --- | " + " | ".join("---:" for _ in ks) + " | ---: |")
for (n, lib), vals in sorted(reroute.items()):
    w(f"| {n} | {SEARCH.get(lib, lib)} | " + " | ".join(fmt_ns(vals.get(k)) for k in ks) + f" | {fmt_ratio(spread(vals))} |")
w("")
if work:
    w("Nodes settled per reroute (mean over the 8 placements; `Dijkstra::settled_count`, both sides "
      "counted): the work each recomputation does, computed by running it, with no timing noise.")
    w("")
    w("| graph | search | " + " | ".join(f"K={k}" for k in ks) + " | max/min over K=1..10 |")
    w("| --- | --- | " + " | ".join("---:" for _ in ks) + " | ---: |")
    for (n, lib), vals in sorted(work.items()):
        w(f"| {n} | {SEARCH.get(lib, lib)} | " + " | ".join(f"{vals[k]:,.0f}" if k in vals else "—" for k in ks)
          + f" | {fmt_ratio(spread(vals))} |")
    w("")
w("The two-sided search's work depends on where the failures sit: a failure on the best path raises "
  "the meeting cost, so both frontiers grow, while more failures near the ends prune them; its work "
  "is highest after one failure and falls with K. K failures still cost one recomputation (never K): "
  "a two-sided reroute after ten failures takes less time than after one. Time follows work, and can spread more than nodes settled do: "
  "a node count leaves out what else a search pays for (edges relaxed, heap entries, cache "
  "misses). The one-sided search settles nearly the whole graph at every "
  "K, so its work row is flat; any spread in its time row is what those other costs and this "
  "machine add.")
w("")

# ---- memory ---------------------------------------------------------------------------------
w("## Peak memory, rand_100000 (load the JSON file, build, route 10 times)")
w("")
native = next((m for m in memory if "process_peak_rss_kib" in m), None)
rss = {m["lib"]: m.get("peak_rss_kib") for m in memory if "lib" in m}


def mib(kib):
    return "—" if kib is None else f"{kib / 1024:.1f} MiB"


w("| run | peak RSS of the process | above an idle runtime |")
w("| --- | ---: | ---: |")
if native:
    w(f"| shr-core native (Rust) | {mib(native['process_peak_rss_kib'])} | — |")
for lib, idle in [("shr-wasm", "idle"), ("ngraph", "idle"), ("graphology", "idle"), ("python-seed001", "python-idle")]:
    v, base = rss.get(lib), rss.get(idle)
    above = None if v is None or base is None else v - base
    w(f"| {HEADS[lib]} | {mib(v) if v is not None else ('pending' if lib == 'shr-wasm' else '—')} | {mib(above)} |")
w("")
if native:
    MB = 1024 * 1024
    w(f"shr-core heap (counting allocator): peak while parsing and validating "
      f"{native['load_peak_heap_bytes'] / MB:.1f} MiB; the built `ToolGraph` holds {native['graph_heap_bytes'] / MB:.1f} MiB "
      f"(ids, labels and what routing reads in compact arrays; export re-creates the description); routing adds at most {native['shr_route_peak_heap_bytes'] / MB:.2f} MiB "
      f"(reused buffers and the plan). petgraph: `to_petgraph()` holds {native['petgraph_graph_heap_bytes'] / MB:.1f} MiB, "
      f"astar adds up to {native['petgraph_route_peak_heap_bytes'] / MB:.2f} MiB per query.")
    w("")

# ---- notes ----------------------------------------------------------------------------------
w("## How each column is run")
w("")
w("- **shr-core native**: `Dijkstra::route_into` with reused buffers and plan, weight = edge cost "
  "(`crates/core/benches/route.rs`). A plain point-to-point query (no quorum join, nothing recording "
  "the steps) takes the two-sided search (`algo::Bidirectional`); the graph with a quorum join takes "
  "the one-sided search, which sums the join's inputs.")
w("- **shr-core native, live weights**: the same call over live health weights (`edge.cost x` the "
  "tool's composite weight) remembered in a `health::WeightMemo`, exactly what `Router.route` runs "
  "inside shr-wasm; the like-for-like native twin of the shr-wasm column.")
w("- **shr-core native, one-sided**: the same call with an observer that asks for the steps, which "
  "keeps it on the one-directional Dijkstra (what the visualizer replays and cyclic workflows use).")
w("- **shr-wasm from JS**: `Router.fromJson(graph)` once, then `router.route(start, goal)` per call, from Node "
  "(`bench/peers.mjs`); the JS half of `route` (ids looked up in a JS `Map`), the JS-to-wasm boundary, "
  "the clock read (`Date.now()`, inside wasm), the live health weights and the result object "
  "`{path, edges, cost}` of id strings are inside the timing. The package is built "
  "by `scripts/build-wasm-pkg` (profile `wasm-pkg`: shr-core and shr-wasm at `opt-level = \"s\"`, "
  "`wasm-opt -O3`).")
w("- **petgraph astar**: `petgraph::algo::astar` with a zero heuristic on `ToolGraph::to_petgraph()`, "
  "returning cost and path (same criterion run).")
w("- **ngraph.path**: `aStar` with no heuristic (its documented plain-Dijkstra mode), `oriented: true`, "
  "distance = the link's cost.")
w("- **graphology**: `graphology-shortest-path` `dijkstra.bidirectional`, its point-to-point Dijkstra. "
  "Like SHR's two-sided search it searches from both ends, so on the random graphs it settles far fewer "
  "nodes than a one-directional search (petgraph, ngraph, seed 001), which must settle nearly everything "
  "to reach the deepest goal.")
w("- **seed 001**: the seed's own `dijkstra` function, verbatim, in `bench/seed001.py` under python3.")
w("- Each peer's cost is checked against SHR's before timing (except on the graph with a quorum join).")
w("")
print("\n".join(out))
