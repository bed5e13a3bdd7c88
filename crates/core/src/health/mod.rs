//! Tool health: a circuit breaker and telemetry per tool, turned into the live weight that
//! routing uses. Every outcome a host reports feeds it; the clock is always passed in.

pub mod admission;
pub mod breaker;
pub mod concurrency;
pub mod costs;
mod events;
pub mod fleet;
pub mod lease;
pub mod memo;
pub mod probe;
pub mod rate_limit;
pub mod retry;
pub mod weight;

use alloc::collections::VecDeque;
use alloc::vec::Vec;

pub use admission::{AdmissionConfig, Refusal};
pub use breaker::{Breaker, BreakerConfig, BreakerState, Transition};
pub use concurrency::Concurrency;
pub use fleet::{Change, FleetStats, HealthDelta, Rejection, MAX_ORIGIN};
pub use lease::{Lease, Leases};
pub use memo::{LiveWeights, WeightMemo};
pub use probe::Probe;
pub use rate_limit::TokenBucket;
pub use retry::{backoff, RetryBudget};
pub use weight::{edge_weight, Factors};

use crate::graph::{NodeIx, ToolGraph};
use crate::Millis;

/// A call let through to a tool, under a lease (see [`lease`]): hand it back with
/// [`HealthBook::settle`] or [`HealthBook::release`]; if neither comes before the lease runs
/// out, [`HealthBook::poll`] gives its place back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Permit {
    /// The tool the call was let through to.
    pub tool: NodeIx,
    /// The breaker's generation when the call was let through.
    generation: u64,
    retry: bool,
    lease: u64,
}

/// An outcome a host observed, of a call it made through a [`Permit`] or outside any run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Observation {
    /// A success, with its latency: feeds the rolling latency and the breaker.
    Success {
        /// How long the call took (NaN: not known, no sample kept).
        latency_ms: f64,
    },
    /// A failure that counts toward the breaker's thresholds.
    Failure,
    /// A hard failure: the breaker opens at once.
    Outage,
}

/// A tool whose probe another member of the fleet owns refuses calls while HALF_OPEN: the
/// fleet, not each member, probes it.
fn fleet_hold(t: &ToolHealth, held: bool) -> Option<Refusal> {
    (held && t.breaker.state() != BreakerState::Closed).then_some(Refusal::Probing)
}

/// Samples kept for the rolling latency mean.
const LATENCY_SAMPLES: usize = 20;
/// The window a tool's quota applies to.
pub const QUOTA_WINDOW_MS: Millis = 60 * 60 * 1000;

/// Telemetry and breaker of one tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolHealth {
    /// The tool's circuit breaker.
    pub breaker: Breaker,
    latencies: VecDeque<f64>,
    /// When the last latency sample was taken.
    latency_at: Option<Millis>,
    calls: VecDeque<Millis>,
    baseline_ms: Option<f64>,
    quota: Option<u32>,
    base_cost: f64,
    concurrency: Concurrency,
    bucket: Option<TokenBucket>,
    retries_in_flight: u32,
    /// The call timeout when the node sets one.
    timeout_ms: Option<Millis>,
    /// Leases of this tool that ran out before their call was reported.
    leases_expired: u64,
    /// A learned cost carries the latency: the live latency factor is 1.
    latency_learned: bool,
}

impl ToolHealth {
    fn rolling_latency(&self) -> Option<f64> {
        if self.latencies.is_empty() {
            None
        } else {
            Some(self.latencies.iter().sum::<f64>() / self.latencies.len() as f64)
        }
    }

    fn calls_in_window(&self, now: Millis) -> u32 {
        self.calls.iter().filter(|t| now.saturating_sub(**t) < QUOTA_WINDOW_MS).count() as u32
    }

    /// Why a call would be refused now, if it would (nothing is taken).
    fn refusal(&self, now: Millis) -> Option<Refusal> {
        if !self.breaker.admits() {
            return Some(if self.breaker.state() == BreakerState::Open {
                Refusal::Open
            } else {
                Refusal::Probing
            });
        }
        if !self.concurrency.has_room() {
            return Some(Refusal::Full);
        }
        if self.bucket.as_ref().is_some_and(|b| !b.has_token(now)) {
            return Some(Refusal::RateLimited);
        }
        None
    }

    /// Calls let through and not yet settled.
    pub fn in_flight(&self) -> u32 {
        self.concurrency.in_flight()
    }

    /// Leases of this tool that ran out before their call was reported (a lost host).
    pub fn leases_expired(&self) -> u64 {
        self.leases_expired
    }

    /// Gives back the places a call held (its lease ended one way or another).
    fn give_back(&mut self, retry: bool) {
        self.concurrency.release();
        self.retries_in_flight = self.retries_in_flight.saturating_sub(u32::from(retry));
    }
}

/// Health of every tool of a graph, indexed like its nodes.
#[derive(Clone, Debug)]
pub struct HealthBook {
    tools: Vec<ToolHealth>,
    /// No OPEN breaker's cooldown ends before this, so [`HealthBook::poll`] until then changes
    /// nothing and need not visit every tool: routing polls on every request. May be early
    /// (a breaker closed since), never late.
    quiet_until: Millis,
    /// No weight changes with the clock alone before this (an outcome or a quota call growing
    /// too old to count); see [`HealthBook::steady_until`]. May be early, never late.
    steady_until: Millis,
    retry_budget: RetryBudget,
    /// What this member tells its fleet and has heard from it.
    fleet: fleet::Ledger,
    /// When each tool with a `probe` was last probed.
    probes: probe::ProbeSchedule,
    /// The calls let through and not yet handed back.
    leases: Leases,
    call_timeout_ms: Millis,
    lease_grace_ms: Millis,
}

/// Two books are equal when their tools are; `quiet_until` is only a shortcut.
impl PartialEq for HealthBook {
    fn eq(&self, other: &Self) -> bool {
        self.tools == other.tools
    }
}

impl HealthBook {
    /// Healthy tools with the given breaker settings and default admission.
    pub fn new(graph: &ToolGraph, config: BreakerConfig) -> Self {
        HealthBook::with_admission(graph, config, AdmissionConfig::default())
    }

    /// Healthy tools with the given breaker and admission settings.
    pub fn with_admission(graph: &ToolGraph, config: BreakerConfig, admission: AdmissionConfig) -> Self {
        HealthBook {
            tools: graph
                .nodes()
                .iter()
                .map(|n| ToolHealth {
                    breaker: Breaker::new(config),
                    latencies: VecDeque::new(),
                    latency_at: None,
                    calls: VecDeque::new(),
                    baseline_ms: n.baseline_latency_ms(),
                    quota: n.quota(),
                    base_cost: n.base_cost,
                    concurrency: Concurrency::new(
                        admission.initial_concurrency,
                        n.max_concurrent().or(admission.max_concurrent),
                    ),
                    bucket: n.rate_limit().map(|r| TokenBucket::new(r.calls, r.per_ms)),
                    retries_in_flight: 0,
                    timeout_ms: n.timeout_ms(),
                    leases_expired: 0,
                    latency_learned: false,
                })
                .collect(),
            retry_budget: admission.retry_budget,
            fleet: fleet::Ledger::new(graph.node_count()),
            probes: probe::ProbeSchedule::default(),
            leases: Leases::default(),
            call_timeout_ms: admission.call_timeout_ms,
            lease_grace_ms: admission.lease_grace_ms,
            quiet_until: Millis::MAX,
            steady_until: Millis::MAX,
        }
    }

    /// Lets a call through to `v` now, or says why not. Takes a trial slot of a HALF_OPEN
    /// breaker, a place in the bulkhead and a rate-limit token together, or nothing. The permit's
    /// lease runs out at the tool's timeout plus the grace.
    pub fn admit(&mut self, v: NodeIx, now: Millis, retry: bool) -> Result<Permit, Refusal> {
        self.admit_for(v, now, retry, None)
    }

    /// The call timeout of `v`: its node's `timeout_ms`, else the admission's.
    pub fn call_timeout_ms(&self, v: NodeIx) -> Millis {
        self.tools.get(v).and_then(|t| t.timeout_ms).unwrap_or(self.call_timeout_ms)
    }

    /// [`HealthBook::admit`] for a call given `timeout_ms` (the host's own timeout; the tool's
    /// when `None`).
    pub fn admit_for(
        &mut self,
        v: NodeIx,
        now: Millis,
        retry: bool,
        timeout_ms: Option<Millis>,
    ) -> Result<Permit, Refusal> {
        let expires = now
            .saturating_add(timeout_ms.unwrap_or(self.call_timeout_ms(v)))
            .saturating_add(self.lease_grace_ms);
        let held = self.fleet.held(v, now);
        let t = self.tools.get_mut(v).ok_or(Refusal::Open)?;
        t.breaker.poll(now);
        if let Some(why) = t.refusal(now).or(fleet_hold(t, held)) {
            return Err(why);
        }
        // Checked above: each of these succeeds.
        let generation = t.breaker.generation();
        t.breaker.try_acquire(now);
        t.concurrency.try_acquire();
        if let Some(b) = &mut t.bucket {
            b.try_take(now);
            self.steady_until = self.steady_until.min(b.next_token_at(now));
        }
        t.retries_in_flight += u32::from(retry);
        let lease = self.leases.grant(Lease { tool: v, generation, retry, expires });
        self.quiet_until = self.quiet_until.min(expires);
        Ok(Permit { tool: v, generation, retry, lease })
    }

    /// Why `v` would refuse a call now, if it would.
    pub fn refusal(&self, v: NodeIx, now: Millis) -> Option<Refusal> {
        let held = self.fleet.held(v, now);
        self.tools.get(v).and_then(|t| t.refusal(now).or(fleet_hold(t, held)))
    }

    /// Whether a failed call of `v` may be retried now under the tool's retry budget.
    pub fn retry_allowed(&self, v: NodeIx) -> bool {
        self.tools.get(v).is_some_and(|t| self.retry_budget.allows(t.retries_in_flight, t.in_flight()))
    }

    /// A permitted call ended with `observed`. An outcome of a call let through under an older
    /// breaker generation counts in the error rate only: it cannot move the breaker.
    /// A call whose lease ran out meanwhile still teaches the health its outcome; its place was
    /// given back when the lease ran out.
    pub fn settle(&mut self, permit: Permit, observed: Observation, now: Millis) -> Option<Transition> {
        let held = self.leases.end(permit.lease).is_some();
        let t = self.tools.get_mut(permit.tool)?;
        if held {
            t.give_back(permit.retry);
        }
        match observed {
            Observation::Success { .. } => t.concurrency.on_success(),
            _ => t.concurrency.on_failure(),
        }
        if permit.generation != t.breaker.generation() {
            t.breaker.poll(now);
        }
        if permit.generation != t.breaker.generation() {
            t.breaker.on_stale(now, matches!(observed, Observation::Success { .. }));
            if let Observation::Success { latency_ms } = observed {
                Self::remember_latency(t, latency_ms, now);
            }
            self.watch(permit.tool, now);
            return None;
        }
        self.observe(permit.tool, observed, now)
    }

    /// A permitted call ended without an outcome (the host gave up on it): its place, and a
    /// probe it held, are given back.
    pub fn release(&mut self, permit: Permit) {
        if self.leases.end(permit.lease).is_none() {
            return;
        }
        if let Some(t) = self.tools.get_mut(permit.tool) {
            t.give_back(permit.retry);
            t.breaker.release(permit.generation);
        }
    }

    /// Calls let through and not yet handed back, over every tool.
    pub fn leases_held(&self) -> usize {
        self.leases.len()
    }

    /// The cost `v` is weighed with before its health factors (the graph's `base_cost` unless
    /// [`HealthBook::set_base_cost`] changed it).
    pub fn base_cost(&self, v: NodeIx) -> Option<f64> {
        self.tools.get(v).map(|t| t.base_cost)
    }

    /// Weighs `v` with another cost from now on (learned costs, [`costs`]). A cost that is not
    /// finite and non-negative is refused (false).
    pub fn set_base_cost(&mut self, v: NodeIx, cost: f64) -> bool {
        match self.tools.get_mut(v) {
            Some(t) if cost.is_finite() && cost >= 0.0 => {
                t.base_cost = cost;
                true
            }
            _ => false,
        }
    }

    /// Lets a learned cost carry `v`'s latency (true) or the live latency factor (false, the
    /// default): while a [`costs::CostLearner`] adjusts `v`'s cost, the live factor is 1, so a
    /// slow tool is not counted slow twice and the learner's hysteresis alone decides when a
    /// route moves. False when `v` is unknown.
    pub fn set_latency_learned(&mut self, v: NodeIx, learned: bool) -> bool {
        match self.tools.get_mut(v) {
            Some(t) => {
                t.latency_learned = learned;
                true
            }
            None => false,
        }
    }

    /// Records an outcome of `v` observed now (outside a permit: a host's own observation).
    pub fn observe(&mut self, v: NodeIx, observed: Observation, now: Millis) -> Option<Transition> {
        let change = match observed {
            Observation::Success { latency_ms } => self.on_success(v, latency_ms, now),
            Observation::Failure => self.on_failure(v, now),
            Observation::Outage => self.trip(v, now),
        };
        if change.is_some_and(|c| c.to == BreakerState::Open) {
            if let Some(t) = self.tools.get_mut(v) {
                t.concurrency.restart();
            }
        }
        change
    }

    /// Keeps `quiet_until` no later than the cooldown of `v`'s breaker, if it is OPEN, and
    /// `steady_until` no later than the expiry of the outcome just recorded at `now`.
    pub(super) fn watch(&mut self, v: NodeIx, now: Millis) {
        if let Some(t) = self.tools.get(v) {
            if let Some(at) = t.breaker.reopens_at() {
                self.quiet_until = self.quiet_until.min(at);
            }
            let window_ms = t.breaker.config().window_ms;
            let until = now.saturating_add(window_ms.min(t.breaker.config().cooldown_ms));
            self.steady_until = self.steady_until.min(until);
        }
    }

    /// Until when every tool's weight stays what it is at `now` if nothing is recorded, no
    /// breaker changes state and the clock does not go back: the next expiry, after `now`, of an
    /// outcome in a breaker's window or of a call in a quota window (`Millis::MAX`: never). Lets
    /// a router remember weights between routes instead of weighing every tool again. O(1)
    /// until that time passes, then one walk over the tools.
    pub fn steady_until(&mut self, now: Millis) -> Millis {
        if now < self.steady_until {
            return self.steady_until;
        }
        self.steady_until = self
            .tools
            .iter()
            .flat_map(|t| {
                let calls =
                    t.calls.iter().map(|c| c.saturating_add(QUOTA_WINDOW_MS)).filter(|&at| at > now).min();
                let token = t.bucket.as_ref().map(|b| b.next_token_at(now)).filter(|&at| at > now);
                let slow_until = t
                    .latency_at
                    .map(|at| at.saturating_add(t.breaker.config().cooldown_ms))
                    .filter(|&at| at > now);
                [
                    t.breaker.window_expires_after(now),
                    t.breaker.penalty_ends_after(now),
                    slow_until,
                    calls,
                    token,
                ]
            })
            .flatten()
            .min()
            .unwrap_or(Millis::MAX);
        self.steady_until
    }

    /// How many tools (nodes) the book has a slot for.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the book has no slot at all (an empty graph).
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The health of node `v`, if it is a tool.
    pub fn tool(&self, v: NodeIx) -> Option<&ToolHealth> {
        self.tools.get(v)
    }

    /// The breaker state of node `v` (closed for a waypoint).
    pub fn state(&self, v: NodeIx) -> BreakerState {
        self.tools.get(v).map_or(BreakerState::Closed, |t| t.breaker.state())
    }

    /// Applies the cooldown to every breaker, and gives back the places of leases run out;
    /// returns the transitions it caused (in `out`) and the number of leases that ran out.
    pub fn poll(&mut self, now: Millis, out: &mut Vec<(NodeIx, Transition)>) -> usize {
        if now < self.quiet_until {
            return 0;
        }
        let mut expired = Vec::new();
        self.leases.expire(now, &mut expired);
        for l in &expired {
            if let Some(t) = self.tools.get_mut(l.tool) {
                t.give_back(l.retry);
                t.breaker.release(l.generation);
                t.leases_expired += 1;
            }
        }
        self.quiet_until = self.leases.next_expiry().unwrap_or(Millis::MAX);
        for (v, t) in self.tools.iter_mut().enumerate() {
            if let Some(tr) = t.breaker.poll(now) {
                out.push((v, tr));
            }
            if let Some(at) = t.breaker.reopens_at() {
                self.quiet_until = self.quiet_until.min(at);
            }
        }
        expired.len()
    }
}
