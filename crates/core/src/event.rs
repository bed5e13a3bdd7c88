//! Events: everything a session decides, in order, with stable names (DESIGN section 7). They
//! serialize to JSON lines so a run can be replayed in the visualizer or shipped to a log.
//!
//! The binary observability guarantee is checked by [`crate::audit::check_observability`]:
//! every `ToolFailed` is answered by a `Retried` of that tool, a `Rerouted` around it or an
//! `Escalated` naming it.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::algo::Plan;
use crate::graph::ToolGraph;
use crate::health::{BreakerState, Refusal};
use crate::monitor::Signal;
use crate::vocab::{Category, EscalationReason, Status};
use crate::Millis;

/// A plan as ids, for events and hosts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanView {
    pub nodes: Vec<String>,
    pub edges: Vec<(String, String)>,
    /// `null` in JSON when infinite.
    pub cost: f64,
}

impl PlanView {
    pub fn new(graph: &ToolGraph, plan: &Plan) -> Self {
        PlanView {
            nodes: plan.nodes.iter().map(|&v| graph.id(v).into()).collect(),
            edges: plan
                .edges
                .iter()
                .map(|&e| {
                    let e = graph.edge(e);
                    (graph.id(e.from).into(), graph.id(e.to).into())
                })
                .collect(),
            cost: plan.cost,
        }
    }
}

/// One event of a session.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// Position in the stream, from 0.
    pub seq: u32,
    /// The clock value (ms) when it happened.
    pub at: Millis,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event")]
pub enum EventKind {
    PathPlanned {
        plan: PlanView,
    },
    SignalRaised {
        signal: Signal,
    },
    SignalWon {
        signal: Signal,
    },
    ToolCalled {
        tool: String,
        attempt: u32,
        /// The call's idempotency key (see [`crate::Call::call_id`]).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        call_id: String,
    },
    ToolSucceeded {
        tool: String,
        latency_ms: f64,
    },
    ToolFailed {
        tool: String,
        category: Category,
        /// A well-formed result that failed the tool's validators.
        implicit: bool,
        transient: bool,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        agent_action: Option<String>,
    },
    Reweighted {
        tool: String,
        /// `null` in JSON when infinite.
        weight: f64,
    },
    Rerouted {
        from_plan: PlanView,
        to_plan: PlanView,
        /// The tools routed around (empty when the reroute came from live weights).
        around: Vec<String>,
        /// Completed work the new plan branches back past (kept, not undone unless compensated).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        abandoned: Vec<String>,
    },
    Retried {
        tool: String,
        attempt: u32,
        not_before: Millis,
    },
    BreakerChanged {
        tool: String,
        from: BreakerState,
        to: BreakerState,
    },
    Escalated {
        reason: EscalationReason,
        goal: String,
        failed: Vec<String>,
        completed: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        agent_action: Option<String>,
        /// The LLM call this escalation costs, counted from 1; 0 when the escalation budget is
        /// spent, nobody is asked and the task ends (reason `budget`).
        llm_call: u32,
    },
    GoalDemoted {
        from: String,
        to: String,
    },
    /// A cyclic workflow plans another visit of a completed tool.
    Revisited {
        tool: String,
        visit: u32,
    },
    /// A side effect was undone: `by` succeeded for `tool` before the run branched back past it.
    Compensated {
        tool: String,
        by: String,
    },
    /// A tool would not take a call now (breaker, bulkhead, rate limit) or a failure was not
    /// retried (retry budget): the run goes around it, or waits when nothing else leads on.
    Shed {
        tool: String,
        reason: Refusal,
    },
    /// The host ran another tool than the ones it was given (control-flow fault injection).
    Redirected {
        from: Vec<String>,
        to: String,
    },
    Finished {
        status: Status,
        goal: String,
        path: Vec<String>,
        cost: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The opt-in cost adjustment moved a tool's cost (see [`crate::health::costs`]); made by a
    /// [`crate::health::costs::CostLearner`] between runs, not by a run.
    CostAdjusted {
        tool: String,
        from: f64,
        to: f64,
        reason: String,
    },
}

impl EventKind {
    /// The stable name of the event (`"ToolFailed"`...).
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::PathPlanned { .. } => "PathPlanned",
            EventKind::SignalRaised { .. } => "SignalRaised",
            EventKind::SignalWon { .. } => "SignalWon",
            EventKind::ToolCalled { .. } => "ToolCalled",
            EventKind::ToolSucceeded { .. } => "ToolSucceeded",
            EventKind::ToolFailed { .. } => "ToolFailed",
            EventKind::Reweighted { .. } => "Reweighted",
            EventKind::Rerouted { .. } => "Rerouted",
            EventKind::Retried { .. } => "Retried",
            EventKind::BreakerChanged { .. } => "BreakerChanged",
            EventKind::Escalated { .. } => "Escalated",
            EventKind::GoalDemoted { .. } => "GoalDemoted",
            EventKind::Revisited { .. } => "Revisited",
            EventKind::Redirected { .. } => "Redirected",
            EventKind::Shed { .. } => "Shed",
            EventKind::Compensated { .. } => "Compensated",
            EventKind::Finished { .. } => "Finished",
            EventKind::CostAdjusted { .. } => "CostAdjusted",
        }
    }
}

/// Events as JSON lines (one object a line).
pub fn to_json_lines(events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        // Serializing plain data to a String cannot fail.
        out.push_str(&serde_json::to_string(e).unwrap_or_default());
        out.push('\n');
    }
    out
}
