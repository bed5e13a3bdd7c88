//! A three-state circuit breaker per tool (Nygard, 2007), driven by a clock value passed in.
//!
//! CLOSED -> OPEN when, over a sliding window (time and call count), the failure rate reaches its
//! threshold after a minimum number of calls (Resilience4j's `minimumNumberOfCalls`, opossum's
//! `volumeThreshold`), or failures run consecutively; a hard failure reported by the host (a
//! structured permanent failure, seed 003) opens it at once. OPEN -> HALF_OPEN after the
//! cooldown. HALF_OPEN lets a budget of trial calls through, as Resilience4j's half-open state
//! permits real calls: while a trial slot is free the tool weighs what it weighs when healthy, so
//! the next run whose plan could use it is routed through it (healing back needs no configured
//! probe); once the slots are taken it weighs infinite. A success closes it with the window's
//! old failures forgotten (no penalty from before the outage outlives the recovery); a failure
//! reopens it for another cooldown.
//!
//! ```
//! use shr_core::health::{Breaker, BreakerConfig, BreakerState};
//! let mut b = Breaker::new(BreakerConfig { cooldown_ms: 100, ..BreakerConfig::default() });
//! b.trip(0);
//! assert_eq!(b.availability(), f64::INFINITY);
//! b.poll(100);
//! assert_eq!((b.state(), b.availability()), (BreakerState::HalfOpen, 1.0), "a trial slot is free");
//! assert!(b.try_acquire(100) && !b.admits(), "one trial call at a time");
//! assert!(b.on_success(120).is_some());
//! assert_eq!(b.state(), BreakerState::Closed);
//! ```

use alloc::collections::VecDeque;
use alloc::format;
use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::Millis;

/// Breaker thresholds. The defaults follow common resilience-library settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BreakerConfig {
    /// Failure rate (0..1) over the window that opens the breaker.
    pub failure_rate: f64,
    /// Consecutive failures that open the breaker regardless of the rate.
    pub consecutive_failures: u32,
    /// The window: outcomes older than this are forgotten...
    pub window_ms: Millis,
    /// ...and at most this many recent outcomes are kept.
    pub window_calls: usize,
    /// The rate is only judged once the window holds this many calls.
    pub min_calls: u32,
    /// How long the breaker stays OPEN before letting probes through.
    pub cooldown_ms: Millis,
    /// Trial calls let through at once while HALF_OPEN (Resilience4j's
    /// `permittedNumberOfCallsInHalfOpenState`): real calls of runs, or configured probes.
    pub half_open_probes: u32,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            failure_rate: 0.5,
            consecutive_failures: 3,
            window_ms: 15 * 60 * 1000,
            window_calls: 100,
            min_calls: 5,
            cooldown_ms: 30_000,
            half_open_probes: 1,
        }
    }
}

impl BreakerConfig {
    /// The first setting that would make the breaker misbehave, named with why: a failure rate
    /// outside 0..=1 (NaN never opens it) or no trial call (HALF_OPEN forever).
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(0.0..=1.0).contains(&self.failure_rate) {
            return Err(ConfigError::new(
                "failure_rate",
                format!("must be a number in 0..=1, got {}", self.failure_rate),
            ));
        }
        if self.half_open_probes == 0 {
            return Err(ConfigError::new(
                "half_open_probes",
                "must be at least 1: with none a HALF_OPEN tool never recovers",
            ));
        }
        Ok(())
    }
}

/// The breaker's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    /// Calls go through; failures are counted.
    Closed,
    /// Calls are refused until the cooldown has passed.
    Open,
    /// After the cooldown: trial calls go through, a success closes it, a failure reopens it.
    HalfOpen,
}

/// A change of state, returned so the caller can log it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    /// The state before.
    pub from: BreakerState,
    /// The state after.
    pub to: BreakerState,
}

/// One tool's breaker.
#[derive(Clone, Debug, PartialEq)]
pub struct Breaker {
    config: BreakerConfig,
    state: BreakerState,
    opened_at: Millis,
    probes_used: u32,
    consecutive: u32,
    window: VecDeque<(Millis, bool)>,
    /// When the last failure was remembered.
    last_failure: Option<Millis>,
    /// Counts state changes: a call admitted under an older generation reports a stale outcome,
    /// which is remembered but never moves the state (a slow call that left before the breaker
    /// opened must not close it, nor stand for the probe of a half-open one).
    generation: u64,
}

impl Breaker {
    /// A closed breaker with these settings.
    pub fn new(config: BreakerConfig) -> Self {
        Breaker {
            config,
            state: BreakerState::Closed,
            opened_at: 0,
            probes_used: 0,
            consecutive: 0,
            window: VecDeque::new(),
            last_failure: None,
            generation: 0,
        }
    }

    /// The current generation (see the field's docs).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Whether a call could go through now, as of the last [`Breaker::poll`] (nothing taken).
    pub fn admits(&self) -> bool {
        match self.state {
            BreakerState::Closed => true,
            BreakerState::Open => false,
            BreakerState::HalfOpen => self.probes_used < self.config.half_open_probes,
        }
    }

    /// A call admitted in generation `generation` ended without an outcome (abandoned): a probe
    /// it held is given back, or a HALF_OPEN breaker would wait forever for it.
    pub fn release(&mut self, generation: u64) {
        if generation == self.generation && self.state == BreakerState::HalfOpen {
            self.probes_used = self.probes_used.saturating_sub(1);
        }
    }

    /// The outcome of a call admitted under an older generation: it counts in the window (the
    /// error rate) and nowhere else.
    pub fn on_stale(&mut self, now: Millis, ok: bool) {
        self.remember(now, ok);
    }

    /// The breaker's settings.
    pub fn config(&self) -> &BreakerConfig {
        &self.config
    }

    /// The state as of the last event; call [`Breaker::poll`] first to apply the cooldown.
    pub fn state(&self) -> BreakerState {
        self.state
    }

    /// Applies the passage of time: OPEN becomes HALF_OPEN once the cooldown has elapsed.
    pub fn poll(&mut self, now: Millis) -> Option<Transition> {
        if self.state == BreakerState::Open && now.saturating_sub(self.opened_at) >= self.config.cooldown_ms {
            self.probes_used = 0;
            return Some(self.set(BreakerState::HalfOpen));
        }
        None
    }

    /// When an OPEN breaker's cooldown ends (`None` unless OPEN): before then [`Breaker::poll`]
    /// changes nothing.
    pub fn reopens_at(&self) -> Option<Millis> {
        (self.state == BreakerState::Open).then(|| {
            if self.config.cooldown_ms == 0 {
                // Due at once, even on a clock that went back past `opened_at`.
                0
            } else {
                self.opened_at.saturating_add(self.config.cooldown_ms)
            }
        })
    }

    /// The first time after `now` when an outcome in the window grows too old to count, which
    /// changes [`Breaker::error_rate`]; `None` when none will.
    pub fn window_expires_after(&self, now: Millis) -> Option<Millis> {
        self.window.iter().map(|(t, _)| t.saturating_add(self.config.window_ms)).filter(|&at| at > now).min()
    }

    /// Whether a call may go through now (CLOSED, or a HALF_OPEN probe left). Taking a probe
    /// uses it up.
    pub fn try_acquire(&mut self, now: Millis) -> bool {
        self.poll(now);
        match self.state {
            BreakerState::Closed => true,
            BreakerState::Open => false,
            BreakerState::HalfOpen => {
                if self.probes_used < self.config.half_open_probes {
                    self.probes_used += 1;
                    true
                } else {
                    false
                }
            }
        }
    }

    /// Records a successful call.
    pub fn on_success(&mut self, now: Millis) -> Option<Transition> {
        self.poll(now);
        self.remember(now, true);
        self.consecutive = 0;
        match self.state {
            BreakerState::HalfOpen => {
                // A fresh window: the failures that opened the breaker are history now.
                self.window.clear();
                self.remember(now, true);
                Some(self.set(BreakerState::Closed))
            }
            _ => None,
        }
    }

    /// Records a failed call that may be transient: counts toward the thresholds.
    pub fn on_failure(&mut self, now: Millis) -> Option<Transition> {
        self.poll(now);
        self.remember(now, false);
        self.consecutive += 1;
        match self.state {
            BreakerState::HalfOpen => Some(self.open(now)),
            BreakerState::Open => None,
            BreakerState::Closed => {
                let calls = self.window.len() as u32;
                let failures = self.window.iter().filter(|(_, ok)| !ok).count() as f64;
                let rate_hit =
                    calls >= self.config.min_calls && failures / calls as f64 >= self.config.failure_rate;
                if rate_hit || self.consecutive >= self.config.consecutive_failures {
                    Some(self.open(now))
                } else {
                    None
                }
            }
        }
    }

    /// A hard failure (outage reported by the host, failed probe): open at once.
    pub fn trip(&mut self, now: Millis) -> Option<Transition> {
        self.poll(now);
        self.remember(now, false);
        self.consecutive += 1;
        if self.state == BreakerState::Open {
            self.opened_at = now;
            return None;
        }
        Some(self.open(now))
    }

    /// Another member of the fleet opened this tool until `until`: OPEN with that cooldown end
    /// (an OPEN breaker keeps the later of the two). Returns the transition, if any.
    pub fn open_until(&mut self, until: Millis, now: Millis) -> Option<Transition> {
        let opened_at = until.saturating_sub(self.config.cooldown_ms).min(now);
        if self.state == BreakerState::Open {
            self.opened_at = self.opened_at.max(opened_at);
            return None;
        }
        Some(self.open(opened_at))
    }

    /// The tool is back (an operator, a host's probe or the fleet says so): CLOSED, with the
    /// window's failures forgotten. No weight penalty ramps down after it: a ramp waits for
    /// successes, and where a cheaper alternative exists no run would send one, so the tool
    /// would never come back into use; the admission's slow-start window keeps a herd off it.
    pub fn reset(&mut self) -> Option<Transition> {
        self.consecutive = 0;
        self.window.clear();
        if self.state == BreakerState::Closed {
            return None;
        }
        Some(self.set(BreakerState::Closed))
    }

    /// Same as [`Breaker::reset`]: the name the probe and fleet code use.
    pub fn recovered(&mut self) -> Option<Transition> {
        self.reset()
    }

    /// The availability factor of the composite weight: 1 when CLOSED, and while HALF_OPEN with
    /// a trial slot free (so a run takes the trial); infinite when OPEN or every slot is out.
    pub fn availability(&self) -> f64 {
        if self.admits() {
            1.0
        } else {
            f64::INFINITY
        }
    }

    /// The failure rate a weight should count now: the window's while its last failure is
    /// younger than the cooldown, else 0. A tool weighed down by its failures gets no calls, so
    /// no success could ever lift the weight; a cooldown with no new failure does, and the next
    /// run tries it again (a failure then weighs it down again). While HALF_OPEN the trial, not
    /// the failures that opened it, decides: 0.
    pub fn weighed_error_rate(&self, now: Millis) -> f64 {
        match self.last_failure {
            Some(at)
                if self.state != BreakerState::HalfOpen
                    && now.saturating_sub(at) < self.config.cooldown_ms =>
            {
                self.error_rate(now)
            }
            _ => 0.0,
        }
    }

    /// When [`Breaker::weighed_error_rate`] drops to 0 with no new outcome, if after `now`.
    pub fn penalty_ends_after(&self, now: Millis) -> Option<Millis> {
        self.last_failure.map(|at| at.saturating_add(self.config.cooldown_ms)).filter(|&end| end > now)
    }

    /// Failure rate over the current window (0 when empty).
    pub fn error_rate(&self, now: Millis) -> f64 {
        let recent = self.window.iter().filter(|(t, _)| now.saturating_sub(*t) < self.config.window_ms);
        let (mut calls, mut failures) = (0u32, 0u32);
        for (_, ok) in recent {
            calls += 1;
            failures += u32::from(!ok);
        }
        if calls == 0 {
            0.0
        } else {
            failures as f64 / calls as f64
        }
    }

    fn remember(&mut self, now: Millis, ok: bool) {
        while self.window.len() >= self.config.window_calls.max(1) {
            self.window.pop_front();
        }
        while self.window.front().is_some_and(|(t, _)| now.saturating_sub(*t) >= self.config.window_ms) {
            self.window.pop_front();
        }
        self.window.push_back((now, ok));
        if !ok {
            self.last_failure = Some(now);
        }
    }

    fn open(&mut self, now: Millis) -> Transition {
        self.opened_at = now;
        self.set(BreakerState::Open)
    }

    fn set(&mut self, to: BreakerState) -> Transition {
        let t = Transition { from: self.state, to };
        self.state = to;
        self.generation = self.generation.wrapping_add(1);
        t
    }
}
