//! The live weight factors of seed 000, section 2.5: each a small pure function with the range of
//! the paper's table, multiplied into `W = base_cost x latency x reliability x rate_limit x
//! availability`, and the one edge-weight formula routing uses everywhere ([`edge_weight`]).

use serde::{Deserialize, Serialize};

use crate::graph::Edge;

/// The effective weight of an edge (DESIGN section 2): its description cost times the live
/// weight of the tool it enters. Infinite when the tool's weight is (an open breaker, a spent
/// quota). Every router, run, page and command weighs edges with this.
#[inline]
pub fn edge_weight(edge: &Edge, tool_weight: f64) -> f64 {
    crate::algo::entered_weight(edge.cost, tool_weight)
}

/// Latency factor: the rolling mean against the tool's baseline, within 0.5..=10.
/// With no observation yet it is 1.
pub fn latency_factor(rolling_mean_ms: Option<f64>, baseline_ms: f64) -> f64 {
    match rolling_mean_ms {
        Some(mean) if baseline_ms > 0.0 && mean.is_finite() => (mean / baseline_ms).clamp(0.5, 10.0),
        _ => 1.0,
    }
}

/// Reliability factor from the windowed error rate: 1 at no errors, 50 when every call fails.
pub fn reliability_factor(error_rate: f64) -> f64 {
    if error_rate.is_nan() {
        return 1.0;
    }
    1.0 + 49.0 * error_rate.clamp(0.0, 1.0)
}

/// Rate-limit factor from the share of the quota used: 1 below 90%, doubling at 95%, infinite
/// at 100% (the tool would refuse the call).
pub fn rate_limit_factor(used: u32, quota: Option<u32>) -> f64 {
    let Some(quota) = quota.filter(|q| *q > 0) else {
        return 1.0;
    };
    if used >= quota {
        return f64::INFINITY;
    }
    let share = used as f64 / quota as f64;
    (0.1 / (1.0 - share)).max(1.0)
}

/// The factors of one tool's weight, for display and for tests.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Factors {
    pub base_cost: f64,
    pub latency: f64,
    pub reliability: f64,
    pub rate_limit: f64,
    pub availability: f64,
}

impl Factors {
    /// The composite weight. Infinite as soon as one factor is.
    pub fn weight(&self) -> f64 {
        let w = self.base_cost * self.latency * self.reliability * self.rate_limit * self.availability;
        if w.is_nan() {
            f64::INFINITY
        } else {
            w
        }
    }
}
