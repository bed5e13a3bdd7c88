//! Cheapest path on an acyclic graph: one sweep in topological order, no heap. Most tool graphs
//! are DAGs (stages of alternative tools from a source to a sink), and there a node's cost is
//! final once every edge into it has been relaxed, which a topological order guarantees. The
//! order is computed once when the graph is built ([`ToolGraph::topo_position`]); a query relaxes
//! the out-edges of the nodes between the sources' and the goal's positions, so live weights and
//! any failure set cost nothing extra.
//!
//! When the weights say that every edge into a node weighs its cost times one factor of the node
//! ([`EdgeWeight::entry_factor`], which live health weights do), the sweep pulls instead of
//! pushing: node after node in the order, the cheapest of the edges entering it, read front to
//! back from arrays laid out by position when the graph was built ([`ToolGraph::topo_in`]), the
//! node weighed once. A failed tool (an infinite factor) costs one look, not one per edge.
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

use super::dijkstra::{entered_weight, usable, EdgeWeight, Plan};
use crate::graph::{NodeIx, ToolGraph};

const NONE: u32 = u32::MAX;

/// Reusable state of the sweep: a cost and an incoming edge per node (by node for the push
/// sweep, by position for the pull sweep), rewritten only over the window a query sweeps.
#[derive(Clone, Debug, Default)]
pub struct TopoSweep {
    dist: Vec<f64>,
    via: Vec<u32>,
    swept: usize,
}

/// The cheapest way of entering a node over edges from sources at `froms` with costs `costs`,
/// its factor `m`: the cost and the index of the edge, the first among equal costs. Each edge
/// is weighed once, and the minimum and its index are kept with selects, not branches: which
/// edge wins is data the branch predictor cannot learn. (Two or four running minimums side by
/// side measured no faster: tool graphs have few edges into a node.)
#[inline]
fn cheapest_entry(dist: &[f64], froms: &[u32], costs: &[f64], m: f64) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut at = 0usize;
    for (k, (&f, &c)) in froms.iter().zip(costs).enumerate() {
        let nd = dist[f as usize] + entered_weight(c, m);
        let better = nd < best;
        best = if better { nd } else { best };
        at = if better { k } else { at };
    }
    (best, at)
}

/// Whether a factor can be travelled: finite and not negative (NaN is not).
#[inline]
fn usable_factor(m: f64) -> bool {
    (0.0..f64::INFINITY).contains(&m)
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
        if weights.entry_factor(goal).is_some() && !graph.topo_in().start.is_empty() {
            return self.pull(graph, sources, goal, lo, hi, weights, plan);
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
        self.path_back(graph, goal, cost, |v| v, plan);
        true
    }

    /// The sweep over positions `lo..=hi` with node factors: each node takes the cheapest edge
    /// entering it from the window. `dist` and `via` are by position here.
    #[allow(clippy::too_many_arguments)]
    fn pull<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        lo: usize,
        hi: usize,
        weights: &W,
        plan: &mut Plan,
    ) -> bool {
        let order = graph.topo_order();
        let into = graph.topo_in();
        let (dist, via) = (&mut self.dist[..], &mut self.via[..]);
        dist[lo..=hi].fill(f64::INFINITY);
        via[lo..=hi].fill(NONE);
        for &s in sources {
            if let Some(p) = graph.topo_position(s).filter(|p| (lo..=hi).contains(p)) {
                dist[p] = 0.0;
            }
        }
        let mut swept = usize::from(dist[lo] == 0.0);
        for p in lo + 1..=hi {
            // A source keeps cost 0: no edge can do better.
            if dist[p] == 0.0 {
                swept += usize::from(p < hi);
                continue;
            }
            let m = weights.entry_factor(order[p] as usize).unwrap_or(f64::INFINITY);
            if !usable_factor(m) {
                continue;
            }
            let (a, b) = (into.start[p] as usize, into.start[p + 1] as usize);
            let (froms, costs) = (&into.from[a..b], &into.cost[a..b]);
            // Sources are by position: those before the window (not swept this time, their
            // slots holding an older query's costs) come first and are passed over at once.
            let first = if lo == 0 { 0 } else { froms.partition_point(|&f| (f as usize) < lo) };
            let (froms, costs) = (&froms[first..], &costs[first..]);
            let (best, k) = cheapest_entry(dist, froms, costs, m);
            if best < f64::INFINITY {
                dist[p] = best;
                via[p] = into.edge[a + first + k];
                swept += usize::from(p < hi);
            }
        }
        self.swept = swept;
        let cost = self.dist[hi];
        if !cost.is_finite() {
            return false;
        }
        let at = |v: NodeIx| graph.topo_position(v).unwrap_or(0);
        self.path_back(graph, goal, cost, at, plan);
        true
    }

    /// Writes the path ending at `goal` into `plan`, following `via` (indexed by `slot(node)`).
    fn path_back(
        &self,
        graph: &ToolGraph,
        goal: NodeIx,
        cost: f64,
        slot: impl Fn(NodeIx) -> usize,
        plan: &mut Plan,
    ) {
        let mut v = goal;
        plan.nodes.push(v);
        while self.via[slot(v)] != NONE {
            let e = self.via[slot(v)] as usize;
            plan.edges.push(e);
            v = graph.edge(e).from;
            plan.nodes.push(v);
        }
        plan.nodes.reverse();
        plan.edges.reverse();
        plan.cost = cost;
    }
}
