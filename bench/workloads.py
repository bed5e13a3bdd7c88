"""Writes the "Layered tool graphs and random pairs" section of BENCHMARKS.md (to stdout) from
one run of `cargo bench -p shr-core --bench layered` and `node bench/peers.mjs --workloads`.

    python3 bench/workloads.py CRITERION_DIR NODE_JSON LOAD > section.md
"""

import json
import os
import sys

from units import fmt_ns

CRITERION, NODE, LOAD = sys.argv[1], sys.argv[2], sys.argv[3]
node = json.load(open(NODE))


def criterion_ns(group, lib, n):
    f = os.path.join(CRITERION, group, lib, str(n), "new", "estimates.json")
    return json.load(open(f))["mean"]["point_estimate"] if os.path.exists(f) else None


js = {(r["workload"], r["lib"]): r for r in node["results"]}


def js_ns(workload, lib):
    r = js.get((workload, lib), {})
    return r.get("median_ns")


def ratio(slow, fast):
    return "—" if slow is None or fast is None else f"{slow / fast:.1f}x"


def sizes(kind):
    return sorted({r["nodes"] for r in node["results"] if r["kind"] == kind})


out = []
out.append("## Layered tool graphs and random pairs")
out.append("")
out.append(
    "`scripts/bench --layered` (also part of the whole run): the graphs and queries of "
    "`crates/core/benches/common/workloads.rs`, written by `gen_graphs` to `bench/graphs/workloads.json` "
    "and timed natively by `cargo bench -p shr-core --bench layered` and from Node by "
    f"`node bench/peers.mjs --workloads`, in one run. Load average before the run: {LOAD} on "
    f"{os.cpu_count()} cores."
)
out.append("")
out.append(
    "- **Layered**: a source, layers of 2-8 alternative tools (every tool of a layer leads to every tool "
    "of the next), a sink, the shape agents have. 64 queries taken in turn, source to sink, each with "
    "0-3 failed tools; every query has a route."
)
out.append(
    "- **Pairs**: 64 random start/goal pairs with a route between them on the random digraphs "
    "`rand_1000` and `rand_100000` (out-degree 4), no failures."
)
out.append(
    "- A failed tool: SHR marks it down (one router per failure set, as a host holding routers does; "
    "`shr` natively gives it as live weights give health, a factor per tool); petgraph and graphology "
    "weigh the edges into it infinite; ngraph.path blocks them. Every library's cost is checked "
    "against each query's (petgraph's `dijkstra`) before timing."
)
out.append(
    "- Native: mean per query (criterion). JS: median per query of 30+ batches; the wasm boundary and "
    "building the result object are inside the timing."
)
out.append("")
out.append("### Native (Rust)")
out.append("")
out.append(
    "| workload | nodes | shr | shr `Router::route` | shr two-sided | petgraph `dijkstra` (goal given) "
    "| petgraph `astar` (h=0) | `dijkstra` / shr | `dijkstra` / `Router::route` |"
)
out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for kind, group in (("layered", "layered"), ("pairs", "pairs")):
    for n in sizes(kind):
        shr, router = criterion_ns(group, "shr", n), criterion_ns(group, "shr_router", n)
        two, pgd, pga = criterion_ns(group, "shr_two_sided", n), criterion_ns(group, "petgraph_dijkstra", n), criterion_ns(group, "petgraph_astar", n)
        out.append(
            f"| {kind} | {n:,} | {fmt_ns(shr)} | {fmt_ns(router)} | {fmt_ns(two)} | {fmt_ns(pgd)} | {fmt_ns(pga)} "
            f"| {ratio(pgd, shr)} | {ratio(pgd, router)} |"
        )
out.append("")
out.append("### Quorum joins (native)")
out.append("")
out.append(
    "The layered graphs and queries above with quorum joins of 2 (the sink, and the first tool of each "
    "layer after the first, take two results of the layer before), so every plan is a tree of branches. "
    "No peer expresses a join; the comparison is with the one-sided generalized Dijkstra (Knuth) that "
    "routed join graphs before the sweep took them. The sink's join can be starved by failed tools, so "
    "some queries have no plan; both answer the same."
)
out.append("")
out.append("| nodes | shr (sweep) | shr `Router::route` | one-sided Dijkstra | one-sided / sweep |")
out.append("|---:|---:|---:|---:|---:|")
for n in sizes("layered"):
    shr, router, one = criterion_ns("joins", "shr", n), criterion_ns("joins", "shr_router", n), criterion_ns("joins", "shr_one_sided", n)
    out.append(f"| {n:,} | {fmt_ns(shr)} | {fmt_ns(router)} | {fmt_ns(one)} | {ratio(one, shr)} |")
out.append("")
out.append("### From JavaScript (Node " + node.get("node", "?") + ")")
out.append("")
out.append("| workload | nodes | shr-wasm `route` | ngraph.path aStar (h=0) | graphology dijkstra.bidirectional | ngraph / shr-wasm | graphology / shr-wasm |")
out.append("|---|---:|---:|---:|---:|---:|---:|")
for kind in ("layered", "pairs"):
    for n in sizes(kind):
        w = f"{kind}_{n}"
        shr, ng, gl = js_ns(w, "shr-wasm"), js_ns(w, "ngraph"), js_ns(w, "graphology")
        out.append(f"| {kind} | {n:,} | {fmt_ns(shr)} | {fmt_ns(ng)} | {fmt_ns(gl)} | {ratio(ng, shr)} | {ratio(gl, shr)} |")
errors = [f"{r['lib']} {r['workload']}: {r['error']}" for r in node["results"] if "error" in r]
if errors:
    out.append("")
    out.append("Not timed: " + "; ".join(errors) + ".")
print("\n".join(out))
