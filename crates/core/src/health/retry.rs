//! Retries as two small parts: the wait before an attempt ([`backoff`]: exponential, capped,
//! with full jitter from a seeded generator) and a retry budget per tool ([`RetryBudget`],
//! Envoy's: retries in flight at most a share of the tool's calls in flight, with a floor), so
//! retries cannot multiply the load on a tool that is struggling for every caller at once.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::graph::RetryPolicy;
use crate::rng::SplitMix64;
use crate::Millis;

/// The wait before retry number `retry` (1 for the first retry): `backoff_ms x 2^(retry-1)`,
/// capped at `max_backoff_ms`, then, with jitter, a uniform draw in `0..=` that (AWS's "full
/// jitter"), so that runs failing together do not retry together. `seed` makes the draw
/// deterministic: the same inputs give the same wait. O(1).
///
/// ```
/// use shr_core::{graph::RetryPolicy, health::backoff};
/// let p = RetryPolicy { attempts: 5, backoff_ms: 100, max_backoff_ms: 1_000, jitter: false };
/// assert_eq!([1, 2, 3, 4, 5].map(|n| backoff(&p, n, 0)), [100, 200, 400, 800, 1_000]);
/// let jittered = RetryPolicy { jitter: true, ..p };
/// assert!(backoff(&jittered, 3, 7) <= 400);
/// ```
pub fn backoff(policy: &RetryPolicy, retry: u32, seed: u64) -> Millis {
    let doubling = 1u64.checked_shl(retry.saturating_sub(1)).unwrap_or(u64::MAX);
    let ceiling = policy.backoff_ms.saturating_mul(doubling).min(policy.max_backoff_ms);
    if !policy.jitter || ceiling == 0 {
        return ceiling;
    }
    SplitMix64::new(seed).below(ceiling.saturating_add(1))
}

/// How many retries a tool may have in flight (Envoy's retry budget).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryBudget {
    /// Retries in flight as a share (0..=1) of the tool's calls in flight.
    pub ratio: f64,
    /// Retries always allowed in flight, whatever the share.
    pub min_retries: u32,
}

impl Default for RetryBudget {
    fn default() -> Self {
        RetryBudget { ratio: 0.2, min_retries: 3 }
    }
}

impl RetryBudget {
    /// Whether one more retry may go out while `retries` retries and `calls` calls (retries
    /// included) are in flight.
    pub fn allows(&self, retries: u32, calls: u32) -> bool {
        let share = (self.ratio * f64::from(calls.saturating_add(1))) as u32;
        retries < share.max(self.min_retries)
    }

    /// Checks every setting is in range.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(0.0..=1.0).contains(&self.ratio) {
            return Err(ConfigError::new(
                "ratio",
                alloc::format!("must be a number in 0..=1, got {}", self.ratio),
            ));
        }
        Ok(())
    }
}
