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
//! - `index.json`: name, file, sizes, start, goal, cheapest cost and the hop count of each.
//!
//! Run: `cargo bench -p shr-core --bench gen_graphs -- [OUT_DIR]` (default `bench/graphs` at
//! the workspace root). Registered as a bench target so that it lives with the benchmarks.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use shr_core::rng::SplitMix64;
use shr_core::ToolGraph;

const SIZES: [usize; 3] = [50, 1_000, 100_000];
const OUT_DEGREE: usize = 4;
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
        let graph = random_graph(n, 0x5348_5242_0000 + n as u64);
        index.push(write(&out, &format!("rand_{n}"), "random", &graph));
    }
    let index = serde_json::to_string_pretty(&Value::Array(index)).expect("serialize");
    std::fs::write(out.join("index.json"), index + "\n").expect("write index.json");
    eprintln!("graphs written to {}", out.display());
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

/// A random digraph of `n` nodes, out-degree 4, costs 1..=10, as ToolGraph JSON.
fn random_graph(n: usize, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut adj: Vec<Vec<(usize, u32)>> = Vec::with_capacity(n);
    for u in 0..n {
        let mut out: Vec<(usize, u32)> = Vec::with_capacity(OUT_DEGREE);
        while out.len() < OUT_DEGREE {
            let v = rng.below(n as u64) as usize;
            if v != u && out.iter().all(|&(w, _)| w != v) {
                out.push((v, 1 + rng.below(10) as u32));
            }
        }
        adj.push(out);
    }
    let goal = deepest(&adj, 0);
    let mut s = String::with_capacity(n * 200);
    s.push_str("{\"nodes\":[");
    for u in 0..n {
        if u > 0 {
            s.push(',');
        }
        write!(s, "{{\"id\":\"n{u}\"}}").unwrap();
    }
    s.push_str("],\"edges\":[");
    let mut first = true;
    for (u, out) in adj.iter().enumerate() {
        for &(v, c) in out {
            if !first {
                s.push(',');
            }
            first = false;
            write!(s, "{{\"from\":\"n{u}\",\"to\":\"n{v}\",\"cost\":{c}}}").unwrap();
        }
    }
    write!(s, "],\"start\":\"n0\",\"goal\":\"n{goal}\"}}").unwrap();
    s
}

/// The reachable node whose cheapest path from `start` has the most hops (then the larger
/// cost, then the lower index). Integer costs, so exact.
fn deepest(adj: &[Vec<(usize, u32)>], start: usize) -> usize {
    let n = adj.len();
    let mut dist = vec![u64::MAX; n];
    let mut hops = vec![0u32; n];
    let mut heap = BinaryHeap::new();
    dist[start] = 0;
    heap.push(Reverse((0u64, start)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for &(v, c) in &adj[u] {
            let nd = d + c as u64;
            // Ties on cost: fewer hops (any cheapest path would do; this keeps it stable).
            if nd < dist[v] || (nd == dist[v] && hops[u] + 1 < hops[v]) {
                dist[v] = nd;
                hops[v] = hops[u] + 1;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    (0..n)
        .filter(|&v| dist[v] != u64::MAX)
        .max_by_key(|&v| (hops[v], dist[v], Reverse(v)))
        .expect("start is reachable from itself")
}
