//! [`GraphBuilder`]: a tool graph written in Rust rather than JSON. It fills a [`GraphSpec`]
//! and validates it as [`ToolGraph::from_spec`] does, so a graph built here and the same graph
//! read from a file are one graph (same checks, same problems, same [`ToolGraph::to_spec`]).
//!
//! ```
//! use shr_core::{GraphBuilder, NodeSpec, Router};
//! let graph = GraphBuilder::new()
//!     .waypoint("start")
//!     .tool("stripe")
//!     .node(NodeSpec { stage: Some("payment".into()), ..NodeSpec::new("razorpay") })
//!     .waypoint("done")
//!     .edge("start", "stripe", 1.0)
//!     .edge("start", "razorpay", 2.0)
//!     .edge("stripe", "done", 0.0)
//!     .edge("razorpay", "done", 0.0)
//!     .route("start", "done")
//!     .build()
//!     .expect("a valid graph");
//! let mut router = Router::new(graph);
//! let (start, goal) = (router.graph().start(), router.graph().goal());
//! router.route(start, goal, 0).expect("a healthy route");
//! assert_eq!(router.last_route().ids(router.graph()), ["start", "stripe", "done"]);
//! ```

use alloc::string::String;

use crate::error::GraphError;
use crate::graph::{EdgeSpec, GraphSpec, NodeSpec, ToolGraph};

/// Builds a [`ToolGraph`] node by node and edge by edge. Nothing is checked until
/// [`GraphBuilder::build`], which reports every problem at once, each naming its place.
#[derive(Clone, Debug, Default)]
pub struct GraphBuilder {
    spec: GraphSpec,
}

impl GraphBuilder {
    /// An empty graph of the current format version.
    pub fn new() -> GraphBuilder {
        GraphBuilder::default()
    }

    /// Names the graph (shown by the visualizer and in exports).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.spec.name = Some(name.into());
        self
    }

    /// Adds a tool node with every optional field at its default (`{"id": ...}` in JSON).
    pub fn tool(self, id: impl Into<String>) -> Self {
        self.node(NodeSpec::new(id))
    }

    /// Adds a waypoint: a node that completes without a call (a start, a goal, a junction).
    pub fn waypoint(self, id: impl Into<String>) -> Self {
        self.node(NodeSpec { tool: false, ..NodeSpec::new(id) })
    }

    /// Adds a node written in full (retry policy, validators, limits...).
    pub fn node(mut self, node: NodeSpec) -> Self {
        self.spec.nodes.push(node);
        self
    }

    /// Adds an edge of a cost (non-negative and finite, else [`GraphBuilder::build`] says so).
    pub fn edge(self, from: impl Into<String>, to: impl Into<String>, cost: f64) -> Self {
        self.edge_spec(EdgeSpec { from: from.into(), to: to.into(), cost, guard: None, reason: None })
    }

    /// Adds an edge written in full (with a guard).
    pub fn edge_spec(mut self, edge: EdgeSpec) -> Self {
        self.spec.edges.push(edge);
        self
    }

    /// Sets the graph's own start and goal (what a task without them routes between).
    pub fn route(mut self, start: impl Into<String>, goal: impl Into<String>) -> Self {
        self.spec.start = Some(start.into());
        self.spec.goal = Some(goal.into());
        self
    }

    /// The description built so far, for export or for more fields (risk rules, intents).
    pub fn spec(&self) -> &GraphSpec {
        &self.spec
    }

    /// The description built so far, to edit fields the builder has no method for.
    pub fn spec_mut(&mut self) -> &mut GraphSpec {
        &mut self.spec
    }

    /// Validates the description: the graph, or every problem found.
    pub fn build(self) -> Result<ToolGraph, GraphError> {
        ToolGraph::from_spec(self.spec)
    }
}

impl From<GraphSpec> for GraphBuilder {
    /// Goes on building from a description (one read from a file, say).
    fn from(spec: GraphSpec) -> Self {
        GraphBuilder { spec }
    }
}
