//! Applying a checked delta: evidence, openings and closings (see the parent's docs).

use super::{Change, HealthDelta, Known};
use crate::graph::{NodeIx, ToolGraph};
use crate::health::{BreakerState, HealthBook, Transition};
use crate::Millis;

impl HealthBook {
    /// This member's own failure of `v` (its evidence now counts) completes a quorum with the
    /// fleet's evidence: the breaker opens at once, as on the evidence of a peer's failure.
    pub(in crate::health) fn quorum_trip(&mut self, v: NodeIx, now: Millis) -> Option<Transition> {
        let quorum = self.fleet.config.quorum;
        let voters = self.fleet.slots.get(v).map_or(0, |s| s.voters(now));
        if quorum <= 1 || voters < quorum {
            return None;
        }
        let t = self.tools.get_mut(v)?;
        if t.breaker.state() != BreakerState::Closed {
            return None;
        }
        let change = t.breaker.trip(now);
        self.watch(v, now);
        change
    }

    pub(super) fn apply_failed(&mut self, v: NodeIx, d: &HealthDelta, now: Millis) -> Option<Transition> {
        let window = self.window(v);
        let quorum = self.fleet.config.quorum;
        let slot = self.fleet.slot(v)?;
        let fresh = slot.vote(&d.origin, d.version, now.saturating_add(window), now);
        let voters = slot.voters(now);
        let t = self.tools.get_mut(v)?;
        // Only a closed breaker counts failures toward opening; an open one already avoids the
        // tool and a half-open one waits for its probe.
        if t.breaker.state() != BreakerState::Closed || !fresh {
            self.fleet.stats.evidence += 1;
            return None;
        }
        let change = if quorum <= 1 {
            t.breaker.on_failure(now)
        } else if voters >= quorum {
            // Evidence from `quorum` members: the quorum is the threshold.
            t.breaker.trip(now)
        } else {
            self.fleet.stats.evidence += 1;
            return None;
        };
        if change.is_some() {
            t.concurrency.restart();
        }
        self.watch(v, now);
        // The fleet's failures opened it here: say so, so that one member (the greatest
        // `(version, origin)` among those that opened together) owns the probe.
        self.note(v, change, now);
        change
    }

    pub(super) fn apply_opened(
        &mut self,
        graph: &ToolGraph,
        v: NodeIx,
        d: &HealthDelta,
        now: Millis,
    ) -> Option<Transition> {
        let cooldown = self.tools.get(v).map_or(0, |t| t.breaker.config().cooldown_ms);
        let window = self.window(v);
        let quorum = self.fleet.config.quorum;
        // A duration from the sender's clock: from now on this one, never longer than a cooldown.
        let until = now.saturating_add(d.cooldown.unwrap_or(0).min(cooldown));
        let lease = cooldown.max(graph.node(v).probe_interval_ms().unwrap_or(0));
        let in_use = self.tools.get(v).is_some_and(|t| t.breaker.state() == BreakerState::Closed);
        let slot = self.fleet.slot(v)?;
        slot.vote(&d.origin, d.version, now.saturating_add(window), now);
        // A tool already out of use here (open, or probing) stays so under the newer opening
        // (the owner's probe failed: it keeps the probe); only taking a tool in use needs a
        // quorum.
        if quorum > 1 && in_use && slot.voters(now) < quorum {
            // Evidence only: too few members have seen the tool fail to take it from this one.
            self.fleet.stats.evidence += 1;
            return None;
        }
        slot.known = Some(Known {
            change: Change::Opened,
            until: Some(until),
            version: d.version,
            origin: d.origin.clone(),
            at: now,
        });
        // The owner probes once the cooldown is over, and no sooner than its probe interval
        // allows: the lease covers both, so the others do not probe meanwhile.
        slot.held = Some(until.saturating_add(lease));
        let t = self.tools.get_mut(v)?;
        let transition = t.breaker.open_until(until, now);
        if transition.is_some_and(|tr| tr.to == BreakerState::Open) {
            t.concurrency.restart();
        }
        if let Some(at) = self.tools.get(v).and_then(|t| t.breaker.reopens_at()) {
            self.quiet_until = self.quiet_until.min(at);
        }
        transition
    }

    pub(super) fn apply_closed(&mut self, v: NodeIx, d: &HealthDelta, now: Millis) -> Option<Transition> {
        let slot = self.fleet.slot(v)?;
        slot.known = Some(Known {
            change: Change::Closed,
            until: None,
            version: d.version,
            origin: d.origin.clone(),
            at: now,
        });
        slot.held = None;
        slot.clear_evidence(d.version);
        // The member that closed it had the evidence (its probe, or a call that succeeded):
        // the others take the tool back into use, not onto a ramp that no traffic of theirs
        // would ever climb down.
        self.tools.get_mut(v)?.breaker.recovered()
    }
}
