"""The size section of BENCHMARKS.md (to stdout): the npm package's lean entry (shr-wasm/route)
and full module, the page's wasm and ELK worker (when trunk has built dist/), and routing alone
(bench/route-only, built by scripts/bench into RESULTS/route-only), raw and gzipped, against
issue 48's targets; then the code by crate of the full module and of the lean entry.

    python3 bench/sizes.py bench/results target
"""

import glob
import gzip
import os
import subprocess
import sys

RESULTS, TARGET = sys.argv[1], sys.argv[2]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first(pattern):
    found = sorted(glob.glob(os.path.join(REPO, pattern)))
    return found[0] if found else None


print("## Sizes (`scripts/bench --sizes`)")
print()
rows = [
    ("lean entry `shr-wasm/route`", first("crates/wasm/pkg/route/web/shr_wasm_route_bg.wasm"), 60_000),
    ("full module `shr-wasm`", first("crates/wasm/pkg/web/shr_wasm_bg.wasm"), 290_000),
    ("the page's wasm", first("dist/*_bg.wasm"), None),
    ("the page's ELK worker (fetched only to lay out a graph not built in)", first("dist/elk-worker.min.js"), None),
    ("routing alone, `bench/route-only`", first(os.path.join(RESULTS, "route-only", "*.wasm")), None),
]
if rows[1][1] is None:
    print("pending: crates/wasm/pkg has no .wasm file yet (scripts/build-wasm-pkg builds it).")
    sys.exit(0)
print("Targets of issue 48: the lean entry at most 60 KB gzipped, the full module at most 290 KB; "
      "the page is held to the time to its first drawn graph (its section). gzip -9 here; "
      "`tests/size-budget.mjs` measures with Node's zlib, a little above.")
print()
print("| what | file | bytes | gzip -9 | target | |")
print("| --- | --- | ---: | ---: | ---: | --- |")
for name, f, target in rows:
    if f is None:
        print(f"| {name} | not built | | | | |")
        continue
    data = open(f, "rb").read()
    gz = len(gzip.compress(data, 9))
    met = "" if target is None else ("met" if gz <= target else f"**not met** (+{gz - target:,})")
    print(f"| {name} | {os.path.relpath(f, REPO)} | {len(data):,} | {gz:,} | "
          f"{'' if target is None else f'{target:,}'} | {met} |")
print()
print("Routing alone (`bench/route-only`: a description parsed by the core's JSON reader, a "
      "`Router`, `route` and `markDown`) is the older measuring stick; the lean entry reads the "
      "description in JS instead and links no JSON parser.")
print()
for title, profile, name in [("The full module's", "wasm-pkg", "shr_wasm.wasm"),
                             ("The lean entry's", "wasm-route", "shr_wasm_route.wasm")]:
    named = os.path.join(TARGET, "wasm32-unknown-unknown", profile, name)
    if not os.path.exists(named):
        continue
    print(f"{title} code by crate (`python3 bench/wasm_sizes.py`, on cargo's output before "
          "wasm-bindgen and `wasm-opt -O3`):")
    print()
    table = subprocess.run([sys.executable, os.path.join(REPO, "bench", "wasm_sizes.py"), named],
                           capture_output=True, text=True, check=True).stdout.strip()
    print(table)
    print()
