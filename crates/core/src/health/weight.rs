//! The live weight factors of seed 000, section 2.5: each a small pure function with the range of
//! the paper's table, multiplied into `W = base_cost x latency x reliability x rate_limit x
//! availability`, and the one edge-weight formula routing uses everywhere ([`edge_weight`]).

use serde::{Deserialize, Serialize};

use super::{fleet_hold, HealthBook, Refusal};
use crate::graph::{Edge, NodeIx};
use crate::Millis;

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
    /// The node's `base_cost`.
    pub base_cost: f64,
    /// Rolling mean latency over the baseline (1 when healthy or unknown).
    pub latency: f64,
    /// Grows with the recent error rate (1 with no failure).
    pub reliability: f64,
    /// Grows near the quota or the rate limit (1 far from them; infinite over the limit).
    pub rate_limit: f64,
    /// 1 while the breaker lets calls through, infinite while it refuses them.
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

/// A tool's weight from its health: the factors above, read off its telemetry and admission.
impl HealthBook {
    /// The factors of the tool's weight now. A tool that would refuse a call now (breaker OPEN
    /// or its probes out, bulkhead full, rate limit spent) weighs infinite: every run routes
    /// around it until it can take calls again.
    pub fn factors(&self, v: NodeIx, now: Millis) -> Factors {
        self.factors_with(v, now, true)
    }

    fn factors_with(&self, v: NodeIx, now: Millis, admission: bool) -> Factors {
        let Some(t) = self.tools.get(v) else {
            return Factors {
                base_cost: 1.0,
                latency: 1.0,
                reliability: 1.0,
                rate_limit: 1.0,
                availability: 1.0,
            };
        };
        let refusal =
            if admission { t.refusal(now).or(fleet_hold(t, self.fleet.held(v, now))) } else { None };
        let rate_limit = match refusal {
            Some(Refusal::RateLimited) => f64::INFINITY,
            _ => rate_limit_factor(t.calls_in_window(now), t.quota),
        };
        let availability = match refusal {
            Some(Refusal::Open | Refusal::Probing | Refusal::Full) => f64::INFINITY,
            _ => t.breaker.availability(),
        };
        // Failures weigh a tool down for a cooldown, not for the whole window (healing back).
        let error_rate = t.breaker.weighed_error_rate(now);
        Factors {
            base_cost: t.base_cost,
            latency: self.latency_factor_of(t, now),
            reliability: reliability_factor(error_rate),
            rate_limit,
            availability,
        }
    }

    /// The tool's weight if it could take a call now: what a run weighs a tool it already has
    /// a call in flight to, and what a tool that is only full or rate-limited will weigh.
    pub fn weight_when_admitted(&self, v: NodeIx, now: Millis) -> f64 {
        self.factors_with(v, now, false).weight()
    }

    /// The composite weight routing uses for edges into this tool.
    pub fn weight(&self, v: NodeIx, now: Millis) -> f64 {
        self.factors(v, now).weight()
    }

    /// Like the error rate, slowness weighs on a tool for a cooldown after its last sample: a tool
    /// weighed down by it gets no calls, so no faster call could ever lift the weight. And like
    /// the error rate (Resilience4j's minimum number of calls), only over the breaker's
    /// `min_calls` samples: one stalled call among two (a pause of the host) is no slowness.
    fn latency_factor_of(&self, t: &super::ToolHealth, now: Millis) -> f64 {
        if t.latency_learned {
            return 1.0;
        }
        let enough = t.latencies.len() >= t.breaker.config().min_calls as usize;
        match t.latency_at {
            Some(at) if enough && now.saturating_sub(at) < t.breaker.config().cooldown_ms => {
                latency_factor(t.rolling_latency(), t.baseline_ms.unwrap_or(0.0))
            }
            _ => 1.0,
        }
    }
}
