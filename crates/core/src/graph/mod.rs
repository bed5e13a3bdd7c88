//! The tool graph: tools are nodes, allowed sequencing is edges, costs are non-negative.
//!
//! A [`ToolGraph`] is built from a [`GraphSpec`] (the JSON description) and validated as a whole:
//! every problem is reported, each naming the offending id. The structure never changes at run
//! time; only weights do (see [`crate::health`]).

mod assemble;
mod build;
mod checks;
mod refs;
mod spec;
mod stream;
mod topo;

pub use assemble::{Assembly, NUMBER};

pub use topo::{TopoIn, NEAR_ENTRY, WAVES_FROM};

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Bfs;

pub use spec::*;

use crate::error::Problem;
use crate::validate::Validator;

/// Index of a node inside a [`ToolGraph`] (dense, `0..node_count`).
pub type NodeIx = usize;

/// A validated node. What routing and the run read for every node sits inline; the attributes
/// few nodes set, and what only export needs, sit behind one pointer that is absent for a plain
/// node: 48 bytes a node (plus its id), where a struct of every attribute took 250.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Multiplies the cost of every edge into this node.
    pub base_cost: f64,
    /// How many completed inputs the node needs (its quorum).
    pub join: Join,
    /// False for waypoints (start, goals) that complete without a call.
    pub tool: bool,
    /// The tool changes the world: a run does not branch back past it without undoing it.
    pub side_effect: bool,
    id: Box<str>,
    attrs: Option<Box<NodeAttrs>>,
}

/// The attributes of a node that most nodes leave out, as written (`None` when absent, so
/// that export gives back the description as read).
#[derive(Clone, Debug, Default, PartialEq)]
struct NodeAttrs {
    label: Option<String>,
    stage: Option<String>,
    description: Option<String>,
    retry: Option<RetryPolicy>,
    quota: Option<u32>,
    rate_limit: Option<RateLimitSpec>,
    max_concurrent: Option<u32>,
    probe: Option<ProbeSpec>,
    timeout_ms: Option<u64>,
    compensate: Option<NodeIx>,
    verify: Option<NodeIx>,
    baseline_latency_ms: Option<f64>,
    validators: Vec<Validator>,
    x: Option<f64>,
    y: Option<f64>,
    reason: Option<String>,
}

impl Node {
    /// A validated description of a node; `compensate` and `verify` are the indices its ids
    /// name.
    fn from_spec(n: NodeSpec, compensate: Option<NodeIx>, verify: Option<NodeIx>) -> Node {
        let NodeSpec {
            id,
            label,
            stage,
            base_cost,
            tool,
            join,
            retry,
            description,
            quota,
            side_effect,
            compensate: _,
            rate_limit,
            max_concurrent,
            probe,
            timeout_ms,
            verify: _,
            baseline_latency_ms,
            validators,
            x,
            y,
            reason,
        } = n;
        let attrs = NodeAttrs {
            label,
            stage,
            description,
            retry,
            quota,
            rate_limit,
            max_concurrent,
            probe,
            timeout_ms,
            compensate,
            verify,
            baseline_latency_ms,
            validators,
            x,
            y,
            reason,
        };
        Node {
            base_cost,
            join: join.map_or(Join::Any, |j| Join::Quorum(j.quorum)),
            tool,
            side_effect,
            id: id.into_boxed_str(),
            attrs: (!attrs.is_plain()).then(|| Box::new(attrs)),
        }
    }

    /// The node as written in a description; `id_of` names the compensating tool.
    fn to_spec<'a>(&self, id_of: impl Fn(NodeIx) -> &'a str) -> NodeSpec {
        let mut n = NodeSpec::new(String::from(&*self.id));
        n.base_cost = self.base_cost;
        n.tool = self.tool;
        n.side_effect = self.side_effect;
        n.join = match self.join {
            Join::Any => None,
            Join::Quorum(quorum) => Some(JoinSpec { quorum }),
        };
        if let Some(a) = &self.attrs {
            n.label = a.label.clone();
            n.stage = a.stage.clone();
            n.description = a.description.clone();
            n.retry = a.retry;
            n.quota = a.quota;
            n.rate_limit = a.rate_limit;
            n.max_concurrent = a.max_concurrent;
            n.probe = a.probe.clone();
            n.timeout_ms = a.timeout_ms;
            n.compensate = a.compensate.map(|c| String::from(id_of(c)));
            n.verify = a.verify.map(|c| String::from(id_of(c)));
            n.baseline_latency_ms = a.baseline_latency_ms;
            n.validators = a.validators.clone();
            n.x = a.x;
            n.y = a.y;
            n.reason = a.reason.clone();
        }
        n
    }

    fn attrs(&self) -> Option<&NodeAttrs> {
        self.attrs.as_deref()
    }

    /// The node's id, unique in the graph.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The label to show: the one written, else the id.
    pub fn label(&self) -> &str {
        self.attrs().and_then(|a| a.label.as_deref()).unwrap_or(&self.id)
    }
    /// Capability tag, e.g. `payment`.
    pub fn stage(&self) -> Option<&str> {
        self.attrs().and_then(|a| a.stage.as_deref())
    }
    /// What the tool does, for people and agents.
    pub fn description(&self) -> Option<&str> {
        self.attrs().and_then(|a| a.description.as_deref())
    }
    /// The retry policy, the default one when the node names none.
    pub fn retry(&self) -> RetryPolicy {
        self.attrs().and_then(|a| a.retry).unwrap_or_default()
    }
    /// Calls allowed per quota window ([`crate::health::QUOTA_WINDOW_MS`]).
    pub fn quota(&self) -> Option<u32> {
        self.attrs().and_then(|a| a.quota)
    }
    /// The hard rate limit shared by every run, if any.
    pub fn rate_limit(&self) -> Option<RateLimitSpec> {
        self.attrs().and_then(|a| a.rate_limit)
    }
    /// Calls allowed in flight at once, when the node says.
    pub fn max_concurrent(&self) -> Option<u32> {
        self.attrs().and_then(|a| a.max_concurrent)
    }
    /// The probe the router asks for while the tool is down.
    pub fn probe(&self) -> Option<&ProbeSpec> {
        self.attrs().and_then(|a| a.probe.as_ref())
    }
    /// `probe.interval_ms`: the router asks for a probe of the tool while it is down.
    pub fn probe_interval_ms(&self) -> Option<u64> {
        self.probe().map(|p| p.interval_ms)
    }
    /// The tool that undoes this one's side effect.
    pub fn compensate(&self) -> Option<NodeIx> {
        self.attrs().and_then(|a| a.compensate)
    }
    /// The tool that tells whether a call of this one whose outcome is unknown took effect.
    pub fn verify(&self) -> Option<NodeIx> {
        self.attrs().and_then(|a| a.verify)
    }
    /// How long a call of the tool may take, when the node says.
    pub fn timeout_ms(&self) -> Option<u64> {
        self.attrs().and_then(|a| a.timeout_ms)
    }
    /// The tool's normal latency, which the latency factor compares the rolling mean with.
    pub fn baseline_latency_ms(&self) -> Option<f64> {
        self.attrs().and_then(|a| a.baseline_latency_ms)
    }
    /// Checks on the tool's output.
    pub fn validators(&self) -> &[Validator] {
        self.attrs().map_or(&[], |a| &a.validators)
    }
    /// Horizontal position hint for drawing.
    pub fn x(&self) -> Option<f64> {
        self.attrs().and_then(|a| a.x)
    }
    /// Vertical position hint for drawing.
    pub fn y(&self) -> Option<f64> {
        self.attrs().and_then(|a| a.y)
    }
    /// Why the node is what it is (`reason`), for people.
    pub fn reason(&self) -> Option<&str> {
        self.attrs().and_then(|a| a.reason.as_deref())
    }
}

/// A validated edge. Its guard, which few edges have, is in a side table
/// ([`ToolGraph::guard`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    /// The source node.
    pub from: NodeIx,
    /// The target node.
    pub to: NodeIx,
    /// The description cost (non-negative, finite).
    pub cost: f64,
}

/// A validated tool graph with compact adjacency for routing. It keeps no copy of the
/// description it was built from: [`ToolGraph::to_spec`] re-creates it.
#[derive(Clone, Debug)]
pub struct ToolGraph {
    schema: Option<String>,
    version: u32,
    name: Option<String>,
    /// The declared stage names, in pipeline order.
    stages: Vec<String>,
    risk_rules: Vec<RiskRule>,
    intents: Vec<IntentRule>,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// The node indices in order of id, for [`ToolGraph::index`]'s binary search: a map would
    /// copy every id once more.
    by_id: Vec<u32>,
    /// `guards[k]` guards the edge `guarded[k]`; `guarded` ascends.
    guarded: Vec<u32>,
    guards: Vec<Guard>,
    /// `(edge, why it exists)` for the few edges with a `reason`, by ascending edge.
    edge_reasons: Vec<(u32, String)>,
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
    /// A topological order of the nodes (Kahn's: `topo::topological`) and each
    /// node's place in it; both empty when the graph has a cycle.
    topo: Vec<u32>,
    topo_pos: Vec<u32>,
    topo_in: TopoIn,
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

    /// The nodes in topological order (empty when the graph has a cycle): Kahn's, lowest ready
    /// index first, or from [`WAVES_FROM`] nodes by waves grouped by how many edges enter a node.
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

    /// The description this graph was built from, re-created (for export and round trips):
    /// `ToolGraph::from_spec(s)?.to_spec() == s`.
    pub fn to_spec(&self) -> GraphSpec {
        let mut guards = self.guarded.iter().zip(&self.guards).peekable();
        let mut reasons = self.edge_reasons.iter().peekable();
        let edges = self
            .edges
            .iter()
            .enumerate()
            .map(|(e, edge)| EdgeSpec {
                from: self.id(edge.from).into(),
                to: self.id(edge.to).into(),
                cost: edge.cost,
                guard: guards.next_if(|&(&g, _)| g as usize == e).map(|(_, g)| Box::new(g.clone())),
                reason: reasons.next_if(|(r, _)| *r as usize == e).map(|(_, r)| Box::new(r.clone())),
            })
            .collect();
        GraphSpec {
            schema: self.schema.clone(),
            version: self.version,
            name: self.name.clone(),
            nodes: self.nodes.iter().map(|n| n.to_spec(|c| self.id(c))).collect(),
            edges,
            start: Some(self.id(self.start).into()),
            goal: Some(self.id(self.goal).into()),
            stages: self.stages.clone(),
            risk_rules: self.risk_rules.clone(),
            intents: self.intents.clone(),
        }
    }

    /// The description as JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data to a String cannot fail.
        serde_json::to_string_pretty(&self.to_spec()).unwrap_or_default()
    }

    /// The graph's name, from its description.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The declared stage names, in pipeline order (see [`ToolGraph::stage_order`] for every
    /// stage in use).
    pub fn stages(&self) -> &[String] {
        &self.stages
    }

    /// Warnings found by validation (the graph was still accepted).
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    /// How many nodes the graph has.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    /// How many edges the graph has.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
    /// Every node, in description order (a node's index is its position).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    /// The node at index `ix`.
    pub fn node(&self, ix: NodeIx) -> &Node {
        &self.nodes[ix]
    }
    /// Every edge, in description order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }
    /// The edge at index `e`.
    pub fn edge(&self, e: usize) -> &Edge {
        &self.edges[e]
    }
    /// The graph's own start node.
    pub fn start(&self) -> NodeIx {
        self.start
    }
    /// The graph's own goal node.
    pub fn goal(&self) -> NodeIx {
        self.goal
    }

    /// Index of the node with this id.
    pub fn index(&self, id: &str) -> Option<NodeIx> {
        let k = self.by_id.binary_search_by(|&v| self.id(v as usize).cmp(id)).ok()?;
        self.by_id.get(k).map(|&v| v as usize)
    }

    /// Id of a node.
    pub fn id(&self, ix: NodeIx) -> &str {
        self.nodes[ix].id()
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
        let mut out: Vec<String> = self.stages.clone();
        for n in &self.nodes {
            if let Some(s) = n.stage() {
                if !out.iter().any(|o| o == s) {
                    out.push(s.into());
                }
            }
        }
        out
    }

    /// The guard of edge `e`, if any.
    pub fn guard(&self, e: usize) -> Option<&Guard> {
        let k = self.guarded.binary_search(&u32::try_from(e).ok()?).ok()?;
        self.guards.get(k)
    }

    /// Why edge `e` exists, if its description says (`reason`).
    pub fn edge_reason(&self, e: usize) -> Option<&str> {
        let e = u32::try_from(e).ok()?;
        let k = self.edge_reasons.binary_search_by_key(&e, |(r, _)| *r).ok()?;
        self.edge_reasons.get(k).map(|(_, r)| r.as_str())
    }

    /// Whether the graph has a guarded edge (and so may need revisits).
    pub fn has_guards(&self) -> bool {
        !self.guards.is_empty()
    }

    /// The risk rules the risk monitor checks.
    pub fn risk_rules(&self) -> &[RiskRule] {
        &self.risk_rules
    }

    /// The intent rules the intent monitor reads the request with.
    pub fn intents(&self) -> &[IntentRule] {
        &self.intents
    }
}
