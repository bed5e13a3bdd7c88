//! The routing cases the `layered` bench times and the `icount` bench counts: each workload of
//! `workloads.rs` as a graph and its queries, each query's failure set as live weights give it,
//! a router per failure set, and petgraph's answer.

use petgraph::algo::dijkstra;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde_json::Value;
use shr_core::algo::{entered_weight, EdgeWeight, FactorTable};
use shr_core::{Router, ToolGraph};

use super::workloads::*;

/// A workload's graph description and queries at size `n`: `layered`, `pairs`, or `joins` (the
/// layered graphs with quorum joins); `None` for another name.
pub fn workload(name: &str, n: usize) -> Option<(Value, Vec<Query>)> {
    match name {
        "layered" | "joins" => {
            let plain = layered_graph(n, layered_seed(n));
            let queries = layered_queries(&plain, layered_query_seed(n));
            let graph = if name == "joins" { with_joins(&plain) } else { plain };
            Some((graph, queries))
        }
        "pairs" => {
            let graph: Value = serde_json::from_str(&random_graph(n, random_seed(n))).ok()?;
            let queries = random_pairs(&graph, pairs_seed(n));
            Some((graph, queries))
        }
        _ => None,
    }
}

/// A failure set in the form live weights have: a factor per tool, infinite when it failed.
pub struct Failed<'a> {
    pub g: &'a ToolGraph,
    pub failed: &'a FailureSet,
}

/// A query's failed tools by node, and the factors the sweep keeps for them, as a router's memo
/// keeps them while its health holds.
pub struct FailureSet {
    failed: Vec<bool>,
    table: FactorTable,
}

impl core::ops::Deref for FailureSet {
    type Target = [bool];
    fn deref(&self) -> &[bool] {
        &self.failed
    }
}

impl EdgeWeight for Failed<'_> {
    #[inline]
    fn weight(&self, e: usize) -> f64 {
        let edge = self.g.edge(e);
        entered_weight(edge.cost, self.entry_factor(edge.to).unwrap_or(f64::INFINITY))
    }
    #[inline]
    fn entry_factor(&self, v: usize) -> Option<f64> {
        Some(if self.failed[v] { f64::INFINITY } else { 1.0 })
    }
    #[inline]
    fn factor_table(&self) -> Option<&FactorTable> {
        Some(&self.failed.table)
    }
}

/// petgraph's `dijkstra` with the goal given, the edges into a failed tool infinite.
pub fn petgraph_cost(pg: &DiGraph<usize, f64>, q: &Query, failed: &[bool]) -> Option<f64> {
    let m = dijkstra(pg, NodeIndex::new(q.start), Some(NodeIndex::new(q.goal)), |e| {
        if failed[e.target().index()] {
            f64::INFINITY
        } else {
            *e.weight()
        }
    });
    m.get(&NodeIndex::new(q.goal)).copied()
}

/// Each query's failure set, as a flag per tool.
pub fn failure_sets(g: &ToolGraph, queries: &[Query]) -> Vec<FailureSet> {
    let set = |q: &Query| {
        let mut table = FactorTable::default();
        table.forget(g.node_count());
        FailureSet { failed: (0..g.node_count()).map(|v| q.failed.contains(&v)).collect(), table }
    };
    queries.iter().map(set).collect()
}

/// One router per query's failure set, its failed tools marked down: what a host holds.
pub fn routers(g: &ToolGraph, queries: &[Query]) -> Vec<Router> {
    queries
        .iter()
        .map(|q| {
            let mut r = Router::new(g.clone());
            for &v in &q.failed {
                r.mark_down(v, 0);
            }
            r
        })
        .collect()
}

/// `graph` with quorum joins of 2: the sink takes two results of the last layer, and the first
/// tool of every layer after the first takes two of the layer before (an aggregator). Every
/// plan is then a tree of branches.
pub fn with_joins(graph: &Value) -> Value {
    let mut g = graph.clone();
    let inputs =
        |id: &str| graph["edges"].as_array().map_or(0, |es| es.iter().filter(|e| e["to"] == id).count());
    if let Some(nodes) = g["nodes"].as_array_mut() {
        for node in nodes.iter_mut() {
            let id = node["id"].as_str().unwrap_or_default();
            let opens_layer = id.starts_with('l') && id.ends_with("t0") && id != "l0t0";
            if (opens_layer || id == "sink") && inputs(id) >= 2 {
                node["join"] = serde_json::json!({ "quorum": 2 });
            }
        }
    }
    g
}
