//! Cheapest path on an acyclic graph: one sweep in topological order, no heap. Most tool graphs
//! are DAGs (stages of alternative tools from a source to a sink), and there a node's cost is
//! final once every edge into it has been relaxed, which a topological order guarantees. The
//! order is computed once when the graph is built ([`ToolGraph::topo_position`]); a query relaxes
//! the out-edges of the nodes between the sources' and the goal's positions, so live weights and
//! any failure set cost nothing extra.
//!
//! Complexity: O(V' + E') for the V' nodes and E' edges between the first source and the goal in
//! the order, against O((V + E) log V) for Dijkstra. It answers the same queries as
//! [`super::Bidirectional`] (no quorum joins, no origins), with the same cost; among paths of
//! equal cost it keeps the one relaxed first (ties by topological position, then edge order),
//! so the same inputs always give the same path. [`super::Dijkstra`] sends it such queries on
//! acyclic graphs when the window is small enough to beat the two-sided search.
//!
//! ```
//! use shr_core::{ToolGraph, algo::{TopoSweep, Plan}};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],
//!   "edges":[{"from":"a","to":"b","cost":1},{"from":"b","to":"c","cost":1},
//!            {"from":"a","to":"c","cost":5}], "start":"a","goal":"c"}"#).unwrap();
//! assert!(g.topo_position(0).is_some());
//! let mut plan = Plan::default();
//! let found = TopoSweep::new().route_into(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost, &mut plan);
//! assert!(found);
//! assert_eq!(plan.cost, 2.0);
//! assert_eq!(plan.ids(&g), ["a", "b", "c"]);
//! ```

use alloc::vec::Vec;

use super::dijkstra::{usable, EdgeWeight, Plan};
use crate::graph::{NodeIx, ToolGraph};

const NONE: u32 = u32::MAX;

/// Reusable state of the sweep: a cost and an incoming edge per node, rewritten only over the
/// window a query sweeps.
#[derive(Clone, Debug, Default)]
pub struct TopoSweep {
    dist: Vec<f64>,
    via: Vec<u32>,
    swept: usize,
}

impl TopoSweep {
    pub fn new() -> Self {
        Self::default()
    }

    /// Nodes the last query swept.
    pub fn swept_count(&self) -> usize {
        self.swept
    }

    /// The cheapest path from any of `sources` (cost 0 each) to `goal`, written into `plan`.
    /// Returns `false` (empty plan) when the goal cannot be reached, or when the graph has a
    /// cycle (no topological order): ask [`super::Dijkstra`] then.
    pub fn route_into<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        plan: &mut Plan,
    ) -> bool {
        plan.reset();
        self.swept = 0;
        let n = graph.node_count();
        let Some(hi) = graph.topo_position(goal) else { return false };
        // The goal is a source: nothing to sweep, even when an earlier source opens a window.
        if sources.contains(&goal) {
            plan.nodes.push(goal);
            plan.cost = 0.0;
            return true;
        }
        let Some(lo) = sources.iter().filter_map(|&s| graph.topo_position(s)).filter(|&p| p <= hi).min()
        else {
            return false;
        };
        if self.dist.len() != n {
            self.dist = alloc::vec![f64::INFINITY; n];
            self.via = alloc::vec![NONE; n];
        }
        let order = graph.topo_order();
        for &v in &order[lo..=hi] {
            self.dist[v as usize] = f64::INFINITY;
            self.via[v as usize] = NONE;
        }
        for &s in sources {
            if graph.topo_position(s).is_some_and(|p| (lo..=hi).contains(&p)) {
                self.dist[s] = 0.0;
            }
        }
        for &u in &order[lo..hi] {
            let u = u as usize;
            let d = self.dist[u];
            if d == f64::INFINITY {
                continue;
            }
            self.swept += 1;
            for &e in graph.out_edges(u) {
                let w = weights.weight(e as usize);
                if !usable(w) {
                    continue;
                }
                let v = graph.edge(e as usize).to;
                // Past the goal in the order: it cannot lead back to it.
                if graph.topo_position(v).is_none_or(|p| p > hi) {
                    continue;
                }
                let nd = d + w;
                if nd < self.dist[v] {
                    self.dist[v] = nd;
                    self.via[v] = e;
                }
            }
        }
        let cost = self.dist[goal];
        if !cost.is_finite() {
            return false;
        }
        let mut v = goal;
        plan.nodes.push(v);
        while self.via[v] != NONE {
            let e = self.via[v] as usize;
            plan.edges.push(e);
            v = graph.edge(e).from;
            plan.nodes.push(v);
        }
        plan.nodes.reverse();
        plan.edges.reverse();
        plan.cost = cost;
        true
    }
}
