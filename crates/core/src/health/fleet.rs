//! Fleet health: what one router learns about a tool, every router of a fleet knows.
//!
//! Every breaker change a [`HealthBook`] makes on its own evidence (it opens, it closes), and
//! every failure it sees while a breaker is closed, is written as a [`HealthDelta`] in an outbox
//! the host drains and publishes (Redis, a `BroadcastChannel`, memory). Deltas from other
//! members are applied with [`HealthBook::apply_delta`], which validates them like any input.
//! The host authenticates them first (`packages/fleet` signs each one with HMAC-SHA256 under a
//! fleet key): the core only sees deltas from key holders, and judges what they say.
//!
//! - **Versions** are a hybrid logical clock: a change made at `now` gets
//!   `max(now, last version seen) + a counter` (see [`stamp`]), so a version is close to its
//!   sender's clock and never behind anything it had heard. A delta whose clock part runs ahead
//!   of the receiver's clock by more than [`FleetConfig::max_skew_ms`] is refused (`ahead`): a
//!   version at 2^53 - 1 cannot pin a tool, and the clock part of what is accepted is never
//!   more than the skew ahead, so news from an honest member is never refused as stale for
//!   long.
//! - `opened` and `closed` of a tool are ordered by `(version, origin)`: a greater one wins, an
//!   older or repeated one is refused (`stale_version`), so members that hear the same deltas in
//!   any order end in the same state.
//! - `failed` observations are numbered by their version, unique per origin: a replay (a version
//!   not above the last one heard from that origin for that tool) is refused (`replayed`).
//! - **Evidence.** A `failed` or `opened` from a member is that member's evidence against the
//!   tool, and counts once per [`FleetConfig::window_ms`], however many it sends. With
//!   [`FleetConfig::quorum`] 1 every member is trusted alone: its `opened` opens the tool here,
//!   its failures count toward this member's thresholds. With a quorum of 2 or more, evidence
//!   from that many distinct members (this one included, when it saw the tool fail itself)
//!   opens the tool here at once, and less changes nothing here: one member whose own network
//!   refuses a tool opens its own breaker (its observations always act locally at once), never
//!   the fleet's.
//! - `opened` carries the cooldown left when it was sent, a duration: the receiver opens the
//!   tool for that long from its own clock (never longer than its own cooldown), so a skewed
//!   clock neither loses nor stretches the news.
//! - The member that opened the breaker last (the greatest `(version, origin)`) owns its probe.
//!   The others hold the tool closed to their own calls after the cooldown too, for one more
//!   cooldown or the tool's probe interval, whichever is longer (the owner's lease), so the
//!   fleet, not each member, sends at most `half_open_probes` probes. A lease that runs out (the
//!   owner is gone) lets each member probe for itself.
//! - `closed` (the owner's probe succeeded, or an operator marked the tool up) closes it, with
//!   no recovery ramp, and clears the evidence older than it.
//!
//! A received delta is never put back in the outbox: nothing echoes. A breaker that opens here
//! because of the fleet's evidence is this member's change, and is published as such.
//!
//! Host order: after each step that may move health, `drain` the outbox and publish; on each
//! message received (and authenticated), `apply_delta`; a member that joins late applies every
//! delta of a peer's [`HealthBook::snapshot_at`] (or of the stored ones) first.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{BreakerState, HealthBook, Transition};
use crate::graph::{NodeIx, ToolGraph};
use crate::Millis;

mod apply;
mod evidence;
use evidence::Slot;

/// What changed: the breaker opened (for `cooldown` more ms), or closed; or a call failed (an
/// observation: evidence against the tool, see the module's docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The sender's breaker opened.
    Opened,
    /// The sender's breaker closed.
    Closed,
    /// The sender saw a failure while its breaker was closed: evidence against the tool.
    Failed,
}

/// One health change, as members of a fleet exchange it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HealthDelta {
    /// The tool's id in the graph.
    pub tool: String,
    /// What changed.
    pub change: Change,
    /// For `opened`: the cooldown left when it was sent, in ms (a duration, not a time: the
    /// members' clocks need not agree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown: Option<Millis>,
    /// The sender's hybrid logical clock when it made the change: `ms * 1024 + counter`
    /// (see [`stamp`]); unique per origin.
    pub version: u64,
    /// The member that made the change.
    pub origin: String,
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
    /// Not newer than the last change known for the tool (a failure: older than it).
    StaleVersion,
    /// `opened` without `cooldown`, `closed` or `failed` with one.
    BadChange,
    /// The version's clock runs ahead of this member's by more than the allowed skew.
    Ahead,
    /// A delta already heard (the same origin and version, or an older one from that origin).
    Replayed,
}

impl Rejection {
    /// The refusal's stable code (`stale_version`...).
    pub fn code(self) -> &'static str {
        match self {
            Rejection::UnknownTool => "unknown_tool",
            Rejection::BadOrigin => "bad_origin",
            Rejection::BadVersion => "bad_version",
            Rejection::StaleVersion => "stale_version",
            Rejection::BadChange => "bad_change",
            Rejection::Ahead => "ahead",
            Rejection::Replayed => "replayed",
        }
    }
}

/// The longest origin accepted, in bytes.
pub const MAX_ORIGIN: usize = 128;
/// Deltas kept in the outbox before the oldest are dropped (a host that never drains).
pub const OUTBOX: usize = 4096;
/// 2^53 - 1: versions travel as JS numbers.
pub const MAX_VERSION: u64 = (1 << 53) - 1;
/// Versions per millisecond of the hybrid logical clock.
pub const TICKS_PER_MS: u64 = 1024;

/// How a member weighs its fleet's news.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FleetConfig {
    /// Distinct members whose evidence it takes to open a tool here (1: every member alone).
    pub quorum: u32,
    /// How long a member's evidence counts (once), on this member's clock; 0: the breaker's
    /// cooldown.
    pub window_ms: Millis,
    /// How far a version's clock may run ahead of this member's.
    pub max_skew_ms: Millis,
}

impl Default for FleetConfig {
    fn default() -> Self {
        FleetConfig { quorum: 1, window_ms: 0, max_skew_ms: 60_000 }
    }
}

/// The next version of a clock that has seen `last`, at `now`: the greater of `now`'s and
/// `last`'s clock part, and a counter that orders changes within one millisecond (when it
/// overflows the clock part moves one ms ahead).
pub fn stamp(last: u64, now: Millis) -> u64 {
    let wall = now.saturating_mul(TICKS_PER_MS);
    if wall > last {
        wall.min(MAX_VERSION)
    } else {
        last.saturating_add(1).min(MAX_VERSION)
    }
}

/// Counters of the fleet traffic of one book.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetStats {
    /// Deltas this router published.
    pub published: u64,
    /// Deltas from other members applied.
    pub applied: u64,
    /// Deltas refused.
    pub rejected: u64,
    /// Deltas dropped from a full outbox.
    pub dropped: u64,
    /// Applied deltas that were only evidence (too few members yet to act on).
    pub evidence: u64,
}

/// A tool's last known breaker change, without its id.
#[derive(Clone, Debug, PartialEq)]
struct Known {
    change: Change,
    /// For `opened`: until when, on this member's clock.
    until: Option<Millis>,
    version: u64,
    origin: String,
    /// When it was known here, on this member's clock.
    at: Millis,
}

/// The fleet side of a [`HealthBook`].
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    origin: String,
    config: FleetConfig,
    /// The hybrid logical clock: the greatest version issued or accepted.
    clock: u64,
    /// Tools of the graph; `slots` are sized on first use, so a router outside a fleet pays
    /// nothing per tool.
    tools: usize,
    slots: Vec<Slot>,
    /// This member's own deltas: the tool, the change, and for `opened` until when.
    outbox: VecDeque<(NodeIx, Change, Option<Millis>, u64, Millis)>,
    stats: FleetStats,
}

impl Ledger {
    pub(super) fn new(tools: usize) -> Ledger {
        Ledger { origin: String::from("local"), tools, ..Ledger::default() }
    }

    /// Whether another member owns `v`'s probe at `now`.
    pub(super) fn held(&self, v: NodeIx, now: Millis) -> bool {
        self.lease_end(v).is_some_and(|until| now < until)
    }

    /// Until when another member owns `v`'s probe, if one does.
    pub(super) fn lease_end(&self, v: NodeIx) -> Option<Millis> {
        self.slots.get(v).and_then(|s| s.held)
    }

    fn grow(&mut self) {
        if self.slots.len() != self.tools {
            self.slots.resize_with(self.tools, Slot::default);
        }
    }

    fn slot(&mut self, v: NodeIx) -> Option<&mut Slot> {
        self.grow();
        self.slots.get_mut(v)
    }

    fn known(&self, v: NodeIx) -> Option<&Known> {
        self.slots.get(v).and_then(|s| s.known.as_ref())
    }

    fn tick(&mut self, now: Millis) -> u64 {
        self.clock = stamp(self.clock, now);
        self.clock
    }
}

impl HealthBook {
    /// This member's name in its fleet (default `local`).
    pub fn set_origin(&mut self, origin: &str) {
        self.fleet.origin = String::from(origin);
    }

    /// This router's name in its fleet.
    pub fn origin(&self) -> &str {
        &self.fleet.origin
    }

    /// How this member weighs its fleet's news (a quorum below 1 counts as 1).
    pub fn set_fleet_config(&mut self, config: FleetConfig) {
        self.fleet.config = FleetConfig { quorum: config.quorum.max(1), ..config };
    }

    /// How this router weighs its fleet's news.
    pub fn fleet_config(&self) -> FleetConfig {
        self.fleet.config
    }

    /// This router's fleet traffic so far.
    pub fn fleet_stats(&self) -> FleetStats {
        self.fleet.stats
    }

    /// How long evidence counts for `v`.
    fn window(&self, v: NodeIx) -> Millis {
        match self.fleet.config.window_ms {
            0 => self.tools.get(v).map_or(0, |t| t.breaker.config().cooldown_ms),
            w => w,
        }
    }

    /// Writes a failed call seen while the breaker was CLOSED into the outbox: evidence for the
    /// others.
    pub(super) fn note_failure(&mut self, v: NodeIx, now: Millis) {
        let window = self.window(v);
        if let Some(s) = self.fleet.slot(v) {
            s.own_until = now.saturating_add(window);
        }
        let version = self.fleet.tick(now);
        self.push(v, Change::Failed, None, version, now);
    }

    fn push(&mut self, v: NodeIx, change: Change, until: Option<Millis>, version: u64, now: Millis) {
        if self.fleet.outbox.len() == OUTBOX {
            self.fleet.outbox.pop_front();
            self.fleet.stats.dropped += 1;
        }
        self.fleet.outbox.push_back((v, change, until, version, now));
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
        let window = self.window(v);
        let version = self.fleet.tick(now);
        let origin = self.fleet.origin.clone();
        if let Some(s) = self.fleet.slot(v) {
            s.known = Some(Known { change, until, version, origin, at: now });
            // This member's own change: whatever lease another held is over.
            s.held = None;
            match change {
                Change::Opened => s.own_until = now.saturating_add(window),
                _ => s.clear_evidence(version),
            }
        }
        self.push(v, change, until, version, now);
    }

    /// The deltas of this member's own changes since the last drain, oldest first.
    pub fn drain(&mut self, graph: &ToolGraph) -> Vec<HealthDelta> {
        let origin = self.fleet.origin.clone();
        let out: Vec<HealthDelta> = self
            .fleet
            .outbox
            .drain(..)
            .map(|(v, change, until, version, at)| HealthDelta {
                tool: String::from(graph.id(v)),
                change,
                cooldown: until.map(|u| u.saturating_sub(at)),
                version,
                origin: origin.clone(),
            })
            .collect();
        self.fleet.stats.published += out.len() as u64;
        out
    }

    /// What a member joining late applies first, as of `now`: the last breaker change known
    /// for every tool that has one (an `opened` with the cooldown left now), and the evidence
    /// against each tool that still counts.
    pub fn snapshot_at(&self, graph: &ToolGraph, now: Millis) -> Vec<HealthDelta> {
        let mut out = Vec::new();
        for (v, s) in self.fleet.slots.iter().enumerate() {
            // The evidence first, so that the `opened` it backs is applied once it counts; the
            // opener's own evidence travels with its `opened`.
            let opener = s.known.as_ref().filter(|k| k.change == Change::Opened).map(|k| k.origin.as_str());
            s.live_votes(now, |origin, version| {
                if Some(origin) != opener {
                    out.push(HealthDelta {
                        tool: String::from(graph.id(v)),
                        change: Change::Failed,
                        cooldown: None,
                        version,
                        origin: String::from(origin),
                    });
                }
            });
            if let Some(k) = &s.known {
                out.push(HealthDelta {
                    tool: String::from(graph.id(v)),
                    change: k.change,
                    cooldown: k.until.map(|u| u.saturating_sub(now)),
                    version: k.version,
                    origin: k.origin.clone(),
                });
            }
        }
        out
    }

    /// [`HealthBook::snapshot_at`] with cooldowns as they were when each change was made.
    pub fn snapshot(&self, graph: &ToolGraph) -> Vec<HealthDelta> {
        let mut out = Vec::new();
        for (v, s) in self.fleet.slots.iter().enumerate() {
            if let Some(k) = &s.known {
                out.push(HealthDelta {
                    tool: String::from(graph.id(v)),
                    change: k.change,
                    cooldown: k.until.map(|u| u.saturating_sub(k.at)),
                    version: k.version,
                    origin: k.origin.clone(),
                });
            }
        }
        out
    }

    /// Applies another member's delta at `now`, or says why not (nothing changes then).
    /// Returns the breaker transition it caused, if any.
    pub fn apply_delta(
        &mut self,
        graph: &ToolGraph,
        d: &HealthDelta,
        now: Millis,
    ) -> Result<Option<Transition>, Rejection> {
        let v = match self.check_delta(graph, d, now) {
            Ok(v) => v,
            Err(why) => {
                self.fleet.stats.rejected += 1;
                return Err(why);
            }
        };
        self.fleet.clock = self.fleet.clock.max(d.version);
        self.fleet.stats.applied += 1;
        if d.change != Change::Closed {
            if let Some(s) = self.fleet.slot(v) {
                s.hear(&d.origin, d.version);
            }
        }
        match d.change {
            Change::Failed => Ok(self.apply_failed(v, d, now)),
            Change::Opened => Ok(self.apply_opened(graph, v, d, now)),
            Change::Closed => Ok(self.apply_closed(v, d, now)),
        }
    }

    fn check_delta(&self, graph: &ToolGraph, d: &HealthDelta, now: Millis) -> Result<NodeIx, Rejection> {
        let v = graph.index(&d.tool).ok_or(Rejection::UnknownTool)?;
        if d.origin.is_empty() || d.origin.len() > MAX_ORIGIN || d.origin == self.fleet.origin {
            return Err(Rejection::BadOrigin);
        }
        if d.version == 0 || d.version > MAX_VERSION {
            return Err(Rejection::BadVersion);
        }
        if (d.change == Change::Opened) != d.cooldown.is_some() {
            return Err(Rejection::BadChange);
        }
        if d.version / TICKS_PER_MS > now.saturating_add(self.fleet.config.max_skew_ms) {
            return Err(Rejection::Ahead);
        }
        let known = self.fleet.known(v);
        if d.change == Change::Failed {
            // Older than the tool's recovery: history.
            if known.is_some_and(|k| k.change == Change::Closed && d.version < k.version) {
                return Err(Rejection::StaleVersion);
            }
        } else if let Some(k) = known {
            if (d.version, d.origin.as_str()) <= (k.version, k.origin.as_str()) {
                return Err(Rejection::StaleVersion);
            }
        }
        // Evidence (`failed`, `opened`) from one member only grows in version: one not above the
        // last heard from it is a replay (an `opened` kept as evidence only is not `known`, but
        // is heard). Out of order it is older news of that member, whose later evidence
        // counted. `closed` is ordered by `known` alone: members must converge on it.
        let evidence = d.change != Change::Closed;
        if evidence && self.fleet.slots.get(v).is_some_and(|s| s.heard_before(&d.origin, d.version)) {
            return Err(Rejection::Replayed);
        }
        Ok(v)
    }
}
