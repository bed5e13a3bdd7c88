//! Fleet health: what one router learns about a tool, every router of a fleet knows.
//!
//! Every breaker change a [`HealthBook`] makes on its own evidence (it opens, it closes) is
//! written as a [`HealthDelta`] in an outbox the host drains and publishes (Redis, a
//! `BroadcastChannel`, memory). Deltas from other members are applied with
//! [`HealthBook::apply_delta`], which validates them like any input and merges them
//! deterministically:
//!
//! - each tool has a version; a delta wins over the last one known when its `(version, origin)`
//!   is greater; an older or repeated one is refused (`stale_version`), so members that hear the
//!   same deltas in any order end in the same state;
//! - `opened` opens the breaker until the cooldown the opener announced (never later than one
//!   cooldown from now: a far-future time is a bad clock); an open breaker from any origin holds
//!   for its cooldown;
//! - the member that opened the breaker owns its probe. The others hold the tool closed to their
//!   own calls after the cooldown too, for one more cooldown or the tool's probe interval,
//!   whichever is longer (the owner's lease), so the fleet,
//!   not each member, sends at most `half_open_probes` probes. A lease that runs out (the owner
//!   is gone) lets each member probe for itself;
//! - `closed` (the owner's probe succeeded, or an operator marked the tool up) closes it, with
//!   no recovery ramp: the closer had the evidence.
//!
//! A received delta is never put back in the outbox: nothing echoes. A breaker that opens here
//! because of the fleet's failures is this member's change, and is published as such.
//!
//! Host order: after each step that may move health, `drain` the outbox and publish; on each
//! message received, `apply_delta`; a member that joins late applies every delta of a peer's
//! [`HealthBook::snapshot`] first.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{BreakerState, HealthBook, Transition};
use crate::graph::{NodeIx, ToolGraph};
use crate::Millis;

/// What changed: the breaker opened (until `until`), or closed; or a call failed (an
/// observation that counts toward every member's thresholds, so the fleet's failures open the
/// breaker, not each member's alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Opened,
    Closed,
    Failed,
}

/// One health change, as members of a fleet exchange it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HealthDelta {
    /// The tool's id in the graph.
    pub tool: String,
    pub change: Change,
    /// For `opened`: when its cooldown ends, on the members' shared clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Millis>,
    /// The tool's version after this change (1, 2, ...), across the fleet. A `failed`
    /// observation changes no version: it carries the one its sender knew.
    pub version: u64,
    /// The member that made the change.
    pub origin: String,
    /// When it was made.
    pub at: Millis,
}

/// Why a delta was refused. Codes are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Rejection {
    /// No tool of that id in this graph.
    UnknownTool,
    /// Empty, too long, or this member's own origin.
    BadOrigin,
    /// Version 0, or beyond what a JS number holds exactly.
    BadVersion,
    /// Not newer than the last delta known for the tool (a failure: older than it).
    StaleVersion,
    /// `opened` without `until`, `closed` or `failed` with one.
    BadChange,
}

impl Rejection {
    pub fn code(self) -> &'static str {
        match self {
            Rejection::UnknownTool => "unknown_tool",
            Rejection::BadOrigin => "bad_origin",
            Rejection::BadVersion => "bad_version",
            Rejection::StaleVersion => "stale_version",
            Rejection::BadChange => "bad_change",
        }
    }
}

/// The longest origin accepted, in bytes.
pub const MAX_ORIGIN: usize = 128;
/// Deltas kept in the outbox before the oldest are dropped (a host that never drains).
pub const OUTBOX: usize = 4096;
/// 2^53 - 1: versions travel as JS numbers.
const MAX_VERSION: u64 = (1 << 53) - 1;

/// Counters of the fleet traffic of one book.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetStats {
    pub published: u64,
    pub applied: u64,
    pub rejected: u64,
    /// Deltas dropped from a full outbox.
    pub dropped: u64,
}

/// A tool's last known delta, without its id.
#[derive(Clone, Debug, PartialEq)]
struct Known {
    change: Change,
    until: Option<Millis>,
    version: u64,
    origin: String,
    at: Millis,
}

/// The fleet side of a [`HealthBook`].
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    origin: String,
    /// Tools of the graph; `known` and `held` are sized on first use, so a router outside a
    /// fleet pays nothing per tool.
    tools: usize,
    known: Vec<Option<Known>>,
    /// Until when another member owns the probe of a tool.
    held: Vec<Option<Millis>>,
    outbox: VecDeque<(NodeIx, Known)>,
    stats: FleetStats,
}

impl Ledger {
    pub(super) fn new(tools: usize) -> Ledger {
        Ledger {
            origin: String::from("local"),
            tools,
            known: Vec::new(),
            held: Vec::new(),
            outbox: VecDeque::new(),
            stats: FleetStats::default(),
        }
    }

    /// Whether another member owns `v`'s probe at `now`.
    pub(super) fn held(&self, v: NodeIx, now: Millis) -> bool {
        self.held.get(v).copied().flatten().is_some_and(|until| now < until)
    }

    /// Until when another member owns `v`'s probe, if one does.
    pub(super) fn lease_end(&self, v: NodeIx) -> Option<Millis> {
        self.held.get(v).copied().flatten()
    }

    fn grow(&mut self) {
        if self.known.len() != self.tools {
            self.known.resize(self.tools, None);
            self.held.resize(self.tools, None);
        }
    }

    fn version(&self, v: NodeIx) -> u64 {
        self.known.get(v).and_then(|k| k.as_ref()).map_or(0, |k| k.version)
    }
}

impl HealthBook {
    /// This member's name in its fleet (default `local`).
    pub fn set_origin(&mut self, origin: &str) {
        self.fleet.origin = String::from(origin);
    }

    pub fn origin(&self) -> &str {
        &self.fleet.origin
    }

    pub fn fleet_stats(&self) -> FleetStats {
        self.fleet.stats
    }

    /// Writes a failed call seen while the breaker was CLOSED into the outbox: the others count
    /// it toward their thresholds.
    pub(super) fn note_failure(&mut self, v: NodeIx, now: Millis) {
        let known = Known {
            change: Change::Failed,
            until: None,
            version: self.fleet.version(v),
            origin: self.fleet.origin.clone(),
            at: now,
        };
        self.push(v, known);
    }

    fn push(&mut self, v: NodeIx, known: Known) {
        if self.fleet.outbox.len() == OUTBOX {
            self.fleet.outbox.pop_front();
            self.fleet.stats.dropped += 1;
        }
        self.fleet.outbox.push_back((v, known));
    }

    /// Writes a breaker change made on this member's own evidence into the outbox.
    pub(super) fn note(&mut self, v: NodeIx, change: Option<Transition>, now: Millis) {
        let Some(t) = change else { return };
        let change = match t.to {
            BreakerState::Open => Change::Opened,
            BreakerState::Closed => Change::Closed,
            BreakerState::HalfOpen => return,
        };
        let until = match change {
            Change::Opened => self.tools.get(v).and_then(|t| t.breaker.reopens_at()),
            Change::Closed | Change::Failed => None,
        };
        self.fleet.grow();
        let known = Known {
            change,
            until,
            version: self.fleet.version(v).saturating_add(1).min(MAX_VERSION),
            origin: self.fleet.origin.clone(),
            at: now,
        };
        if let Some(slot) = self.fleet.known.get_mut(v) {
            *slot = Some(known.clone());
        }
        // This member's own change: whatever lease another held is over.
        if let Some(h) = self.fleet.held.get_mut(v) {
            *h = None;
        }
        self.push(v, known);
    }

    /// The deltas of this member's own changes since the last drain, oldest first.
    pub fn drain(&mut self, graph: &ToolGraph) -> Vec<HealthDelta> {
        let out: Vec<HealthDelta> = self.fleet.outbox.drain(..).map(|(v, k)| delta(graph, v, &k)).collect();
        self.fleet.stats.published += out.len() as u64;
        out
    }

    /// The last delta known for every tool that has one: what a member joining late applies
    /// first.
    pub fn snapshot(&self, graph: &ToolGraph) -> Vec<HealthDelta> {
        self.fleet
            .known
            .iter()
            .enumerate()
            .filter_map(|(v, k)| k.as_ref().map(|k| delta(graph, v, k)))
            .collect()
    }

    /// Applies another member's delta at `now`, or says why not (nothing changes then).
    /// Returns the breaker transition it caused, if any.
    pub fn apply_delta(
        &mut self,
        graph: &ToolGraph,
        d: &HealthDelta,
        now: Millis,
    ) -> Result<Option<Transition>, Rejection> {
        let checked = self.check_delta(graph, d);
        let v = match checked {
            Ok(v) => v,
            Err(why) => {
                self.fleet.stats.rejected += 1;
                return Err(why);
            }
        };
        if d.change == Change::Failed {
            self.fleet.stats.applied += 1;
            let t = self.tools.get_mut(v).ok_or(Rejection::UnknownTool)?;
            // Only a closed breaker counts failures toward opening; an open one already avoids
            // the tool and a half-open one waits for its probe.
            if t.breaker.state() != BreakerState::Closed {
                return Ok(None);
            }
            let change = t.breaker.on_failure(now);
            if change.is_some() {
                t.concurrency.restart();
            }
            self.watch(v, now);
            // The fleet's failures opened it here: say so, so that one member (the greatest
            // `(version, origin)` among those that opened together) owns the probe.
            self.note(v, change, now);
            return Ok(change);
        }
        let cooldown = self.tools.get(v).map_or(0, |t| t.breaker.config().cooldown_ms);
        let until = d.until.map(|u| u.min(now.saturating_add(cooldown)));
        self.fleet.grow();
        if let Some(slot) = self.fleet.known.get_mut(v) {
            *slot = Some(Known {
                change: d.change,
                until,
                version: d.version,
                origin: d.origin.clone(),
                at: d.at,
            });
        }
        self.fleet.stats.applied += 1;
        let t = self.tools.get_mut(v).ok_or(Rejection::UnknownTool)?;
        let transition = match d.change {
            Change::Opened => {
                let until = until.unwrap_or(now);
                // The owner probes once the cooldown is over, and no sooner than its probe
                // interval allows: the lease covers both, so the others do not probe meanwhile.
                let lease = cooldown.max(graph.node(v).probe_interval_ms().unwrap_or(0));
                if let Some(h) = self.fleet.held.get_mut(v) {
                    *h = Some(until.saturating_add(lease));
                }
                t.breaker.open_until(until, now)
            }
            Change::Closed => {
                if let Some(h) = self.fleet.held.get_mut(v) {
                    *h = None;
                }
                // The member that closed it had the evidence (its probe, or a call that
                // succeeded): the others take the tool back into use, not onto a ramp that no
                // traffic of theirs would ever climb down.
                t.breaker.recovered()
            }
            Change::Failed => None,
        };
        if transition.is_some_and(|tr| tr.to == BreakerState::Open) {
            t.concurrency.restart();
        }
        if let Some(at) = self.tools.get(v).and_then(|t| t.breaker.reopens_at()) {
            self.quiet_until = self.quiet_until.min(at);
        }
        Ok(transition)
    }

    fn check_delta(&self, graph: &ToolGraph, d: &HealthDelta) -> Result<NodeIx, Rejection> {
        let v = graph.index(&d.tool).ok_or(Rejection::UnknownTool)?;
        if d.origin.is_empty() || d.origin.len() > MAX_ORIGIN || d.origin == self.fleet.origin {
            return Err(Rejection::BadOrigin);
        }
        if d.version > MAX_VERSION || (d.version == 0 && d.change != Change::Failed) {
            return Err(Rejection::BadVersion);
        }
        if (d.change == Change::Opened) != d.until.is_some() {
            return Err(Rejection::BadChange);
        }
        if d.change == Change::Failed {
            return if d.version < self.fleet.version(v) { Err(Rejection::StaleVersion) } else { Ok(v) };
        }
        if let Some(Some(k)) = self.fleet.known.get(v) {
            if (d.version, d.origin.as_str()) <= (k.version, k.origin.as_str()) {
                return Err(Rejection::StaleVersion);
            }
        }
        Ok(v)
    }
}

fn delta(graph: &ToolGraph, v: NodeIx, k: &Known) -> HealthDelta {
    HealthDelta {
        tool: String::from(graph.id(v)),
        change: k.change,
        until: k.until,
        version: k.version,
        origin: k.origin.clone(),
        at: k.at,
    }
}
