//! The tool graph: tools are nodes, allowed sequencing is edges, costs are non-negative.
//!
//! A [`ToolGraph`] is built from a [`GraphSpec`] (the JSON description) and validated as a whole:
//! every problem is reported, each naming the offending id. The structure never changes at run
//! time; only weights do (see [`crate::health`]).

mod build;
mod spec;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Bfs;

pub use spec::*;

use crate::error::Problem;
use crate::validate::Validator;

/// Index of a node inside a [`ToolGraph`] (dense, `0..node_count`).
pub type NodeIx = usize;

/// A validated node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub id: String,
    pub label: String,
    pub stage: Option<String>,
    pub base_cost: f64,
    pub tool: bool,
    pub join: Join,
    pub retry: RetryPolicy,
    pub quota: Option<u32>,
    pub rate_limit: Option<RateLimitSpec>,
    pub max_concurrent: Option<u32>,
    /// `probe.interval_ms`: the router asks for a probe of the tool while it is down.
    pub probe_interval_ms: Option<u64>,
    pub side_effect: bool,
    /// The tool that undoes this one's side effect.
    pub compensate: Option<NodeIx>,
    pub baseline_latency_ms: Option<f64>,
    pub validators: Vec<Validator>,
    pub x: Option<f64>,
    pub y: Option<f64>,
}

/// A validated edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    pub from: NodeIx,
    pub to: NodeIx,
    pub cost: f64,
    /// Index into [`ToolGraph::guards`] when the edge is guarded.
    pub guard: Option<u32>,
}

/// A validated tool graph with compact adjacency for routing.
#[derive(Clone, Debug)]
pub struct ToolGraph {
    spec: GraphSpec,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    ids: BTreeMap<String, NodeIx>,
    guards: Vec<Guard>,
    /// `out_edges[out_start[v]..out_start[v+1]]` are the edge indices leaving `v`, sorted by
    /// target index so that relaxation order (and so tie-breaking) is deterministic.
    out_start: Vec<u32>,
    out_edges: Vec<u32>,
    in_start: Vec<u32>,
    in_edges: Vec<u32>,
    start: NodeIx,
    goal: NodeIx,
    warnings: Vec<Problem>,
    /// Per node: the quorum of its join, 0 for `Join::Any`. Routing reads this on every
    /// relaxation; a compact array keeps it in cache where the `Node` structs would not be.
    quorum: Vec<u32>,
    /// The nodes with a quorum join, in index order.
    joins: Vec<NodeIx>,
    /// A topological order of the nodes (Kahn's, lowest index first among ready nodes) and each
    /// node's place in it; both empty when the graph has a cycle.
    topo: Vec<u32>,
    topo_pos: Vec<u32>,
    topo_in: TopoIn,
}

/// The edges entering each node, laid out by the node's topological position for the acyclic
/// sweep ([`crate::algo::TopoSweep`]): for the node at position `p`, `k` in
/// `start[p]..start[p + 1]` gives the source's position `from[k]`, the edge's description cost
/// `cost[k]` and its index `edge[k]`, ordered by source position. Empty when the graph has a
/// cycle. Contiguous arrays: a sweep reads them front to back.
#[derive(Clone, Debug, Default)]
pub struct TopoIn {
    pub start: Vec<u32>,
    pub from: Vec<u32>,
    pub cost: Vec<f64>,
    pub edge: Vec<u32>,
}

impl ToolGraph {
    /// The quorum of `v`'s join: 0 for a plain node (`Join::Any`), k for `Join::Quorum(k)`.
    #[inline]
    pub fn quorum(&self, v: NodeIx) -> u32 {
        self.quorum[v]
    }

    /// A node's place in the graph's topological order; `None` when the graph has a cycle.
    #[inline]
    pub fn topo_position(&self, v: NodeIx) -> Option<usize> {
        self.topo_pos.get(v).map(|&p| p as usize)
    }

    /// The nodes in topological order (empty when the graph has a cycle).
    pub fn topo_order(&self) -> &[u32] {
        &self.topo
    }

    /// The edges entering each node by topological position (empty when the graph has a cycle).
    pub fn topo_in(&self) -> &TopoIn {
        &self.topo_in
    }

    /// The nodes with a quorum join.
    pub fn join_nodes(&self) -> &[NodeIx] {
        &self.joins
    }

    /// The description this graph was built from (for export and round trips).
    pub fn spec(&self) -> &GraphSpec {
        &self.spec
    }

    /// The description as JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data to a String cannot fail.
        serde_json::to_string_pretty(&self.spec).unwrap_or_default()
    }

    /// Warnings found by validation (the graph was still accepted).
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    pub fn node(&self, ix: NodeIx) -> &Node {
        &self.nodes[ix]
    }
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }
    pub fn edge(&self, e: usize) -> &Edge {
        &self.edges[e]
    }
    pub fn start(&self) -> NodeIx {
        self.start
    }
    pub fn goal(&self) -> NodeIx {
        self.goal
    }

    /// Index of the node with this id.
    pub fn index(&self, id: &str) -> Option<NodeIx> {
        self.ids.get(id).copied()
    }

    /// Id of a node.
    pub fn id(&self, ix: NodeIx) -> &str {
        &self.nodes[ix].id
    }

    /// Edge indices leaving `v`, ordered by target index.
    #[inline]
    pub fn out_edges(&self, v: NodeIx) -> &[u32] {
        &self.out_edges[self.out_start[v] as usize..self.out_start[v + 1] as usize]
    }

    /// Edge indices entering `v`, ordered by source index.
    #[inline]
    pub fn in_edges(&self, v: NodeIx) -> &[u32] {
        &self.in_edges[self.in_start[v] as usize..self.in_start[v + 1] as usize]
    }

    /// The edge `from -> to`, if any.
    pub fn find_edge(&self, from: NodeIx, to: NodeIx) -> Option<&Edge> {
        self.out_edges(from).iter().map(|&e| &self.edges[e as usize]).find(|e| e.to == to)
    }

    /// The structure as a petgraph graph (node weight = our index, edge weight = cost), for
    /// callers that want petgraph's algorithms.
    pub fn to_petgraph(&self) -> DiGraph<NodeIx, f64> {
        let mut g = DiGraph::with_capacity(self.nodes.len(), self.edges.len());
        for v in 0..self.nodes.len() {
            g.add_node(v);
        }
        for e in &self.edges {
            g.add_edge(NodeIndex::new(e.from), NodeIndex::new(e.to), e.cost);
        }
        g
    }

    /// Whether `to` can be reached from `from` over edges, ignoring joins and health.
    pub fn reachable(&self, from: NodeIx, to: NodeIx) -> bool {
        let g = self.to_petgraph();
        let mut bfs = Bfs::new(&g, NodeIndex::new(from));
        while let Some(v) = bfs.next(&g) {
            if v.index() == to {
                return true;
            }
        }
        false
    }

    /// Stage names in display order: the declared order, then any others as first seen.
    pub fn stage_order(&self) -> Vec<String> {
        let mut out: Vec<String> = self.spec.stages.clone();
        for n in &self.nodes {
            if let Some(s) = &n.stage {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
        out
    }

    /// The guard of edge `e`, if any.
    pub fn guard(&self, e: usize) -> Option<&Guard> {
        self.edges[e].guard.and_then(|g| self.guards.get(g as usize))
    }

    /// Whether the graph has a guarded edge (and so may need revisits).
    pub fn has_guards(&self) -> bool {
        !self.guards.is_empty()
    }

    pub fn risk_rules(&self) -> &[RiskRule] {
        &self.spec.risk_rules
    }

    pub fn intents(&self) -> &[IntentRule] {
        &self.spec.intents
    }
}
