//! Peak memory of the largest run: loads a graph file (default `bench/graphs/rand_100000.json`),
//! routes it 10 times with shr-core, then 10 times with petgraph's astar, and prints one JSON
//! line: the heap high-water marks (a counting allocator) and the process's peak RSS (VmHWM).
//! With the `std` feature it also parses the file with `ToolGraph::from_reader` (the text never
//! held whole).
//!
//! Run: `cargo bench -p shr-core --features std --bench peak_mem -- [FILE]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use petgraph::algo::astar;
use petgraph::graph::NodeIndex;
use shr_core::algo::{Dijkstra, Plan};
use shr_core::ToolGraph;

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let live = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(live, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grow(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Resets the high-water mark to the live heap; returns the live heap.
fn reset_peak() -> usize {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    live
}

fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The heap's high-water mark while `ToolGraph::from_reader` parses the file, above the heap
/// before (the graph built included); `None` without the `std` feature.
fn from_reader_peak(file: &str) -> Option<usize> {
    #[cfg(feature = "std")]
    {
        let base = reset_peak();
        let f = std::fs::File::open(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let graph = ToolGraph::from_reader(f).expect("valid graph");
        let peak = PEAK.load(Relaxed) - base;
        drop(graph);
        Some(peak)
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = file;
        None
    }
}

fn main() {
    let file = std::env::args().skip(1).find(|a| !a.starts_with('-')).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/graphs/rand_100000.json").to_string()
    });
    let reader_peak = from_reader_peak(&file);
    let base = reset_peak();
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
    // The description alone, deserialized into its `GraphSpec` (what `from_json` does first).
    let text_live = reset_peak();
    let spec: shr_core::graph::GraphSpec = serde_json::from_str(&text).expect("a description");
    let spec_peak = PEAK.load(Relaxed) - text_live;
    drop(spec);
    PEAK.store(text_live, Relaxed);
    let graph = ToolGraph::from_json(&text).expect("valid graph");
    let load_peak = PEAK.load(Relaxed) - base;
    let text_bytes = text.len();
    drop(text);
    let graph_live = reset_peak() - base;

    let weights = |e: usize| graph.edge(e).cost;
    let mut d = Dijkstra::new();
    let mut plan = Plan::default();
    for _ in 0..10 {
        assert!(d.route_into(&graph, &[graph.start()], graph.goal(), &weights, &mut (), &mut plan));
    }
    let shr_route_peak = PEAK.load(Relaxed) - graph_live - base;
    drop((d, plan));

    let before = reset_peak();
    let pg = graph.to_petgraph();
    let pg_live = LIVE.load(Relaxed) - before;
    let at = reset_peak();
    for _ in 0..10 {
        let goal = graph.goal();
        astar(&pg, NodeIndex::new(graph.start()), |n| n.index() == goal, |e| *e.weight(), |_| 0.0)
            .expect("route");
    }
    let petgraph_route_peak = PEAK.load(Relaxed) - at;

    println!(
        "{}",
        serde_json::json!({
            "file": file,
            "nodes": graph.node_count(),
            "edges": graph.edge_count(),
            "text_bytes": text_bytes,
            "spec_peak_heap_bytes": spec_peak,
            "load_peak_heap_bytes": load_peak,
            "reader_peak_heap_bytes": reader_peak,
            "graph_heap_bytes": graph_live,
            "shr_route_peak_heap_bytes": shr_route_peak,
            "petgraph_graph_heap_bytes": pg_live,
            "petgraph_route_peak_heap_bytes": petgraph_route_peak,
            "process_peak_rss_kib": vm_hwm_kib(),
        })
    );
}
