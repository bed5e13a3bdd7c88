"""Python column of the routing benchmark: the Dijkstra of seed 001.

The function `dijkstra` below is the seed's code, copied verbatim from
shared/seeds/001_6fc10a60defe1489.txt ("Self-Healing Tool Routing", its Example section);
only this harness around it is ours. It loads the same graph files as the other columns
(bench/graphs/index.json), builds the seed's adjacency dict (untimed) and times one
start-to-goal query per call.

    python3 bench/seed001.py [--graphs DIR] [--warmup S] [--time S] > seed001.json
    python3 bench/seed001.py --mem FILE      peak RSS of loading FILE and routing it 10 times
    python3 bench/seed001.py --mem idle      peak RSS of a python3 that does nothing
"""

import heapq
import json
import math
import os
import resource
import sys
import time


# ---- seed 001's code, verbatim --------------------------------------------------------------
def dijkstra(graph: dict, start: str, end: str) -> list[str] | None:
    heap = [(0, start, [start])]
    visited = set()
    while heap:
        cost, node, path = heapq.heappop(heap)
        if node in visited:
            continue
        visited.add(node)
        if node == end:
            return path
        for neighbor, edge_cost in graph.get(node, []):
            if neighbor not in visited and edge_cost < math.inf:
                heapq.heappush(heap, (cost + edge_cost, neighbor, path + [neighbor]))
    return None  # No feasible path — escalate to LLM
# ---- end of seed 001's code -----------------------------------------------------------------


def load(path):
    with open(path) as f:
        spec = json.load(f)
    graph = {n["id"]: [] for n in spec["nodes"]}
    for e in spec["edges"]:
        graph[e["from"]].append((e["to"], e.get("cost", 1)))
    cost = {(e["from"], e["to"]): e.get("cost", 1) for e in spec["edges"]}
    return spec, graph, cost


def measure(fn, warmup_s, time_s):
    """Median time per call over samples of a batch each (batch sized from the warm-up)."""
    calls, w0 = 0, time.perf_counter_ns()
    while time.perf_counter_ns() - w0 < warmup_s * 1e9:
        fn()
        calls += 1
    per_call = warmup_s * 1e9 / calls
    samples = 30
    batch = max(1, round(time_s * 1e9 / samples / per_call))
    times, m0 = [], time.perf_counter_ns()
    while len(times) < samples or time.perf_counter_ns() - m0 < time_s * 1e9:
        t0 = time.perf_counter_ns()
        for _ in range(batch):
            fn()
        times.append((time.perf_counter_ns() - t0) / batch)
        if len(times) >= 5 and time.perf_counter_ns() - m0 > 3 * time_s * 1e9:
            break
    times.sort()
    return {"median_ns": times[len(times) // 2], "min_ns": times[0], "samples": len(times), "batch": batch}


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    if "--mem" in sys.argv:
        what = arg("--mem", "idle")
        if what != "idle":
            spec, graph, _ = load(what)
            for _ in range(10):
                dijkstra(graph, spec["start"], spec["goal"])
        # ru_maxrss is in KiB on Linux.
        print(json.dumps({"lib": "python-seed001", "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
        return
    here = os.path.dirname(os.path.abspath(__file__))
    folder = arg("--graphs", os.path.join(here, "graphs"))
    warmup_s, time_s = float(arg("--warmup", "1")), float(arg("--time", "3"))
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    out = {"python": sys.version.split()[0], "results": []}
    for entry in index:
        spec, graph, cost = load(os.path.join(folder, entry["file"]))
        start, goal = spec["start"], spec["goal"]
        path = dijkstra(graph, start, goal)
        row = {"graph": entry["name"], "lib": "python-seed001"}
        row["cost"] = sum(cost[(a, b)] for a, b in zip(path, path[1:]))
        # The seed knows no quorum joins: on a graph with joins it solves plain shortest path.
        if not entry["joins"] and row["cost"] != entry["cost"]:
            row["error"] = f"cost {row['cost']}, expected {entry['cost']}"
        row.update(measure(lambda: dijkstra(graph, start, goal), warmup_s, time_s))
        print(f"python-seed001 {entry['name']}: {row['median_ns'] / 1e3:.2f} us", file=sys.stderr)
        out["results"].append(row)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
