//! The router: a tool graph with one live health, shared by every run it drives.
//!
//! A `Router` holds the graph, the [`HealthBook`] every run and every host observation feeds,
//! the session limits and monitors, and the buffers of its point-to-point route. Runs
//! ([`Run`]) hold only their own task's state and are driven through the router that started
//! them, so an outcome one run reports changes the weights every other run routes on at its
//! next decision: there is no copy of the health to hand back, and nothing to merge.
//!
//! # Method families
//! - **Build**: [`Router::new`], [`Router::with_parts`], [`Router::with_health`].
//! - **Route** (one query, no task): [`Router::route`] over live weights.
//! - **Observe** (outcomes seen outside a run): [`Router::mark_down`], [`Router::mark_up`],
//!   [`Router::record`]; [`Router::advance`] lets cooldowns pass.
//! - **Probe** (tools with a `probe`, down): [`Router::next_probe_at`], [`Router::due_probes`],
//!   then [`Router::settle_probe`] or [`Router::release_probe`] for each.
//! - **Drive runs**: [`Router::start`], then [`Router::next`] / [`Router::report`] /
//!   [`Router::resolve_escalation`] per run, in the order the [`crate::session`] docs give.
//! - **End a run early**: [`Router::abandon`] (a deadline, a call or answer given up on).
//! - **Read**: [`Router::graph`], [`Router::health`], [`Router::config`], [`Router::metrics`].
//!
//! `Router` is `Send` but holds no lock: a multi-threaded host wraps it in its own
//! `Mutex<Router>` and keeps each `Run` beside it (a run is driven only with the router locked).
//!
//! ```
//! use shr_core::{Router, ToolGraph, Task, Action, ToolResult};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"s","tool":false},{"id":"a"},{"id":"b"},
//!   {"id":"g","tool":false}], "edges":[{"from":"s","to":"a","cost":1},{"from":"s","to":"b","cost":2},
//!   {"from":"a","to":"g"},{"from":"b","to":"g"}], "start":"s","goal":"g"}"#).unwrap();
//! let mut router = Router::new(g);
//! let (mut one, mut two) = (router.start(Task::default(), 0).unwrap(), router.start(Task::default(), 0).unwrap());
//! let Ok(Action::CallTools { calls }) = router.next(&mut one, 0) else { panic!() };
//! assert_eq!(calls[0].tool, "a");
//! router.report(&mut one, "a", ToolResult::outage("503"), 5).unwrap();
//! // The other run learns at once: it goes straight to `b`.
//! let Ok(Action::CallTools { calls }) = router.next(&mut two, 6) else { panic!() };
//! assert_eq!(calls[0].tool, "b");
//! ```

use alloc::vec::Vec;

use crate::algo::{Dijkstra, Observer, Plan};
use crate::error::{ConfigError, SessionError};
use crate::graph::{NodeIx, ToolGraph};
use crate::health::{HealthBook, HealthDelta, Observation, Probe, Rejection, Transition, WeightMemo};
use crate::metrics::Metrics;
use crate::monitor::Monitors;
use crate::session::{Env, Run};
use crate::vocab::{Action, Call, Decision, SessionConfig, Task, ToolResult};
use crate::Millis;

/// A tool graph with one live health. See the module docs.
#[derive(Debug)]
pub struct Router {
    graph: ToolGraph,
    health: HealthBook,
    config: SessionConfig,
    monitors: Monitors,
    /// Reused by [`Router::route`] so a route allocates nothing new.
    search: Dijkstra,
    plan: Plan,
    /// Live weights kept between routes while the health holds still; forgotten by every
    /// change to the health.
    memo: WeightMemo,
    metrics: Metrics,
    /// Runs started, for the default key of a run.
    runs: u64,
}

impl Router {
    /// A router on fresh health, with default limits and monitors.
    pub fn new(graph: ToolGraph) -> Router {
        let config = SessionConfig::default();
        Router::build(graph, config, Monitors::default())
    }

    /// A router with given limits and monitors; its health uses `config.breaker`.
    pub fn with_parts(
        graph: ToolGraph,
        config: SessionConfig,
        monitors: Monitors,
    ) -> Result<Router, ConfigError> {
        config.check()?;
        Ok(Router::build(graph, config, monitors))
    }

    /// A router that starts from a given health (kept from an earlier router of the same
    /// graph, say). A health of another size is refused, never silently replaced.
    pub fn with_health(
        graph: ToolGraph,
        health: HealthBook,
        config: SessionConfig,
        monitors: Monitors,
    ) -> Result<Router, ConfigError> {
        config.check()?;
        if health.len() != graph.node_count() {
            return Err(ConfigError::new(
                "health",
                alloc::format!("holds {} tools, the graph has {} nodes", health.len(), graph.node_count()),
            ));
        }
        let mut router = Router::build(graph, config, monitors);
        router.health = health;
        Ok(router)
    }

    fn build(graph: ToolGraph, config: SessionConfig, monitors: Monitors) -> Router {
        Router {
            metrics: Metrics::new(&graph),
            health: HealthBook::with_admission(&graph, config.breaker, config.admission),
            graph,
            config,
            monitors,
            search: Dijkstra::new(),
            plan: Plan::default(),
            memo: WeightMemo::default(),
            runs: 0,
        }
    }

    /// The validated tool graph.
    pub fn graph(&self) -> &ToolGraph {
        &self.graph
    }
    /// The live health every run of the router shares.
    pub fn health(&self) -> &HealthBook {
        &self.health
    }
    /// The limits every run of the router has.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The cheapest route from `from` to `to` over live weights, with breakers brought up to
    /// `now`; `None` when no healthy route exists. The plan is the router's, valid until its
    /// next call.
    pub fn route(&mut self, from: NodeIx, to: NodeIx, now: Millis) -> Option<&Plan> {
        self.route_observed(from, to, now, &mut ())
    }

    /// [`Router::route`], telling `observer` every step of the search (a [`crate::Trace`]
    /// records them for a replay; a recording observer gets the one-sided search).
    pub fn route_observed<O: Observer + ?Sized>(
        &mut self,
        from: NodeIx,
        to: NodeIx,
        now: Millis,
        observer: &mut O,
    ) -> Option<&Plan> {
        self.advance(now);
        // A start that is a tool and down is no place to start from, as for a run's first plan.
        if self.graph.node(from).tool && !self.health.weight(from, now).is_finite() {
            return None;
        }
        self.memo.refresh(&self.graph, &mut self.health, now);
        let weights = self.memo.weights(&self.graph, &self.health, now);
        let found = self.search.route_into(&self.graph, &[from], to, &weights, observer, &mut self.plan);
        found.then_some(&self.plan)
    }

    /// The plan of the last route that found one.
    pub fn last_route(&self) -> &Plan {
        &self.plan
    }

    /// Lets time pass for every breaker: an OPEN one whose cooldown is over is HALF_OPEN now.
    /// Runs do this at each decision; a router between runs is asked by nobody else, so every
    /// view of its health asks first. Returns the transitions.
    pub fn advance(&mut self, now: Millis) -> Vec<(NodeIx, Transition)> {
        let mut changed = Vec::new();
        let expired = self.health.poll(now, &mut changed);
        if !changed.is_empty() || expired > 0 {
            self.memo.forget();
        }
        changed
    }

    /// Marks a tool down: its breaker opens at once (infinite weight) until the cooldown lets a
    /// probe through or [`Router::mark_up`] is called.
    pub fn mark_down(&mut self, tool: NodeIx, now: Millis) -> Option<Transition> {
        self.record(tool, Observation::Outage, now)
    }

    /// Marks a tool up: its breaker closes and its weight is what a healthy tool's is (the
    /// failures and latencies from before are forgotten).
    pub fn mark_up(&mut self, tool: NodeIx, now: Millis) -> Option<Transition> {
        self.memo.forget();
        self.health.reset(tool, now)
    }

    /// Names this router in its fleet: the `origin` of the deltas it publishes.
    pub fn set_origin(&mut self, origin: &str) {
        self.health.set_origin(origin);
    }

    /// How this router weighs its fleet's news (see [`crate::health::fleet::FleetConfig`]).
    pub fn set_fleet_config(&mut self, config: crate::health::fleet::FleetConfig) {
        self.health.set_fleet_config(config);
    }

    /// The health changes this router made on its own evidence since the last drain, to
    /// publish to the fleet (see [`crate::health::fleet`]).
    pub fn drain_health_deltas(&mut self) -> Vec<HealthDelta> {
        self.health.drain(&self.graph)
    }

    /// Applies a fleet member's delta, or says why not.
    pub fn apply_health_delta(
        &mut self,
        delta: &HealthDelta,
        now: Millis,
    ) -> Result<Option<Transition>, Rejection> {
        let out = self.health.apply_delta(&self.graph, delta, now);
        if matches!(out, Ok(Some(_))) {
            self.memo.forget();
        }
        out
    }

    /// The probes due now (tools with a `probe` whose breaker lets one through); the host
    /// calls each tool and settles the probe (see [`crate::health::probe`]).
    pub fn due_probes(&mut self, now: Millis) -> Vec<Probe> {
        let mut out = Vec::new();
        self.health.due_probes(&self.graph, now, &mut out);
        // Cooldowns passed, probe slots taken: weights moved.
        self.memo.forget();
        out
    }

    /// When to ask [`Router::due_probes`] again; `None` while nothing with a `probe` is down.
    pub fn next_probe_at(&mut self, now: Millis) -> Option<Millis> {
        self.advance(now);
        self.health.next_probe_at(&self.graph, now)
    }

    /// A probe's outcome: a success closes the breaker, a failure opens it for another cooldown.
    pub fn settle_probe(&mut self, probe: Probe, observed: Observation, now: Millis) -> Option<Transition> {
        self.memo.forget();
        self.health.settle_probe(probe, observed, now)
    }

    /// A probe that was not made, or whose outcome is unknown: its slot is given back.
    pub fn release_probe(&mut self, probe: Probe) {
        self.memo.forget();
        self.health.release_probe(probe);
    }

    /// The last delta known for each tool, for a member that joins late.
    pub fn health_snapshot(&self) -> Vec<HealthDelta> {
        self.health.snapshot(&self.graph)
    }

    /// Weighs `tool` with another cost from now on (learned costs); false when the cost is not
    /// finite and non-negative or the tool unknown.
    pub fn set_base_cost(&mut self, tool: NodeIx, cost: f64) -> bool {
        self.memo.forget();
        self.health.set_base_cost(tool, cost)
    }

    /// The opt-in cost adjustment: `learner`'s changes (within the bounds set on it, past its
    /// hysteresis) applied to this router's weights, each returned as a `CostAdjusted` event.
    /// A tool the learner adjusts (one with bounds) has its latency carried by its learned
    /// cost, not by the live latency factor (see [`HealthBook::set_latency_learned`]): a slow
    /// tool is not counted slow twice, and the learner's hysteresis decides when routes move.
    pub fn adjust_costs(
        &mut self,
        learner: &mut crate::health::costs::CostLearner,
        now: Millis,
    ) -> Vec<crate::event::Event> {
        for v in 0..self.graph.node_count() {
            if learner.bounds(v).is_some() && self.health.set_latency_learned(v, true) {
                self.memo.forget();
            }
        }
        let changes = learner.adjust(&self.graph);
        let mut events = Vec::with_capacity(changes.len());
        for c in changes {
            self.set_base_cost(c.tool, c.to);
            events.push(crate::event::Event {
                seq: c.seq,
                at: now,
                kind: crate::event::EventKind::CostAdjusted {
                    tool: self.graph.id(c.tool).into(),
                    from: c.from,
                    to: c.to,
                    reason: c.reason,
                },
            });
        }
        events
    }

    /// Feeds a run's `ToolSucceeded` and `ToolFailed` events (this router's own telemetry) to
    /// a cost learner; a failure that is only a validator's verdict on a result is not one.
    pub fn observe_costs(
        &self,
        learner: &mut crate::health::costs::CostLearner,
        events: &[crate::event::Event],
    ) {
        use crate::event::EventKind;
        for e in events {
            let (tool, latency, ok) = match &e.kind {
                EventKind::ToolSucceeded { tool, latency_ms } => (tool, *latency_ms, true),
                EventKind::ToolFailed { tool, implicit: false, .. } => (tool, f64::NAN, false),
                _ => continue,
            };
            if let Some(v) = self.graph.index(tool) {
                learner.observe(v, latency, ok, None);
            }
        }
    }

    /// Records an outcome the host observed outside a run.
    pub fn record(&mut self, tool: NodeIx, observed: Observation, now: Millis) -> Option<Transition> {
        self.memo.forget();
        self.health.observe(tool, observed, now)
    }

    /// Starts a run of `task` on this router's graph.
    pub fn start(&mut self, task: Task, now: Millis) -> Result<Run, SessionError> {
        self.runs += 1;
        let run = Run::new(&self.graph, task, now, self.runs)?;
        self.metrics.run_started();
        Ok(run)
    }

    /// Ends `run` for the host (its deadline passed, it gave up waiting on a call or an answer):
    /// the places its calls in flight held are given back, and it finishes escalated with an
    /// `Escalated` event of reason `deadline` naming every failure it saw (nobody is asked).
    pub fn abandon(&mut self, run: &mut Run, why: &str, now: Millis) -> Result<(), SessionError> {
        self.drive(run, |run, env| {
            run.abandon(env, why, now);
            Ok(())
        })
    }

    /// Gives back the places `run`'s calls in flight hold, with no event and no outcome: for a
    /// run its host drops (a freed session, a rejected `run`). Every later report of those calls
    /// is refused (`NotInFlight`). A lease the host never gives back runs out by itself (see
    /// [`crate::health::lease`]); this gives it back at once.
    pub fn release_run(&mut self, run: &mut Run) {
        if run.fits(&self.graph) {
            run.release_calls(&mut self.health);
            self.memo.forget();
        }
    }

    /// The router's counters and gauges in the Prometheus text exposition format.
    pub fn metrics(&mut self, now: Millis) -> alloc::string::String {
        self.advance(now);
        self.metrics.render(&self.graph, &self.health, now)
    }

    /// What the host should do now for `run`.
    pub fn next(&mut self, run: &mut Run, now: Millis) -> Result<Action, SessionError> {
        self.drive(run, |run, env| Ok(run.next(env, now)))
    }

    /// Reports the outcome of a call made on `run`'s behalf.
    pub fn report(
        &mut self,
        run: &mut Run,
        tool: &str,
        result: ToolResult,
        now: Millis,
    ) -> Result<(), SessionError> {
        self.drive(run, |run, env| run.report(env, tool, result, now))
    }

    /// Answers `run`'s pending escalation.
    pub fn resolve_escalation(
        &mut self,
        run: &mut Run,
        decision: Decision,
        now: Millis,
    ) -> Result<(), SessionError> {
        self.drive(run, |run, env| run.resolve_escalation(env, decision, now))
    }

    /// Control-flow fault injection (seed 004): the host runs `tool` instead of the calls `run`
    /// was just given; the run plans again from wherever that leaves it.
    pub fn redirect(&mut self, run: &mut Run, tool: &str, now: Millis) -> Result<Call, SessionError> {
        self.drive(run, |run, env| run.redirect(env, tool, now))
    }

    /// One step of `run` with this router's graph and live health.
    fn drive<T>(
        &mut self,
        run: &mut Run,
        step: impl FnOnce(&mut Run, &mut Env<'_>) -> Result<T, SessionError>,
    ) -> Result<T, SessionError> {
        if !run.fits(&self.graph) {
            return Err(SessionError::ForeignRun);
        }
        let mut env = Env {
            graph: &self.graph,
            health: &mut self.health,
            config: &self.config,
            monitors: &self.monitors,
        };
        let before = run.events().len();
        let out = step(run, &mut env);
        for e in run.events().get(before..).unwrap_or(&[]) {
            self.metrics.observe(&self.graph, e);
        }
        // A run's step may have recorded outcomes, counted calls or moved breakers.
        self.memo.forget();
        out
    }
}
