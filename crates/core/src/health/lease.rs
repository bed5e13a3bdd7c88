//! Leases: a call let through holds its tool's place (in the bulkhead, the slow-start window, a
//! half-open trial slot, the retry budget) under a lease that ends when the call is settled or
//! released, or runs out at the call's timeout plus a grace. A host that vanishes between
//! handing out a call and reporting it (a crashed handler, a dropped session) therefore holds a
//! tool for one lease at most, never for good. The clock is passed in, as everywhere.
//!
//! ```
//! use shr_core::health::{Lease, Leases};
//! let mut leases = Leases::default();
//! let id = leases.grant(Lease { tool: 0, generation: 0, retry: false, expires: 100 });
//! let mut out = Vec::new();
//! leases.expire(99, &mut out);
//! assert!(out.is_empty());
//! leases.expire(100, &mut out);
//! assert_eq!(out.len(), 1);
//! assert!(leases.end(id).is_none(), "an expired lease cannot be ended twice");
//! ```

use alloc::vec::Vec;

use crate::graph::NodeIx;
use crate::Millis;

/// What a lease holds: the place of one call to `tool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The tool the call holds a place of.
    pub tool: NodeIx,
    /// The breaker's generation when the call was let through (a trial slot it holds belongs
    /// to that generation only).
    pub generation: u64,
    /// The call is a retry (it counts against the retry budget).
    pub retry: bool,
    /// When the lease runs out if nobody ends it.
    pub expires: Millis,
}

/// The leases held now, in grant order (so by id: ids grow). Ids are never reused, so ending a
/// lease that already ran out does nothing. A vector, not a map: few calls are out at once, and
/// the npm module pays for every map type it holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Leases {
    held: Vec<(u64, Lease)>,
    next_id: u64,
}

impl Leases {
    /// Grants a lease; the id ends it.
    pub fn grant(&mut self, lease: Lease) -> u64 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.held.push((id, lease));
        id
    }

    /// Ends a lease; `None` when it had run out (or was ended) before. O(leases held).
    pub fn end(&mut self, id: u64) -> Option<Lease> {
        let i = self.held.binary_search_by_key(&id, |(id, _)| *id).ok()?;
        Some(self.held.remove(i).1)
    }

    /// Moves every lease run out at `now` into `out`. O(leases held).
    pub fn expire(&mut self, now: Millis, out: &mut Vec<Lease>) {
        self.held.retain(|(_, l)| {
            let alive = l.expires > now;
            if !alive {
                out.push(*l);
            }
            alive
        });
    }

    /// When the next lease runs out; `None` when none is held.
    pub fn next_expiry(&self) -> Option<Millis> {
        self.held.iter().map(|(_, l)| l.expires).min()
    }

    /// Leases held now.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether no lease is out.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}
