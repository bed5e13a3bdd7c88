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
//! the topological sweep ([`super::TopoSweep`]) on an acyclic graph, joins included (which
//! starts with the nodes the sources reach, and where they turn dense with 1,024 positions or
//! more still to sweep, first tries the two-sided search on a budget of 1/64 of their edges), or,
//! on a graph with cycles and no joins, by the two-sided [`super::Bidirectional`] search: the
//! same cost, though among plans of equal cost they may pick another one.
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

use super::trace::Observer;
use super::weight::{kept_table, query_key, usable, EdgeWeight};
use super::{join_cost, keep_cheapest, Bidirectional, Plan, TopoSweep};
use crate::graph::{NodeIx, ToolGraph};

/// Windows (nodes between the first source and the goal in topological order, or what is left
/// of one when the sweep's sparse start turns dense) smaller than this are swept at once. On a
/// layered tool graph the two-sided search settles nearly every node too, with a heap: the
/// sweep is 4-9x faster there (`benches/floor`).
const SWEEP_WINDOW: usize = 1024;

/// A larger window is first searched two-sided, with a budget of this share of the edges
/// entering what is left of the window: on a large branching DAG whose goal is a few hops away
/// the two balls of the two-sided search stay far smaller than the window. When the budget runs
/// out the window is swept; the try costs at most about 1/8 of the sweep (an edge scanned by the
/// heap search costs about 8 swept when the sweep reads its costs from cache), so there is no
/// cliff at any size. Far entering edges ([`crate::graph::TopoIn::far`]) cost the sweep a cache miss each,
/// about as much as the heap search pays: they count 8 times in the budget. A try that ran out
/// is remembered with weights that keep a factor table ([`super::FactorTable`]) until they
/// change: the same query on the same weights would run out again, and the try (its heap and
/// its costs pushing the window out of cache) was 15-20% of a route from JS on a layered
/// graph of 40,000 nodes and more (`bench/lean.mjs`).
const PROBE_SHARE: u64 = 64;

/// The two-sided try's budget in edges scanned for a window entered by `edges` edges.
#[inline(never)]
fn probe_budget(graph: &ToolGraph, edges: usize) -> usize {
    let into = graph.topo_in();
    let (edges, far, all) = (edges as u64, u64::from(into.far), (into.from.len() as u64).max(1));
    let weighted = edges + edges * far / all * 7;
    usize::try_from(weighted / PROBE_SHARE).unwrap_or(usize::MAX)
}

/// Whether a plain query on `graph` can be swept: the graph is acyclic and a source comes
/// before the goal. Out of line: one copy for every kind of weights (module size).
#[inline(never)]
fn sweepable(graph: &ToolGraph, sources: &[NodeIx], goal: NodeIx) -> bool {
    graph
        .topo_position(goal)
        .is_some_and(|hi| sources.iter().filter_map(|&s| graph.topo_position(s)).any(|p| p <= hi))
}

const NONE: u32 = u32::MAX;
/// `settled_last` when the last query went to the sweep, which counts its nodes when asked.
const SWEPT: usize = usize::MAX;
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
            if sweepable(graph, sources, goal) {
                let two_sided = &mut self.two_sided;
                let mut probed = false;
                let mut probe = |window: usize, edges: usize, plan: &mut Plan| {
                    if window < SWEEP_WINDOW {
                        return None;
                    }
                    // A try that ran out under these weights would again: sweep at once.
                    let table = kept_table(weights, graph);
                    let key = query_key(goal, sources, window);
                    if table.is_some_and(|t| t.ran_out(key)) {
                        return None;
                    }
                    let budget = probe_budget(graph, edges);
                    let answer = two_sided.route_within(graph, sources, goal, weights, budget, plan);
                    probed = answer.is_some();
                    if let (None, Some(t)) = (answer, table) {
                        t.note_ran_out(key);
                    }
                    answer
                };
                let probe: Option<super::topo::Probe<'_>> =
                    if graph.join_nodes().is_empty() { Some(&mut probe) } else { None };
                let found = self.sweep.route_probing(graph, sources, goal, weights, probe, plan);
                // A sweep's count is read from it when asked: a pass over a chain's window was
                // a tenth of its route.
                self.settled_last = if probed { self.two_sided.settled_count() } else { SWEPT };
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
        match self.settled_last {
            SWEPT => self.sweep.swept_count(),
            n => n,
        }
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
