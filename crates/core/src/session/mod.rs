//! The self-healing loop as a sans-IO state machine (DESIGN section 6).
//!
//! A [`Run`] is one task's state: its plan, what it completed, what it avoids, its calls in
//! flight and its events. It holds no graph and no health: it is driven through the
//! [`crate::Router`] that started it, so every run of a router reads and writes the router's one
//! live health (an outcome reported by one run changes the weights every other run routes on
//! at its next decision). A [`crate::Session`] is a router with a single run of its own, for a host
//! with one task at a time and for tests.
//!
//! # Method families, in the order a host calls them
//! 1. **Start**: [`crate::Router::start`] (or [`crate::Session::new`]) makes the run of a [`crate::Task`].
//! 2. **Ask**: [`crate::Router::next`] says what to do now: [`crate::Action::CallTools`], [`crate::Action::Wait`]
//!    (calls are in flight; report first), [`crate::Action::Escalate`] or [`crate::Action::Finished`].
//! 3. **Report**: the host performs each [`crate::Call`] (not before its `not_before`) and reports it
//!    with [`crate::Router::report`]; it answers an escalation with
//!    [`crate::Router::resolve_escalation`].
//!    Then back to 2 until finished.
//! 4. **Drain events**: after any step, [`Run::poll_event`] (or [`Run::drain_events`]) takes the
//!    events not yet taken; a run drained as it goes keeps none in memory.
//! 5. **Read**: [`Run::outcome`], [`Run::plan`], [`crate::Session::completed`], counts.
//!
//! [`crate::Router::redirect`] is for control-flow fault injection (seed 004) only.
//!
//! Time is a clock value passed in; nothing here reads a clock, so the same graph, the same
//! outcomes and the same clock give the same events. A failure is routed around at the next
//! decision, not where it is reported, because the calls of the same batch still in flight may
//! fail too and K failures reported together cost one recomputation.
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

mod decide;
mod lineage;
mod replan;
mod report;
mod step;
mod unknown;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::algo::{Dijkstra, Plan};
use crate::error::SessionError;
use crate::event::{Event, EventKind};
use crate::graph::{NodeIx, ToolGraph};
use crate::health::{HealthBook, Permit};
use crate::monitor::{Context, Monitors, Signal};
pub use crate::progress::NodeState;
use crate::vocab::{EscalationRequest, Outcome, SessionConfig, Task};
use crate::Millis;

/// What a run is driven with: its router's graph, live health, limits and monitors.
pub(crate) struct Env<'a> {
    pub graph: &'a ToolGraph,
    pub health: &'a mut HealthBook,
    pub config: &'a SessionConfig,
    pub monitors: &'a Monitors,
}

/// Counts over the whole run, copied into its [`Outcome`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    tool_calls: u32,
    llm_calls: u32,
    reroutes: u32,
    retries: u32,
    failures: u32,
    revisits: u32,
}

/// Why tools are being routed around at the next decision point.
#[derive(Clone, Debug, Default)]
struct Pending {
    failed: Vec<NodeIx>,
    policy: bool,
    agent_action: Option<String>,
}

/// A side effect's call whose outcome is unknown.
#[derive(Clone, Debug)]
struct Unknown {
    tool: NodeIx,
    call_id: String,
    /// Its `verify` call is in flight or done.
    verifying: bool,
}

/// One task's state, driven through the [`crate::Router`] that started it. See the module docs.
#[derive(Debug)]
pub struct Run {
    /// The node count of the router's graph: a run given to another router is refused.
    width: usize,
    context: Context,
    start: NodeIx,
    goal: NodeIx,
    original_goal: NodeIx,
    plan: Option<Plan>,
    dijkstra: Dijkstra,
    nodes: Vec<NodeState>,
    /// Completed nodes in completion order.
    completion: Vec<NodeIx>,
    /// Edges the run traversed, in order (into each completed node from the work that fed it).
    traversed: Vec<usize>,
    cost: f64,
    /// Calls in flight: tool -> (attempt, the permit the tool's health gave it).
    in_flight: BTreeMap<NodeIx, (u32, Permit)>,
    /// Retries due: tool -> (attempt, not before).
    retry_at: BTreeMap<NodeIx, (u32, Millis)>,
    /// The run's key: the prefix of its calls' idempotency keys.
    key: String,
    /// Steps of each tool so far (a step is a first attempt; its retries share its key, which
    /// [`Run::call_id`] makes from the step's number).
    steps: Vec<u32>,
    /// The host's own call timeout for this run (a node's `timeout_ms` still wins).
    call_timeout: Option<Millis>,
    /// A side effect whose call's outcome is unknown: nothing else acts until it is known.
    unknown: Option<Unknown>,
    failed_ids: Vec<String>,
    needs_replan: bool,
    pending: Pending,
    /// Waiting for a tool that is only full or rate-limited for now: ask again then.
    paused_until: Option<Millis>,
    /// When this wait began (bounded by `admission.max_wait_ms`).
    waiting_since: Option<Millis>,
    /// Pauses in a row: bounded too, for a host whose clock does not move.
    pauses: u32,
    /// Side effects to undo before the plan goes on: (the tool, the tool that undoes it), in
    /// the order they run (the latest effect first).
    compensations: alloc::collections::VecDeque<(NodeIx, NodeIx)>,
    /// This replan is a recovery: completed side effects not undone are not entered again.
    keep_effects: bool,
    /// Escalations answered in this task (risk rules, thrash cycles): not raised again.
    answered: crate::monitor::Answered,
    /// The length of `history` when the pending escalation was raised.
    escalated_at: usize,
    escalation: Option<EscalationRequest>,
    outcome: Option<Outcome>,
    /// Events not yet drained by the host; `events[0]` has sequence number `seq - len`.
    events: Vec<Event>,
    /// Events not yet drained start here in `events`.
    drained: usize,
    /// Sequence number of the next event.
    seq: u32,
    now: Millis,
    counts: Counts,
    signals: Vec<Signal>,
    /// Tool completions in order (revisits repeat); monitors look for thrashing in it.
    history: Vec<NodeIx>,
}

impl Run {
    /// A run of `task`; `number` counts the router's runs, for a default key.
    pub(crate) fn new(graph: &ToolGraph, task: Task, now: Millis, number: u64) -> Result<Run, SessionError> {
        let lookup = |id: &Option<String>, default: NodeIx| match id {
            None => Ok(default),
            Some(id) => graph.index(id).ok_or_else(|| SessionError::UnknownNode { id: id.clone() }),
        };
        let goal = lookup(&task.goal, graph.goal())?;
        let start = lookup(&task.start, graph.start())?;
        let n = graph.node_count();
        Ok(Run {
            width: n,
            context: task.context,
            start,
            goal,
            original_goal: goal,
            plan: None,
            dijkstra: Dijkstra::new(),
            nodes: alloc::vec![NodeState::default(); n],
            completion: Vec::new(),
            traversed: Vec::new(),
            cost: 0.0,
            in_flight: BTreeMap::new(),
            retry_at: BTreeMap::new(),
            key: task.id.unwrap_or_else(|| {
                let mut key = String::from("run-");
                push_decimal(&mut key, number);
                key
            }),
            steps: alloc::vec![0; n],
            call_timeout: None,
            unknown: None,
            failed_ids: Vec::new(),
            needs_replan: false,
            pending: Pending::default(),
            paused_until: None,
            waiting_since: None,
            pauses: 0,
            compensations: alloc::collections::VecDeque::new(),
            keep_effects: false,
            answered: crate::monitor::Answered::new(graph.risk_rules().len()),
            escalated_at: 0,
            escalation: None,
            outcome: None,
            events: Vec::new(),
            drained: 0,
            seq: 0,
            now,
            counts: Counts::default(),
            signals: Vec::new(),
            history: Vec::new(),
        })
    }

    /// Whether this run was started on a graph of `graph`'s shape.
    pub(crate) fn fits(&self, graph: &ToolGraph) -> bool {
        self.width == graph.node_count() && self.answered.risk_rules() == graph.risk_rules().len()
    }

    /// The next event not yet taken, oldest first (quinn's `poll()`): a host that takes every
    /// event as it goes keeps none in the run's memory.
    pub fn poll_event(&mut self) -> Option<Event> {
        let e = self.events.get(self.drained).cloned()?;
        self.drained += 1;
        if self.drained == self.events.len() {
            self.events.clear();
            self.drained = 0;
        }
        Some(e)
    }

    /// Takes every event not yet taken, oldest first.
    pub fn drain_events(&mut self) -> alloc::vec::Drain<'_, Event> {
        let from = core::mem::take(&mut self.drained);
        self.events.drain(from..)
    }

    /// Events not yet taken by [`Run::poll_event`] or [`Run::drain_events`]: every event of a
    /// run whose host never drains.
    pub fn events(&self) -> &[Event] {
        &self.events[self.drained..]
    }

    /// Events not yet taken whose sequence number is `seq` or later.
    pub fn events_since(&self, seq: u32) -> &[Event] {
        let held = self.events();
        let first = held.first().map_or(self.seq, |e| e.seq);
        let skip = (seq.saturating_sub(first) as usize).min(held.len());
        &held[skip..]
    }

    /// LLM (escalation) calls made so far.
    pub fn llm_calls(&self) -> u32 {
        self.counts.llm_calls
    }
    /// Tool calls made so far.
    pub fn tool_calls(&self) -> u32 {
        self.counts.tool_calls
    }
    /// The current plan.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }
    /// The current goal.
    pub fn goal(&self) -> NodeIx {
        self.goal
    }
    /// The outcome once finished.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    /// Whether the run has finished.
    pub fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }
    /// The pending escalation, if any.
    pub fn escalation(&self) -> Option<&EscalationRequest> {
        self.escalation.as_ref()
    }
    /// Completed nodes, in completion order.
    pub fn completion(&self) -> &[NodeIx] {
        &self.completion
    }
    /// Edges the run traversed, in order: what a visualizer draws as the path taken.
    pub fn traversed(&self) -> &[usize] {
        &self.traversed
    }
    /// Each node's state, indexed like the graph's nodes.
    pub fn nodes(&self) -> &[NodeState] {
        &self.nodes
    }
    /// Tools with a call in flight.
    pub fn in_flight(&self) -> impl Iterator<Item = NodeIx> + '_ {
        self.in_flight.keys().copied()
    }
    /// The idempotency key of `tool`'s current step: `<run key>:<tool>:<step>`.
    fn call_id(&self, v: NodeIx, tool: &str) -> String {
        // Written by hand, not by `format!`: one allocation, and no formatting machinery on a
        // call's path (issue 48).
        let mut id = String::with_capacity(self.key.len() + tool.len() + 12);
        id.push_str(&self.key);
        id.push(':');
        id.push_str(tool);
        id.push(':');
        push_decimal(&mut id, u64::from(self.steps.get(v).copied().unwrap_or(0)));
        id
    }
    /// The run's key, the prefix of its calls' idempotency keys.
    pub fn key(&self) -> &str {
        &self.key
    }
    /// The host's own call timeout for this run's calls, when their node gives none (the
    /// lease of each call's place runs out this long plus the grace after it was let through).
    pub fn set_call_timeout(&mut self, timeout_ms: Option<Millis>) {
        self.call_timeout = timeout_ms;
    }

    fn tick(&mut self, now: Millis) {
        // A clock that goes backwards is held where it was: events stay ordered.
        self.now = self.now.max(now);
    }

    fn emit(&mut self, kind: EventKind) {
        let seq = self.seq;
        self.seq = self.seq.saturating_add(1);
        self.events.push(Event { seq, at: self.now, kind });
    }
}

/// Appends `n` in decimal (what `format!("{n}")` writes).
fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|&d| char::from(d)));
}
