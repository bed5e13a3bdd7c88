//! Cheapest plan on an acyclic graph: one sweep in topological order, no heap. Most tool graphs
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
//! node weighed once. A failed tool (an infinite factor) costs one look, not one per edge. The
//! factors are read front to back from a table by position, which live weights keep between
//! queries while the health holds ([`EdgeWeight::factor_table`]). Only
//! the cost is kept: which edge gave it is found again, from the costs, for the few nodes the
//! plan keeps when it is walked back from the goal.
//!
//! On a window of 128 positions or more with no joins, the pull sweep starts sparse
//! (`topo/reach.rs`): only the nodes the sources reach, in order, while they are few (a DAG whose
//! edges jump far ahead); it takes over where they turn dense.
//!
//! Quorum joins fit the same sweep: when a join's turn comes every input it could take is final,
//! so its cost is the sum of its `k` cheapest inputs (Knuth's superior function, as in
//! [`super::Dijkstra`]), read from the edges entering it; the plan is then a tree of branches.
//!
//! Complexity: O(V' + E') for the V' nodes and E' edges between the first source and the goal in
//! the order (O(E' k) with joins of quorum `k`), against O((V + E) log V) for Dijkstra; on a
//! sparse stretch, O(R + E_R) for the R nodes reached there and their out-edges, plus a bit a
//! position. It
//! answers the queries [`super::Dijkstra`] answers without origins, with the same cost; among
//! plans of equal cost it keeps the inputs relaxed first (ties by topological position, then
//! edge order), so the same inputs always give the same plan. A plan's nodes come in order of
//! cost, then position: every node after the nodes feeding it, as Dijkstra settles them.
//! [`super::Dijkstra`] sends it such queries on acyclic graphs, with a two-sided try before a
//! large dense stretch.
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
//!
//! // A join that needs two of three classifiers takes the two cheapest: a tree of branches.
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"s"},{"id":"x"},{"id":"y"},{"id":"z"},
//!   {"id":"act","join":{"quorum":2}}],
//!   "edges":[{"from":"s","to":"x","cost":1},{"from":"s","to":"y","cost":2},
//!            {"from":"s","to":"z","cost":3},{"from":"x","to":"act","cost":1},
//!            {"from":"y","to":"act","cost":1},{"from":"z","to":"act","cost":1}],
//!   "start":"s","goal":"act"}"#).unwrap();
//! assert!(TopoSweep::new().route_into(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost, &mut plan));
//! assert_eq!(plan.cost, 5.0);
//! assert_eq!(plan.ids(&g), ["s", "x", "y", "act"]);
//! ```

use alloc::vec::Vec;

use core::sync::atomic::Ordering::Relaxed;

use super::weight::{entered_weight, kept_table, usable, EdgeWeight, FactorTable};
use super::Plan;
use crate::graph::{NodeIx, ToolGraph};

mod entry;
mod reach;
mod walk;
use entry::{cheapest_entry, enter_join, pull_join, pull_pair, pulled_entry};
use walk::Walk;

const NONE: u32 = u32::MAX;

/// Reusable state of the sweep: a cost per node and the edge it was entered by (by node for the
/// push sweep; by position for the pull sweep, which keeps joins' entries only and finds the
/// others again), rewritten only over the window a query sweeps.
#[derive(Clone, Debug, Default)]
pub struct TopoSweep {
    dist: Vec<f64>,
    /// The edge a node was entered by; for a quorum join, where its `k` edges start in `taken`.
    /// (The pull sweep writes a plain node's while walking a plan with joins back.)
    via: Vec<u32>,
    /// By position, for a node the pull sweep kept an entry of in `via`: that entry's source
    /// position. Walking a chain's plan back is then one load a node, not two in a row.
    back: Vec<u32>,
    /// The inputs the joins of the last query took, `k` after `k`.
    taken: Vec<u32>,
    /// One join's cheapest inputs so far (cost, edge).
    slots: Vec<(f64, u32)>,
    /// Walking a plan with joins back: the nodes met (by slot) and those still to walk.
    mark: Vec<bool>,
    stack: Vec<NodeIx>,
    /// Positions reached and not yet expanded by the sparse start (`reach.rs`), a bit each.
    pending: Vec<u64>,
    /// Factors by position when the weights keep none ([`EdgeWeight::factor_table`]).
    factors: FactorTable,
    /// Sort keys for a plan's nodes: (cost, position) as one integer.
    keys: Vec<u128>,
    /// Sort keys for the edges feeding a join.
    edge_keys: Vec<u128>,
    swept: usize,
    /// The window of the last query when it pulled (its count of nodes swept is read from
    /// `dist` when asked).
    pulled: Option<(usize, usize)>,
}

/// Another search that may answer a query instead of the sweep, asked with the length of the
/// window still to sweep densely and the edges entering it: `Some(found)` when it answered
/// (the plan written), `None` to go on sweeping. How [`super::Dijkstra`] tries the two-sided
/// search on a large window within a budget.
pub(crate) type Probe<'a> = &'a mut dyn FnMut(usize, usize, &mut Plan) -> Option<bool>;

/// The edges entering the positions `from..=hi` (counted from the graph's arrays when it has
/// them, else the positions).
fn window_edges(graph: &ToolGraph, from: usize, hi: usize) -> usize {
    let start = &graph.topo_in().start;
    match (start.get(from), start.get(hi + 1)) {
        (Some(&a), Some(&b)) => (b - a) as usize,
        _ => hi - from,
    }
}

/// Makes the costs of positions `filled..=p` infinite (a query's window is made so lazily, up
/// to where it has been read or pushed to).
#[inline]
fn fill_to(dist: &mut [f64], filled: &mut usize, p: usize) {
    if p >= *filled {
        if let Some(d) = dist.get_mut(*filled..=p) {
            d.fill(f64::INFINITY);
        }
        *filled = p + 1;
    }
}

/// Whether a factor can be travelled: finite and not negative (NaN is not).
#[inline]
fn usable_factor(m: f64) -> bool {
    (0.0..f64::INFINITY).contains(&m)
}

/// The entries of the edges into the node at position `p` that come from the window `lo..`:
/// sources are by position, and those before the window (not swept this time, their slots
/// holding an older query's costs) come first, so they are passed over at once.
#[inline(always)]
fn window_entries(graph: &ToolGraph, lo: usize, p: usize) -> core::ops::Range<usize> {
    let into = graph.topo_in();
    let (a, b) = (into.start[p] as usize, into.start[p + 1] as usize);
    let first = if lo == 0 { 0 } else { into.from[a..b].partition_point(|&f| (f as usize) < lo) };
    a + first..b
}

impl TopoSweep {
    /// A sweep with no buffers yet; they grow to the graph on first use and are reused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Nodes the last query swept (those it reached, the goal not counted).
    pub fn swept_count(&self) -> usize {
        match self.pulled {
            // Counted when asked, not by every query: a pass over the window of a chain was
            // a tenth of its route.
            Some((lo, hi)) => self.dist[lo..hi].iter().filter(|&&d| d < f64::INFINITY).count(),
            None => self.swept,
        }
    }

    /// The cheapest plan from any of `sources` (cost 0 each) to `goal`, written into `plan`: a
    /// path, or a tree of branches when it passes quorum joins. Returns `false` (empty plan)
    /// when the goal cannot be reached, or when the graph has a cycle (no topological order):
    /// ask [`super::Dijkstra`] then.
    pub fn route_into<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        plan: &mut Plan,
    ) -> bool {
        self.route_probing(graph, sources, goal, weights, None, plan)
    }

    /// [`TopoSweep::route_into`], offering `probe` to answer instead before a dense stretch
    /// of the window is swept ([`Probe`]).
    pub(crate) fn route_probing<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        probe: Option<Probe<'_>>,
        plan: &mut Plan,
    ) -> bool {
        plan.reset();
        self.swept = 0;
        self.pulled = None;
        self.taken.clear();
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
            self.back = alloc::vec![NONE; n];
            self.mark = alloc::vec![false; n];
        }
        let joins = !graph.join_nodes().is_empty();
        if weights.entry_factor(goal).is_some() && !graph.topo_in().start.is_empty() {
            // Two copies of the sweep: with no joins to look for, its loop measured 5-8% faster.
            return match joins {
                true => self.pull::<W, true>(graph, sources, goal, lo, hi, weights, None, plan),
                false => self.pull::<W, false>(graph, sources, goal, lo, hi, weights, probe, plan),
            };
        }
        if let Some(found) = probe.and_then(|probe| probe(hi - lo, window_edges(graph, lo, hi), plan)) {
            return found;
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
        for (p, &u) in order.iter().enumerate().take(hi + 1).skip(lo) {
            let u = u as usize;
            let k = if joins { graph.quorum(u) as usize } else { 0 };
            if k > 0 && !sources.contains(&u) {
                // Every edge into the join has been offered by now: take its k cheapest.
                let into = graph.topo_in();
                let dist = &self.dist;
                let mut offers = window_entries(graph, lo, p).filter_map(|j| {
                    let e = into.edge[j];
                    let w = weights.weight(e as usize);
                    usable(w).then(|| (dist[order[into.from[j] as usize] as usize] + w, e))
                });
                let offers: &mut dyn Iterator<Item = (f64, u32)> = &mut offers;
                (self.dist[u], self.via[u]) = enter_join(&mut self.slots, &mut self.taken, k, offers);
            }
            let d = self.dist[u];
            if p == hi || d == f64::INFINITY {
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
        if joins {
            self.plan_tree(graph, sources, goal, cost, Walk::<W>::Pushed, plan);
        } else {
            self.path_back(graph, sources, goal, cost, Walk::<W>::Pushed, plan);
        }
        true
    }

    /// The sweep over positions `lo..=hi` with node factors: each node takes the cheapest edge
    /// entering it from the window (a join, when the graph has `joins`, its `k` cheapest).
    /// `dist` and `via` are by position here.
    #[allow(clippy::too_many_arguments)]
    fn pull<W: EdgeWeight + ?Sized, const JOINS: bool>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        lo: usize,
        hi: usize,
        weights: &W,
        probe: Option<Probe<'_>>,
        plan: &mut Plan,
    ) -> bool {
        let order = graph.topo_order();
        let into = graph.topo_in();
        // Costs are made infinite only up to `filled` (the sources, then what the sparse start
        // pushes to): the dense loop writes every position after it. Filling the whole window
        // first cost 2-8% of a route from JS (`bench/lean.mjs`, 1,000 to 100,000 nodes).
        let mut filled = lo;
        for &s in sources {
            if let Some(p) = graph.topo_position(s).filter(|p| (lo..=hi).contains(p)) {
                fill_to(&mut self.dist, &mut filled, p);
                self.dist[p] = 0.0;
            }
        }
        // Only the reached nodes while they are few (no joins: a join's inputs are pulled).
        let first = match JOINS || hi - lo < reach::SPARSE_WINDOW {
            true => lo + 1,
            false => self.reach(graph, sources, lo, hi, weights, &mut filled),
        };
        if first > hi {
            // Every reached node expanded: the rest of the window is unreached.
            fill_to(&mut self.dist, &mut filled, hi);
        } else {
            let answer = probe.and_then(|probe| probe(hi - first, window_edges(graph, first, hi), plan));
            if let Some(found) = answer {
                fill_to(&mut self.dist, &mut filled, hi);
                return found;
            }
        }
        // Factors by position, read front to back: kept from an earlier query under the same
        // weights, else asked node by node in a pass of their own. Asked inside the loop, each
        // through the order and the memo, they left routes from JS 4-7% slower.
        let n = graph.node_count();
        let table = match kept_table(weights, graph) {
            Some(table) => table,
            None => {
                // The sweep's own, kept for no other query: these weights may change unseen.
                self.factors.forget(n);
                &self.factors
            }
        };
        let factors = match table.kept(first, hi) {
            Some(kept) => kept,
            None => table.weigh(graph, weights, first, hi),
        };
        // Either table is sized for the graph: every position has its factor.
        debug_assert_eq!(factors.len(), (hi + 1).saturating_sub(first));
        let (dist, via, back) = (&mut self.dist[..], &mut self.via[..], &mut self.back[..]);
        // Zipped: a bounds check a node was 5% of a chain's route.
        for (p, f) in (first..hi + 1).zip(factors) {
            let m = f64::from_bits(f.load(Relaxed));
            if !usable_factor(m) {
                // Unreached, but a source keeps its zero (and before `filled`, its cost).
                if p >= filled {
                    dist[p] = f64::INFINITY;
                }
                continue;
            }
            let entries = window_entries(graph, lo, p);
            // A source keeps cost 0: no edge can do better.
            if JOINS && graph.quorum(order[p] as usize) > 0 && (p >= filled || dist[p] != 0.0) {
                let k = graph.quorum(order[p] as usize) as usize;
                (dist[p], via[p]) = pull_join(&mut self.slots, &mut self.taken, k, dist, into, entries, m);
                continue;
            }
            // A source (cost 0) keeps its cost, and needs no entry; any other node's cost so
            // far (infinite, or an offer the sparse start pushed) is no less than its cheapest
            // entry. Told apart by the cost held, a load and a branch off the chain of costs
            // node after node: a `min` with it lay on that chain.
            if p < filled && dist[p] == 0.0 {
                via[p] = NONE;
                continue;
            }
            if entries.len() == 2 {
                (dist[p], via[p], back[p]) = pull_pair(dist, into, entries.start, m);
                continue;
            }
            if entries.len() == 1 {
                let j = entries.start;
                dist[p] = dist[into.from[j] as usize] + entered_weight(into.cost[j], m);
                via[p] = NONE;
                continue;
            }
            dist[p] = cheapest_entry(dist, &into.from[entries.clone()], &into.cost[entries], m);
            // Found again from the costs on the way back.
            via[p] = NONE;
        }
        // Counted after the loop, which then does nothing but weigh entries.
        self.pulled = Some((lo, hi));
        let cost = self.dist[hi];
        if !cost.is_finite() {
            return false;
        }
        let walk = Walk::Pulled { lo, weights };
        if JOINS {
            self.plan_tree(graph, sources, goal, cost, walk, plan);
        } else {
            self.path_back(graph, sources, goal, cost, walk, plan);
        }
        true
    }
}
