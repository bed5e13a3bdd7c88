//! What the `route` and `reroute` benches share: the graph files of `bench/graphs` and the
//! observer that keeps a query on the one-directional search.

use std::path::PathBuf;

use serde_json::Value;
use shr_core::ToolGraph;

/// `SHR_BENCH_GRAPHS`, else the repository's `bench/graphs`.
pub fn graphs_dir() -> PathBuf {
    std::env::var_os("SHR_BENCH_GRAPHS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/graphs")))
}

/// (name, graph, whether it has joins) for every graph of the index.
pub fn load_graphs() -> Vec<(String, ToolGraph, bool)> {
    let dir = graphs_dir();
    let index = std::fs::read_to_string(dir.join("index.json")).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write the graphs first: cargo bench -p shr-core --bench gen_graphs",
            dir.join("index.json").display()
        )
    });
    let index: Value = serde_json::from_str(&index).expect("index.json is JSON");
    index
        .as_array()
        .expect("index.json is an array")
        .iter()
        .map(|entry| {
            let name = entry["name"].as_str().expect("name").to_string();
            let text =
                std::fs::read_to_string(dir.join(entry["file"].as_str().expect("file"))).expect("read graph");
            let graph = ToolGraph::from_json(&text).expect("valid graph");
            let joins = entry["joins"].as_u64().unwrap_or(0) > 0;
            (name, graph, joins)
        })
        .collect()
}

mod one_sided;
pub use one_sided::OneSided;
