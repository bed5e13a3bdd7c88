//! The benchmark workloads, made the same way by every bench that uses them (`gen_graphs`
//! writes them for the JS peers, `layered` times them natively), so both sides route the same
//! graphs and the same queries.
//!
//! - Layered tool graphs, the shape agents have: a source, layers of 2-8 alternative tools where
//!   every tool of a layer leads to every tool of the next, a sink. Queries go from the source to
//!   the sink with 0-3 failed tools drawn per query.
//! - Random start/goal pairs on the random digraphs of `gen_graphs`, no failures.
//!
//! Every query has a route: a failure set that cuts the source from the sink is drawn again, so
//! that every library answers every query with a path (the peers have no "no route" answer in
//! common).
#![allow(dead_code)] // each bench uses a part

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;

use petgraph::algo::dijkstra;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde_json::{json, Value};
use shr_core::rng::SplitMix64;

/// Layered graph sizes (nodes, source and sink included).
pub const LAYERED_SIZES: [usize; 4] = [12, 50, 200, 1000];
/// Random graph sizes whose start/goal pairs are timed.
pub const PAIR_SIZES: [usize; 2] = [1000, 100_000];
/// Out-degree of every node of a random graph.
pub const OUT_DEGREE: usize = 4;
/// Queries per workload, taken in turn.
pub const QUERIES: usize = 64;

/// A layered tool graph of `target` nodes as ToolGraph JSON.
pub fn layered_graph(target: usize, seed: u64) -> Value {
    let mut rng = SplitMix64::new(seed);
    let mut nodes = vec![json!({"id": "source", "tool": false})];
    let mut edges = Vec::new();
    let mut prev = vec!["source".to_string()];
    let mut layer = 0;
    while nodes.len() + 1 < target {
        let width = (2 + rng.below(7) as usize).min(target - 1 - nodes.len());
        let ids: Vec<String> = (0..width).map(|k| format!("l{layer}t{k}")).collect();
        for (k, id) in ids.iter().enumerate() {
            nodes.push(json!({"id": id}));
            for p in &prev {
                edges.push(json!({"from": p, "to": id, "cost": 1 + k + rng.below(3) as usize}));
            }
        }
        prev = ids;
        layer += 1;
    }
    nodes.push(json!({"id": "sink", "tool": false}));
    for p in &prev {
        edges.push(json!({"from": p, "to": "sink", "cost": 1}));
    }
    json!({"nodes": nodes, "edges": edges, "start": "source", "goal": "sink"})
}

/// One query: from `start` to `goal` with the tools `failed` down; `cost` is petgraph's
/// `dijkstra` answer, which every library is checked against before timing.
#[derive(Clone, Debug)]
pub struct Query {
    pub start: usize,
    pub goal: usize,
    pub failed: Vec<usize>,
    pub cost: f64,
}

/// The graph's ids, index by index, and its edges as (from, to, cost) indices, in the order the
/// description lists them (the order `ToolGraph` keeps).
pub fn structure(graph: &Value) -> (Vec<String>, Vec<(usize, usize, f64)>) {
    let ids: Vec<String> = graph["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| n["id"].as_str().unwrap_or("").to_string())
        .collect();
    let index: std::collections::HashMap<&str, usize> =
        ids.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    let edges = graph["edges"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let end = |k: &str| index[e[k].as_str().unwrap_or("")];
            (end("from"), end("to"), e["cost"].as_f64().unwrap_or(1.0))
        })
        .collect();
    (ids, edges)
}

fn petgraph_of(n: usize, edges: &[(usize, usize, f64)]) -> DiGraph<(), f64> {
    let mut g = DiGraph::<(), f64>::with_capacity(n, edges.len());
    for _ in 0..n {
        g.add_node(());
    }
    for &(a, b, c) in edges {
        g.add_edge(NodeIndex::new(a), NodeIndex::new(b), c);
    }
    g
}

fn cheapest(g: &DiGraph<(), f64>, q_start: usize, goal: usize, failed: &[bool]) -> Option<f64> {
    let d = dijkstra(g, NodeIndex::new(q_start), Some(NodeIndex::new(goal)), |e| {
        if failed[e.target().index()] {
            f64::INFINITY
        } else {
            *e.weight()
        }
    });
    d.get(&NodeIndex::new(goal)).copied().filter(|c| c.is_finite())
}

/// Source-to-sink queries on a layered graph, each with 0-3 failed tools.
pub fn layered_queries(graph: &Value, seed: u64) -> Vec<Query> {
    let (ids, edges) = structure(graph);
    let n = ids.len();
    let (start, goal) = (0, n - 1);
    let g = petgraph_of(n, &edges);
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(QUERIES);
    while out.len() < QUERIES {
        let mut failed = vec![false; n];
        for _ in 0..rng.below(4) {
            failed[1 + rng.below(n as u64 - 2) as usize] = true;
        }
        if let Some(cost) = cheapest(&g, start, goal, &failed) {
            let failed = (0..n).filter(|&v| failed[v]).collect();
            out.push(Query { start, goal, failed, cost });
        }
    }
    out
}

/// Random start/goal pairs with a route between them, no failures.
pub fn random_pairs(graph: &Value, seed: u64) -> Vec<Query> {
    let (ids, edges) = structure(graph);
    let n = ids.len();
    let none = vec![false; n];
    let g = petgraph_of(n, &edges);
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(QUERIES);
    while out.len() < QUERIES {
        let (start, goal) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
        if start == goal {
            continue;
        }
        if let Some(cost) = cheapest(&g, start, goal, &none) {
            out.push(Query { start, goal, failed: Vec::new(), cost });
        }
    }
    out
}

/// Seeds, one place: the layered graph of `n` nodes and its queries, the pairs of `rand_<n>`.
pub fn layered_seed(n: usize) -> u64 {
    n as u64
}
pub fn layered_query_seed(n: usize) -> u64 {
    0x4641_494c + n as u64
}
pub fn random_seed(n: usize) -> u64 {
    0x5348_5242_0000 + n as u64
}
pub fn pairs_seed(n: usize) -> u64 {
    0x5041_4952 + n as u64
}

/// The queries as JSON for the JS peers: ids, not indices.
pub fn queries_json(graph: &Value, queries: &[Query]) -> Value {
    let (ids, _) = structure(graph);
    Value::Array(
        queries
            .iter()
            .map(|q| {
                json!({
                    "start": ids[q.start],
                    "goal": ids[q.goal],
                    "failed": q.failed.iter().map(|&v| ids[v].clone()).collect::<Vec<_>>(),
                    "cost": q.cost,
                })
            })
            .collect(),
    )
}

/// A random digraph of `n` nodes, out-degree 4, costs 1..=10, as ToolGraph JSON.
pub fn random_graph(n: usize, seed: u64) -> String {
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
