//! Building a [`ToolGraph`] from its description: [`ToolGraph::from_json`] streams the text into
//! an [`Assembly`] (no whole [`GraphSpec`] held), [`ToolGraph::from_spec`] feeds it a
//! description already in memory; both report every problem found, each naming its place.
//! O(V log V + E log E) for the id order and the adjacency sort.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::de::DeserializeSeed;

use super::{Assembly, Edge, GraphSpec, Guard, Join, Node, NodeIx, ToolGraph};
use crate::error::{GraphError, Problem, ProblemKind};
use crate::{json_path, limits};

// An edge's ends and index pack into 57 bits for the duplicate check of `Assembly::finish`.
const _: () = assert!(limits::MAX_NODES <= 1 << 18 && limits::MAX_EDGES <= 1 << 21);

/// What an [`Assembly`] hands over once the description is valid.
pub(super) struct Parts {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub by_id: Vec<u32>,
    pub guarded: Vec<u32>,
    pub guards: Vec<Guard>,
    pub edge_reasons: Vec<(u32, String)>,
    pub start: NodeIx,
    pub goal: NodeIx,
}

impl ToolGraph {
    /// Parses and validates a JSON description. The text is read in one pass: each node and
    /// edge is checked and stored compact as it is read.
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
        let mut assembly = Assembly::new();
        let de = &mut serde_json::Deserializer::from_str(text);
        let rest = super::stream::Description(&mut assembly).deserialize(&mut *de).map_err(|e| {
            let path = json_path::pointer(&json_path::path_of(text, &e));
            malformed(e, path)
        })?;
        // Text after the description (a second object, a stray bracket) is refused, not
        // silently dropped: it is most likely a description pasted twice or cut wrong.
        de.end().map_err(|e| malformed(e, String::new()))?;
        assembly.finish(rest)
    }

    /// [`ToolGraph::from_json`] for a description read from `reader` (a file, a socket) rather
    /// than held as text: the text is never whole in memory, so parsing needs little more than
    /// the graph it builds. The same checks and problems, except that a malformed text's problem
    /// has no JSON pointer (finding it needs the text). Reads through its own buffer.
    #[cfg(feature = "std")]
    pub fn from_reader<R: std::io::Read>(reader: R) -> Result<ToolGraph, GraphError> {
        let mut input = Limited { inner: std::io::BufReader::new(reader), left: limits::MAX_JSON_BYTES + 1 };
        let mut assembly = Assembly::new();
        let de = &mut serde_json::Deserializer::from_reader(&mut input);
        let read = super::stream::Description(&mut assembly).deserialize(&mut *de);
        let read = read.and_then(|rest| de.end().map(|()| rest));
        if input.left == 0 {
            let msg = format!("description is more than {0} bytes, the limit is {0}", limits::MAX_JSON_BYTES);
            return Err(GraphError::single(ProblemKind::TooLarge, "json", msg));
        }
        let rest = read.map_err(|e| {
            let msg = format!("line {} column {}: {}", e.line(), e.column(), e);
            GraphError::single(ProblemKind::MalformedJson, "json", msg)
        })?;
        assembly.finish(rest)
    }

    /// Validates a description. Every problem found is reported.
    pub fn from_spec(mut spec: GraphSpec) -> Result<ToolGraph, GraphError> {
        let mut assembly = Assembly::new();
        for n in core::mem::take(&mut spec.nodes) {
            assembly.node(n);
        }
        assembly.index();
        for e in core::mem::take(&mut spec.edges) {
            assembly.edge(e);
        }
        assembly.finish(spec)
    }

    /// The graph of a valid description: adjacency, joins, topological order, warnings.
    pub(super) fn assemble(rest: GraphSpec, parts: Parts) -> ToolGraph {
        let Parts { nodes, edges, by_id, guarded, guards, edge_reasons, start, goal } = parts;
        let GraphSpec { schema, version, name, stages, risk_rules, intents, .. } = rest;
        let n = nodes.len();
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
        graph
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

/// A reader that ends after `left` bytes (the last one a byte too many).
#[cfg(feature = "std")]
struct Limited<R> {
    inner: R,
    left: usize,
}

#[cfg(feature = "std")]
impl<R: std::io::Read> std::io::Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.left);
        let read = self.inner.read(&mut buf[..n])?;
        self.left -= read;
        Ok(read)
    }
}
