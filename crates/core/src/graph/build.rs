//! Building a [`ToolGraph`] from its description: every problem found is reported, each naming
//! the offending id. O(V + E log E) for the adjacency sort.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::Deserialize;

use super::{Edge, GraphSpec, Guard, Join, JoinSpec, Node, NodeIx, ToolGraph};
use crate::error::{GraphError, Problem, ProblemKind};
use crate::{json_path, limits};

use super::refs::{check_cost, resolve_end, tool_refs};

// An edge's ends and index pack into 57 bits for the duplicate check of `from_spec`.
const _: () = assert!(limits::MAX_NODES <= 1 << 18 && limits::MAX_EDGES <= 1 << 21);

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
        let malformed = |e: serde_json::Error, path: String| {
            let mut err = GraphError::single(
                ProblemKind::MalformedJson,
                "json",
                format!("line {} column {}: {}", e.line(), e.column(), e),
            );
            err.problems[0].path = path;
            err
        };
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec = GraphSpec::deserialize(&mut *de).map_err(|e| {
            let path = json_path::pointer(&json_path::path_of(text, &e));
            malformed(e, path)
        })?;
        // Text after the description (a second object, a stray bracket) is refused, not
        // silently dropped: it is most likely a description pasted twice or cut wrong.
        de.end().map_err(|e| malformed(e, String::new()))?;
        ToolGraph::from_spec(spec)
    }

    /// Validates a description. Every problem found is reported.
    pub fn from_spec(mut spec: GraphSpec) -> Result<ToolGraph, GraphError> {
        let mut problems = Vec::new();
        let mut push = |kind, at: &str, path: String, message: String| {
            problems.push(Problem { kind, at: at.to_string(), path, message })
        };
        if spec.nodes.len() > limits::MAX_NODES {
            push(
                ProblemKind::TooLarge,
                "nodes",
                "/nodes".into(),
                format!("{} nodes, the limit is {}", spec.nodes.len(), limits::MAX_NODES),
            );
        }
        if spec.edges.len() > limits::MAX_EDGES {
            push(
                ProblemKind::TooLarge,
                "edges",
                "/edges".into(),
                format!("{} edges, the limit is {}", spec.edges.len(), limits::MAX_EDGES),
            );
        }
        if spec.nodes.len() > limits::MAX_NODES || spec.edges.len() > limits::MAX_EDGES {
            return Err(GraphError { problems });
        }
        if spec.version != super::FORMAT_VERSION {
            push(
                ProblemKind::UnsupportedVersion,
                "version",
                "/version".into(),
                format!(
                    "format version {} is unknown; this build reads version {}",
                    spec.version,
                    super::FORMAT_VERSION
                ),
            );
        }

        let mut ids: BTreeMap<&str, NodeIx> = BTreeMap::new();
        for (i, n) in spec.nodes.iter().enumerate() {
            let at = |field: &str| {
                if field.is_empty() {
                    format!("/nodes/{i}")
                } else {
                    format!("/nodes/{i}/{field}")
                }
            };
            if n.id.is_empty() || n.id.len() > limits::MAX_ID {
                push(
                    ProblemKind::BadId,
                    &n.id,
                    at("id"),
                    format!("node id must be 1 to {} bytes long", limits::MAX_ID),
                );
            }
            if ids.insert(n.id.as_str(), i).is_some() {
                push(ProblemKind::DuplicateId, &n.id, at("id"), "duplicate node id".into());
            }
            check_cost(&mut push, &n.id, at("base_cost"), "base_cost", n.base_cost);
            if n.label.as_deref().unwrap_or(&n.id).chars().count() > limits::MAX_LABEL {
                push(
                    ProblemKind::LabelTooLong,
                    &n.id,
                    at("label"),
                    format!("label is longer than {} characters", limits::MAX_LABEL),
                );
            }
            if n.reason.as_deref().is_some_and(|r| r.chars().count() > limits::MAX_REASON) {
                push(
                    ProblemKind::BadValue,
                    &n.id,
                    at("reason"),
                    format!("reason is longer than {} characters", limits::MAX_REASON),
                );
            }
            if let Some(r) = n.retry {
                if r.attempts > limits::MAX_RETRY_ATTEMPTS {
                    push(
                        ProblemKind::BadValue,
                        &n.id,
                        at("retry/attempts"),
                        format!(
                            "retry.attempts is {}, the limit is {}",
                            r.attempts,
                            limits::MAX_RETRY_ATTEMPTS
                        ),
                    );
                }
            }
            if n.max_concurrent == Some(0) {
                push(
                    ProblemKind::BadValue,
                    &n.id,
                    at("max_concurrent"),
                    "max_concurrent must be at least 1".into(),
                );
            }
            if n.timeout_ms.is_some_and(|t| t == 0 || t > limits::MAX_TIMEOUT_MS) {
                let msg = format!("timeout_ms must be 1..={} (a day)", limits::MAX_TIMEOUT_MS);
                push(ProblemKind::BadValue, &n.id, at("timeout_ms"), msg);
            }
            if n.rate_limit.is_some_and(|r| r.calls == 0 || r.per_ms == 0) {
                let msg = "rate_limit needs calls and per_ms of at least 1";
                push(ProblemKind::BadValue, &n.id, at("rate_limit"), msg.into());
            }
            if let Some(p) = &n.probe {
                if p.interval_ms == 0 {
                    let msg = "probe.interval_ms must be at least 1";
                    push(ProblemKind::BadValue, &n.id, at("probe/interval_ms"), msg.into());
                }
                if !n.tool {
                    let msg = "a waypoint (tool: false) is never called, so it cannot be probed";
                    push(ProblemKind::BadValue, &n.id, at("probe"), msg.into());
                }
            }
            if n.quota == Some(0) {
                push(ProblemKind::BadValue, &n.id, at("quota"), "quota must be at least 1".into());
            }
            if let Some(b) = n.baseline_latency_ms {
                if !(b.is_finite() && b > 0.0) {
                    push(
                        ProblemKind::BadValue,
                        &n.id,
                        at("baseline_latency_ms"),
                        "baseline_latency_ms must be a positive number".into(),
                    );
                }
            }
            for (k, v) in n.validators.iter().enumerate() {
                if let Err(msg) = v.check_spec() {
                    push(
                        ProblemKind::BadValue,
                        &n.id,
                        at(&format!("validators/{k}")),
                        format!("validators[{k}]: {msg}"),
                    );
                }
            }
            for (name, v) in [("x", n.x), ("y", n.y)] {
                if v.is_some_and(|v| !v.is_finite()) {
                    push(ProblemKind::BadValue, &n.id, at(name), format!("{name} must be a finite number"));
                }
            }
        }

        let mut edges = Vec::with_capacity(spec.edges.len());
        let mut guarded: Vec<u32> = Vec::new();
        let mut guards: Vec<Guard> = Vec::new();
        let mut edge_reasons: Vec<(u32, String)> = Vec::new();
        // (from, to, edge index) packed, 18 + 18 + 21 bits within the limits: sorted after the
        // loop (by the crate's one sort, not a copy for this key), a pair met twice is next to
        // itself. A set of pairs held about twice the bytes for the whole loop (`peak_mem`).
        let mut pairs: Vec<u128> = Vec::with_capacity(spec.edges.len());
        for (i, e) in spec.edges.iter().enumerate() {
            let at = format!("{}->{}", e.from, e.to);
            let path = |field: &str| format!("/edges/{i}/{field}");
            let from = ids.get(e.from.as_str()).copied();
            let to = ids.get(e.to.as_str()).copied();
            if from.is_none() {
                push(
                    ProblemKind::UnknownNode,
                    &at,
                    path("from"),
                    format!("edge starts at unknown node `{}`", e.from),
                );
            }
            if to.is_none() {
                push(
                    ProblemKind::UnknownNode,
                    &at,
                    path("to"),
                    format!("edge ends at unknown node `{}`", e.to),
                );
            }
            check_cost(&mut push, &at, path("cost"), "cost", e.cost);
            if e.from == e.to {
                push(ProblemKind::SelfLoop, &at, path("to"), "edge leads from a node to itself".into());
            }
            if e.reason.as_deref().is_some_and(|r| r.chars().count() > limits::MAX_REASON) {
                push(
                    ProblemKind::BadValue,
                    &at,
                    path("reason"),
                    format!("reason is longer than {} characters", limits::MAX_REASON),
                );
            }
            if let Some(g) = &e.guard {
                if g.field.is_empty() {
                    push(ProblemKind::BadValue, &at, path("guard/field"), "guard.field must be named".into());
                }
            }
            if let (Some(f), Some(t)) = (from, to) {
                pairs.push((f as u128) << 39 | (t as u128) << 21 | i as u128);
                if let Some(g) = &e.guard {
                    // Within MAX_EDGES, so the index fits.
                    guarded.push(edges.len() as u32);
                    guards.push(Guard::clone(g));
                }
                if let Some(r) = &e.reason {
                    edge_reasons.push((edges.len() as u32, String::clone(r)));
                }
                edges.push(Edge { from: f, to: t, cost: e.cost });
            }
        }

        crate::sort::packed(&mut pairs);
        for w in pairs.windows(2).filter(|w| w[0] >> 21 == w[1] >> 21) {
            let i = (w[1] & ((1 << 21) - 1)) as usize;
            let at = spec.edges.get(i).map(|e| format!("{}->{}", e.from, e.to)).unwrap_or_default();
            let why = "a second edge between the same nodes".into();
            push(ProblemKind::DuplicateEdge, &at, format!("/edges/{i}"), why);
        }
        drop(pairs);
        // The edges' descriptions are read for the last time: freed now, not after everything
        // below is built (they were a third of the peak while parsing, `peak_mem` bench).
        drop(core::mem::take(&mut spec.edges));

        // (node, the tool that compensates it) and (node, the tool that verifies it), by node.
        let compensations =
            tool_refs(&spec.nodes, &ids, &mut push, "compensate", |n| n.compensate.as_deref());
        let verifiers = tool_refs(&spec.nodes, &ids, &mut push, "verify", |n| n.verify.as_deref());

        let start = resolve_end(&mut push, &ids, spec.start.as_deref(), "start", ProblemKind::MissingStart);
        let goal = resolve_end(&mut push, &ids, spec.goal.as_deref(), "goal", ProblemKind::MissingGoal);

        let n = spec.nodes.len();
        let mut in_degree = alloc::vec![0u32; n];
        for e in &edges {
            in_degree[e.to] += 1;
        }
        for (v, node) in spec.nodes.iter().enumerate() {
            if let Some(JoinSpec { quorum: k }) = node.join {
                if k == 0 || k > in_degree[v] {
                    push(
                        ProblemKind::BadQuorum,
                        &node.id,
                        format!("/nodes/{v}/join/quorum"),
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
                    format!("/risk_rules/{k}"),
                    "max must be finite and priority within 0..1".into(),
                );
            }
        }
        for (k, r) in spec.intents.iter().enumerate() {
            if !(0.0..=1.0).contains(&r.priority) {
                let at = format!("intents[{k}]");
                push(
                    ProblemKind::BadValue,
                    &at,
                    format!("/intents/{k}/priority"),
                    "priority must be within 0..1".into(),
                );
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

        // Every id is unique (a duplicate is a problem), so this is each node once, by id.
        let by_id: Vec<u32> = ids.into_values().map(|v| v as u32).collect();
        let GraphSpec {
            schema,
            version,
            name,
            nodes,
            edges: _,
            start: _,
            goal: _,
            stages,
            risk_rules,
            intents,
        } = spec;
        let mut compensations = compensations.into_iter().peekable();
        let mut verifiers = verifiers.into_iter().peekable();
        // Not `collect`: it would reuse the descriptions' allocation, sized for the far larger
        // `NodeSpec`s, and keep it.
        let mut compact = Vec::with_capacity(nodes.len());
        compact.extend(nodes.into_iter().enumerate().map(|(v, n)| {
            let by = |refs: &mut core::iter::Peekable<alloc::vec::IntoIter<(NodeIx, NodeIx)>>| {
                refs.next_if(|&(w, _)| w == v).map(|(_, c)| c)
            };
            Node::from_spec(n, by(&mut compensations), by(&mut verifiers))
        }));
        let nodes = compact;

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
        let (topo, topo_pos) = super::topo::topological(n, &out_start, &out_edges, &edges);
        let topo_in = super::topo::entering_in_order(&topo, &topo_pos, &in_start, &in_edges, &edges);
        let mut graph = ToolGraph {
            schema,
            version,
            name,
            stages,
            risk_rules,
            intents,
            nodes,
            edges,
            by_id,
            guarded,
            guards,
            edge_reasons,
            out_start,
            out_edges,
            in_start,
            in_edges,
            start,
            goal,
            warnings: Vec::new(),
            quorum,
            joins,
            topo,
            topo_pos,
            topo_in,
        };
        if !graph.reachable(start, goal) {
            let id = graph.id(goal).into();
            graph.warnings.push(Problem {
                kind: ProblemKind::GoalUnreachable,
                at: id,
                path: "/goal".into(),
                message: "goal cannot be reached from start even with every tool healthy".into(),
            });
        }
        // Every cost is finite, but a sum of them need not be: a path whose total overflows is
        // no path to the search. The bound over all edges says whether any path could.
        let total: f64 = graph.edges.iter().map(|e| e.cost * graph.nodes[e.to].base_cost).sum();
        if !total.is_finite() {
            graph.warnings.push(Problem {
                kind: ProblemKind::CostOverflow,
                at: "edges".into(),
                path: "/edges".into(),
                message: "costs are so large that a path's total can overflow to infinity, and such a path \
                          counts as no path: scale the costs down"
                    .into(),
            });
        }
        Ok(graph)
    }
}

/// Compressed adjacency: for each node the edge indices, sorted by the other endpoint.
fn adjacency(n: usize, edges: &[Edge], ends: impl Fn(&Edge) -> (NodeIx, NodeIx)) -> (Vec<u32>, Vec<u32>) {
    // Keyed by both ends, then the edge index: the order a stable sort by the ends would give.
    let mut keys: Vec<u128> = (edges.iter().enumerate())
        .map(|(e, edge)| {
            let (a, b) = ends(edge);
            ((((a as u64) << 32) | b as u64) as u128) << 64 | e as u128
        })
        .collect();
    crate::sort::packed(&mut keys);
    let order: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
    drop(keys);
    let mut start = alloc::vec![0u32; n + 1];
    for e in edges {
        start[ends(e).0 + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    (start, order)
}
