//! What a tool's calls tell the health book: a call against its quota, a success with its
//! latency, a failure, a hard trip, a reset. Each may move the tool's breaker; the fleet hears
//! of every change (`fleet`).

use super::{BreakerState, HealthBook, ToolHealth, Transition, LATENCY_SAMPLES, QUOTA_WINDOW_MS};
use crate::graph::NodeIx;
use crate::Millis;

impl HealthBook {
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

    pub(super) fn remember_latency(t: &mut ToolHealth, latency_ms: f64, now: Millis) {
        if latency_ms.is_finite() && latency_ms >= 0.0 {
            if t.baseline_ms.is_none() {
                // With no declared baseline, the first observation is the tool's normal.
                t.baseline_ms = Some(latency_ms.max(1.0));
            }
            if t.latencies.len() == LATENCY_SAMPLES {
                t.latencies.pop_front();
            }
            t.latencies.push_back(latency_ms);
            t.latency_at = Some(now);
        }
    }

    /// Records a success with its latency.
    pub fn on_success(&mut self, v: NodeIx, latency_ms: f64, now: Millis) -> Option<Transition> {
        let t = self.tools.get_mut(v)?;
        let change = t.breaker.on_success(now);
        if change.is_some() {
            // Back from an outage: latencies from before it say nothing now.
            t.latencies.clear();
        }
        Self::remember_latency(t, latency_ms, now);
        self.watch(v, now);
        self.note(v, change, now);
        change
    }

    /// Records a failure that may be transient.
    pub fn on_failure(&mut self, v: NodeIx, now: Millis) -> Option<Transition> {
        let closed = self.tools.get(v)?.breaker.state() == BreakerState::Closed;
        let change = self.tools.get_mut(v)?.breaker.on_failure(now);
        self.watch(v, now);
        if closed {
            self.note_failure(v, now);
        }
        // With the fleet's evidence this failure may complete a quorum (see `fleet`).
        let change = change.or_else(|| self.quorum_trip(v, now));
        self.note(v, change, now);
        change
    }

    /// A hard failure: the breaker opens at once ("reweight to infinity").
    pub fn trip(&mut self, v: NodeIx, now: Millis) -> Option<Transition> {
        let before = self.tools.get(v)?.breaker.reopens_at();
        let change = self.tools.get_mut(v)?.breaker.trip(now);
        self.watch(v, now);
        // A trip of an OPEN breaker moves its cooldown: the fleet hears the new end too.
        let extended =
            self.tools.get(v).and_then(|t| t.breaker.reopens_at()).filter(|&at| Some(at) != before);
        let noted =
            change.or(extended.map(|_| Transition { from: BreakerState::Open, to: BreakerState::Open }));
        self.note(v, noted, now);
        change
    }

    /// The tool is back (operator or probe): closes the breaker, weight recovering.
    pub fn reset(&mut self, v: NodeIx, now: Millis) -> Option<Transition> {
        let t = self.tools.get_mut(v)?;
        // The host says the tool is healthy: nothing from before weighs on it.
        t.latencies.clear();
        let change = t.breaker.reset();
        self.note(v, change, now);
        change
    }
}
