//! Costs learned from traffic (issue 47; seed 000 section 5.4: costs are fixed numbers). A
//! [`CostLearner`] reads the router's own telemetry (each call's latency and success, and a
//! price the host declares) and keeps, per tool, exponentially weighted moving averages with a
//! half-life counted in calls: after `half_life` calls an old sample weighs half as much
//! (default 10 calls, `alpha = 1 - 2^(-1/10)`, about 0.067; the drift benchmark,
//! `crates/eval/examples/drift.rs`, chose it: 20 calls followed a drift back too late). Counted in calls, not time: the
//! core reads no clock, and a tool called rarely keeps its average until it is called again.
//!
//! **Suggested cost** of a tool, once it has `min_samples` calls:
//! `price x (latency EWMA / reference latency) / max(success EWMA, 0.05)`, where `price` is the
//! last declared price, else the graph's `base_cost`, and the reference latency is the node's
//! `baseline_latency_ms`, else the tool's own EWMA when it reached `min_samples` calls. A tool
//! as fast and reliable as when it started keeps its cost; one twice as slow costs twice as
//! much; one that fails half its calls, twice as much again (the calls per success).
//!
//! **Adjustment** is opt-in ([`CostLearner::adjust`]): within bounds a person sets per tool
//! (default: no change at all), the router's cost of a tool moves to its suggestion only when
//! it differs by more than `hysteresis` (default 20%) from the cost in force, and at most once
//! every `dwell` calls of that tool (default 10). Both keep a route from flapping between two
//! tools whose costs are close: a change must be large and lasting. Every change is a
//! `CostAdjusted` event (`Router::adjust_costs`). A router's live weight still multiplies its own latency
//! and reliability factors into the adjusted cost: the adjusted cost is the slow, bounded part,
//! and for a tool it adjusts `Router::adjust_costs` sets the live latency factor to 1
//! (the learned cost carries the latency), so slowness is not counted twice and routes move
//! only when the hysteresis lets a cost move.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::graph::{NodeIx, ToolGraph};

/// How a [`CostLearner`] averages and when it adjusts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CostConfig {
    /// Calls after which a sample weighs half as much (at least 1).
    pub half_life: u32,
    /// Calls before a tool gets a suggestion (its reference latency is taken then).
    pub min_samples: u32,
    /// The relative difference from the cost in force a suggestion must exceed to be applied.
    pub hysteresis: f64,
    /// Calls of a tool between two adjustments of its cost.
    pub dwell: u32,
}

impl Default for CostConfig {
    fn default() -> Self {
        CostConfig { half_life: 10, min_samples: 10, hysteresis: 0.2, dwell: 10 }
    }
}

/// `x` with `x^n = 1/2` (the per-call decay of a half-life of `n` calls), by bisection: the
/// core has no `powf` without std.
fn halving_root(n: u32) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..64 {
        let mid = (lo + hi) / 2.0;
        let mut p = 1.0;
        for _ in 0..n {
            p *= mid;
        }
        if p < 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The range a person allows a tool's cost to move in (absolute costs, `min <= max`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostBounds {
    /// The lowest cost allowed.
    pub min: f64,
    /// The highest cost allowed.
    pub max: f64,
}

/// Why a cost could not be learned or set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CostError {
    /// A stable code naming what is wrong.
    pub code: &'static str,
    /// The same, for people.
    pub message: String,
}

fn bad(code: &'static str, message: String) -> CostError {
    CostError { code, message }
}

/// A change the opt-in adjustment made to a tool's cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostChange {
    /// Position among this learner's changes, from 0.
    pub seq: u32,
    /// The tool whose cost moved.
    pub tool: NodeIx,
    /// Its cost before.
    pub from: f64,
    /// Its cost now.
    pub to: f64,
    /// Why, for people: the figures behind the suggestion and the hysteresis passed.
    pub reason: String,
}

/// A tool's learned figures and its suggested cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuggestedCost {
    /// The tool's id.
    pub tool: String,
    /// The cost in force (the graph's `base_cost`, or the last adjustment).
    pub current: f64,
    /// `None` until the tool has `min_samples` calls.
    pub suggested: Option<f64>,
    /// The latency's moving average (EWMA), ms.
    pub latency_ewma_ms: Option<f64>,
    /// The reference latency: the node's `baseline_latency_ms`, else its own EWMA at `min_samples` calls, ms.
    pub reference_ms: Option<f64>,
    /// The success rate's moving average (EWMA).
    pub success_ewma: Option<f64>,
    /// The declared price per call.
    pub price: f64,
    /// Calls observed.
    pub samples: u32,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct ToolStats {
    latency: Option<f64>,
    success: Option<f64>,
    reference: Option<f64>,
    price: Option<f64>,
    samples: u32,
    since_change: u32,
    current: f64,
    bounds: Option<CostBounds>,
}

/// Per-tool EWMAs of latency and success from the router's telemetry, suggested costs, and the
/// opt-in bounded adjustment (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct CostLearner {
    config: CostConfig,
    alpha: f64,
    tools: Vec<ToolStats>,
    ids: Vec<String>,
    /// Sequence of the `CostAdjusted` events this learner made.
    seq: u32,
}

impl CostLearner {
    /// A learner for `graph`'s tools; `bad_config` when a setting is out of range.
    pub fn new(graph: &ToolGraph, config: CostConfig) -> Result<Self, CostError> {
        if config.half_life == 0 || config.half_life > 10_000 {
            return Err(bad("bad_config", "half_life must be a number of calls, 1 to 10000".to_string()));
        }
        if !(config.hysteresis.is_finite() && config.hysteresis >= 0.0) {
            return Err(bad("bad_config", "hysteresis must be a non-negative fraction".to_string()));
        }
        let alpha = 1.0 - halving_root(config.half_life);
        let tools = graph
            .nodes()
            .iter()
            .map(|n| ToolStats {
                reference: n.baseline_latency_ms().filter(|b| *b > 0.0),
                current: n.base_cost,
                ..ToolStats::default()
            })
            .collect();
        let ids = (0..graph.node_count()).map(|v| graph.id(v).to_string()).collect();
        Ok(CostLearner { config, alpha, tools, ids, seq: 0 })
    }

    /// The learner's settings.
    pub fn config(&self) -> &CostConfig {
        &self.config
    }

    /// The weight of a new sample (`1 - 2^(-1/half_life)`).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// One call of `v`: its latency (ignored for a failure), whether it succeeded, and the
    /// price the host declares for it, if any. Non-finite or negative figures are ignored.
    pub fn observe(&mut self, v: NodeIx, latency_ms: f64, success: bool, price: Option<f64>) {
        let (alpha, min_samples) = (self.alpha, self.config.min_samples);
        let Some(t) = self.tools.get_mut(v) else { return };
        let ewma = |old: Option<f64>, x: f64| Some(old.map_or(x, |o| o + alpha * (x - o)));
        if let Some(p) = price.filter(|p| p.is_finite() && *p >= 0.0) {
            t.price = Some(p);
        }
        t.success = ewma(t.success, if success { 1.0 } else { 0.0 });
        if success && latency_ms.is_finite() && latency_ms >= 0.0 {
            t.latency = ewma(t.latency, latency_ms);
        }
        t.samples = t.samples.saturating_add(1);
        t.since_change = t.since_change.saturating_add(1);
        if t.reference.is_none() && t.samples >= min_samples {
            t.reference = t.latency.filter(|l| *l > 0.0);
        }
    }

    fn suggestion(&self, t: &ToolStats, base: f64) -> Option<f64> {
        if t.samples < self.config.min_samples {
            return None;
        }
        let price = t.price.unwrap_or(base);
        let latency = match (t.latency, t.reference) {
            (Some(l), Some(r)) if r > 0.0 => l / r,
            _ => 1.0,
        };
        let per_success = 1.0 / t.success.unwrap_or(1.0).max(0.05);
        let s = price * latency * per_success;
        // To a thousandth, for people (the core has no `round` without std).
        (s.is_finite() && s < 1e12).then(|| ((s * 1000.0 + 0.5) as u64) as f64 / 1000.0)
    }

    /// Every tool's figures and suggested cost (`graph` must be the learner's).
    pub fn suggested_costs(&self, graph: &ToolGraph) -> Vec<SuggestedCost> {
        self.tools
            .iter()
            .enumerate()
            .filter(|(v, _)| graph.node(*v).tool)
            .map(|(v, t)| SuggestedCost {
                tool: self.ids[v].clone(),
                current: t.current,
                suggested: self.suggestion(t, graph.node(v).base_cost),
                latency_ewma_ms: t.latency,
                reference_ms: t.reference,
                success_ewma: t.success,
                price: t.price.unwrap_or(graph.node(v).base_cost),
                samples: t.samples,
            })
            .collect()
    }

    /// Lets `v`'s cost move within `bounds` (absolute costs); without bounds a tool's cost never
    /// changes. `bad_bounds` when they are not `0 <= min <= max`, finite.
    pub fn set_bounds(&mut self, v: NodeIx, bounds: CostBounds) -> Result<(), CostError> {
        let ok =
            bounds.min.is_finite() && bounds.max.is_finite() && 0.0 <= bounds.min && bounds.min <= bounds.max;
        if !ok {
            return Err(bad("bad_bounds", alloc::format!("bounds must be 0 <= min <= max, got {bounds:?}")));
        }
        let t = self.tools.get_mut(v).ok_or_else(|| bad("unknown_tool", alloc::format!("no node {v}")))?;
        t.bounds = Some(bounds);
        Ok(())
    }

    /// `v`'s latency EWMA (ms), once it had a successful call.
    pub fn latency_ewma(&self, v: NodeIx) -> Option<f64> {
        self.tools.get(v).and_then(|t| t.latency)
    }

    /// The bounds set on `v` (`None`: its cost is not adjusted).
    pub fn bounds(&self, v: NodeIx) -> Option<CostBounds> {
        self.tools.get(v).and_then(|t| t.bounds)
    }

    /// The cost in force for `v` (what the router weighs it with).
    pub fn current(&self, v: NodeIx) -> Option<f64> {
        self.tools.get(v).map(|t| t.current)
    }

    /// The opt-in step: for each tool with bounds, moves its cost to its suggestion (clamped to
    /// the bounds) when that differs from the cost in force by more than the hysteresis and the
    /// tool had `dwell` calls since its last change. Returns each change (`Router::adjust_costs`
    /// applies them and makes each a `CostAdjusted` event).
    pub fn adjust(&mut self, graph: &ToolGraph) -> Vec<CostChange> {
        let mut out = Vec::new();
        for v in 0..self.tools.len() {
            let t = &self.tools[v];
            let Some(bounds) = t.bounds else { continue };
            let Some(s) = self.suggestion(t, graph.node(v).base_cost) else { continue };
            let to = s.clamp(bounds.min, bounds.max);
            let from = t.current;
            let moved = if from > 0.0 { (to - from).abs() / from } else { (to - from).abs() };
            if moved <= self.config.hysteresis || t.since_change < self.config.dwell {
                continue;
            }
            let t = &mut self.tools[v];
            t.current = to;
            t.since_change = 0;
            let reason = alloc::format!(
                "suggested {s} (latency {:.0} ms against {:.0} ms, success {:.2}, price {}); moved {:.0}% > hysteresis {:.0}%{}",
                t.latency.unwrap_or(0.0),
                t.reference.unwrap_or(0.0),
                t.success.unwrap_or(1.0),
                t.price.unwrap_or(graph.node(v).base_cost),
                moved * 100.0,
                self.config.hysteresis * 100.0,
                if to == s { "" } else { ", clamped to the bounds" }
            );
            out.push(CostChange { seq: self.seq, tool: v, from, to, reason });
            self.seq = self.seq.saturating_add(1);
        }
        out
    }
}
