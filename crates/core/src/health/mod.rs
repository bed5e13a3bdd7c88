//! Tool health: a circuit breaker and telemetry per tool, turned into the live weight that
//! routing uses. Every outcome a host reports feeds it; the clock is always passed in.

pub mod breaker;
pub mod memo;
pub mod weight;

use alloc::collections::VecDeque;
use alloc::vec::Vec;

pub use breaker::{Breaker, BreakerConfig, BreakerState, Transition};
pub use memo::{LiveWeights, WeightMemo};
pub use weight::{edge_weight, Factors};

use crate::graph::{NodeIx, ToolGraph};
use crate::Millis;

/// Samples kept for the rolling latency mean.
const LATENCY_SAMPLES: usize = 20;
/// The window a tool's quota applies to.
pub const QUOTA_WINDOW_MS: Millis = 60 * 60 * 1000;

/// Telemetry and breaker of one tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolHealth {
    pub breaker: Breaker,
    latencies: VecDeque<f64>,
    calls: VecDeque<Millis>,
    baseline_ms: Option<f64>,
    quota: Option<u32>,
    base_cost: f64,
}

impl ToolHealth {
    fn rolling_latency(&self) -> Option<f64> {
        if self.latencies.is_empty() {
            None
        } else {
            Some(self.latencies.iter().sum::<f64>() / self.latencies.len() as f64)
        }
    }

    fn calls_in_window(&self, now: Millis) -> u32 {
        self.calls.iter().filter(|t| now.saturating_sub(**t) < QUOTA_WINDOW_MS).count() as u32
    }
}

/// Health of every tool of a graph, indexed like its nodes.
#[derive(Clone, Debug)]
pub struct HealthBook {
    tools: Vec<ToolHealth>,
    /// No OPEN breaker's cooldown ends before this, so [`HealthBook::poll`] until then changes
    /// nothing and need not visit every tool: routing polls on every request. May be early
    /// (a breaker closed since), never late.
    quiet_until: Millis,
    /// No weight changes with the clock alone before this (an outcome or a quota call growing
    /// too old to count); see [`HealthBook::steady_until`]. May be early, never late.
    steady_until: Millis,
}

/// Two books are equal when their tools are; `quiet_until` is only a shortcut.
impl PartialEq for HealthBook {
    fn eq(&self, other: &Self) -> bool {
        self.tools == other.tools
    }
}

impl HealthBook {
    /// Healthy tools with the given breaker settings.
    pub fn new(graph: &ToolGraph, config: BreakerConfig) -> Self {
        HealthBook {
            tools: graph
                .nodes()
                .iter()
                .map(|n| ToolHealth {
                    breaker: Breaker::new(config),
                    latencies: VecDeque::new(),
                    calls: VecDeque::new(),
                    baseline_ms: n.baseline_latency_ms,
                    quota: n.quota,
                    base_cost: n.base_cost,
                })
                .collect(),
            quiet_until: Millis::MAX,
            steady_until: Millis::MAX,
        }
    }

    /// Keeps `quiet_until` no later than the cooldown of `v`'s breaker, if it is OPEN, and
    /// `steady_until` no later than the expiry of the outcome just recorded at `now`.
    fn watch(&mut self, v: NodeIx, now: Millis) {
        if let Some(t) = self.tools.get(v) {
            if let Some(at) = t.breaker.reopens_at() {
                self.quiet_until = self.quiet_until.min(at);
            }
            self.steady_until = self.steady_until.min(now.saturating_add(t.breaker.config().window_ms));
        }
    }

    /// Until when every tool's weight stays what it is at `now` if nothing is recorded, no
    /// breaker changes state and the clock does not go back: the next expiry, after `now`, of an
    /// outcome in a breaker's window or of a call in a quota window (`Millis::MAX`: never). Lets
    /// a router remember weights between routes instead of weighing every tool again. O(1)
    /// until that time passes, then one walk over the tools.
    pub fn steady_until(&mut self, now: Millis) -> Millis {
        if now < self.steady_until {
            return self.steady_until;
        }
        self.steady_until = self
            .tools
            .iter()
            .flat_map(|t| {
                let calls =
                    t.calls.iter().map(|c| c.saturating_add(QUOTA_WINDOW_MS)).filter(|&at| at > now).min();
                [t.breaker.window_expires_after(now), calls]
            })
            .flatten()
            .min()
            .unwrap_or(Millis::MAX);
        self.steady_until
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn tool(&self, v: NodeIx) -> Option<&ToolHealth> {
        self.tools.get(v)
    }

    pub fn state(&self, v: NodeIx) -> BreakerState {
        self.tools.get(v).map_or(BreakerState::Closed, |t| t.breaker.state())
    }

    /// Counts a call against the tool's quota.
    pub fn on_call(&mut self, v: NodeIx, now: Millis) {
        if let Some(t) = self.tools.get_mut(v) {
            if t.quota.is_some() {
                while t.calls.front().is_some_and(|c| now.saturating_sub(*c) >= QUOTA_WINDOW_MS) {
                    t.calls.pop_front();
                }
                t.calls.push_back(now);
                self.steady_until = self.steady_until.min(now.saturating_add(QUOTA_WINDOW_MS));
            }
        }
    }

    /// Takes a probe or a normal permit from the tool's breaker.
    pub fn try_acquire(&mut self, v: NodeIx, now: Millis) -> bool {
        self.tools.get_mut(v).is_some_and(|t| t.breaker.try_acquire(now))
    }

    /// Records a success with its latency.
    pub fn on_success(&mut self, v: NodeIx, latency_ms: f64, now: Millis) -> Option<Transition> {
        let t = self.tools.get_mut(v)?;
        if latency_ms.is_finite() && latency_ms >= 0.0 {
            if t.baseline_ms.is_none() {
                // With no declared baseline, the first observation is the tool's normal.
                t.baseline_ms = Some(latency_ms.max(1.0));
            }
            if t.latencies.len() == LATENCY_SAMPLES {
                t.latencies.pop_front();
            }
            t.latencies.push_back(latency_ms);
        }
        let change = t.breaker.on_success(now);
        self.watch(v, now);
        change
    }

    /// Records a failure that may be transient.
    pub fn on_failure(&mut self, v: NodeIx, now: Millis) -> Option<Transition> {
        let change = self.tools.get_mut(v)?.breaker.on_failure(now);
        self.watch(v, now);
        change
    }

    /// A hard failure: the breaker opens at once ("reweight to infinity").
    pub fn trip(&mut self, v: NodeIx, now: Millis) -> Option<Transition> {
        let change = self.tools.get_mut(v)?.breaker.trip(now);
        self.watch(v, now);
        change
    }

    /// The tool is back (operator or probe): closes the breaker, weight recovering.
    pub fn reset(&mut self, v: NodeIx) -> Option<Transition> {
        self.tools.get_mut(v)?.breaker.reset()
    }

    /// Applies the cooldown to every breaker; returns the transitions it caused.
    pub fn poll(&mut self, now: Millis, out: &mut Vec<(NodeIx, Transition)>) {
        if now < self.quiet_until {
            return;
        }
        self.quiet_until = Millis::MAX;
        for (v, t) in self.tools.iter_mut().enumerate() {
            if let Some(tr) = t.breaker.poll(now) {
                out.push((v, tr));
            }
            if let Some(at) = t.breaker.reopens_at() {
                self.quiet_until = self.quiet_until.min(at);
            }
        }
    }

    /// The factors of the tool's weight now.
    pub fn factors(&self, v: NodeIx, now: Millis) -> Factors {
        let Some(t) = self.tools.get(v) else {
            return Factors {
                base_cost: 1.0,
                latency: 1.0,
                reliability: 1.0,
                rate_limit: 1.0,
                availability: 1.0,
            };
        };
        Factors {
            base_cost: t.base_cost,
            latency: weight::latency_factor(t.rolling_latency(), t.baseline_ms.unwrap_or(0.0)),
            reliability: weight::reliability_factor(t.breaker.error_rate(now)),
            rate_limit: weight::rate_limit_factor(t.calls_in_window(now), t.quota),
            availability: t.breaker.availability(),
        }
    }

    /// The composite weight routing uses for edges into this tool.
    pub fn weight(&self, v: NodeIx, now: Millis) -> f64 {
        self.factors(v, now).weight()
    }
}
