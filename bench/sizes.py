"""The wasm module size section of BENCHMARKS.md (to stdout): the npm package's module, the
page's (when trunk has built dist/), and routing alone (bench/route-only, built by scripts/bench
into RESULTS/route-only), raw and gzipped; then the npm module's code by crate.

    python3 bench/sizes.py bench/results target
"""

import glob
import gzip
import os
import subprocess
import sys

RESULTS, TARGET = sys.argv[1], sys.argv[2]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

print("## wasm module size (`scripts/bench --sizes`)")
print()
package = sorted(glob.glob(os.path.join(REPO, "crates/wasm/pkg/**/*.wasm"), recursive=True))
page = sorted(glob.glob(os.path.join(REPO, "dist/*.wasm")))
floor = sorted(glob.glob(os.path.join(RESULTS, "route-only", "*.wasm")))
if not package:
    print("pending: crates/wasm/pkg has no .wasm file yet (scripts/build-wasm-pkg builds it).")
    sys.exit(0)
print("Targets of issue #26: the npm module at most 120 KB gzipped, the page's at most 220 KB.")
print()
print("| file | bytes | gzip -9 |")
print("| --- | ---: | ---: |")
for f in package + page + floor:
    data = open(f, "rb").read()
    print(f"| {os.path.relpath(f, REPO)} | {len(data):,} | {len(gzip.compress(data, 9)):,} |")
if floor:
    print()
    print("The last row is routing alone (`bench/route-only`: a description parsed and checked as "
          "shr-wasm parses it, a `Router`, `route` and `markDown`; no sessions, driver, fleet health, "
          "probes or metrics), built with the package's profile and `wasm-opt -O3`: what any cut of "
          "the npm module that keeps the graph format and the speed stays above.")
print()
# What the npm module's bytes are: cargo's output still has the function names.
named = os.path.join(TARGET, "wasm32-unknown-unknown", "wasm-pkg", "shr_wasm.wasm")
if os.path.exists(named):
    print("The npm module's code by crate (`python3 bench/wasm_sizes.py`, on cargo's output before "
          "wasm-bindgen and `wasm-opt -O3`, which shrink it by about a fifth):")
    print()
    table = subprocess.run([sys.executable, os.path.join(REPO, "bench", "wasm_sizes.py"), named],
                           capture_output=True, text=True, check=True).stdout.strip()
    print(table)
