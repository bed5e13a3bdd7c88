//! Transient faults that last: a fault holds for a number of calls or for a time, drawn per
//! task, and the tool's retry policy either outlasts it or runs out. The policies are the
//! core's own (`RetryPolicy`, with its backoff); only their parameters differ.

use serde::{Deserialize, Serialize};

use shr_core::graph::RetryPolicy;
use shr_core::rng::SplitMix64;
use shr_core::Millis;

/// How long a transient fault holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Duration {
    /// The first `k` calls to the tool fail.
    Calls(u32),
    /// Calls during the first `t` ms after the first call fail.
    Millis(Millis),
}

impl Duration {
    /// Half the faults count calls (1 with probability 1/2, 2 with 1/4, 3 or 4 with 1/8 each),
    /// half last a time drawn from an exponential distribution of mean 400 ms.
    pub fn draw(seed: u64) -> Duration {
        let mut rng = SplitMix64::new(seed ^ 0xD0_7A7E);
        if rng.below(2) == 0 {
            let k = match rng.below(8) {
                0..=3 => 1,
                4 | 5 => 2,
                6 => 3,
                _ => 4,
            };
            Duration::Calls(k)
        } else {
            // Inverse transform; `unit` is in [0, 1), so the logarithm is finite.
            let u = rng.unit();
            // At least 1 ms: a fault of no time would be no fault.
            Duration::Millis(((-400.0 * (1.0 - u).ln()) as Millis).max(1))
        }
    }

    /// Whether call number `call` (1-based) at `at` fails, the first call having gone out at
    /// `first_at`.
    pub fn holds(self, call: u32, at: Millis, first_at: Millis) -> bool {
        match self {
            Duration::Calls(k) => call <= k,
            Duration::Millis(t) => at < first_at.saturating_add(t),
        }
    }
}

/// The retry policies compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Never retry: a failure reroutes at once.
    NoRetry,
    /// One immediate retry (the graph format's default).
    OneRetry,
    /// Three retries with exponential backoff from 100 ms, full jitter.
    Backoff,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::NoRetry, Policy::OneRetry, Policy::Backoff];

    pub fn retry(self) -> RetryPolicy {
        match self {
            Policy::NoRetry => RetryPolicy { attempts: 0, ..RetryPolicy::default() },
            Policy::OneRetry => RetryPolicy::default(),
            Policy::Backoff => {
                RetryPolicy { attempts: 3, backoff_ms: 100, max_backoff_ms: 2_000, jitter: true }
            }
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Policy::NoRetry => "no retry",
            Policy::OneRetry => "one immediate retry",
            Policy::Backoff => "3 retries, backoff 100 ms x2, jitter",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_drawn_from_both_kinds() {
        let drawn: alloc::vec::Vec<Duration> = (0..200).map(Duration::draw).collect();
        assert!(drawn.iter().any(|d| matches!(d, Duration::Calls(_))));
        assert!(drawn.iter().any(|d| matches!(d, Duration::Millis(_))));
        assert_eq!(Duration::draw(7), Duration::draw(7));
    }
}
