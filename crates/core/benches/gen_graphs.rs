//! Writes the benchmark graphs, deterministically, in the ToolGraph JSON format
//! (`{"nodes":[{"id"}],"edges":[{"from","to","cost"}],"start","goal"}`):
//!
//! - `scn_<name>.json`: the paper's scenario graphs, the `graph` of each domain file in
//!   `crates/eval/scenarios/` (11 to 13 nodes), unchanged;
//! - `rand_<n>.json` for n = 50, 1,000 and 100,000: seeded random digraphs, every node with
//!   out-degree 4 (distinct targets, no self-loops), integer costs 1 to 10. The start is `n0`;
//!   the goal is the node whose cheapest path from `n0` has the most hops (ties: the larger
//!   cost, then the lower index), so a route settles nearly the whole graph and the best path
//!   is long enough to fail 10 of its tools;
//! - `index.json`: name, file, sizes, start, goal, cheapest cost and the hop count of each;
//! - `layered_<n>.json` for n = 12, 50, 200 and 1,000: layered tool graphs (see
//!   `common/workloads.rs`), and `workloads.json`: the queries timed on them (source to sink,
//!   0-3 failed tools each) and the random start/goal pairs timed on `rand_1000` and
//!   `rand_100000`, each with petgraph's cost. `benches/layered.rs` times the same queries.
//!
//! Run: `cargo bench -p shr-core --bench gen_graphs -- [OUT_DIR]` (default `bench/graphs` at
//! the workspace root). Registered as a bench target so that it lives with the benchmarks.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use shr_core::ToolGraph;

#[path = "common/workloads.rs"]
mod workloads;
use workloads::*;

const SIZES: [usize; 3] = [50, 1_000, 100_000];
const SCENARIOS: [&str; 3] = ["customer_support", "travel_booking", "content_moderation"];

fn main() {
    // `cargo bench` passes `--bench`; anything else not starting with '-' is the output folder.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("bench/graphs"));
    std::fs::create_dir_all(&out).expect("create the output folder");
    let mut index = Vec::new();

    for name in SCENARIOS {
        let path = root.join(format!("crates/eval/scenarios/{name}.json"));
        let text = std::fs::read_to_string(&path).expect("read a scenario domain file");
        let domain: Value = serde_json::from_str(&text).expect("scenario domain file is JSON");
        let graph = serde_json::to_string(&domain["graph"]).expect("serialize");
        index.push(write(&out, &format!("scn_{name}"), "scenario", &graph));
    }
    for n in SIZES {
        let graph = random_graph(n, random_seed(n));
        index.push(write(&out, &format!("rand_{n}"), "random", &graph));
    }
    let index = serde_json::to_string_pretty(&Value::Array(index)).expect("serialize");
    std::fs::write(out.join("index.json"), index + "\n").expect("write index.json");

    let mut timed = Vec::new();
    for n in LAYERED_SIZES {
        let graph = layered_graph(n, layered_seed(n));
        let file = format!("layered_{n}.json");
        std::fs::write(out.join(&file), graph.to_string()).expect("write a graph");
        let queries = layered_queries(&graph, layered_query_seed(n));
        timed.push(workload(&format!("layered_{n}"), "layered", &file, &graph, &queries));
    }
    for n in PAIR_SIZES {
        let file = format!("rand_{n}.json");
        let graph: Value = serde_json::from_str(&random_graph(n, random_seed(n))).expect("JSON");
        let queries = random_pairs(&graph, pairs_seed(n));
        timed.push(workload(&format!("pairs_{n}"), "pairs", &file, &graph, &queries));
    }
    let timed = serde_json::to_string(&Value::Array(timed)).expect("serialize");
    std::fs::write(out.join("workloads.json"), timed + "\n").expect("write workloads.json");
    eprintln!("graphs written to {}", out.display());
}

fn workload(name: &str, kind: &str, file: &str, graph: &Value, queries: &[Query]) -> Value {
    let (ids, edges) = structure(graph);
    eprintln!("{name}: {} queries on {file}", queries.len());
    json!({"name": name, "kind": kind, "file": file, "nodes": ids.len(), "edges": edges.len(),
           "queries": queries_json(graph, queries)})
}

/// Validates `json` as a ToolGraph, writes it and returns its index entry.
fn write(out: &Path, name: &str, kind: &str, json: &str) -> Value {
    let g = ToolGraph::from_json(json).unwrap_or_else(|e| panic!("{name} is not a valid ToolGraph: {e:?}"));
    let file = format!("{name}.json");
    std::fs::write(out.join(&file), json).expect("write a graph");
    let plan = shr_core::Dijkstra::new()
        .route(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost, &mut ())
        .expect("the goal is reachable");
    let joins = g.nodes().iter().filter(|n| n.join != shr_core::graph::Join::Any).count();
    eprintln!(
        "{file}: {} nodes, {} edges, cost {}, {} nodes on the plan, {} joins",
        g.node_count(),
        g.edge_count(),
        plan.cost,
        plan.nodes.len(),
        joins
    );
    json!({
        "name": name,
        "kind": kind,
        "file": file,
        "nodes": g.node_count(),
        "edges": g.edge_count(),
        "start": g.id(g.start()),
        "goal": g.id(g.goal()),
        "cost": plan.cost,
        "plan_nodes": plan.nodes.len(),
        "joins": joins,
    })
}
