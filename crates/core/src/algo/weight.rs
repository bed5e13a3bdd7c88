//! What a search weighs edges by: [`EdgeWeight`], from a plain closure to live health, and the
//! rule every search shares for which weights can be travelled.
//!
//! ```
//! use shr_core::algo::{entered_weight, EdgeWeight};
//! let costs = [1.0, f64::INFINITY];
//! let w = |e: usize| costs[e];
//! assert_eq!(w.weight(0), 1.0);
//! assert_eq!(w.entry_factor(0), None);
//! assert_eq!(entered_weight(2.0, 1.5), 3.0);
//! ```

use crate::graph::NodeIx;

/// Weight of edge `e` (an index into [`crate::graph::ToolGraph::edges`]). Infinite, NaN or negative = unusable.
pub trait EdgeWeight {
    /// The weight of edge `e`.
    fn weight(&self, edge: usize) -> f64;

    /// Weight of an edge leaving an origin (see [`super::Dijkstra::route_from_into`]): where execution
    /// stands, so a guard can be judged on a real result. Defaults to [`EdgeWeight::weight`].
    fn seed_weight(&self, edge: usize) -> f64 {
        self.weight(edge)
    }

    /// When the weight of every edge into `node` is that edge's description cost times one
    /// factor of `node` (the form of [`crate::health::edge_weight`]: a tool's live weight), that
    /// factor. The acyclic sweep then weighs a node once, not each edge into it, and reads the
    /// costs from contiguous arrays. `None` (the default): weigh edge by edge.
    fn entry_factor(&self, _node: NodeIx) -> Option<f64> {
        None
    }
}

/// An edge's weight from its description cost and the factor of the node it enters: the one
/// formula, which [`crate::health::edge_weight`] applies to live health and the acyclic sweep
/// to an [`EdgeWeight::entry_factor`].
#[inline(always)]
pub fn entered_weight(cost: f64, factor: f64) -> f64 {
    cost * factor
}

impl<F: Fn(usize) -> f64> EdgeWeight for F {
    #[inline]
    fn weight(&self, edge: usize) -> f64 {
        self(edge)
    }
}

/// Whether a weight can be travelled: finite and not negative (Dijkstra's invariant needs
/// `w >= 0`; validated costs and health weights never are negative, a custom `EdgeWeight` might
/// be). Infinite is a failed tool; NaN is nonsense.
#[inline]
pub(super) fn usable(w: f64) -> bool {
    (0.0..f64::INFINITY).contains(&w)
}
