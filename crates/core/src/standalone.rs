//! [`Session`]: a router with a single run of its own, for a host with one task at a time and
//! for tests. Its methods are the [`Router`]'s run methods, with the run implied.

use crate::algo::Plan;
use crate::error::SessionError;
use crate::event::Event;
use crate::graph::ToolGraph;
use crate::health::HealthBook;
use crate::monitor::Monitors;
use crate::router::Router;
use crate::session::Run;
use crate::vocab::{Action, Call, Decision, EscalationRequest, Outcome, SessionConfig, Task, ToolResult};
use crate::Millis;

/// A router with a single run of its own: one task on fresh health. Hosts with many tasks at
/// once share one [`Router`] and hold a [`Run`] per task instead.
#[derive(Debug)]
pub struct Session {
    router: Router,
    run: Run,
}

impl Session {
    /// A session on fresh health, with default limits and monitors.
    pub fn new(graph: ToolGraph, task: Task, now: Millis) -> Result<Session, SessionError> {
        Session::with_parts(graph, task, SessionConfig::default(), Monitors::default(), now)
    }

    /// A session with given limits and monitors, on fresh health with `config.breaker`.
    pub fn with_parts(
        graph: ToolGraph,
        task: Task,
        config: SessionConfig,
        monitors: Monitors,
        now: Millis,
    ) -> Result<Session, SessionError> {
        let mut router = Router::with_parts(graph, config, monitors).map_err(SessionError::config)?;
        let run = router.start(task, now)?;
        Ok(Session { router, run })
    }

    /// What the host should do now.
    pub fn next(&mut self, now: Millis) -> Action {
        // The run was started by this router: it always fits.
        self.router.next(&mut self.run, now).unwrap_or(Action::Wait)
    }

    /// Reports the outcome of a call made on the session's behalf.
    pub fn report(&mut self, tool: &str, result: ToolResult, now: Millis) -> Result<(), SessionError> {
        self.router.report(&mut self.run, tool, result, now)
    }

    /// Answers the pending escalation.
    pub fn resolve_escalation(&mut self, decision: Decision, now: Millis) -> Result<(), SessionError> {
        self.router.resolve_escalation(&mut self.run, decision, now)
    }

    /// Drives the run to its end with `host` (see [`crate::drive()`]); returns the clock at the end.
    pub fn drive(&mut self, host: &mut impl crate::drive::Host, now: Millis) -> Millis {
        crate::drive::drive(&mut self.router, &mut self.run, host, now)
    }

    /// See [`Router::redirect`].
    pub fn redirect(&mut self, tool: &str, now: Millis) -> Result<Call, SessionError> {
        self.router.redirect(&mut self.run, tool, now)
    }

    /// The tool graph.
    pub fn graph(&self) -> &ToolGraph {
        self.router.graph()
    }
    /// The router's live health.
    pub fn health(&self) -> &HealthBook {
        self.router.health()
    }
    /// The router the run belongs to.
    pub fn router(&self) -> &Router {
        &self.router
    }
    /// The run.
    pub fn run(&self) -> &Run {
        &self.run
    }
    /// The router (with the health the run left) and the run.
    pub fn into_parts(self) -> (Router, Run) {
        (self.router, self.run)
    }
    /// See [`Run::events`].
    pub fn events(&self) -> &[Event] {
        self.run.events()
    }
    /// See [`Run::events_since`].
    pub fn events_since(&self, seq: u32) -> &[Event] {
        self.run.events_since(seq)
    }
    /// See [`Run::poll_event`].
    pub fn poll_event(&mut self) -> Option<Event> {
        self.run.poll_event()
    }
    /// LLM (escalation) calls made so far.
    pub fn llm_calls(&self) -> u32 {
        self.run.llm_calls()
    }
    /// Tool calls made so far.
    pub fn tool_calls(&self) -> u32 {
        self.run.tool_calls()
    }
    /// The current plan, if any.
    pub fn plan(&self) -> Option<&Plan> {
        self.run.plan()
    }
    /// The current goal's id.
    pub fn goal(&self) -> &str {
        self.graph().id(self.run.goal())
    }
    /// The outcome once finished.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.run.outcome()
    }
    /// Whether the run has finished.
    pub fn is_finished(&self) -> bool {
        self.run.is_finished()
    }
    /// The pending escalation, if any.
    pub fn escalation(&self) -> Option<&EscalationRequest> {
        self.run.escalation()
    }
    /// Completed nodes' ids, in completion order.
    pub fn completed(&self) -> impl Iterator<Item = &str> {
        let graph = self.router.graph();
        self.run.completion().iter().map(move |&v| graph.id(v))
    }
}
