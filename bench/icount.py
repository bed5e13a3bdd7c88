"""Instructions per route under cachegrind, for the workloads of the `layered` bench: runs the
`icount` bench program (crates/core/benches/icount.rs) under `valgrind --tool=cachegrind` at
`rounds` and `2 x rounds` rounds of the workload's 64 queries, and divides the difference of the
two counts by the routes between them (building the graph and checking the answers cancel out).
Prints the BENCHMARKS.md section.

    python3 bench/icount.py PATH/TO/icount-HASH

SHR's counts agree to within 0.1% from run to run of the same build, whatever else the machine
does (petgraph's to within 2%: its hash map is seeded at random).
"""

import re
import subprocess
import sys
import time

QUERIES = 64
# (workload, nodes, rounds): enough routes that the count is the routes', few enough that
# valgrind (some 20-50x slower than the program alone) finishes the table in about a minute.
# Not pairs of 100,000 nodes: building that graph under valgrind takes minutes.
CASES = [
    ("layered", 12, 40), ("layered", 50, 20), ("layered", 200, 8), ("layered", 1000, 2),
    ("pairs", 1000, 8),
    ("joins", 12, 40), ("joins", 50, 20), ("joins", 200, 8), ("joins", 1000, 2),
]
LIBRARIES = {
    "layered": ["shr", "shr_router", "petgraph_dijkstra"],
    "pairs": ["shr", "shr_router", "petgraph_dijkstra"],
    "joins": ["shr", "shr_router", "shr_one_sided"],
}


def instructions(program, workload, n, library, rounds):
    """Instructions the whole program ran (cachegrind's `I refs`)."""
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         program, workload, str(n), library, str(rounds)],
        capture_output=True, text=True, check=True,
    )
    m = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if not m:
        sys.exit(f"no instruction count from valgrind for {workload} {n} {library}:\n{out.stderr}")
    return int(m.group(1).replace(",", ""))


def per_route(program, workload, n, library, rounds):
    once = instructions(program, workload, n, library, rounds)
    twice = instructions(program, workload, n, library, 2 * rounds)
    return (twice - once) / (rounds * QUERIES)


def fmt(x):
    return f"{x:,.0f}"


def main():
    program = sys.argv[1]
    t0 = time.time()
    rows = {}
    for workload, n, rounds in CASES:
        rows[(workload, n)] = {lib: per_route(program, workload, n, lib, rounds) for lib in LIBRARIES[workload]}
        print(f"icount: {workload} {n} done ({time.time() - t0:.0f} s)", file=sys.stderr)

    print("## Instructions per route (`scripts/bench --icount`)")
    print()
    print("The workloads of \"Layered tool graphs and random pairs\" above, each route's instructions counted by `valgrind "
          "--tool=cachegrind` (`crates/core/benches/icount.rs`, built with the bench profile): the "
          "count of a run of 2r rounds of the 64 queries less that of r rounds, over the 64r routes "
          "between them. The same build gives SHR's counts to within 0.1% whatever else the "
          "machine runs (petgraph's to within 2%: its hash map is seeded at random), so a change that "
          "makes a route slower shows here even when the timed tables cannot tell it from noise. Instructions are not time: petgraph's hash map and heap cost it more cache "
          "and branch misses per instruction, so its time ratio above is larger than its "
          "instruction ratio here; the timed tables remain the targets' measure. (Random pairs on "
          "100,000 nodes are left to the timed tables: building that graph under valgrind takes "
          "minutes.)")
    print()
    print("| workload | nodes | shr | shr `Router::route` | petgraph `dijkstra` (goal given) | `dijkstra` / shr |")
    print("|---|---:|---:|---:|---:|---:|")
    for (workload, n), r in rows.items():
        if workload == "joins":
            continue
        print(f"| {workload} | {n:,} | {fmt(r['shr'])} | {fmt(r['shr_router'])} | "
              f"{fmt(r['petgraph_dijkstra'])} | {r['petgraph_dijkstra'] / r['shr']:.1f}x |")
    print()
    print("With quorum joins (no peer expresses them: the one-sided generalized Dijkstra is the comparison):")
    print()
    print("| nodes | shr (sweep) | shr `Router::route` | one-sided Dijkstra | one-sided / sweep |")
    print("|---:|---:|---:|---:|---:|")
    for (workload, n), r in rows.items():
        if workload != "joins":
            continue
        print(f"| {n:,} | {fmt(r['shr'])} | {fmt(r['shr_router'])} | {fmt(r['shr_one_sided'])} | "
              f"{r['shr_one_sided'] / r['shr']:.1f}x |")


if __name__ == "__main__":
    main()
