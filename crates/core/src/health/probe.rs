//! Probes: a down tool recovers with no traffic and no host code.
//!
//! A tool whose node declares `"probe": {"interval_ms": t}` is probed while its breaker is not
//! CLOSED: once the cooldown lets a probe through (HALF_OPEN, a probe free, and no other member
//! of the fleet owning the probe, see [`super::fleet`]), the router hands the host a [`Probe`]
//! from [`HealthBook::due_probes`]; the host calls the tool (with the node's `probe.input`) and
//! settles the probe with [`HealthBook::settle_probe`], or gives it back with
//! [`HealthBook::release_probe`]. A success closes the breaker with the tool's weight back to
//! normal at once (the fleet hears it, so one member probes and all take the tool back into
//! use); a failure opens it for another cooldown. Probes of one tool
//! start at least `t` ms apart, and a probe takes the breaker's half-open probe slot like any
//! call, so runs and probes together never send more than `half_open_probes` at once.
//!
//! Sans-IO: the host asks [`HealthBook::next_probe_at`] when to ask again, and sleeps until
//! then (bounded by its own poll interval: a breaker that opens meanwhile brings the time
//! forward).
//!
//! ```
//! use shr_core::{Router, ToolGraph, Observation};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"s","tool":false},
//!   {"id":"pay","probe":{"interval_ms":100}},{"id":"g","tool":false}],
//!   "edges":[{"from":"s","to":"pay"},{"from":"pay","to":"g"}],"start":"s","goal":"g"}"#).unwrap();
//! let mut router = Router::new(g);
//! let pay = router.graph().index("pay").unwrap();
//! router.mark_down(pay, 0);
//! assert!(router.due_probes(10).is_empty()); // still cooling down
//! let at = router.next_probe_at(10).unwrap();
//! let probes = router.due_probes(at);
//! assert_eq!(probes.len(), 1);
//! router.settle_probe(probes[0], Observation::Success { latency_ms: 3.0 }, at + 3);
//! assert_eq!(router.health().state(pay), shr_core::BreakerState::Closed);
//! assert_eq!(router.next_probe_at(at + 3), None); // nothing down: nothing to probe
//! ```

use alloc::vec::Vec;

use super::{BreakerState, HealthBook, Observation, Permit, Transition};
use crate::graph::{NodeIx, ToolGraph};
use crate::Millis;

/// A probe call the host is asked to make: call the tool, then settle it exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The tool to probe.
    pub tool: NodeIx,
    /// When it was handed out.
    pub at: Millis,
    permit: Permit,
}

/// Per tool: when its last probe started, and whether one is out.
#[derive(Clone, Debug, Default)]
pub(super) struct ProbeSchedule {
    /// Sized on first use: a router without probes pays nothing per tool.
    last: Vec<Option<Millis>>,
    out: Vec<bool>,
}

impl ProbeSchedule {
    fn grow(&mut self, tools: usize) {
        if self.last.len() != tools {
            self.last.resize(tools, None);
            self.out.resize(tools, false);
        }
    }
}

impl HealthBook {
    /// The probes due at `now`, each holding its tool's probe slot. Lets cooldowns pass first.
    pub fn due_probes(&mut self, graph: &ToolGraph, now: Millis, out: &mut Vec<Probe>) {
        let mut moved = Vec::new();
        self.poll(now, &mut moved);
        for v in 0..graph.node_count().min(self.tools.len()) {
            let Some(interval) = graph.node(v).probe_interval_ms() else { continue };
            if self.state(v) != BreakerState::HalfOpen {
                continue;
            }
            self.probes.grow(self.tools.len());
            let last = self.probes.last[v];
            if self.probes.out[v] || last.is_some_and(|at| now < at.saturating_add(interval)) {
                continue;
            }
            // Refused while a run holds the probe slot or another member owns the probe.
            let Ok(permit) = self.admit(v, now, false) else { continue };
            self.probes.last[v] = Some(now);
            self.probes.out[v] = true;
            out.push(Probe { tool: v, at: now, permit });
        }
    }

    /// When a probe may next be due, if any tool with a `probe` is down and has none out: the
    /// latest of its cooldown's end, its interval since the last probe, and another member's
    /// lease on it. `None`: nothing to probe until a breaker opens.
    pub fn next_probe_at(&self, graph: &ToolGraph, now: Millis) -> Option<Millis> {
        (0..graph.node_count().min(self.tools.len()))
            .filter_map(|v| {
                let interval = graph.node(v).probe_interval_ms()?;
                let t = self.tools.get(v)?;
                if t.breaker.state() == BreakerState::Closed || self.probes.out.get(v) == Some(&true) {
                    return None;
                }
                // HALF_OPEN with its probes out to runs: due again only once they settle, which
                // no clock value can say (the host's poll interval covers it).
                if t.breaker.state() == BreakerState::HalfOpen && t.refusal(now).is_some() {
                    return None;
                }
                let after_last =
                    self.probes.last.get(v).copied().flatten().map_or(now, |at| at.saturating_add(interval));
                let cooled = t.breaker.reopens_at().unwrap_or(now);
                let lease = self.fleet.lease_end(v).unwrap_or(now);
                Some(after_last.max(cooled).max(lease).max(now))
            })
            .min()
    }

    /// The probe's call ended with `observed`: the breaker closes on success, reopens on
    /// failure. Returns the transition.
    pub fn settle_probe(&mut self, probe: Probe, observed: Observation, now: Millis) -> Option<Transition> {
        if let Some(out) = self.probes.out.get_mut(probe.tool) {
            *out = false;
        }
        // A probe's failure is the tool still being down: no counting toward a threshold. Its
        // latency is a health check's (a ping), not the tool's work: no latency sample.
        let observed = match observed {
            Observation::Failure => Observation::Outage,
            Observation::Success { .. } => Observation::Success { latency_ms: f64::NAN },
            o => o,
        };
        let closed = self.settle(probe.permit, observed, now);
        if closed.is_some_and(|t| t.to == BreakerState::Closed) {
            // The probe is the evidence the tool is back (see `Breaker::recovered`).
            if let Some(t) = self.tools.get_mut(probe.tool) {
                t.breaker.recovered();
            }
        }
        closed
    }

    /// The probe's call was not made or its outcome is unknown: the slot is given back.
    pub fn release_probe(&mut self, probe: Probe) {
        if let Some(out) = self.probes.out.get_mut(probe.tool) {
            *out = false;
        }
        self.release(probe.permit);
    }
}
