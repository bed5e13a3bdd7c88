//! The self-healing loop as a sans-IO state machine (DESIGN section 6).
//!
//! The session decides; the host performs the calls. Call [`Session::next`] to learn what to
//! do ([`Action::CallTools`], [`Action::Wait`], [`Action::Escalate`], [`Action::Finished`]),
//! perform it, and report back with [`Session::report`] or [`Session::resolve_escalation`].
//! Time is a clock value passed in; the session never reads a clock, so the same graph, the same
//! outcomes and the same clock give the same events.
//!
//! ```
//! use shr_core::{ToolGraph, Session, Task, Action, ToolResult};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"start","tool":false},{"id":"pay"},
//!   {"id":"done","tool":false}], "edges":[{"from":"start","to":"pay"},{"from":"pay","to":"done"}],
//!   "start":"start","goal":"done"}"#).unwrap();
//! let mut s = Session::new(g, Task::default(), 0).unwrap();
//! let Action::CallTools { calls } = s.next(0) else { panic!() };
//! assert_eq!(calls[0].tool, "pay");
//! s.report("pay", ToolResult::ok(serde_json::json!({}), 12.0), 12).unwrap();
//! assert!(matches!(s.next(12), Action::Finished { outcome } if outcome.path == ["start", "pay", "done"]));
//! ```

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::algo::{Dijkstra, Plan};
use crate::error::SessionError;
use crate::event::{Event, EventKind, PlanView};
use crate::graph::{Join, NodeIx, ToolGraph};
use crate::health::{BreakerConfig, HealthBook, Transition};
use crate::monitor::{budget_signal, compete, Context, DecisionView, Monitors, Signal, SignalKind};
use crate::validate;
use crate::Millis;

/// A task: where to go, and what monitors should know.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Goal node id; the graph's goal when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// Start node id; the graph's start when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default)]
    pub context: Context,
}

/// Session limits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionConfig {
    /// Tool calls allowed in the task (retries included).
    pub tool_budget: u32,
    /// Escalations allowed before the session gives up with reason `budget`.
    pub escalation_budget: u32,
    /// Visits allowed per tool in a cyclic workflow (revisits included).
    pub visit_budget: u32,
    pub breaker: BreakerConfig,
}

impl SessionConfig {
    /// The first setting that is out of range, named (see [`BreakerConfig::check`]).
    pub fn check(&self) -> Result<(), String> {
        self.breaker.check().map_err(|m| alloc::format!("breaker.{m}"))
    }
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            tool_budget: 64,
            escalation_budget: 4,
            visit_budget: 4,
            breaker: BreakerConfig::default(),
        }
    }
}

/// The seed 003 failure categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Bad arguments: ask for better input. Says nothing about the tool's health.
    Input,
    /// Outage, timeout, bad response: the tool's health suffers; reroute.
    Service,
    /// Refused by rule: try an alternative, or escalate.
    Policy,
}

/// A failed call as the host reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolFailure {
    pub category: Category,
    /// Worth retrying (a timeout, a 503). A permanent failure skips the retries.
    #[serde(default)]
    pub transient: bool,
    #[serde(default)]
    pub message: String,
    /// Recovery text from the tool (seed 003), carried verbatim into an escalation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_action: Option<String>,
    #[serde(default)]
    pub latency_ms: f64,
}

/// The outcome of one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ToolResult {
    Ok {
        #[serde(default)]
        output: Value,
        #[serde(default)]
        latency_ms: f64,
    },
    Err(ToolFailure),
}

impl ToolResult {
    pub fn ok(output: Value, latency_ms: f64) -> Self {
        ToolResult::Ok { output, latency_ms }
    }

    /// A permanent failure of the given category, with no recovery text.
    pub fn failed(category: Category, message: impl Into<String>) -> Self {
        ToolResult::Err(ToolFailure {
            category,
            transient: false,
            message: message.into(),
            agent_action: None,
            latency_ms: 0.0,
        })
    }

    /// A permanent service failure: an outage.
    pub fn outage(message: impl Into<String>) -> Self {
        ToolResult::failed(Category::Service, message)
    }

    /// A transient service failure (timeout, 503).
    pub fn transient(message: impl Into<String>) -> Self {
        ToolResult::failed(Category::Service, message).with_transient()
    }

    /// The same failure, marked worth retrying. A success is left as it is.
    pub fn with_transient(mut self) -> Self {
        if let ToolResult::Err(f) = &mut self {
            f.transient = true;
        }
        self
    }

    /// The same failure, carrying the tool's recovery text (seed 003). A success is left as it is.
    pub fn with_agent_action(mut self, text: impl Into<String>) -> Self {
        if let ToolResult::Err(f) = &mut self {
            f.agent_action = Some(text.into());
        }
        self
    }
}

/// A call the host should make.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub tool: String,
    /// 1 for the first call, 2 for the first retry...
    pub attempt: u32,
    /// Do not call before this clock value (retry backoff).
    pub not_before: Millis,
}

/// Why the session asks for help.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EscalationReason {
    /// No path to the goal exists over healthy tools.
    NoPath,
    /// A risk signal won before acting.
    Risk,
    /// A budget (tool calls, escalations) ran out.
    Budget,
    /// A tool refused by policy and no alternative exists.
    Policy,
    /// A tool rejected its input; better input is needed.
    Input,
}

/// What the session asks the LLM (or a person).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscalationRequest {
    pub reason: EscalationReason,
    pub goal: String,
    pub failed: Vec<String>,
    pub completed: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<Signal>,
}

/// The answer to an escalation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Pursue another goal node instead.
    Demote { goal: String },
    /// Carry on (a risk was reviewed and accepted, or input was fixed).
    Approve,
    /// Stop the task with a message. Terminal.
    Abort { message: String },
    /// Hand the task to someone else. Terminal.
    HandOff { to: String },
}

/// How a task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The original goal was reached.
    Completed,
    /// A demoted goal was reached.
    Demoted,
    /// An escalation ended the task (abort or hand-off).
    Escalated,
}

/// The result of a task, covering the whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: Status,
    pub goal: String,
    pub original_goal: String,
    /// Completed nodes in completion order, over the whole run.
    pub path: Vec<String>,
    /// Sum of the description costs of every edge the run traversed.
    pub cost: f64,
    pub tool_calls: u32,
    pub llm_calls: u32,
    pub reroutes: u32,
    pub retries: u32,
    pub failures: u32,
    /// Planned revisits of completed tools (cyclic workflows).
    #[serde(default)]
    pub revisits: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What the host should do next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    CallTools {
        calls: Vec<Call>,
    },
    /// Calls are in flight; report them first.
    Wait,
    Escalate {
        request: EscalationRequest,
    },
    Finished {
        outcome: Outcome,
    },
}

/// Why tools are being routed around at this decision point.
#[derive(Clone, Debug, Default)]
struct Pending {
    failed: Vec<NodeIx>,
    policy: bool,
    agent_action: Option<String>,
}

/// The self-healing session. See the module docs.
pub struct Session {
    graph: ToolGraph,
    health: HealthBook,
    config: SessionConfig,
    monitors: Monitors,
    context: Context,
    start: NodeIx,
    goal: NodeIx,
    original_goal: NodeIx,
    plan: Option<Plan>,
    dijkstra: Dijkstra,
    completed: Vec<bool>,
    completion: Vec<NodeIx>,
    cost: f64,
    in_flight: BTreeMap<NodeIx, u32>,
    retry_at: BTreeMap<NodeIx, (u32, Millis)>,
    retries_used: Vec<u32>,
    /// Failed (service), refused (policy) or known bad in this task: never routed through again
    /// in this task, whatever its breaker says later.
    avoided: Vec<bool>,
    failed_ids: Vec<String>,
    /// Nodes an edge of the run has left (so they are not the tip of a branch).
    left: Vec<bool>,
    needs_replan: bool,
    pending: Pending,
    acknowledged: Vec<bool>,
    escalation: Option<EscalationRequest>,
    outcome: Option<Outcome>,
    events: Vec<Event>,
    now: Millis,
    tool_calls: u32,
    llm_calls: u32,
    reroutes: u32,
    retries: u32,
    failures: u32,
    revisits: u32,
    signals: Vec<Signal>,
    /// Last result of each tool, for edge guards.
    outputs: Vec<Option<Value>>,
    visits: Vec<u32>,
    /// Tool completions in order (revisits repeat); monitors look for thrashing in it.
    history: Vec<NodeIx>,
    /// `history` before this index was already escalated as thrashing.
    thrash_seen: usize,
}

impl Session {
    /// A session on fresh health, with default limits and monitors.
    pub fn new(graph: ToolGraph, task: Task, now: Millis) -> Result<Session, SessionError> {
        let health = HealthBook::new(&graph, BreakerConfig::default());
        Session::with_parts(graph, task, health, SessionConfig::default(), Monitors::default(), now)
    }

    /// A session on given health (shared across tasks by a router), limits and monitors.
    pub fn with_parts(
        graph: ToolGraph,
        task: Task,
        health: HealthBook,
        config: SessionConfig,
        monitors: Monitors,
        now: Millis,
    ) -> Result<Session, SessionError> {
        let lookup = |id: &Option<String>, default: NodeIx| match id {
            None => Ok(default),
            Some(id) => graph.index(id).ok_or_else(|| SessionError::UnknownNode { id: id.clone() }),
        };
        let goal = lookup(&task.goal, graph.goal())?;
        let start = lookup(&task.start, graph.start())?;
        let n = graph.node_count();
        let health = if health.len() == n { health } else { HealthBook::new(&graph, config.breaker) };
        Ok(Session {
            acknowledged: alloc::vec![false; graph.risk_rules().len()],
            health,
            config,
            monitors,
            context: task.context,
            start,
            goal,
            original_goal: goal,
            plan: None,
            dijkstra: Dijkstra::new(),
            completed: alloc::vec![false; n],
            completion: Vec::new(),
            cost: 0.0,
            in_flight: BTreeMap::new(),
            retry_at: BTreeMap::new(),
            retries_used: alloc::vec![0; n],
            avoided: alloc::vec![false; n],
            failed_ids: Vec::new(),
            left: alloc::vec![false; n],
            needs_replan: false,
            pending: Pending::default(),
            escalation: None,
            outcome: None,
            events: Vec::new(),
            now,
            tool_calls: 0,
            llm_calls: 0,
            reroutes: 0,
            retries: 0,
            failures: 0,
            revisits: 0,
            signals: Vec::new(),
            outputs: alloc::vec![None; n],
            visits: alloc::vec![0; n],
            history: Vec::new(),
            thrash_seen: 0,
            graph,
        })
    }
}

/// What the winner of a decision point asks for.
enum Verdict {
    Proceed,
    Changed,
}

impl Session {
    pub fn graph(&self) -> &ToolGraph {
        &self.graph
    }
    pub fn health(&self) -> &HealthBook {
        &self.health
    }
    /// Gives the health back (a router keeps it across tasks).
    pub fn into_health(self) -> HealthBook {
        self.health
    }
    /// Every event so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }
    /// Events from position `seq` on (for streaming to a listener).
    pub fn events_since(&self, seq: usize) -> &[Event] {
        self.events.get(seq..).unwrap_or(&[])
    }
    pub fn llm_calls(&self) -> u32 {
        self.llm_calls
    }
    pub fn tool_calls(&self) -> u32 {
        self.tool_calls
    }
    /// The current plan.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }
    /// The current goal's id.
    pub fn goal(&self) -> &str {
        self.graph.id(self.goal)
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    pub fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }
    /// The pending escalation, if any.
    pub fn escalation(&self) -> Option<&EscalationRequest> {
        self.escalation.as_ref()
    }
    /// Completed nodes, in completion order.
    pub fn completed(&self) -> impl Iterator<Item = &str> {
        self.completion.iter().map(|&v| self.graph.id(v))
    }

    /// What the host should do now.
    pub fn next(&mut self, now: Millis) -> Action {
        self.tick(now);
        // Every round completes a node, replans, escalates or returns, so this bound is never
        // reached on a well-formed run; it keeps a bug from becoming an endless loop in a host.
        for _ in 0..(4 * self.graph.node_count() + 16) {
            if let Some(outcome) = &self.outcome {
                return Action::Finished { outcome: outcome.clone() };
            }
            if let Some(request) = &self.escalation {
                return Action::Escalate { request: request.clone() };
            }
            if !self.pending.failed.is_empty() {
                // K failures reported together cost one recomputation: wait for the batch.
                if !self.in_flight.is_empty() {
                    return Action::Wait;
                }
                let failed = self.pending.failed.clone();
                if let Verdict::Changed = self.decide(&[], &failed) {
                    if self.escalation.is_some() || self.outcome.is_some() {
                        continue;
                    }
                }
                self.replan();
                continue;
            }
            if self.plan.is_none() || self.needs_replan {
                self.replan();
                continue;
            }
            self.poll_breakers();
            if self.plan_guard_broken() {
                self.needs_replan = true;
                continue;
            }
            if self.complete_ready_waypoints() {
                continue;
            }
            let ready = self.ready_tools();
            if ready.is_empty() {
                if !self.in_flight.is_empty() {
                    return Action::Wait;
                }
                self.needs_replan = true;
                continue;
            }
            match self.decide(&ready, &[]) {
                Verdict::Proceed => {
                    // The tool budget is a limit, not a preference: a routine signal that outbids
                    // the budget signal (an intent rule above its priority, found by fuzzing)
                    // must not spend past it.
                    if let Some(signal) = budget_signal(self.tool_calls, ready.len(), self.config.tool_budget)
                    {
                        self.escalate(EscalationReason::Budget, None, Some(signal));
                        continue;
                    }
                    return Action::CallTools { calls: self.dispatch(&ready) };
                }
                Verdict::Changed => continue,
            }
        }
        self.finish(Status::Escalated, Some("session made no progress".to_string()));
        match &self.outcome {
            Some(outcome) => Action::Finished { outcome: outcome.clone() },
            None => Action::Wait,
        }
    }

    /// Reports the outcome of a call made on the session's behalf.
    pub fn report(&mut self, tool: &str, result: ToolResult, now: Millis) -> Result<(), SessionError> {
        if self.outcome.is_some() {
            return Err(SessionError::Finished);
        }
        let v = self.graph.index(tool).ok_or_else(|| SessionError::UnknownNode { id: tool.to_string() })?;
        let attempt =
            self.in_flight.remove(&v).ok_or_else(|| SessionError::NotInFlight { tool: tool.to_string() })?;
        self.tick(now);
        let (failure, implicit) = match result {
            ToolResult::Ok { output, latency_ms } => {
                match validate::check_all(&self.graph.node(v).validators, &output) {
                    Ok(()) => {
                        self.emit(EventKind::ToolSucceeded { tool: tool.to_string(), latency_ms });
                        // A waypoint keeps no result (a host can only report one by redirecting
                        // to it): revisiting it makes no new one, so a stale result failing a
                        // guard would trap every plan through it (found by fuzzing).
                        if self.graph.node(v).tool {
                            self.outputs[v] = Some(output);
                        }
                        let t = self.health.on_success(v, latency_ms, self.now);
                        self.breaker_event(v, t);
                        self.complete(v);
                        return Ok(());
                    }
                    Err(message) => (
                        ToolFailure {
                            category: Category::Service,
                            transient: true,
                            message,
                            agent_action: None,
                            latency_ms,
                        },
                        true,
                    ),
                }
            }
            ToolResult::Err(f) => (f, false),
        };
        self.failures += 1;
        self.emit(EventKind::ToolFailed {
            tool: tool.to_string(),
            category: failure.category,
            implicit,
            transient: failure.transient,
            message: failure.message.clone(),
            agent_action: failure.agent_action.clone(),
        });
        match failure.category {
            Category::Input => {
                // Bad input says nothing about the tool's health: ask for better input.
                self.escalate(EscalationReason::Input, failure.agent_action, None);
            }
            Category::Service => {
                let policy = self.graph.node(v).retry;
                if failure.transient && self.retries_used[v] < policy.attempts {
                    let t = self.health.on_failure(v, self.now);
                    self.breaker_event(v, t);
                    if self.health.state(v) != crate::health::BreakerState::Open {
                        self.retries_used[v] += 1;
                        self.retries += 1;
                        // Saturating: a description may declare any u64 backoff (found by
                        // fuzzing; it overflowed).
                        let not_before = self
                            .now
                            .saturating_add(policy.backoff_ms.saturating_mul(self.retries_used[v] as u64));
                        self.retry_at.insert(v, (attempt + 1, not_before));
                        self.emit(EventKind::Retried {
                            tool: tool.to_string(),
                            attempt: attempt + 1,
                            not_before,
                        });
                        return Ok(());
                    }
                } else {
                    let t = self.health.trip(v, self.now);
                    self.breaker_event(v, t);
                }
                self.route_around(v, false, None);
            }
            Category::Policy => self.route_around(v, true, failure.agent_action),
        }
        Ok(())
    }

    /// Answers the pending escalation.
    pub fn resolve_escalation(&mut self, decision: Decision, now: Millis) -> Result<(), SessionError> {
        if self.outcome.is_some() {
            return Err(SessionError::Finished);
        }
        let request = self.escalation.take().ok_or(SessionError::NoEscalation)?;
        self.tick(now);
        if let Some(Signal { kind: SignalKind::Risk { rule, .. }, .. }) = &request.signal {
            if let Some(a) = self.acknowledged.get_mut(*rule) {
                *a = true;
            }
        }
        match decision {
            Decision::Demote { goal } => {
                let Some(g) = self.graph.index(&goal) else {
                    self.escalation = Some(request);
                    return Err(SessionError::UnknownGoal { goal });
                };
                self.emit(EventKind::GoalDemoted { from: self.graph.id(self.goal).to_string(), to: goal });
                self.goal = g;
                self.needs_replan = true;
                // A goal already reached has nothing left to plan: without this the session
                // replanned an empty plan until its loop guard gave up (found by the soak).
                if self.completed[g] {
                    let status = if g == self.original_goal { Status::Completed } else { Status::Demoted };
                    self.finish(status, None);
                }
            }
            Decision::Approve => self.needs_replan = true,
            Decision::Abort { message } => self.finish(Status::Escalated, Some(message)),
            Decision::HandOff { to } => {
                self.finish(Status::Escalated, Some(alloc::format!("handed off to {to}")))
            }
        }
        Ok(())
    }

    fn tick(&mut self, now: Millis) {
        // A clock that goes backwards is held where it was: events stay ordered.
        self.now = self.now.max(now);
    }

    fn emit(&mut self, kind: EventKind) {
        let seq = self.events.len() as u32;
        self.events.push(Event { seq, at: self.now, kind });
    }

    fn breaker_event(&mut self, v: NodeIx, t: Option<Transition>) {
        if let Some(t) = t {
            self.emit(EventKind::BreakerChanged {
                tool: self.graph.id(v).to_string(),
                from: t.from,
                to: t.to,
            });
        }
    }

    fn poll_breakers(&mut self) {
        let mut changed = Vec::new();
        self.health.poll(self.now, &mut changed);
        for (v, t) in changed {
            self.breaker_event(v, Some(t));
        }
    }

    fn route_around(&mut self, v: NodeIx, policy: bool, agent_action: Option<String>) {
        self.avoided[v] = true;
        self.failed_ids.push(self.graph.id(v).to_string());
        self.pending.failed.push(v);
        self.pending.policy |= policy;
        if agent_action.is_some() {
            self.pending.agent_action = agent_action;
        }
        // A failure reported while an escalation is pending (a call of another branch was in
        // flight) joins it: the request is issued again naming the failure, as the same LLM call
        // (the host answers once). Otherwise a decision that ends the task would leave the failure
        // unanswered in the events (DESIGN section 7; found by fuzzing). A decision that goes on
        // routes around it as usual.
        if let Some(request) = &mut self.escalation {
            request.failed.clone_from(&self.failed_ids);
            let kind = EventKind::Escalated {
                reason: request.reason,
                goal: request.goal.clone(),
                failed: request.failed.clone(),
                completed: request.completed.clone(),
                agent_action: request.agent_action.clone(),
                llm_call: self.llm_calls,
            };
            self.emit(kind);
        }
    }

    /// Runs every monitor at a decision point and acts on the winner.
    fn decide(&mut self, next: &[NodeIx], just_failed: &[NodeIx]) -> Verdict {
        let mut signals = core::mem::take(&mut self.signals);
        signals.clear();
        let view = DecisionView {
            graph: &self.graph,
            context: &self.context,
            health: &self.health,
            now: self.now,
            next_tools: next,
            just_failed,
            avoided: &self.avoided,
            tool_calls: self.tool_calls,
            tool_budget: self.config.tool_budget,
            acknowledged: &self.acknowledged,
            history: self.history.get(self.thrash_seen..).unwrap_or(&[]),
        };
        self.monitors.run(&view, &mut signals);
        for s in &signals {
            self.emit(EventKind::SignalRaised { signal: s.clone() });
        }
        let verdict = match compete(&signals) {
            None => Verdict::Proceed,
            Some(w) => {
                let winner = signals[w].clone();
                self.emit(EventKind::SignalWon { signal: winner.clone() });
                self.act_on(winner, just_failed)
            }
        };
        self.signals = signals;
        verdict
    }

    fn act_on(&mut self, winner: Signal, just_failed: &[NodeIx]) -> Verdict {
        match &winner.kind {
            SignalKind::Intent { .. } => Verdict::Proceed,
            SignalKind::ToolDown { tools } => {
                for id in tools {
                    if let Some(v) = self.graph.index(id) {
                        let weight = if just_failed.contains(&v) || self.avoided[v] {
                            f64::INFINITY
                        } else {
                            self.health.weight(v, self.now)
                        };
                        self.emit(EventKind::Reweighted { tool: id.clone(), weight });
                    }
                }
                self.needs_replan = true;
                Verdict::Changed
            }
            SignalKind::KnownBad { tool } => {
                if let Some(v) = self.graph.index(tool) {
                    self.avoided[v] = true;
                    self.emit(EventKind::Reweighted { tool: tool.clone(), weight: f64::INFINITY });
                }
                self.needs_replan = true;
                Verdict::Changed
            }
            SignalKind::Risk { .. } => {
                self.escalate(EscalationReason::Risk, None, Some(winner));
                Verdict::Changed
            }
            SignalKind::Budget { .. } => {
                self.escalate(EscalationReason::Budget, None, Some(winner));
                Verdict::Changed
            }
            SignalKind::Thrash { .. } => {
                self.thrash_seen = self.history.len();
                self.escalate(EscalationReason::Budget, None, Some(winner));
                Verdict::Changed
            }
        }
    }

    /// Where execution stands: completed nodes at the tip of a branch, and completed nodes
    /// with a planned successor still to do. Before anything completed, the start node.
    fn sources(&self) -> Vec<NodeIx> {
        if self.completion.is_empty() {
            // The start is entered without an edge, so its own weight never reaches the search: a
            // start tool that is down (open breaker, quota spent) is no place to start from, or
            // every plan would begin on it and be refused again (found by fuzzing).
            let s = self.start;
            let down = self.graph.node(s).tool && !self.health.weight(s, self.now).is_finite();
            return if self.avoided[s] || down { Vec::new() } else { alloc::vec![s] };
        }
        let mut out = Vec::new();
        for &v in &self.completion {
            if !self.completed[v] || out.contains(&v) {
                continue;
            }
            let open_succ =
                self.plan.as_ref().is_some_and(|p| p.succs(&self.graph, v).any(|s| !self.completed[s]));
            if !self.left[v] || open_succ {
                out.push(v);
            }
        }
        out
    }

    fn replan(&mut self) {
        // Route over breakers brought up to date: one whose cooldown passed since the last
        // decision (between two tasks sharing health, say) is half-open and may be probed, not
        // an open wall that makes "no path" (found by the soak).
        self.poll_breakers();
        let pending = core::mem::take(&mut self.pending);
        let sources = self.sources();
        // A graph with guarded edges is a cyclic workflow: where execution stands is an origin
        // that later steps may visit again. Without guards, completed work is never re-entered.
        let cyclic = self.graph.has_guards() && !self.completion.is_empty();
        let mut plan = self.plan.take().unwrap_or_default();
        let old = plan.clone();
        let had_plan = !old.nodes.is_empty();
        let found = self.route(&sources, cyclic, true, &mut plan);
        self.needs_replan = false;
        if found {
            if cyclic {
                for i in 0..plan.nodes.len() {
                    let v = plan.nodes[i];
                    if self.completed[v] {
                        self.completed[v] = false;
                        self.left[v] = false;
                        self.revisits += 1;
                        let visit = self.visits[v] + 1;
                        self.emit(EventKind::Revisited { tool: self.graph.id(v).to_string(), visit });
                    }
                }
            }
            let to_plan = PlanView::new(&self.graph, &plan);
            // A plan made around failed tools is a reroute even when it is the first (a host that
            // redirected to a tool before anything was planned, found by fuzzing): their
            // `ToolFailed` events must be answered (DESIGN section 7).
            if had_plan || !pending.failed.is_empty() {
                if !pending.failed.is_empty() {
                    self.reroutes += 1;
                }
                let around = pending.failed.iter().map(|&v| self.graph.id(v).to_string()).collect();
                self.emit(EventKind::Rerouted {
                    from_plan: PlanView::new(&self.graph, &old),
                    to_plan,
                    around,
                });
            } else {
                self.emit(EventKind::PathPlanned { plan: to_plan });
            }
            self.plan = Some(plan);
        } else {
            let over_budget = cyclic && self.route(&sources, cyclic, false, &mut plan);
            self.plan = Some(old);
            let reason = if pending.policy {
                EscalationReason::Policy
            } else if over_budget {
                EscalationReason::Budget
            } else {
                EscalationReason::NoPath
            };
            self.needs_replan = true;
            self.escalate(reason, pending.agent_action, None);
        }
    }

    /// Routes from where execution stands over live weights.
    fn route(&mut self, sources: &[NodeIx], cyclic: bool, visit_budget: bool, plan: &mut Plan) -> bool {
        let weights = LiveWeights {
            graph: &self.graph,
            health: &self.health,
            avoided: &self.avoided,
            outputs: &self.outputs,
            visits: &self.visits,
            visit_budget: if visit_budget && cyclic { self.config.visit_budget } else { u32::MAX },
            // Outside a cyclic workflow completed work is never re-entered: a plan through a
            // completed node would make what follows it ready before what precedes it ran.
            completed: (!cyclic).then_some(&self.completed[..]),
            now: self.now,
        };
        if cyclic {
            self.dijkstra.route_from_into(&self.graph, &[], sources, self.goal, &weights, &mut (), plan)
        } else {
            self.dijkstra.route_into(&self.graph, sources, self.goal, &weights, &mut (), plan)
        }
    }

    /// Whether a plan edge leaving a completed tool has a guard its result now fails.
    fn plan_guard_broken(&self) -> bool {
        let Some(plan) = &self.plan else { return false };
        plan.edges.iter().filter(|e| !plan.seeds.contains(e)).any(|&e| {
            let edge = self.graph.edge(e);
            self.completed[edge.from]
                && !self.completed[edge.to]
                && self
                    .graph
                    .guard(e)
                    .zip(self.outputs[edge.from].as_ref())
                    .is_some_and(|(g, out)| !g.holds(out))
        })
    }

    /// Control-flow fault injection (seed 004): the host runs `tool` instead of the calls the
    /// session just gave it. The router then plans again from wherever that leaves the task.
    /// Failures reported before the redirect are routed around first; when that ends the task
    /// (the escalation budget is spent) nothing is dispatched and the error is `Finished`.
    pub fn redirect(&mut self, tool: &str, now: Millis) -> Result<Call, SessionError> {
        if self.outcome.is_some() {
            return Err(SessionError::Finished);
        }
        let v = self.graph.index(tool).ok_or_else(|| SessionError::UnknownNode { id: tool.to_string() })?;
        self.tick(now);
        let cancelled: Vec<NodeIx> = core::mem::take(&mut self.in_flight).into_keys().collect();
        for &c in &cancelled {
            // Those calls were never made.
            self.tool_calls = self.tool_calls.saturating_sub(1);
            self.visits[c] = self.visits[c].saturating_sub(1);
        }
        self.emit(EventKind::Redirected {
            from: cancelled.iter().map(|&c| self.graph.id(c).to_string()).collect(),
            to: tool.to_string(),
        });
        // The redirect ends the batch: failures reported in it are routed around (or escalated)
        // now, before the redirected call can finish the task and leave them unanswered (found by
        // fuzzing).
        if !self.pending.failed.is_empty() {
            self.replan();
            if self.outcome.is_some() {
                return Err(SessionError::Finished);
            }
        }
        self.completed[v] = false;
        self.needs_replan = true;
        let call = self.dispatch(&[v]).pop();
        call.ok_or(SessionError::NotInFlight { tool: tool.to_string() })
    }

    fn plan_preds_done(&self, plan: &Plan, v: NodeIx) -> bool {
        plan.preds(&self.graph, v).all(|u| self.completed[u])
    }

    fn complete_ready_waypoints(&mut self) -> bool {
        let Some(plan) = &self.plan else { return false };
        let ready: Vec<NodeIx> = plan
            .nodes
            .iter()
            .copied()
            .filter(|&v| !self.completed[v] && !self.graph.node(v).tool && self.plan_preds_done(plan, v))
            .collect();
        for &v in &ready {
            self.complete(v);
        }
        !ready.is_empty()
    }

    fn ready_tools(&self) -> Vec<NodeIx> {
        let Some(plan) = &self.plan else { return Vec::new() };
        plan.nodes
            .iter()
            .copied()
            .filter(|&v| {
                self.graph.node(v).tool
                    && !self.completed[v]
                    && !self.in_flight.contains_key(&v)
                    && !self.avoided[v]
                    && self.plan_preds_done(plan, v)
            })
            .collect()
    }

    fn dispatch(&mut self, ready: &[NodeIx]) -> Vec<Call> {
        let mut calls = Vec::with_capacity(ready.len());
        for &v in ready {
            let (attempt, not_before) = self.retry_at.remove(&v).unwrap_or((1, self.now));
            let tool = self.graph.id(v).to_string();
            self.emit(EventKind::ToolCalled { tool: tool.clone(), attempt });
            self.in_flight.insert(v, attempt);
            self.tool_calls += 1;
            self.visits[v] += 1;
            self.health.on_call(v, self.now);
            // A half-open breaker counts this call as its probe.
            self.health.try_acquire(v, self.now);
            calls.push(Call { tool, attempt, not_before });
        }
        calls
    }

    fn complete(&mut self, v: NodeIx) {
        if self.completed[v] {
            return;
        }
        self.completed[v] = true;
        self.completion.push(v);
        if self.graph.node(v).tool {
            self.history.push(v);
        }
        let base = self.graph.node(v).base_cost;
        if let Some(plan) = &self.plan {
            for &e in &plan.edges {
                let edge = self.graph.edge(e);
                if edge.to == v && (self.completed[edge.from] || plan.seeds.contains(&e)) {
                    self.cost += edge.cost * base;
                    self.left[edge.from] = true;
                }
            }
        }
        if v == self.goal {
            // Failures still waiting for their batch (calls of a plan abandoned by a demotion,
            // say) did not stop the goal: the run went around them. Said before finishing, or
            // they would have no answer (DESIGN section 7; found by the soak).
            if !self.pending.failed.is_empty() {
                let pending = core::mem::take(&mut self.pending);
                let view = self.plan.as_ref().map(|p| PlanView::new(&self.graph, p)).unwrap_or_default();
                let around = pending.failed.iter().map(|&f| self.graph.id(f).to_string()).collect();
                self.reroutes += 1;
                self.emit(EventKind::Rerouted { from_plan: view.clone(), to_plan: view, around });
            }
            let status = if self.goal == self.original_goal { Status::Completed } else { Status::Demoted };
            self.finish(status, None);
        }
    }

    fn escalate(&mut self, reason: EscalationReason, agent_action: Option<String>, signal: Option<Signal>) {
        let exhausted = self.llm_calls >= self.config.escalation_budget;
        // With the escalation budget spent nobody is asked and the task ends, but the event is
        // still emitted (reason `budget`, `llm_call` 0): a failure that led here must be answered
        // by an `Escalated` event (DESIGN section 7; found by fuzzing).
        let (reason, llm_call) =
            if exhausted { (EscalationReason::Budget, 0) } else { (reason, self.llm_calls + 1) };
        self.llm_calls += u32::from(!exhausted);
        let request = EscalationRequest {
            reason,
            goal: self.graph.id(self.goal).to_string(),
            failed: self.failed_ids.clone(),
            completed: self.completed().map(ToString::to_string).collect(),
            agent_action,
            signal,
        };
        self.emit(EventKind::Escalated {
            reason,
            goal: request.goal.clone(),
            failed: request.failed.clone(),
            completed: request.completed.clone(),
            agent_action: request.agent_action.clone(),
            llm_call,
        });
        if exhausted {
            self.finish(Status::Escalated, Some("escalation budget exhausted".to_string()));
        } else {
            self.escalation = Some(request);
        }
    }

    fn finish(&mut self, status: Status, message: Option<String>) {
        if self.outcome.is_some() {
            return;
        }
        let path: Vec<String> = self.completed().map(ToString::to_string).collect();
        let outcome = Outcome {
            status,
            goal: self.graph.id(self.goal).to_string(),
            original_goal: self.graph.id(self.original_goal).to_string(),
            path: path.clone(),
            cost: self.cost,
            tool_calls: self.tool_calls,
            llm_calls: self.llm_calls,
            reroutes: self.reroutes,
            retries: self.retries,
            failures: self.failures,
            revisits: self.revisits,
            message: message.clone(),
        };
        self.emit(EventKind::Finished { status, goal: outcome.goal.clone(), path, cost: self.cost, message });
        self.escalation = None;
        self.outcome = Some(outcome);
    }
}

/// Checks that a set of completed nodes is a valid derivation of `goal` in the graph: every
/// completed node other than `start` has a completed predecessor (or `k` for a quorum join).
/// A run that claims success without this has silently skipped a required step.
pub fn audit_completion(
    graph: &ToolGraph,
    start: NodeIx,
    completed: &[NodeIx],
    goal: NodeIx,
) -> Result<(), String> {
    let mut done = alloc::vec![false; graph.node_count()];
    for &v in completed {
        if let Some(d) = done.get_mut(v) {
            *d = true;
        }
    }
    if !done.get(goal).copied().unwrap_or(false) {
        return Err(alloc::format!("goal `{}` was not reached", graph.id(goal)));
    }
    for &v in completed {
        if v == start {
            continue;
        }
        let inputs = graph.in_edges(v).iter().filter(|&&e| done[graph.edge(e as usize).from]).count();
        let need = match graph.node(v).join {
            Join::Any => 1,
            Join::Quorum(k) => k as usize,
        };
        if inputs < need {
            return Err(alloc::format!(
                "`{}` completed with {inputs} of the {need} inputs it needs",
                graph.id(v)
            ));
        }
    }
    Ok(())
}

/// The weights routing uses: `edge.cost x` the target tool's live weight; infinite for tools
/// this task avoids, outside cyclic workflows for completed nodes and, in cyclic workflows, for
/// tools out of visits. A guarded edge counts only when its source's result satisfies the guard;
/// before that result exists (a step still ahead) the guard is assumed to hold.
struct LiveWeights<'a> {
    graph: &'a ToolGraph,
    health: &'a HealthBook,
    avoided: &'a [bool],
    outputs: &'a [Option<Value>],
    visits: &'a [u32],
    visit_budget: u32,
    /// Outside a cyclic workflow: completed nodes, which no edge may enter again (the sources,
    /// completed themselves, are settled at cost 0 before any edge could reach them).
    completed: Option<&'a [bool]>,
    now: Millis,
}

impl crate::algo::EdgeWeight for LiveWeights<'_> {
    fn weight(&self, e: usize) -> f64 {
        let edge = self.graph.edge(e);
        let done = self.completed.is_some_and(|c| c[edge.to]);
        if done || self.avoided[edge.to] || self.visits[edge.to] >= self.visit_budget {
            return f64::INFINITY;
        }
        edge.cost * self.health.weight(edge.to, self.now)
    }

    fn seed_weight(&self, e: usize) -> f64 {
        let edge = self.graph.edge(e);
        match (self.graph.guard(e), &self.outputs[edge.from]) {
            (Some(g), Some(out)) if !g.holds(out) => f64::INFINITY,
            _ => self.weight(e),
        }
    }
}
