//! Watching a search: an [`Observer`] receives every step of the one-directional search, and a
//! [`Trace`] records them for a visualizer to replay. A search that something records stays
//! one-directional (the two-sided search and the sweep take other steps).
//!
//! ```
//! use shr_core::{ToolGraph, algo::{Dijkstra, Plan, Trace, TraceStep}};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"}],
//!   "edges":[{"from":"a","to":"b","cost":1}], "start":"a","goal":"b"}"#).unwrap();
//! let mut trace = Trace::default();
//! let mut plan = Plan::default();
//! Dijkstra::new().route_into(&g, &[0], 1, &|e: usize| g.edge(e).cost, &mut trace, &mut plan);
//! assert_eq!(trace.steps[0], TraceStep::Settled { node: 0, dist: 0.0 });
//! ```

use alloc::vec::Vec;

use crate::graph::NodeIx;

/// Receives each step of a search, for recording a trace to replay. `()` ignores everything and
/// costs nothing.
pub trait Observer {
    /// `node` left the frontier with its final cost.
    fn settled(&mut self, _node: NodeIx, _dist: f64) {}
    /// Edge `edge` (`from -> to`) offered `to` the tentative cost `dist`; `improved` says
    /// whether it became `to`'s best.
    fn relaxed(&mut self, _edge: usize, _from: NodeIx, _to: NodeIx, _dist: f64, _improved: bool) {}
    /// Edge `edge` was skipped because its weight is infinite (a failed tool).
    fn skipped(&mut self, _edge: usize, _from: NodeIx, _to: NodeIx) {}
    /// Whether the search's steps are wanted. Only a search nobody watches may take the
    /// two-sided shortcut ([`super::Bidirectional`]), whose steps are not the ones a replay of
    /// Dijkstra shows.
    fn records(&self) -> bool {
        true
    }
}

impl Observer for () {
    fn records(&self) -> bool {
        false
    }
}

/// A recorded search, step by step, for replay in a visualizer.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Trace {
    /// The steps in the order the search took them.
    pub steps: Vec<TraceStep>,
}

/// One step of a recorded search.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum TraceStep {
    /// A node's distance became final.
    Settled {
        /// The node settled.
        node: NodeIx,
        /// Its distance from the origins.
        dist: f64,
    },
    /// An edge was examined from a settled node.
    Relaxed {
        /// The edge's index.
        edge: usize,
        /// Its source (settled).
        from: NodeIx,
        /// Its target.
        to: NodeIx,
        /// The target's distance through this edge.
        dist: f64,
        /// Whether that was shorter than the target's best so far.
        improved: bool,
    },
    /// An edge was passed over: infinite weight (a tool down) or a guard that does not hold.
    Skipped {
        /// The edge's index.
        edge: usize,
        /// Its source.
        from: NodeIx,
        /// Its target.
        to: NodeIx,
    },
}

impl Observer for Trace {
    fn settled(&mut self, node: NodeIx, dist: f64) {
        self.steps.push(TraceStep::Settled { node, dist });
    }
    fn relaxed(&mut self, edge: usize, from: NodeIx, to: NodeIx, dist: f64, improved: bool) {
        self.steps.push(TraceStep::Relaxed { edge, from, to, dist, improved });
    }
    fn skipped(&mut self, edge: usize, from: NodeIx, to: NodeIx) {
        self.steps.push(TraceStep::Skipped { edge, from, to });
    }
}
