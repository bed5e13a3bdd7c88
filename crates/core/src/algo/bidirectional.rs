//! Cheapest path between two points: Dijkstra from the sources forward and from the goal
//! backward at once, stopping when the two frontiers prove no cheaper meeting exists (Pohl 1971;
//! the stopping rule `top_f + top_b >= best` of Goldberg and Harrelson 2005). A node one side
//! reaches at a cost that, with the other side's top, already makes `best` is labelled but not
//! queued: no cheaper meeting can pass through it.
//!
//! On graphs that branch (tool catalogues, random graphs) each side only grows a ball of about
//! half the goal's cost, so it settles a small fraction of what a one-directional search must
//! settle to reach a deep goal. It answers plain point-to-point queries: no quorum joins (a join's
//! cost is not a sum along one path) and no origins. [`super::Dijkstra`] sends such queries here
//! when nothing records the search, and keeps the one-directional search for everything else.
//!
//! Complexity: O((V + E) log V) worst case, usually far less; O(1) set-up per search, since node
//! labels carry the number of the search that wrote them instead of being reset. Ties are broken
//! by node index and edge order, so the same inputs always give the same path. An infinite, NaN
//! or negative weight means "unusable".
//!
//! ```
//! use shr_core::{ToolGraph, algo::{Bidirectional, Plan}};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],
//!   "edges":[{"from":"a","to":"b","cost":1},{"from":"b","to":"c","cost":1},
//!            {"from":"a","to":"c","cost":5}], "start":"a","goal":"c"}"#).unwrap();
//! let mut plan = Plan::default();
//! let found = Bidirectional::new().route_into(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost, &mut plan);
//! assert!(found);
//! assert_eq!(plan.cost, 2.0);
//! assert_eq!(plan.ids(&g), ["a", "b", "c"]);
//! ```

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;

use super::dijkstra::Entry;
use super::weight::{usable, EdgeWeight};
use super::Plan;
use crate::graph::{NodeIx, ToolGraph};

const NONE: u32 = u32::MAX;
/// The two searches, indexing [`Label::dist`], [`Label::via`] and the heaps.
const FORWARD: usize = 0;
const BACKWARD: usize = 1;
/// `SETTLED << side`: settled by that side.
const SETTLED: u8 = 1;
const SOURCE: u8 = 4;
const ON_PATH: u8 = 8;

/// Everything one search knows of a node, in one cache line's worth of bytes: a large graph's
/// nodes are visited in random order, and one miss per node beats one per array.
#[derive(Clone, Copy, Debug)]
struct Label {
    /// `[FORWARD]`: cost from the nearest source; `[BACKWARD]`: cost to the goal.
    dist: [f64; 2],
    /// The edge each side reached the node over: `[FORWARD]` the one it came in by,
    /// `[BACKWARD]` the one it leaves by.
    via: [u32; 2],
    /// The search that wrote this label; an older one reads as "unlabelled".
    search: u32,
    flags: u8,
}

const FRESH: Label = Label { dist: [f64::INFINITY; 2], via: [NONE; 2], search: 0, flags: 0 };

/// The cheapest meeting of the two searches seen so far: `edge` joins a forward-labelled `from`
/// to a backward-labelled `to` (`edge == NONE`: the goal is a source, `node` is the goal).
#[derive(Clone, Copy)]
struct Meeting {
    cost: f64,
    node: u32,
    edge: u32,
}

/// Reusable state of the two-sided search. Routing again allocates nothing once its heaps have
/// grown to the largest frontier seen.
#[derive(Clone, Debug, Default)]
pub struct Bidirectional {
    labels: Vec<Label>,
    search: u32,
    /// The frontiers, `[FORWARD]` and `[BACKWARD]`.
    heaps: [BinaryHeap<Entry>; 2],
    /// Nodes settled by the last search, counting a node once per side.
    settled: usize,
}

impl Bidirectional {
    /// A search with no buffers yet; they grow to the graph on first use and are reused.
    pub fn new() -> Self {
        Self::default()
    }

    fn prepare(&mut self, n: usize) {
        if self.labels.len() != n {
            self.labels.clear();
            self.labels.resize(n, FRESH);
            self.search = 0;
        }
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            // Wrapped after 4 billion searches: forget every label once.
            self.labels.fill(FRESH);
            self.search = 1;
        }
        self.heaps.iter_mut().for_each(BinaryHeap::clear);
    }

    /// How many nodes the last search settled, a node settled by both sides counted twice.
    pub fn settled_count(&self) -> usize {
        self.settled
    }

    #[inline]
    fn label(&mut self, v: usize) -> &mut Label {
        let search = self.search;
        let l = &mut self.labels[v];
        if l.search != search {
            *l = Label { search, ..FRESH };
        }
        l
    }

    /// The cheapest path from any of `sources` (cost 0 each) to `goal` over finite weights,
    /// written into `plan` (nodes and edges in path order). Returns `false`, with an empty plan,
    /// when the goal cannot be reached. The graph's quorum joins are not honoured: use
    /// [`super::Dijkstra`], which sends only join-free queries here.
    pub fn route_into<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        plan: &mut Plan,
    ) -> bool {
        self.route_within(graph, sources, goal, weights, usize::MAX, plan).unwrap_or(false)
    }

    /// Like [`Bidirectional::route_into`], but gives up (`None`, an empty plan) before settling
    /// a node would bring the edges its settled nodes scan past `budget`: how
    /// [`super::Dijkstra`] tries this search on a large acyclic window before sweeping it. The
    /// work is then at most `budget` edges (and their heap pushes) plus the set-up.
    pub fn route_within<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        goal: NodeIx,
        weights: &W,
        budget: usize,
        plan: &mut Plan,
    ) -> Option<bool> {
        plan.reset();
        self.settled = 0;
        let n = graph.node_count();
        if goal >= n {
            return Some(false);
        }
        self.prepare(n);
        let mut scanned = 0usize;
        let mut best = Meeting { cost: f64::INFINITY, node: NONE, edge: NONE };
        for &s in sources.iter().filter(|&&s| s < n) {
            let l = self.label(s);
            if l.flags & SOURCE == 0 {
                l.flags |= SOURCE;
                l.dist[FORWARD] = 0.0;
                self.heaps[FORWARD].push(Entry { dist: 0.0, node: s as u32 });
            }
        }
        if self.labels[goal].search == self.search {
            // The goal is a source: nothing to do.
            best = Meeting { cost: 0.0, node: goal as u32, edge: NONE };
        } else {
            let g = self.label(goal);
            g.dist[BACKWARD] = 0.0;
            self.heaps[BACKWARD].push(Entry { dist: 0.0, node: goal as u32 });
        }

        while best.cost > 0.0 {
            let [Some(f), Some(b)] = self.heaps.each_ref().map(BinaryHeap::peek) else { break };
            // No path through an unsettled node can be cheaper than both frontiers' tops.
            if f.dist + b.dist >= best.cost {
                break;
            }
            // Grow the smaller frontier: the two balls stay about the same size.
            let forward = self.heaps[FORWARD].len() <= self.heaps[BACKWARD].len();
            if budget != usize::MAX {
                let x = if forward { f.node } else { b.node } as usize;
                let edges = if forward { graph.out_edges(x) } else { graph.in_edges(x) };
                scanned += edges.len();
                if scanned > budget {
                    return None;
                }
            }
            if forward {
                self.step::<FORWARD, W>(graph, weights, &mut best);
            } else {
                self.step::<BACKWARD, W>(graph, weights, &mut best);
            }
        }
        if best.node == NONE {
            return Some(false);
        }
        self.extract(graph, best, weights, plan);
        Some(true)
    }

    /// Settles the cheapest node of `side`'s frontier: relaxes its out-edges (forward) or its
    /// in-edges (backward), and offers every edge that reaches the other side as a meeting.
    /// `SIDE` is a constant so that each side compiles to its own tight loop (a run-time side
    /// made the search nearly twice as slow).
    fn step<const SIDE: usize, W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        weights: &W,
        best: &mut Meeting,
    ) {
        let side = SIDE;
        let Some(Entry { dist, node }) = self.heaps[side].pop() else { return };
        let x = node as usize;
        let settled = SETTLED << side;
        let l = self.label(x);
        if l.flags & settled != 0 || dist > l.dist[side] {
            return;
        }
        l.flags |= settled;
        self.settled += 1;
        // Every node the other side has not settled is at least its top away from the other end:
        // a node this side reaches at `offer` with `offer + beyond >= best` can lead to no
        // cheaper meeting, so it is labelled (a meeting through it is still seen) but never
        // queued. About half the queue pushes of a search are such nodes.
        let beyond = self.heaps[1 - side].peek().map_or(f64::INFINITY, |top| top.dist);
        let edges = if side == FORWARD { graph.out_edges(x) } else { graph.in_edges(x) };
        for &e in edges {
            let w = weights.weight(e as usize);
            if !usable(w) {
                continue;
            }
            let edge = graph.edge(e as usize);
            let y = if side == FORWARD { edge.to } else { edge.from };
            let offer = dist + w;
            let l = self.label(y);
            let through = offer + l.dist[1 - side];
            if through < best.cost {
                *best = Meeting { cost: through, node: edge.from as u32, edge: e };
            }
            if l.flags & settled == 0 && offer < l.dist[side] {
                l.dist[side] = offer;
                l.via[side] = e;
                if offer + beyond < best.cost {
                    self.heaps[side].push(Entry { dist: offer, node: y as u32 });
                }
            }
        }
    }

    /// The path: predecessors back from the meeting's tail to a source, then the meeting edge,
    /// then successors on to the goal. The cost is summed again from the source, the same
    /// additions a one-directional search makes, so both report the same cost for one path.
    fn extract<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        best: Meeting,
        weights: &W,
        plan: &mut Plan,
    ) {
        let mut v = best.node as usize;
        loop {
            plan.nodes.push(v);
            self.labels[v].flags |= ON_PATH;
            let l = self.labels[v];
            let pred = l.via[FORWARD];
            if l.flags & SOURCE != 0 || pred == NONE {
                break;
            }
            plan.edges.push(pred as usize);
            v = graph.edge(pred as usize).from;
        }
        plan.nodes.reverse();
        plan.edges.reverse();
        let mut next = best.edge;
        while next != NONE {
            let to = graph.edge(next as usize).to;
            if self.labels[to].flags & ON_PATH != 0 {
                // The two halves share a node, over a cycle of zero cost: leave the cycle out.
                while let Some(&x) = plan.nodes.last().filter(|&&x| x != to) {
                    self.labels[x].flags &= !ON_PATH;
                    plan.nodes.pop();
                    plan.edges.pop();
                }
            } else {
                plan.edges.push(next as usize);
                plan.nodes.push(to);
                self.labels[to].flags |= ON_PATH;
            }
            next = self.labels[to].via[BACKWARD];
        }
        plan.cost = plan.edges.iter().fold(0.0, |sum, &e| sum + weights.weight(e));
    }
}
