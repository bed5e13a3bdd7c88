//! A token bucket per tool (`rate_limit: {calls, per_ms}`): at most `calls` calls in any burst,
//! refilled evenly at `calls` per `per_ms`, shared by every run of a router. Integer arithmetic
//! on the passed-in clock, so the same calls at the same times give the same answers.
//!
//! ```
//! use shr_core::health::TokenBucket;
//! let mut b = TokenBucket::new(2, 3_600_000);
//! assert!(b.try_take(0) && b.try_take(0));
//! assert!(!b.try_take(1_000));
//! assert_eq!(b.next_token_at(1_000), 1_800_000); // one call every half hour
//! assert!(b.try_take(1_800_000));
//! ```

use crate::Millis;

/// A token bucket. Tokens are counted in `calls x ms` units so refills stay exact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    calls: u64,
    per_ms: u64,
    /// Tokens held, times `per_ms` (one call costs `per_ms` units; a millisecond adds `calls`).
    units: u64,
    at: Millis,
}

impl TokenBucket {
    /// A full bucket of `calls` tokens refilled at `calls` per `per_ms` (both at least 1).
    pub fn new(calls: u32, per_ms: u64) -> Self {
        let (calls, per_ms) = (u64::from(calls.max(1)), per_ms.max(1));
        TokenBucket { calls, per_ms, units: calls.saturating_mul(per_ms), at: 0 }
    }

    fn refill(&mut self, now: Millis) {
        if now > self.at {
            let full = self.calls.saturating_mul(self.per_ms);
            let added = (now - self.at).saturating_mul(self.calls);
            self.units = self.units.saturating_add(added).min(full);
            self.at = now;
        }
    }

    /// Whether a call could be taken at `now` (nothing is taken).
    pub fn has_token(&self, now: Millis) -> bool {
        let mut b = self.clone();
        b.refill(now);
        b.units >= b.per_ms
    }

    /// Takes a token for one call, when there is one.
    pub fn try_take(&mut self, now: Millis) -> bool {
        self.refill(now);
        let ok = self.units >= self.per_ms;
        if ok {
            self.units -= self.per_ms;
        }
        ok
    }

    /// When the next token is there (`now` when one is).
    pub fn next_token_at(&self, now: Millis) -> Millis {
        let mut b = self.clone();
        b.refill(now);
        let missing = b.per_ms.saturating_sub(b.units);
        now.max(b.at).saturating_add(missing.div_ceil(b.calls))
    }
}
