//! [`Assembly`]: a [`ToolGraph`] put together as its description is read, node by node and
//! edge by edge, each checked and stored compact at once. No whole [`GraphSpec`] is held:
//! `ToolGraph::from_json` streams the text into an assembly (`stream.rs`), so parsing a large
//! description peaks near the built graph, not at five times it (issue 48, `peak_mem` bench).
//!
//! Nodes come first: the first edge orders their ids ([`Assembly::index`]), and each edge's ends
//! are resolved as it is read (the JSON reader holds edges written ahead of the nodes until
//! the nodes are read).
//! Problems are reported as [`ToolGraph::from_spec`] always reported them: the same kinds,
//! pointers and messages, in description order.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::refs::{check_cost, resolve_end, tool_refs};
use super::{Edge, EdgeSpec, GraphSpec, Guard, Node, NodeAttrs, NodeIx, NodeSpec, ToolGraph};
use crate::error::{GraphError, Problem, ProblemKind};
use crate::limits;

/// The end of an edge that names no node.
const UNKNOWN: NodeIx = NodeIx::MAX;

/// A problem with its place: the node or edge it is about, and its rank among that item's
/// problems (so that the ones found later still read in description order).
type Placed = (u32, u8, Problem);

/// A graph description being read. Feed it the nodes, then the edges, then [`Assembly::finish`]
/// with the rest of the description.
#[derive(Debug, Default)]
pub struct Assembly {
    nodes: Vec<Node>,
    /// The nodes described, including any past [`limits::MAX_NODES`] (not stored).
    node_count: usize,
    /// `(node, compensate, verify)` for the nodes that name either, by node.
    refs: Vec<(NodeIx, Option<String>, Option<String>)>,
    node_problems: Vec<Placed>,
    /// The node indices in order of id, ties by index (after [`Assembly::index`]).
    by_id: Vec<u32>,
    indexed: bool,
    edges: Vec<Edge>,
    edge_count: usize,
    edge_problems: Vec<Problem>,
    guarded: Vec<u32>,
    guards: Vec<Guard>,
    edge_reasons: Vec<(u32, String)>,
}

/// What a negative cost's message holds in place of the cost on the lean entry's path.
pub const NUMBER: char = '\u{1a}';

/// A cost as a message writes it: in full, or [`NUMBER`].
fn word<const FULL: bool>(v: f64) -> String {
    if FULL {
        format!("{v}")
    } else {
        NUMBER.into()
    }
}

fn problem(kind: ProblemKind, at: &str, path: String, message: String) -> Problem {
    Problem { kind, at: at.to_string(), path, message }
}

/// `a` and `b`, each in order of place, merged into one in order of place (`a` first on a tie).
fn merge(a: Vec<Placed>, b: Vec<Placed>) -> Vec<Placed> {
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut b = b.into_iter().peekable();
    for p in a {
        while let Some(q) = b.next_if(|q| (q.0, q.1) < (p.0, p.1)) {
            out.push(q);
        }
        out.push(p);
    }
    out.extend(b);
    out
}

/// The node indices in order of id, ties by index: by the ids' first 8 bytes through the crate's
/// one sort (`crate::sort`), then each run of ids alike in those bytes by the whole id, with a
/// heap sort (no second copy of the standard sort in the modules, and no input that makes it
/// quadratic).
fn order_by_id(nodes: &[Node]) -> Vec<u32> {
    let prefix = |id: &str| {
        let mut bytes = [0u8; 8];
        let n = id.len().min(8);
        bytes[..n].copy_from_slice(&id.as_bytes()[..n]);
        u64::from_be_bytes(bytes)
    };
    let mut keys: Vec<u128> =
        nodes.iter().enumerate().map(|(v, n)| (prefix(&n.id) as u128) << 64 | v as u128).collect();
    crate::sort::packed(&mut keys);
    let mut order: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
    let mut start = 0;
    while start < keys.len() {
        let run = keys[start..].iter().take_while(|&&k| k >> 64 == keys[start] >> 64).count();
        let id = |v: u32| (&*nodes[v as usize].id, v);
        heap_sort(&mut order[start..start + run], |a, b| id(a) < id(b));
        start += run;
    }
    order
}

fn heap_sort(v: &mut [u32], less: impl Fn(u32, u32) -> bool) {
    let sift = |v: &mut [u32], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less(v[child], v[child + 1]) {
            child += 1;
        }
        if !less(v[root], v[child]) {
            break;
        }
        v.swap(root, child);
        root = child;
    };
    for i in (0..v.len() / 2).rev() {
        sift(v, i, v.len());
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}

impl Assembly {
    /// An empty assembly.
    pub fn new() -> Assembly {
        Assembly::default()
    }

    fn too_large(&self) -> bool {
        self.node_count > limits::MAX_NODES || self.edge_count > limits::MAX_EDGES
    }

    /// Reads one node. Nodes come before [`Assembly::index`]: one after it is a problem.
    pub fn node(&mut self, n: NodeSpec) {
        self.add_node::<true>(n)
    }

    /// Reads a node as the lean entry describes one: an id, whether it is a tool, its base cost
    /// and quorum; every other attribute left out. The checks of [`Assembly::node`], with one
    /// difference: a negative cost's message holds [`NUMBER`] where the cost would be written
    /// (the lean entry's JS half writes it, so that its module links no float formatting).
    pub fn plain_node(&mut self, id: String, tool: bool, base_cost: f64, quorum: Option<u32>) {
        let join = quorum.map(|quorum| super::JoinSpec { quorum });
        self.add_node::<false>(NodeSpec { tool, base_cost, join, ..NodeSpec::new(id) })
    }

    /// `FULL`: every attribute checked and costs written in messages (else see
    /// [`Assembly::plain_node`]).
    fn add_node<const FULL: bool>(&mut self, mut n: NodeSpec) {
        let i = self.node_count;
        self.node_count += 1;
        if i >= limits::MAX_NODES {
            return;
        }
        if self.indexed {
            // Never from a description (its nodes are one array); a caller's order.
            let msg = "a node given after the edges were resolved (Assembly::index)".into();
            let p = problem(ProblemKind::BadValue, &n.id, format!("/nodes/{i}"), msg);
            self.node_problems.push((i as u32, 2, p));
            return;
        }
        let problems = &mut self.node_problems;
        let at = |field: &str| format!("/nodes/{i}/{field}");
        if n.id.is_empty() || n.id.len() > limits::MAX_ID {
            let msg = format!("node id must be 1 to {} bytes long", limits::MAX_ID);
            problems.push((i as u32, 0, problem(ProblemKind::BadId, &n.id, at("id"), msg)));
        }
        let mut push = |kind, at: &str, path: String, message: String| {
            problems.push((i as u32, 2, problem(kind, at, path, message)))
        };
        check_cost(&mut push, &n.id, at("base_cost"), "base_cost", n.base_cost, word::<FULL>);
        if n.label.as_deref().unwrap_or(&n.id).chars().count() > limits::MAX_LABEL {
            let msg = format!("label is longer than {} characters", limits::MAX_LABEL);
            push(ProblemKind::LabelTooLong, &n.id, at("label"), msg);
        }
        if FULL {
            super::checks::node_attrs(&n, &mut push, &at);
        }
        if n.compensate.is_some() || n.verify.is_some() {
            self.refs.push((i, n.compensate.take(), n.verify.take()));
        }
        self.nodes.push(Node::from_spec(n, None, None));
    }

    /// The nodes are all read: orders their ids (finding any two alike) and resolves the ids
    /// of the edges read so far. Called again, it does nothing.
    pub fn index(&mut self) {
        if self.indexed {
            return;
        }
        self.indexed = true;
        let nodes = &self.nodes;
        let by_id = order_by_id(nodes);
        // A node whose id an earlier node has is a duplicate.
        let mut duplicate = alloc::vec![false; nodes.len()];
        for w in by_id.windows(2).filter(|w| nodes[w[0] as usize].id == nodes[w[1] as usize].id) {
            duplicate[w[1] as usize] = true;
        }
        let duplicates = (duplicate.iter().enumerate().filter(|(_, &d)| d))
            .map(|(v, _)| {
                let (path, msg) = (format!("/nodes/{v}/id"), "duplicate node id".into());
                (v as u32, 1, problem(ProblemKind::DuplicateId, &nodes[v].id, path, msg))
            })
            .collect();
        self.node_problems = merge(core::mem::take(&mut self.node_problems), duplicates);
        self.by_id = by_id;
    }

    /// The node of an id (the last of that id, should two share it).
    fn lookup(&self, id: &str) -> Option<NodeIx> {
        let p = self.by_id.partition_point(|&v| &*self.nodes[v as usize].id <= id);
        let v = *self.by_id.get(p.checked_sub(1)?)? as usize;
        (&*self.nodes[v].id == id).then_some(v)
    }

    /// Reads one edge by the ids of its ends (after the nodes: the first edge orders the ids,
    /// [`Assembly::index`]).
    pub fn edge(&mut self, e: EdgeSpec) {
        self.add_edge::<true>(e)
    }

    /// Reads an edge as the lean entry describes one (see [`Assembly::plain_node`]).
    pub fn plain_edge(&mut self, from: String, to: String, cost: f64) {
        self.add_edge::<false>(EdgeSpec { from, to, cost, guard: None, reason: None })
    }

    fn add_edge<const FULL: bool>(&mut self, e: EdgeSpec) {
        self.index();
        let i = self.edge_count;
        self.edge_count += 1;
        if self.too_large() {
            return;
        }
        let ends = [self.lookup(&e.from), self.lookup(&e.to)];
        // One place that words an edge's problem: `from->to`, its pointer, the message.
        let problems = &mut self.edge_problems;
        let mut report = |kind, field: &str, message: String| {
            let (at, path) = (format!("{}->{}", e.from, e.to), format!("/edges/{i}/{field}"));
            problems.push(Problem { kind, at, path, message })
        };
        for (end, id, field, says) in
            [(ends[0], &e.from, "from", "starts at"), (ends[1], &e.to, "to", "ends at")]
        {
            if end.is_none() {
                report(ProblemKind::UnknownNode, field, format!("edge {says} unknown node `{id}`"));
            }
        }
        if !e.cost.is_finite() || e.cost < 0.0 {
            let mut push = |kind, _: &str, _: String, message| report(kind, "cost", message);
            check_cost(&mut push, "", String::new(), "cost", e.cost, word::<FULL>);
        }
        if e.from == e.to {
            report(ProblemKind::SelfLoop, "to", "edge leads from a node to itself".into());
        }
        if e.reason.as_deref().is_some_and(|r| r.chars().count() > limits::MAX_REASON) {
            report(
                ProblemKind::BadValue,
                "reason",
                format!("reason is longer than {} characters", limits::MAX_REASON),
            );
        }
        if e.guard.as_ref().is_some_and(|g| g.field.is_empty()) {
            report(ProblemKind::BadValue, "guard/field", "guard.field must be named".into());
        }
        let EdgeSpec { cost, guard, reason, .. } = e;
        // Within MAX_EDGES, so the index fits.
        if let Some(g) = guard {
            self.guarded.push(i as u32);
            self.guards.push(*g);
        }
        if let Some(r) = reason {
            self.edge_reasons.push((i as u32, *r));
        }
        self.edges.push(Edge { from: ends[0].unwrap_or(UNKNOWN), to: ends[1].unwrap_or(UNKNOWN), cost });
    }

    /// Reads an edge between the nodes read at `from` and `to` (the lean entry, whose JS half
    /// resolved the ids); an index past the nodes is an unknown node named by the empty id.
    pub fn edge_ix(&mut self, from: u32, to: u32, cost: f64) {
        let id = |v: u32| self.nodes.get(v as usize).map(|n| String::from(n.id())).unwrap_or_default();
        let (from, to) = (id(from), id(to));
        self.plain_edge(from, to, cost);
    }

    /// Checks what needs the whole description (duplicate edges, the tools nodes name, start and
    /// goal, quorums, the rules) and builds the graph; `rest` holds the description's fields
    /// other than its nodes and edges. Every problem found, in description order.
    pub fn finish(mut self, mut rest: GraphSpec) -> Result<ToolGraph, GraphError> {
        let mut problems = Vec::new();
        if self.too_large() {
            for (count, max, what) in
                [(self.node_count, limits::MAX_NODES, "nodes"), (self.edge_count, limits::MAX_EDGES, "edges")]
            {
                if count > max {
                    let msg = format!("{count} {what}, the limit is {max}");
                    problems.push(problem(ProblemKind::TooLarge, what, format!("/{what}"), msg));
                }
            }
            return Err(GraphError { problems });
        }
        self.index();
        // Exact sizes before the checks' and the build's scratch arrays join them at the peak.
        self.nodes.shrink_to_fit();
        self.edges.shrink_to_fit();
        let mut push =
            |kind, at: &str, path: String, message: String| problems.push(problem(kind, at, path, message));
        if rest.version != super::FORMAT_VERSION {
            let msg = format!(
                "format version {} is unknown; this build reads version {}",
                rest.version,
                super::FORMAT_VERSION
            );
            push(ProblemKind::UnsupportedVersion, "version", "/version".into(), msg);
        }
        problems.extend(core::mem::take(&mut self.node_problems).into_iter().map(|(_, _, p)| p));
        problems.append(&mut self.edge_problems);
        let mut push =
            |kind, at: &str, path: String, message: String| problems.push(problem(kind, at, path, message));
        self.duplicate_edges(&mut push);

        let lookup = |id: &str| self.lookup(id);
        let nodes = &self.nodes;
        let compensations =
            tool_refs(nodes, &self.refs, &lookup, &mut push, "compensate", |r| r.1.as_deref());
        let verifiers = tool_refs(nodes, &self.refs, &lookup, &mut push, "verify", |r| r.2.as_deref());
        let start =
            resolve_end(&mut push, &lookup, rest.start.as_deref(), "start", ProblemKind::MissingStart);
        let goal = resolve_end(&mut push, &lookup, rest.goal.as_deref(), "goal", ProblemKind::MissingGoal);

        let mut in_degree = alloc::vec![0u32; nodes.len()];
        for e in self.edges.iter().filter(|e| e.from != UNKNOWN && e.to != UNKNOWN) {
            in_degree[e.to] += 1;
        }
        for (v, node) in nodes.iter().enumerate() {
            if let super::Join::Quorum(k) = node.join {
                if k == 0 || k > in_degree[v] {
                    let msg = format!("quorum {k} but the node has {} incoming edges", in_degree[v]);
                    push(ProblemKind::BadQuorum, &node.id, format!("/nodes/{v}/join/quorum"), msg);
                }
            }
        }
        drop(in_degree);
        super::checks::rules(&rest, &mut push);
        if !problems.is_empty() {
            return Err(GraphError { problems });
        }
        let (Some(start), Some(goal)) = (start, goal) else {
            // Unreachable: a missing end was pushed as a problem above.
            return Err(GraphError::single(ProblemKind::MissingGoal, "goal", "missing start or goal"));
        };
        let refs = compensations.into_iter().map(|(v, c)| (v, Some(c), None));
        for (v, c, w) in refs.chain(verifiers.into_iter().map(|(v, w)| (v, None, Some(w)))) {
            self.nodes[v].set_refs(c, w);
        }
        rest.nodes = Vec::new();
        rest.edges = Vec::new();
        let Assembly { nodes, edges, by_id, guarded, guards, edge_reasons, .. } = self;
        let parts = super::build::Parts { nodes, edges, by_id, guarded, guards, edge_reasons, start, goal };
        Ok(ToolGraph::assemble(rest, parts))
    }

    /// A second edge between the same two nodes, in the order of the pair.
    fn duplicate_edges(&self, push: &mut impl FnMut(ProblemKind, &str, String, String)) {
        // (from, to, edge index) packed, 18 + 18 + 21 bits within the limits: sorted (by the
        // crate's one sort, not a copy for this key), a pair met twice is next to itself.
        let known = self.edges.iter().enumerate().filter(|(_, e)| e.from != UNKNOWN && e.to != UNKNOWN);
        let mut pairs: Vec<u128> =
            known.map(|(i, e)| (e.from as u128) << 39 | (e.to as u128) << 21 | i as u128).collect();
        crate::sort::packed(&mut pairs);
        for w in pairs.windows(2).filter(|w| w[0] >> 21 == w[1] >> 21) {
            let i = (w[1] & ((1 << 21) - 1)) as usize;
            let e = self.edges[i];
            let at = format!("{}->{}", self.nodes[e.from].id, self.nodes[e.to].id);
            let why = "a second edge between the same nodes".into();
            push(ProblemKind::DuplicateEdge, &at, format!("/edges/{i}"), why);
        }
    }
}

impl NodeAttrs {
    /// Every attribute left out (what `== NodeAttrs::default()` says, without comparing
    /// validators and probe inputs field by field).
    pub(super) fn is_plain(&self) -> bool {
        let a = self;
        a.label.is_none()
            && a.stage.is_none()
            && a.description.is_none()
            && a.retry.is_none()
            && a.quota.is_none()
            && a.rate_limit.is_none()
            && a.max_concurrent.is_none()
            && a.probe.is_none()
            && a.timeout_ms.is_none()
            && a.compensate.is_none()
            && a.verify.is_none()
            && a.baseline_latency_ms.is_none()
            && a.validators.is_empty()
            && a.x.is_none()
            && a.y.is_none()
            && a.reason.is_none()
    }
}

impl Node {
    /// Sets the tools that `compensate` and `verify` name, once the ids are resolved.
    pub(super) fn set_refs(&mut self, compensate: Option<NodeIx>, verify: Option<NodeIx>) {
        if compensate.is_none() && verify.is_none() {
            return;
        }
        let attrs = self.attrs.get_or_insert_with(Default::default);
        attrs.compensate = compensate.or(attrs.compensate);
        attrs.verify = verify.or(attrs.verify);
    }
}
