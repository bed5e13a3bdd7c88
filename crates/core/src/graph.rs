//! The tool graph: tools are nodes, allowed sequencing is edges, costs are non-negative.
//!
//! A [`ToolGraph`] is built from a [`GraphSpec`] (the JSON description) and validated as a whole:
//! every problem is reported, each naming the offending id. The structure never changes at run
//! time; only weights do (see [`crate::health`]).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Bfs;
use serde::{Deserialize, Serialize};

use crate::error::{GraphError, Problem, ProblemKind};
use crate::limits;
use crate::validate::Validator;

/// Index of a node inside a [`ToolGraph`] (dense, `0..node_count`).
pub type NodeIx = usize;

/// How a node combines its incoming branches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Join {
    /// Classic OR: one completed predecessor is enough (plain Dijkstra).
    #[default]
    Any,
    /// Needs `k` distinct completed predecessors (k = in-degree is AND).
    Quorum(u32),
}

/// Retry policy for transient service failures of one tool. A field left out takes the
/// default policy's value (one retry, no backoff), the same as leaving out `retry` entirely.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RetryPolicy {
    /// Extra attempts after the first call (0 = never retry).
    pub attempts: u32,
    /// Clock time to wait before each retry, multiplied by the attempt number.
    pub backoff_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { attempts: 1, backoff_ms: 0 }
    }
}

/// One node as written in the JSON description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeSpec {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Capability tag, e.g. `payment`; risk rules and baselines refer to stages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub base_cost: f64,
    /// False for waypoints (start, goals) that complete without a call.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub tool: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<JoinSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetryPolicy>,
    /// Calls allowed per quota window; the rate-limit factor rises near it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<u32>,
    /// Normal latency of the tool; the latency factor compares the rolling mean with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_latency_ms: Option<f64>,
    /// Checks on the tool's output; a result that fails one is an implicit failure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validators: Vec<Validator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
}

impl NodeSpec {
    /// A tool node with every optional field left out, as `{"id": ...}` in JSON would give.
    pub fn new(id: impl Into<String>) -> NodeSpec {
        NodeSpec {
            id: id.into(),
            label: None,
            stage: None,
            base_cost: 1.0,
            tool: true,
            join: None,
            retry: None,
            quota: None,
            baseline_latency_ms: None,
            validators: Vec::new(),
            x: None,
            y: None,
        }
    }
}

/// `"join": {"quorum": k}` in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinSpec {
    pub quorum: u32,
}

/// One edge as written in the JSON description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeSpec {
    pub from: String,
    pub to: String,
    #[serde(default = "one")]
    pub cost: f64,
    /// Taken only when the last result of `from` satisfies this (cycles, seed 004).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<Guard>,
}

/// A deterministic edge guard on the last result of the edge's source tool: the machine
/// counterpart of seed 004's natural-language transition criteria ("if verification fails,
/// return to search"). Before the source has a result the guard is assumed to hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Guard {
    /// Dot path into the result (`ok`, `booking.status`).
    pub field: String,
    /// The guard holds when the field equals this value...
    pub equals: serde_json::Value,
    /// ...or, with `negate`, when it does not.
    #[serde(default, skip_serializing_if = "is_false")]
    pub negate: bool,
}

impl Guard {
    /// Whether the guard holds on a result.
    pub fn holds(&self, output: &serde_json::Value) -> bool {
        let mut v = Some(output);
        for part in self.field.split('.') {
            v = v.and_then(|v| v.get(part));
        }
        (v == Some(&self.equals)) != self.negate
    }
}

fn is_false(v: &bool) -> bool {
    !*v
}

/// A risk rule: before calling a tool of `stage`, if context value `key` exceeds `max`, the risk
/// monitor raises a signal of `priority` (which escalates when it wins).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RiskRule {
    pub key: String,
    pub max: f64,
    pub stage: String,
    #[serde(default = "risk_priority")]
    pub priority: f64,
}

/// An intent rule: when the task's `request` text contains `keyword`, the intent monitor raises a
/// routine signal of `priority`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntentRule {
    pub keyword: String,
    #[serde(default = "intent_priority")]
    pub priority: f64,
}

/// The JSON description of a tool graph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub edges: Vec<EdgeSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// Stage names in pipeline order (for display and baselines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub risk_rules: Vec<RiskRule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intents: Vec<IntentRule>,
}

fn one() -> f64 {
    1.0
}
fn is_one(v: &f64) -> bool {
    *v == 1.0
}
fn yes() -> bool {
    true
}
fn is_true(v: &bool) -> bool {
    *v
}
fn risk_priority() -> f64 {
    0.95
}
fn intent_priority() -> f64 {
    0.9
}

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
}

impl ToolGraph {
    /// Parses and validates a JSON description.
    pub fn from_json(text: &str) -> Result<ToolGraph, GraphError> {
        if text.len() > limits::MAX_JSON_BYTES {
            return Err(GraphError::single(
                ProblemKind::TooLarge,
                "json",
                format!("description is {} bytes, the limit is {}", text.len(), limits::MAX_JSON_BYTES),
            ));
        }
        let spec: GraphSpec = serde_json::from_str(text).map_err(|e| {
            GraphError::single(
                ProblemKind::MalformedJson,
                "json",
                format!("line {} column {}: {}", e.line(), e.column(), e),
            )
        })?;
        ToolGraph::from_spec(spec)
    }

    /// Validates a description. Every problem found is reported.
    pub fn from_spec(spec: GraphSpec) -> Result<ToolGraph, GraphError> {
        let mut problems = Vec::new();
        let mut push =
            |kind, at: &str, message: String| problems.push(Problem { kind, at: at.to_string(), message });
        if spec.nodes.len() > limits::MAX_NODES {
            push(
                ProblemKind::TooLarge,
                "nodes",
                format!("{} nodes, the limit is {}", spec.nodes.len(), limits::MAX_NODES),
            );
        }
        if spec.edges.len() > limits::MAX_EDGES {
            push(
                ProblemKind::TooLarge,
                "edges",
                format!("{} edges, the limit is {}", spec.edges.len(), limits::MAX_EDGES),
            );
        }
        if spec.nodes.len() > limits::MAX_NODES || spec.edges.len() > limits::MAX_EDGES {
            return Err(GraphError { problems });
        }

        let mut ids = BTreeMap::new();
        let mut nodes = Vec::with_capacity(spec.nodes.len());
        for n in &spec.nodes {
            if n.id.is_empty() || n.id.len() > limits::MAX_ID {
                push(
                    ProblemKind::BadId,
                    &n.id,
                    format!("node id must be 1 to {} bytes long", limits::MAX_ID),
                );
            }
            if ids.insert(n.id.clone(), nodes.len()).is_some() {
                push(ProblemKind::DuplicateId, &n.id, "duplicate node id".into());
            }
            check_cost(&mut push, &n.id, "base_cost", n.base_cost);
            let label = n.label.clone().unwrap_or_else(|| n.id.clone());
            if label.chars().count() > limits::MAX_LABEL {
                push(
                    ProblemKind::LabelTooLong,
                    &n.id,
                    format!("label is longer than {} characters", limits::MAX_LABEL),
                );
            }
            if let Some(r) = n.retry {
                if r.attempts > limits::MAX_RETRY_ATTEMPTS {
                    push(
                        ProblemKind::BadValue,
                        &n.id,
                        format!(
                            "retry.attempts is {}, the limit is {}",
                            r.attempts,
                            limits::MAX_RETRY_ATTEMPTS
                        ),
                    );
                }
            }
            if n.quota == Some(0) {
                push(ProblemKind::BadValue, &n.id, "quota must be at least 1".into());
            }
            if let Some(b) = n.baseline_latency_ms {
                if !(b.is_finite() && b > 0.0) {
                    push(
                        ProblemKind::BadValue,
                        &n.id,
                        "baseline_latency_ms must be a positive number".into(),
                    );
                }
            }
            for (k, v) in n.validators.iter().enumerate() {
                if let Err(msg) = v.check_spec() {
                    push(ProblemKind::BadValue, &n.id, format!("validators[{k}]: {msg}"));
                }
            }
            for (name, v) in [("x", n.x), ("y", n.y)] {
                if v.is_some_and(|v| !v.is_finite()) {
                    push(ProblemKind::BadValue, &n.id, format!("{name} must be a finite number"));
                }
            }
            nodes.push(Node {
                id: n.id.clone(),
                label,
                stage: n.stage.clone(),
                base_cost: n.base_cost,
                tool: n.tool,
                join: match n.join {
                    Some(JoinSpec { quorum }) => Join::Quorum(quorum),
                    None => Join::Any,
                },
                retry: n.retry.unwrap_or_default(),
                quota: n.quota,
                baseline_latency_ms: n.baseline_latency_ms,
                validators: n.validators.clone(),
                x: n.x,
                y: n.y,
            });
        }

        let mut edges = Vec::with_capacity(spec.edges.len());
        let mut guards: Vec<Guard> = Vec::new();
        let mut seen_pairs = BTreeSet::new();
        for e in &spec.edges {
            let at = format!("{}->{}", e.from, e.to);
            let from = ids.get(&e.from).copied();
            let to = ids.get(&e.to).copied();
            if from.is_none() {
                push(ProblemKind::UnknownNode, &at, format!("edge starts at unknown node `{}`", e.from));
            }
            if to.is_none() {
                push(ProblemKind::UnknownNode, &at, format!("edge ends at unknown node `{}`", e.to));
            }
            check_cost(&mut push, &at, "cost", e.cost);
            if e.from == e.to {
                push(ProblemKind::SelfLoop, &at, "edge leads from a node to itself".into());
            }
            let guard = e.guard.as_ref().map(|g| {
                if g.field.is_empty() {
                    push(ProblemKind::BadValue, &at, "guard.field must be named".into());
                }
                guards.push(g.clone());
                guards.len() as u32 - 1
            });
            if let (Some(f), Some(t)) = (from, to) {
                if !seen_pairs.insert((f, t)) {
                    push(ProblemKind::DuplicateEdge, &at, "a second edge between the same nodes".into());
                }
                edges.push(Edge { from: f, to: t, cost: e.cost, guard });
            }
        }

        let start = resolve_end(&mut push, &ids, spec.start.as_deref(), "start", ProblemKind::MissingStart);
        let goal = resolve_end(&mut push, &ids, spec.goal.as_deref(), "goal", ProblemKind::MissingGoal);

        let n = nodes.len();
        let mut in_degree = alloc::vec![0u32; n];
        for e in &edges {
            in_degree[e.to] += 1;
        }
        for (v, node) in nodes.iter().enumerate() {
            if let Join::Quorum(k) = node.join {
                if k == 0 || k > in_degree[v] {
                    push(
                        ProblemKind::BadQuorum,
                        &node.id,
                        format!("quorum {k} but the node has {} incoming edges", in_degree[v]),
                    );
                }
            }
        }
        for (k, r) in spec.risk_rules.iter().enumerate() {
            if !r.max.is_finite() || !(0.0..=1.0).contains(&r.priority) {
                push(
                    ProblemKind::BadValue,
                    &format!("risk_rules[{k}]"),
                    "max must be finite and priority within 0..1".into(),
                );
            }
        }
        for (k, r) in spec.intents.iter().enumerate() {
            if !(0.0..=1.0).contains(&r.priority) {
                push(ProblemKind::BadValue, &format!("intents[{k}]"), "priority must be within 0..1".into());
            }
        }

        if !problems.is_empty() {
            return Err(GraphError { problems });
        }
        let (start, goal) = match (start, goal) {
            (Some(s), Some(g)) => (s, g),
            // Unreachable: a missing end was pushed as a problem above.
            _ => return Err(GraphError::single(ProblemKind::MissingGoal, "goal", "missing start or goal")),
        };

        let (out_start, out_edges) = adjacency(n, &edges, |e| (e.from, e.to));
        let (in_start, in_edges) = adjacency(n, &edges, |e| (e.to, e.from));
        let quorum: Vec<u32> = nodes
            .iter()
            .map(|node| match node.join {
                Join::Any => 0,
                Join::Quorum(k) => k,
            })
            .collect();
        let joins = (0..n).filter(|&v| quorum[v] > 0).collect();
        let mut graph = ToolGraph {
            spec,
            nodes,
            edges,
            ids,
            guards,
            out_start,
            out_edges,
            in_start,
            in_edges,
            start,
            goal,
            warnings: Vec::new(),
            quorum,
            joins,
        };
        if !graph.reachable(start, goal) {
            let id = graph.nodes[goal].id.clone();
            graph.warnings.push(Problem {
                kind: ProblemKind::GoalUnreachable,
                at: id,
                message: "goal cannot be reached from start even with every tool healthy".into(),
            });
        }
        Ok(graph)
    }

    /// The quorum of `v`'s join: 0 for a plain node (`Join::Any`), k for `Join::Quorum(k)`.
    #[inline]
    pub fn quorum(&self, v: NodeIx) -> u32 {
        self.quorum[v]
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

fn check_cost(push: &mut impl FnMut(ProblemKind, &str, String), at: &str, field: &str, v: f64) {
    if !v.is_finite() {
        push(ProblemKind::NonFiniteCost, at, format!("{field} must be a finite number"));
    } else if v < 0.0 {
        push(ProblemKind::NegativeCost, at, format!("{field} is {v}, costs must not be negative"));
    }
}

fn resolve_end(
    push: &mut impl FnMut(ProblemKind, &str, String),
    ids: &BTreeMap<String, NodeIx>,
    id: Option<&str>,
    field: &str,
    missing: ProblemKind,
) -> Option<NodeIx> {
    match id {
        None | Some("") => {
            push(missing, field, format!("the description has no {field} node"));
            None
        }
        Some(id) => {
            let ix = ids.get(id).copied();
            if ix.is_none() {
                push(ProblemKind::UnknownNode, field, format!("{field} names unknown node `{id}`"));
            }
            ix
        }
    }
}

/// Compressed adjacency: for each node the edge indices, sorted by the other endpoint.
fn adjacency(n: usize, edges: &[Edge], ends: impl Fn(&Edge) -> (NodeIx, NodeIx)) -> (Vec<u32>, Vec<u32>) {
    let mut order: Vec<u32> = (0..edges.len() as u32).collect();
    order.sort_by_key(|&e| ends(&edges[e as usize]));
    let mut start = alloc::vec![0u32; n + 1];
    for e in edges {
        start[ends(e).0 + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    (start, order)
}
