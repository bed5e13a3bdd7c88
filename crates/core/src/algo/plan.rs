//! A search's answer, [`Plan`]: a path, or a tree of branches through quorum joins; and the
//! arithmetic of a join's inputs (Knuth's superior function) every search shares.
//!
//! ```
//! use shr_core::{ToolGraph, algo::{Dijkstra, Plan}};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"}],
//!   "edges":[{"from":"a","to":"b","cost":2}], "start":"a","goal":"b"}"#).unwrap();
//! let mut plan = Plan::default();
//! assert!(Dijkstra::new().route_into(&g, &[0], 1, &|e: usize| g.edge(e).cost, &mut (), &mut plan));
//! assert_eq!((plan.cost, plan.preds(&g, 1).collect::<Vec<_>>()), (2.0, vec![0]));
//! ```

use alloc::vec::Vec;

use crate::graph::{NodeIx, ToolGraph};

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
    pub(crate) fn reset(&mut self) {
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
pub(crate) fn keep_cheapest(slots: &mut [(f64, u32)], len: usize, offer: f64, edge: u32) -> usize {
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
pub(crate) fn join_cost(slots: &[(f64, u32)], len: usize) -> f64 {
    if len < slots.len() {
        f64::INFINITY
    } else {
        slots.iter().map(|s| s.0).sum()
    }
}
