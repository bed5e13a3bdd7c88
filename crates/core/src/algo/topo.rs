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
//! node weighed once. A failed tool (an infinite factor) costs one look, not one per edge. Only
//! the cost is kept: which edge gave it is found again, from the costs, for the few nodes the
//! plan keeps when it is walked back from the goal.
//!
//! Quorum joins fit the same sweep: when a join's turn comes every input it could take is final,
//! so its cost is the sum of its `k` cheapest inputs (Knuth's superior function, as in
//! [`super::Dijkstra`]), read from the edges entering it; the plan is then a tree of branches.
//!
//! Complexity: O(V' + E') for the V' nodes and E' edges between the first source and the goal in
//! the order (O(E' k) with joins of quorum `k`), against O((V + E) log V) for Dijkstra. It
//! answers the queries [`super::Dijkstra`] answers without origins, with the same cost; among
//! plans of equal cost it keeps the inputs relaxed first (ties by topological position, then
//! edge order), so the same inputs always give the same plan. A plan's nodes come in order of
//! cost, then position: every node after the nodes feeding it, as Dijkstra settles them.
//! [`super::Dijkstra`] sends it such queries on acyclic graphs when the window is small enough
//! to beat the two-sided search.
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

use super::dijkstra::{entered_weight, join_cost, keep_cheapest, usable, EdgeWeight, Entry, Plan};
use crate::graph::{NodeIx, ToolGraph, TopoIn};

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
    /// The inputs the joins of the last query took, `k` after `k`.
    taken: Vec<u32>,
    /// One join's cheapest inputs so far (cost, edge).
    slots: Vec<(f64, u32)>,
    /// Walking a plan with joins back: the nodes met (by slot) and those still to walk.
    mark: Vec<bool>,
    stack: Vec<NodeIx>,
    /// Sort keys for a plan's nodes: (cost, position) as one integer.
    keys: Vec<u128>,
    /// Sort keys for the edges feeding a join.
    edge_keys: Vec<u128>,
    swept: usize,
}

/// The cheapest cost of entering a node over edges from sources at `froms` with costs `costs`,
/// its factor `m`. Only the minimum is kept, in two running minimums: a node's time was the
/// chain of compare-and-select through one minimum and its index, edge after edge. Which edge
/// gave it is found again for the few nodes a plan keeps ([`pulled_entry`]).
#[inline(always)]
fn cheapest_entry(dist: &[f64], froms: &[u32], costs: &[f64], m: f64) -> f64 {
    // Indices, not iterator adapters: the release profile (opt-level "z") calls those, edge
    // after edge.
    let n = froms.len().min(costs.len());
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    let mut k = n % 2;
    if k == 1 {
        a = dist[froms[0] as usize] + entered_weight(costs[0], m);
    }
    while k + 1 < n {
        let x = dist[froms[k] as usize] + entered_weight(costs[k], m);
        let y = dist[froms[k + 1] as usize] + entered_weight(costs[k + 1], m);
        a = if x < a { x } else { a };
        b = if y < b { y } else { b };
        k += 2;
    }
    if b < a {
        b
    } else {
        a
    }
}

/// The entry (an index into [`ToolGraph::topo_in`]) by which the pull sweep entered the plain
/// node at position `p`, factor `m`, in the window from `lo`: the first whose offer is the
/// node's cost. It is computed by the same operations as in [`cheapest_entry`], so equal to
/// the bit (compared as bits: one branch, where `==` on floats takes two). Inlined where a
/// plan is walked back: called, it made that walk half as slow again.
#[inline(always)]
fn pulled_entry(graph: &ToolGraph, dist: &[f64], lo: usize, p: usize, m: f64) -> Option<usize> {
    let into = graph.topo_in();
    let entries = window_entries(graph, lo, p);
    let cost = dist[p].to_bits();
    let (froms, costs) = (&into.from[..], &into.cost[..]);
    let mut j = entries.start;
    while j < entries.end {
        if (dist[froms[j] as usize] + entered_weight(costs[j], m)).to_bits() == cost {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// A quorum join's entry over `offers` (cost so far plus the edge's weight, and the edge), in
/// the order a push sweep would relax them: the sum of the `k` cheapest finite ones, the first
/// offered first among equal costs. The edges taken are appended to `taken`; returns the cost
/// and where they start, or `(∞, NONE)` when fewer than `k` can be had. Two copies serve every
/// kind of weights (module size): the pull sweep's ([`pull_join`]) and the push sweep's, whose
/// offers come through a trait object.
fn enter_join(
    slots: &mut Vec<(f64, u32)>,
    taken: &mut Vec<u32>,
    k: usize,
    offers: impl Iterator<Item = (f64, u32)>,
) -> (f64, u32) {
    slots.clear();
    slots.resize(k, (f64::INFINITY, NONE));
    let mut len = 0;
    for (offer, edge) in offers {
        if offer < f64::INFINITY {
            len = keep_cheapest(slots, len, offer, edge);
        }
    }
    let cost = join_cost(slots, len);
    if cost == f64::INFINITY {
        return (f64::INFINITY, NONE);
    }
    let at = taken.len() as u32;
    taken.extend(slots.iter().map(|s| s.1));
    (cost, at)
}

/// A join's entry in the pull sweep: the inputs over `entries` ([`window_entries`]), each edge's
/// cost times the join's factor `m`.
fn pull_join(
    slots: &mut Vec<(f64, u32)>,
    taken: &mut Vec<u32>,
    k: usize,
    dist: &[f64],
    into: &TopoIn,
    entries: core::ops::Range<usize>,
    m: f64,
) -> (f64, u32) {
    let offers =
        entries.map(|j| (dist[into.from[j] as usize] + entered_weight(into.cost[j], m), into.edge[j]));
    enter_join(slots, taken, k, offers)
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

/// Where a node's cost and entry are kept: at its index (the push sweep) or at its topological
/// position (the pull sweep).
#[inline]
fn slot_of(graph: &ToolGraph, v: NodeIx, by_position: bool) -> usize {
    if by_position {
        graph.topo_position(v).unwrap_or(0)
    } else {
        v
    }
}

/// How a plan is walked back from the goal: the push sweep kept each node's cost and entry
/// edge by node; the pull sweep kept costs by position, over the window from `lo`, and finds
/// a plain node's entry again from them ([`pulled_entry`]).
enum Walk<'w, W: ?Sized> {
    Pushed,
    Pulled { lo: usize, weights: &'w W },
}

impl<W: ?Sized> Clone for Walk<'_, W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W: ?Sized> Copy for Walk<'_, W> {}

/// The edge the plain (not join) node `v` was entered by; `None` for a node no edge entered.
/// Ask it of nodes that are not sources: with zero-cost edges, an edge can offer a source its
/// cost of 0.
#[inline]
fn entered_by<W: EdgeWeight + ?Sized>(
    graph: &ToolGraph,
    dist: &[f64],
    via: &[u32],
    v: NodeIx,
    walk: Walk<'_, W>,
) -> Option<usize> {
    match walk {
        Walk::Pushed => via.get(v).filter(|&&e| e != NONE).map(|&e| e as usize),
        Walk::Pulled { lo, weights } => {
            let j = pulled_entry(graph, dist, lo, graph.topo_position(v)?, weights.entry_factor(v)?)?;
            Some(graph.topo_in().edge[j] as usize)
        }
    }
}

impl TopoSweep {
    /// A sweep with no buffers yet; they grow to the graph on first use and are reused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Nodes the last query swept.
    pub fn swept_count(&self) -> usize {
        self.swept
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
        plan.reset();
        self.swept = 0;
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
            self.mark = alloc::vec![false; n];
        }
        let joins = !graph.join_nodes().is_empty();
        if weights.entry_factor(goal).is_some() && !graph.topo_in().start.is_empty() {
            // Two copies of the sweep: with no joins to look for, its loop measured 5-8% faster.
            return match joins {
                true => self.pull::<W, true>(graph, sources, goal, lo, hi, weights, plan),
                false => self.pull::<W, false>(graph, sources, goal, lo, hi, weights, plan),
            };
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
        plan: &mut Plan,
    ) -> bool {
        let order = graph.topo_order();
        let into = graph.topo_in();
        let (dist, via) = (&mut self.dist[..], &mut self.via[..]);
        dist[lo..=hi].fill(f64::INFINITY);
        for &s in sources {
            if let Some(p) = graph.topo_position(s).filter(|p| (lo..=hi).contains(p)) {
                dist[p] = 0.0;
            }
        }
        for p in lo + 1..hi + 1 {
            let v = order[p] as usize;
            let m = weights.entry_factor(v).unwrap_or(f64::INFINITY);
            if !usable_factor(m) {
                continue;
            }
            let entries = window_entries(graph, lo, p);
            // A source keeps cost 0: no edge can do better.
            if JOINS && graph.quorum(v) > 0 && dist[p] != 0.0 {
                let k = graph.quorum(v) as usize;
                (dist[p], via[p]) = pull_join(&mut self.slots, &mut self.taken, k, dist, into, entries, m);
                continue;
            }
            let best = cheapest_entry(dist, &into.from[entries.clone()], &into.cost[entries], m);
            dist[p] = if best < dist[p] { best } else { dist[p] };
        }
        // Counted after the loop, which then does nothing but weigh entries.
        let swept = dist[lo..hi].iter().filter(|&&d| d < f64::INFINITY).count();
        self.swept = swept;
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

    /// Writes the path ending at `goal` into `plan`, walked back to a source over the edges
    /// the nodes were entered by.
    fn path_back<W: EdgeWeight + ?Sized>(
        &self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        cost: f64,
        walk: Walk<'_, W>,
        plan: &mut Plan,
    ) {
        if let Walk::Pulled { lo, weights } = walk {
            // By position, from the sweep's own arrays: no lookup of a position, and no edge's
            // whole description read (a cache miss on a big graph).
            let (order, into) = (graph.topo_order(), graph.topo_in());
            let mut p = graph.topo_position(goal).unwrap_or(0);
            loop {
                let v = order[p] as usize;
                plan.nodes.push(v);
                if sources.contains(&v) {
                    break;
                }
                let entry = weights.entry_factor(v).and_then(|m| pulled_entry(graph, &self.dist, lo, p, m));
                let Some(j) = entry else { break };
                plan.edges.push(into.edge[j] as usize);
                p = into.from[j] as usize;
            }
        } else {
            let mut v = goal;
            plan.nodes.push(v);
            while !sources.contains(&v) {
                let Some(e) = entered_by(graph, &self.dist, &self.via, v, walk) else { break };
                plan.edges.push(e);
                v = graph.edge(e).from;
                plan.nodes.push(v);
            }
        }
        plan.nodes.reverse();
        plan.edges.reverse();
        plan.cost = cost;
    }

    /// Writes the plan ending at `goal` into `plan` when it may pass quorum joins: walked back
    /// from the goal over each node's entry (a join's `k` taken edges), each node once, sources
    /// ending a branch; then nodes in order of cost, then position (every node after those
    /// feeding it: a node costs at least what each of its feeders does), and edges by the node
    /// they enter, as [`super::Dijkstra`] orders its plans.
    fn plan_tree<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        cost: f64,
        walk: Walk<'_, W>,
        plan: &mut Plan,
    ) {
        let by_position = matches!(walk, Walk::Pulled { .. });
        let slot = |v: NodeIx| slot_of(graph, v, by_position);
        let Self { dist, via, taken, mark, stack, keys, edge_keys, .. } = self;
        // The edges feeding `v`: its entry, or the `k` a join took.
        fn feed<'a>(graph: &ToolGraph, taken: &'a [u32], via: &'a [u32], v: NodeIx, at: usize) -> &'a [u32] {
            match graph.quorum(v) as usize {
                0 => via.get(at..=at).unwrap_or(&[]),
                k => taken.get(via[at] as usize..).and_then(|t| t.get(..k)).unwrap_or(&[]),
            }
        }
        // Walked back, each node once; a node's key is its cost, then position, as one integer
        // (comparing through the graph's arrays cost more than the sweep on a scenario graph).
        let key =
            |v: NodeIx| Entry { dist: dist[slot(v)], node: graph.topo_position(v).unwrap_or(0) as u32 }.key();
        keys.clear();
        stack.clear();
        stack.push(goal);
        mark[slot(goal)] = true;
        while let Some(v) = stack.pop() {
            keys.push(key(v));
            if sources.contains(&v) {
                continue;
            }
            if graph.quorum(v) == 0 {
                // Kept in `via` (the pull sweep keeps no entries) for writing the edges below.
                via[slot(v)] = entered_by(graph, dist, via, v, walk).map_or(NONE, |e| e as u32);
            }
            for &e in feed(graph, taken, via, v, slot(v)).iter().filter(|&&e| e != NONE) {
                let from = graph.edge(e as usize).from;
                if !mark[slot(from)] {
                    mark[slot(from)] = true;
                    stack.push(from);
                }
            }
        }
        // Then the nodes by key, each with the edges feeding it (a join's by source, then
        // index): edges in the order of the node they enter.
        crate::sort::packed(keys);
        let order = graph.topo_order();
        for &k in keys.iter() {
            let v = order[k as u32 as usize] as usize;
            mark[slot(v)] = false;
            plan.nodes.push(v);
            if sources.contains(&v) {
                continue;
            }
            let at = plan.edges.len();
            let fed = feed(graph, taken, via, v, slot(v));
            plan.edges.extend(fed.iter().filter(|&&e| e != NONE).map(|&e| e as usize));
            crate::sort::by_key(&mut plan.edges[at..], edge_keys, |e| graph.edge(e).from as u64);
        }
        plan.cost = cost;
    }
}
