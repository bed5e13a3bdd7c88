//! Cheapest plan to a goal: Dijkstra's algorithm, generalized to quorum joins after Knuth (1977,
//! "A generalization of Dijkstra's algorithm"): a join that needs `k` inputs costs the sum of its
//! `k` cheapest settled inputs, a superior function, so settling in order of cost stays correct.
//! With no joins it is exactly Dijkstra.
//!
//! Complexity: O((V + E) log V) with a binary heap, plus O(k) per relaxation into a quorum join.
//! Ties are broken by node index, so the same inputs always give the same plan. Weights come from
//! an [`EdgeWeight`]; an infinite, NaN or negative weight means "unusable" and the edge is skipped.
//! Scratch buffers live in [`Dijkstra`] and are reused: routing again on a graph of the same
//! size allocates nothing. A query with no origins and no [`Observer`] recording is answered by
//! the topological sweep ([`super::TopoSweep`]) on an acyclic graph, joins included, or, with no
//! joins, by the two-sided [`super::Bidirectional`] search: the same cost, though among plans of
//! equal cost they may pick another one.
//!
//! ```
//! use shr_core::{ToolGraph, algo::{Dijkstra, Plan}};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],
//!   "edges":[{"from":"a","to":"b","cost":1},{"from":"b","to":"c","cost":1},
//!            {"from":"a","to":"c","cost":5}], "start":"a","goal":"c"}"#).unwrap();
//! let mut d = Dijkstra::new();
//! let mut plan = Plan::default();
//! let found = d.route_into(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost, &mut (), &mut plan);
//! assert!(found);
//! assert_eq!(plan.cost, 2.0);
//! assert_eq!(plan.ids(&g), ["a", "b", "c"]);
//! ```

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::{Bidirectional, TopoSweep};

/// The largest window (nodes between the first source and the goal in topological order) swept
/// instead of searched two-sided. On a layered tool graph the two-sided search settles nearly
/// every node too, with a heap: the sweep is 1.7-2.1x faster there up to 1,000 nodes
/// (`benches/layered.rs`). On a large branching DAG whose goal is a few hops away the two balls
/// of the two-sided search stay far smaller than the window, so past this size it keeps them.
const SWEEP_WINDOW: usize = 1024;
use crate::graph::{NodeIx, ToolGraph};

/// Weight of edge `e` (an index into [`ToolGraph::edges`]). Infinite, NaN or negative = unusable.
pub trait EdgeWeight {
    /// The weight of edge `e`.
    fn weight(&self, edge: usize) -> f64;

    /// Weight of an edge leaving an origin (see [`Dijkstra::route_from_into`]): where execution
    /// stands, so a guard can be judged on a real result. Defaults to [`EdgeWeight::weight`].
    fn seed_weight(&self, edge: usize) -> f64 {
        self.weight(edge)
    }

    /// When the weight of every edge into `node` is that edge's description cost times one
    /// factor of `node` (the form of [`crate::health::edge_weight`]: a tool's live weight), that
    /// factor. The acyclic sweep then weighs a node once, not each edge into it, and reads the
    /// costs from contiguous arrays. `None` (the default): weigh edge by edge.
    fn entry_factor(&self, _node: NodeIx) -> Option<f64> {
        None
    }
}

/// An edge's weight from its description cost and the factor of the node it enters: the one
/// formula, which [`crate::health::edge_weight`] applies to live health and the acyclic sweep
/// to an [`EdgeWeight::entry_factor`].
#[inline(always)]
pub fn entered_weight(cost: f64, factor: f64) -> f64 {
    cost * factor
}

impl<F: Fn(usize) -> f64> EdgeWeight for F {
    #[inline]
    fn weight(&self, edge: usize) -> f64 {
        self(edge)
    }
}

/// Receives each step of a search, for recording a trace to replay. `()` ignores everything and
/// costs nothing.
pub trait Observer {
    /// `node` left the frontier with its final cost.
    fn settled(&mut self, _node: NodeIx, _dist: f64) {}
    /// Edge `edge` (`from -> to`) offered `to` the tentative cost `dist`; `improved` says
    /// whether it became `to`'s best.
    fn relaxed(&mut self, _edge: usize, _from: NodeIx, _to: NodeIx, _dist: f64, _improved: bool) {}
    /// Edge `edge` was skipped because its weight is infinite (a failed tool).
    fn skipped(&mut self, _edge: usize, _from: NodeIx, _to: NodeIx) {}
    /// Whether the search's steps are wanted. Only a search nobody watches may take the
    /// two-sided shortcut ([`super::Bidirectional`]), whose steps are not the ones a replay of
    /// Dijkstra shows.
    fn records(&self) -> bool {
        true
    }
}

impl Observer for () {
    fn records(&self) -> bool {
        false
    }
}

/// Whether a weight can be travelled: finite and not negative (Dijkstra's invariant needs
/// `w >= 0`; validated costs and health weights never are negative, a custom `EdgeWeight` might
/// be). Infinite is a failed tool; NaN is nonsense.
#[inline]
pub(super) fn usable(w: f64) -> bool {
    (0.0..f64::INFINITY).contains(&w)
}

/// A plan: the nodes to complete and the edges that feed them. A single path when the graph has
/// no joins; a tree of branches (which may run concurrently) when it has.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Nodes in the order the search settled them: by cost (the sweep: then by topological
    /// position), so every node comes after the nodes feeding it.
    pub nodes: Vec<NodeIx>,
    /// Indices of the plan's edges.
    pub edges: Vec<usize>,
    /// Edges of the plan that leave an origin (completed work): already satisfied.
    pub seeds: Vec<usize>,
    /// Total cost (for joins, the sum over branches).
    pub cost: f64,
}

impl Plan {
    /// Node ids in plan order.
    pub fn ids<'g>(&self, graph: &'g ToolGraph) -> Vec<&'g str> {
        self.nodes.iter().map(|&v| graph.id(v)).collect()
    }

    /// Whether `v` is in the plan.
    pub fn contains(&self, v: NodeIx) -> bool {
        self.nodes.contains(&v)
    }

    /// The plan's predecessors of `v` (the nodes whose completion `v` waits for); edges from
    /// origins are not waited for.
    pub fn preds<'a>(&'a self, graph: &'a ToolGraph, v: NodeIx) -> impl Iterator<Item = NodeIx> + 'a {
        self.edges
            .iter()
            .filter(|e| !self.seeds.contains(e))
            .map(|&e| graph.edge(e))
            .filter(move |e| e.to == v)
            .map(|e| e.from)
    }

    /// Empties the plan for a new search (no nodes, infinite cost), keeping its buffers.
    pub(super) fn reset(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.seeds.clear();
        self.cost = f64::INFINITY;
    }

    /// The plan's successors of `v`.
    pub fn succs<'a>(&'a self, graph: &'a ToolGraph, v: NodeIx) -> impl Iterator<Item = NodeIx> + 'a {
        self.edges.iter().map(|&e| graph.edge(e)).filter(move |e| e.from == v).map(|e| e.to)
    }
}

/// Offers a quorum join one input: `slots[..len]` hold its cheapest inputs so far (cost, edge),
/// ascending, the first offered first among equal costs; `slots.len()` is the quorum. Returns
/// how many it holds now. Insertion into a sorted array of at most k: joins are small.
#[inline]
pub(super) fn keep_cheapest(slots: &mut [(f64, u32)], len: usize, offer: f64, edge: u32) -> usize {
    let k = slots.len();
    let mut i = len;
    if i >= k {
        if k == 0 || offer >= slots[k - 1].0 {
            return k;
        }
        i = k - 1;
    }
    while i > 0 && slots[i - 1].0 > offer {
        slots[i] = slots[i - 1];
        i -= 1;
    }
    slots[i] = (offer, edge);
    (len + 1).min(k)
}

/// A quorum join's cost (Knuth's superior function): the sum of its `k = slots.len()` cheapest
/// inputs, infinite while it holds fewer (`len`).
#[inline]
pub(super) fn join_cost(slots: &[(f64, u32)], len: usize) -> f64 {
    if len < slots.len() {
        f64::INFINITY
    } else {
        slots.iter().map(|s| s.0).sum()
    }
}

/// Whether a plain query on `graph` goes to the topological sweep (see [`SWEEP_WINDOW`]).
fn sweep_fits(graph: &ToolGraph, sources: &[NodeIx], goal: NodeIx) -> bool {
    let Some(hi) = graph.topo_position(goal) else { return false };
    sources
        .iter()
        .filter_map(|&s| graph.topo_position(s))
        .filter(|&p| p <= hi)
        .min()
        .is_some_and(|lo| hi - lo < SWEEP_WINDOW)
}

const NONE: u32 = u32::MAX;
/// Marks a predecessor edge that leaves an origin (set in `pred` and join slots).
const SEED: u32 = 1 << 30;

/// A frontier entry; the heaps pop the cheapest, then the lowest index, first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Entry {
    pub dist: f64,
    pub node: u32,
}

impl Eq for Entry {}

impl Entry {
    /// Cost then index as one integer, ordered like `(dist.total_cmp, node)`: a heap's every
    /// comparison is then one integer comparison (the frontier's hottest code, in wasm too).
    #[inline]
    pub(super) fn key(&self) -> u128 {
        let bits = self.dist.to_bits();
        let ordered = if bits >> 63 == 1 { !bits } else { bits | 1 << 63 };
        (u128::from(ordered) << 32) | u128::from(self.node)
    }
}

impl Ord for Entry {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the cheapest, then lowest index, pops first.
        other.key().cmp(&self.key())
    }
}

impl PartialOrd for Entry {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Reusable search state. One per thread of routing; cheap to keep around.
#[derive(Clone, Debug, Default)]
pub struct Dijkstra {
    dist: Vec<f64>,
    pred: Vec<u32>,
    settled: Vec<bool>,
    heap: BinaryHeap<Entry>,
    /// For quorum joins: the `k` cheapest (cost, edge) inputs so far, in `join_vals[join_at[v]..]`.
    join_at: Vec<u32>,
    join_len: Vec<u32>,
    join_vals: Vec<(f64, u32)>,
    stack: Vec<NodeIx>,
    mark: Vec<bool>,
    source: Vec<bool>,
    order: Vec<u32>,
    /// Sort keys for a plan's nodes and edges.
    keys: Vec<u128>,
    /// Plain point-to-point queries go to the two-sided search...
    two_sided: Bidirectional,
    /// ...or, on an acyclic graph with a small enough window, to one topological sweep.
    sweep: TopoSweep,
    /// Nodes the last query settled (both sides of a two-sided one).
    settled_last: usize,
}

impl Dijkstra {
    /// A search with no buffers yet; they grow to the graph on first use and are reused.
    pub fn new() -> Self {
        Self::default()
    }

    fn prepare(&mut self, graph: &ToolGraph) {
        let n = graph.node_count();
        if self.dist.len() != n {
            self.dist = alloc::vec![f64::INFINITY; n];
            self.pred = alloc::vec![NONE; n];
            self.settled = alloc::vec![false; n];
            self.mark = alloc::vec![false; n];
            self.source = alloc::vec![false; n];
            self.order = alloc::vec![NONE; n];
            self.join_at = alloc::vec![NONE; n];
            self.join_len = alloc::vec![0; n];
        } else {
            self.dist.fill(f64::INFINITY);
            self.pred.fill(NONE);
            self.settled.fill(false);
            self.mark.fill(false);
            self.source.fill(false);
            self.order.fill(NONE);
            self.join_at.fill(NONE);
            self.join_len.fill(0);
        }
        // The join layout belongs to the graph, not to its size: a search state reused on another
        // graph with as many nodes must not keep the last graph's joins (found by fuzzing: a
        // quorum node with no slots indexed the buffer at NONE). Laid out again on every search,
        // O(joins); once the buffer is large enough it allocates nothing.
        self.join_vals.clear();
        for &v in graph.join_nodes() {
            let k = graph.quorum(v);
            self.join_at[v] = self.join_vals.len() as u32;
            self.join_vals.extend(core::iter::repeat_n((f64::INFINITY, NONE), k as usize));
        }
        self.heap.clear();
        self.stack.clear();
    }

    /// Cost of the cheapest plan from any of `sources` (cost 0 each) to `goal`, or `None` when
    /// the goal cannot be reached over finite weights. Fills `plan` when found.
    pub fn route_into<W: EdgeWeight + ?Sized, O: Observer + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        observer: &mut O,
        plan: &mut Plan,
    ) -> bool {
        self.route_from_into(graph, sources, &[], goal, weights, observer, plan)
    }

    /// Like [`Dijkstra::route_into`], with `origins`: completed nodes whose out-edges start the
    /// search (weighed with [`EdgeWeight::seed_weight`]) but which are not themselves settled,
    /// so a plan may visit them again. This is how cyclic workflows revisit a node.
    #[allow(clippy::too_many_arguments)]
    pub fn route_from_into<W: EdgeWeight + ?Sized, O: Observer + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        origins: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        observer: &mut O,
        plan: &mut Plan,
    ) -> bool {
        // Same cost, far fewer nodes settled: a query with no origins to revisit and nobody
        // recording the steps goes to the sweep on an acyclic graph (joins and all), else, with
        // no joins to sum, to the two-sided search.
        if origins.is_empty() && !observer.records() {
            if sweep_fits(graph, sources, goal) {
                let found = self.sweep.route_into(graph, sources, goal, weights, plan);
                self.settled_last = self.sweep.swept_count();
                return found;
            }
            if graph.join_nodes().is_empty() {
                let found = self.two_sided.route_into(graph, sources, goal, weights, plan);
                self.settled_last = self.two_sided.settled_count();
                return found;
            }
        }
        plan.reset();
        let Some(cost) = self.search_from(graph, sources, origins, goal, weights, observer) else {
            return false;
        };
        self.extract(graph, goal, plan);
        plan.cost = cost;
        true
    }

    /// How many nodes the last query settled, over both sides when it went to the two-sided
    /// search: the work a route did, free of timing noise (the benchmark reports it per reroute).
    pub fn settled_count(&self) -> usize {
        self.settled_last
    }

    /// Allocating convenience form of [`Dijkstra::route_into`].
    pub fn route<W: EdgeWeight + ?Sized, O: Observer + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        observer: &mut O,
    ) -> Option<Plan> {
        let mut plan = Plan::default();
        self.route_into(graph, sources, goal, weights, observer, &mut plan).then_some(plan)
    }

    /// Runs the search only; returns the goal's cost.
    pub fn search<W: EdgeWeight + ?Sized, O: Observer + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        observer: &mut O,
    ) -> Option<f64> {
        self.search_from(graph, sources, &[], goal, weights, observer)
    }

    fn search_from<W: EdgeWeight + ?Sized, O: Observer + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        origins: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        observer: &mut O,
    ) -> Option<f64> {
        self.prepare(graph);
        self.settled_last = 0;
        let n = graph.node_count();
        if goal >= n {
            return None;
        }
        for &s in sources {
            if s < n && !self.source[s] {
                self.source[s] = true;
                self.dist[s] = 0.0;
                self.heap.push(Entry { dist: 0.0, node: s as u32 });
            }
        }
        for &u in origins {
            if u < n {
                for &e in graph.out_edges(u) {
                    let w = weights.seed_weight(e as usize);
                    self.relax(graph, u, 0.0, e as usize, w, true, observer);
                }
            }
        }
        while let Some(Entry { dist, node }) = self.heap.pop() {
            let u = node as usize;
            if self.settled[u] || dist > self.dist[u] {
                continue;
            }
            self.settled[u] = true;
            self.order[u] = self.settled_last as u32;
            self.settled_last += 1;
            observer.settled(u, dist);
            if u == goal {
                return Some(dist);
            }
            for &e in graph.out_edges(u) {
                let w = weights.weight(e as usize);
                self.relax(graph, u, dist, e as usize, w, false, observer);
            }
        }
        None
    }

    /// Offers `to` the cost `dist + w` over edge `e` leaving `u`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn relax<O: Observer + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        u: NodeIx,
        dist: f64,
        e: usize,
        w: f64,
        seed: bool,
        observer: &mut O,
    ) {
        let tag = e as u32 | if seed { SEED } else { 0 };
        let v = graph.edge(e).to;
        if self.settled[v] {
            return;
        }
        if !usable(w) {
            observer.skipped(e, u, v);
            return;
        }
        let offer = dist + w;
        let tentative = match graph.quorum(v) {
            0 => {
                let improved = offer < self.dist[v];
                if improved {
                    self.pred[v] = tag;
                }
                observer.relaxed(e, u, v, offer, improved);
                offer
            }
            k => {
                let sum = self.offer_join(v, k as usize, offer, tag);
                observer.relaxed(e, u, v, offer, sum < self.dist[v]);
                sum
            }
        };
        if tentative < self.dist[v] {
            self.dist[v] = tentative;
            self.heap.push(Entry { dist: tentative, node: v as u32 });
        }
    }

    /// Adds an input to quorum node `v`; returns the sum of its `k` cheapest inputs, or infinity
    /// while it has fewer than `k`.
    fn offer_join(&mut self, v: NodeIx, k: usize, offer: f64, edge: u32) -> f64 {
        let at = self.join_at[v] as usize;
        let len = (self.join_len[v] as usize).min(k);
        let slots = &mut self.join_vals[at..at + k];
        // An origin's edge can be offered again when the plan revisits the origin: the same
        // input counts once, at its cheaper offer (which came first: it was the smaller).
        if slots[..len].iter().any(|s| s.1 & !SEED == edge & !SEED) {
            return join_cost(slots, len);
        }
        let len = keep_cheapest(slots, len, offer, edge);
        self.join_len[v] = len as u32;
        join_cost(slots, len)
    }

    /// Walks predecessors back from the goal. Sources and nodes without a predecessor end a
    /// branch.
    fn extract(&mut self, graph: &ToolGraph, goal: NodeIx, plan: &mut Plan) {
        self.stack.clear();
        self.stack.push(goal);
        self.mark[goal] = true;
        while let Some(v) = self.stack.pop() {
            plan.nodes.push(v);
            if self.source[v] {
                continue;
            }
            let feed: &[(f64, u32)] = match graph.quorum(v) {
                0 => &[],
                k => {
                    let at = self.join_at[v] as usize;
                    &self.join_vals[at..at + k as usize]
                }
            };
            let mut push_edge = |tag: u32, stack: &mut Vec<NodeIx>, mark: &mut Vec<bool>| {
                if tag == NONE {
                    return;
                }
                let e = (tag & !SEED) as usize;
                plan.edges.push(e);
                if tag & SEED != 0 {
                    // Fed by an origin's past result: nothing to wait for.
                    plan.seeds.push(e);
                    return;
                }
                let from = graph.edge(e).from;
                if !mark[from] {
                    mark[from] = true;
                    stack.push(from);
                }
            };
            if feed.is_empty() {
                push_edge(self.pred[v], &mut self.stack, &mut self.mark);
            } else {
                for &(_, e) in feed {
                    push_edge(e, &mut self.stack, &mut self.mark);
                }
            }
        }
        let (order, keys) = (&self.order, &mut self.keys);
        crate::sort::by_key(&mut plan.nodes, keys, |v| order[v] as u64);
        crate::sort::by_key(&mut plan.edges, keys, |e| {
            let edge = graph.edge(e);
            ((order[edge.to] as u64) << 32) | edge.from as u64
        });
    }
}

/// A recorded search, step by step, for replay in a visualizer.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Trace {
    /// The steps in the order the search took them.
    pub steps: Vec<TraceStep>,
}

/// One step of a recorded search.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum TraceStep {
    /// A node's distance became final.
    Settled {
        /// The node settled.
        node: NodeIx,
        /// Its distance from the origins.
        dist: f64,
    },
    /// An edge was examined from a settled node.
    Relaxed {
        /// The edge's index.
        edge: usize,
        /// Its source (settled).
        from: NodeIx,
        /// Its target.
        to: NodeIx,
        /// The target's distance through this edge.
        dist: f64,
        /// Whether that was shorter than the target's best so far.
        improved: bool,
    },
    /// An edge was passed over: infinite weight (a tool down) or a guard that does not hold.
    Skipped {
        /// The edge's index.
        edge: usize,
        /// Its source.
        from: NodeIx,
        /// Its target.
        to: NodeIx,
    },
}

impl Observer for Trace {
    fn settled(&mut self, node: NodeIx, dist: f64) {
        self.steps.push(TraceStep::Settled { node, dist });
    }
    fn relaxed(&mut self, edge: usize, from: NodeIx, to: NodeIx, dist: f64, improved: bool) {
        self.steps.push(TraceStep::Relaxed { edge, from, to, dist, improved });
    }
    fn skipped(&mut self, edge: usize, from: NodeIx, to: NodeIx) {
        self.steps.push(TraceStep::Skipped { edge, from, to });
    }
}
