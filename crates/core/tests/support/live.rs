//! A failure set as live weights give it: a factor per tool, infinite for a failed one.

use shr_core::algo::EdgeWeight;
use shr_core::ToolGraph;

pub struct Live<'a> {
    pub graph: &'a ToolGraph,
    pub failed: &'a [bool],
}

impl EdgeWeight for Live<'_> {
    fn weight(&self, e: usize) -> f64 {
        let edge = self.graph.edge(e);
        edge.cost * self.entry_factor(edge.to).unwrap_or(f64::INFINITY)
    }
    fn entry_factor(&self, v: usize) -> Option<f64> {
        Some(if self.failed[v] { f64::INFINITY } else { 1.0 })
    }
}
