//! What one member knows of one tool from its fleet: the last breaker change, the lease of the
//! member that owns the probe, and the evidence against the tool (see the parent's docs).

use alloc::string::String;
use alloc::vec::Vec;

use super::Known;
use crate::Millis;

/// Members whose evidence against one tool is remembered at once; past it the vote that runs
/// out first goes.
pub const MAX_VOTERS: usize = 64;
/// Members whose last version is remembered per tool (replays are refused); past it the oldest
/// goes.
pub const MAX_HEARD: usize = 256;

/// One member's evidence against a tool.
#[derive(Clone, Debug, PartialEq)]
struct Vote {
    origin: String,
    /// The greatest version of its evidence.
    version: u64,
    /// Until when it counts, on this member's clock.
    until: Millis,
}

/// The fleet's news of one tool.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Slot {
    pub(super) known: Option<Known>,
    /// Until when another member owns the probe.
    pub(super) held: Option<Millis>,
    votes: Vec<Vote>,
    /// Until when this member's own failures count as evidence.
    pub(super) own_until: Millis,
    /// The last version heard from each origin.
    heard: Vec<(String, u64)>,
}

impl Slot {
    /// Records `origin`'s evidence; whether it counts anew (no live vote of `origin` yet: one
    /// member counts once per window, however many failures it sends).
    pub(super) fn vote(&mut self, origin: &str, version: u64, until: Millis, now: Millis) -> bool {
        self.votes.retain(|v| v.until > now);
        if let Some(v) = self.votes.iter_mut().find(|v| v.origin == origin) {
            v.version = v.version.max(version);
            return false;
        }
        if self.votes.len() == MAX_VOTERS {
            if let Some(first) = (0..self.votes.len()).min_by_key(|&i| self.votes[i].until) {
                self.votes.swap_remove(first);
            }
        }
        self.votes.push(Vote { origin: String::from(origin), version, until });
        true
    }

    /// Distinct members with evidence at `now`, this one included when its own failures count.
    pub(super) fn voters(&self, now: Millis) -> u32 {
        let others = self.votes.iter().filter(|v| v.until > now).count() as u32;
        others + u32::from(self.own_until > now)
    }

    /// Calls `f(origin, version)` for every vote that counts at `now`.
    pub(super) fn live_votes(&self, now: Millis, mut f: impl FnMut(&str, u64)) {
        for v in self.votes.iter().filter(|v| v.until > now) {
            f(&v.origin, v.version);
        }
    }

    /// The tool closed at `version`: evidence older than that is history.
    pub(super) fn clear_evidence(&mut self, version: u64) {
        self.votes.retain(|v| v.version > version);
        self.own_until = 0;
    }

    /// Whether a delta of `origin` at `version` was heard already (or a later one).
    pub(super) fn heard_before(&self, origin: &str, version: u64) -> bool {
        self.heard.iter().any(|(o, v)| o == origin && version <= *v)
    }

    pub(super) fn hear(&mut self, origin: &str, version: u64) {
        if let Some((_, v)) = self.heard.iter_mut().find(|(o, _)| o == origin) {
            *v = (*v).max(version);
            return;
        }
        if self.heard.len() == MAX_HEARD {
            if let Some(oldest) = (0..self.heard.len()).min_by_key(|&i| self.heard[i].1) {
                self.heard.swap_remove(oldest);
            }
        }
        self.heard.push((String::from(origin), version));
    }
}
