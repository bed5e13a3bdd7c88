//! Walking a sweep's plan back from the goal ([`super::TopoSweep`]): a path over each node's
//! entry, or, through quorum joins, a tree of branches put in the order Dijkstra settles nodes.
//! O(P) for a path of P nodes; O(P log P) for a tree (its nodes sorted by cost).

use super::{pulled_entry, TopoSweep, NONE};
use crate::algo::dijkstra::Entry;
use crate::algo::weight::EdgeWeight;
use crate::algo::Plan;
use crate::graph::{NodeIx, ToolGraph};

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
pub(super) enum Walk<'w, W: ?Sized> {
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
pub(super) fn entered_by<W: EdgeWeight + ?Sized>(
    graph: &ToolGraph,
    dist: &[f64],
    via: &[u32],
    v: NodeIx,
    walk: Walk<'_, W>,
) -> Option<usize> {
    match walk {
        Walk::Pushed => via.get(v).filter(|&&e| e != NONE).map(|&e| e as usize),
        Walk::Pulled { lo, weights } => {
            let j = pulled_entry(graph, dist, via, lo, graph.topo_position(v)?, weights.entry_factor(v)?)?;
            Some(graph.topo_in().edge[j] as usize)
        }
    }
}

impl TopoSweep {
    /// Writes the path ending at `goal` into `plan`, walked back to a source over the edges
    /// the nodes were entered by.
    pub(super) fn path_back<W: EdgeWeight + ?Sized>(
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
                // A chain's node kept its entry and where it came from: the next position is
                // then one load away, not two in a row.
                if let Some(&j) = self.via.get(p).filter(|&&j| j != NONE) {
                    plan.edges.push(into.edge[j as usize] as usize);
                    p = self.back[p] as usize;
                    continue;
                }
                let entry = weights
                    .entry_factor(v)
                    .and_then(|m| pulled_entry(graph, &self.dist, &self.via, lo, p, m));
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
    pub(super) fn plan_tree<W: EdgeWeight + ?Sized>(
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
