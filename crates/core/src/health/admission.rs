//! Admission: how calls are let through to a tool for every run of a router at once (a
//! bulkhead under a slow start, a rate limit, a retry budget, call timeouts and the leases
//! that bound a lost host), and why a call is refused.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::health::RetryBudget;
use crate::Millis;

/// How calls are let through to a tool, for every run of a router at once.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdmissionConfig {
    /// Calls in flight per tool (a bulkhead) when its node says nothing; `None`: no ceiling.
    pub max_concurrent: Option<u32>,
    /// The slow-start window: calls a tool with no record may have in flight at once; each
    /// success lets one more through. 0 turns slow start off.
    pub initial_concurrency: u32,
    /// Retries in flight per tool, as a share of its calls in flight.
    pub retry_budget: RetryBudget,
    /// How long a run waits for a tool that is only full or rate-limited for now, when no other
    /// path exists, before it escalates.
    pub max_wait_ms: Millis,
    /// How long a call may take when its node gives no `timeout_ms` (the JS driver aborts it
    /// then).
    pub call_timeout_ms: Millis,
    /// A call's place is a lease that runs out this long after its timeout, if the host never
    /// reports or releases it (a crashed handler, a dropped session): a lost host cannot hold a
    /// tool for longer.
    pub lease_grace_ms: Millis,
}

impl Default for AdmissionConfig {
    fn default() -> Self {
        AdmissionConfig {
            max_concurrent: None,
            initial_concurrency: 3,
            retry_budget: RetryBudget::default(),
            max_wait_ms: 10_000,
            call_timeout_ms: 10_000,
            lease_grace_ms: 5_000,
        }
    }
}

impl AdmissionConfig {
    /// Checks every setting is in range.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.max_concurrent == Some(0) {
            return Err(ConfigError::new(
                "max_concurrent",
                "must be at least 1 (leave it out for no ceiling)",
            ));
        }
        if self.call_timeout_ms == 0 || self.call_timeout_ms > crate::limits::MAX_TIMEOUT_MS {
            return Err(ConfigError::new(
                "call_timeout_ms",
                alloc::format!(
                    "must be 1..={} ms, got {}",
                    crate::limits::MAX_TIMEOUT_MS,
                    self.call_timeout_ms
                ),
            ));
        }
        self.retry_budget.check().map_err(|e| e.within("retry_budget"))
    }
}

/// Why a call was not let through now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// The breaker is OPEN.
    Open,
    /// The breaker is HALF_OPEN and its probes are out.
    Probing,
    /// As many calls are in flight as the bulkhead or the slow-start window allows.
    Full,
    /// The rate limit's tokens are spent.
    RateLimited,
    /// The tool's retry budget is spent: the failure is not retried.
    RetryBudget,
}
