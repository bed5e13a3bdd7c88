"""The memory section of BENCHMARKS.md (scripts/bench --memory) from the peak_mem bench's JSON
line on stdin: the heap while a large description is parsed, against the graph built from it."""
import json
import sys

m = json.loads(sys.stdin.read())
MB = 1024 * 1024
text, peak, graph, spec = m["text_bytes"], m["load_peak_heap_bytes"], m["graph_heap_bytes"], m["spec_peak_heap_bytes"]
print("## Peak memory while parsing (`scripts/bench --memory`)")
print()
print(f"`ToolGraph::from_json` on `rand_100000.json` ({m['nodes']:,} nodes, {m['edges']:,} edges, "
      f"{text / MB:.1f} MiB of text), the heap counted by the `peak_mem` bench's allocator. "
      "Target (issue 48): the peak at most 2x the built graph.")
print()
print("| | heap | against the built graph |")
print("|---|--:|--:|")
print(f"| the built `ToolGraph` | {graph / MB:.1f} MiB | 1.00x |")
print(f"| peak while parsing, the text included | {peak / MB:.1f} MiB | {peak / graph:.2f}x |")
print(f"| peak while parsing, above the text | {(peak - text) / MB:.1f} MiB | {(peak - text) / graph:.2f}x |")
print(f"| of which deserializing the `GraphSpec` alone, above the text | {spec / MB:.1f} MiB | {spec / graph:.2f}x |")
