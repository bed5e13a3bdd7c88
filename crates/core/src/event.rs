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
    /// The plan's nodes, in order.
    pub nodes: Vec<String>,
    /// Its edges, as `(from, to)` ids.
    pub edges: Vec<(String, String)>,
    /// `null` in JSON when infinite.
    #[serde(deserialize_with = "null_is_infinite")]
    pub cost: f64,
}

/// Reads a number, or `null` (how JSON writes an infinite `f64`) as infinity.
fn null_is_infinite<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

impl PlanView {
    /// The plan `plan` of `graph`, as ids.
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

/// One event of a session. Events read back from their JSON (a log) as they were written; an
/// infinite cost or weight is written `null` and read back infinite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Position in the stream, from 0.
    pub seq: u32,
    /// The clock value (ms) when it happened.
    pub at: Millis,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event")]
pub enum EventKind {
    /// A plan was made (at the start, or after a reroute).
    PathPlanned {
        /// The plan.
        plan: PlanView,
    },
    /// A monitor raised a signal at a decision point.
    SignalRaised {
        /// The signal.
        signal: Signal,
    },
    /// The signal that won the decision point's competition.
    SignalWon {
        /// The signal.
        signal: Signal,
    },
    /// A call was handed out.
    ToolCalled {
        /// The tool.
        tool: String,
        /// 1 for the first call, 2 for the first retry...
        attempt: u32,
        /// The call's idempotency key (see [`crate::Call::call_id`]).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        call_id: String,
    },
    /// A call succeeded (and passed the tool's validators).
    ToolSucceeded {
        /// The tool.
        tool: String,
        /// How long it took.
        latency_ms: f64,
    },
    /// A call failed.
    ToolFailed {
        /// The tool.
        tool: String,
        /// Whose fault it was.
        category: Category,
        /// A well-formed result that failed the tool's validators.
        implicit: bool,
        /// Worth retrying.
        transient: bool,
        /// What went wrong.
        message: String,
        /// Recovery text from the tool, verbatim.
        #[serde(skip_serializing_if = "Option::is_none")]
        agent_action: Option<String>,
    },
    /// A tool's live weight changed.
    Reweighted {
        /// The tool.
        tool: String,
        /// `null` in JSON when infinite.
        #[serde(deserialize_with = "null_is_infinite")]
        weight: f64,
    },
    /// The plan was recomputed from where execution stands.
    Rerouted {
        /// The plan before.
        from_plan: PlanView,
        /// The plan after.
        to_plan: PlanView,
        /// The tools routed around (empty when the reroute came from live weights).
        around: Vec<String>,
        /// Completed work the new plan branches back past (kept, not undone unless compensated).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        abandoned: Vec<String>,
    },
    /// A transient failure is retried.
    Retried {
        /// The tool.
        tool: String,
        /// The attempt to come.
        attempt: u32,
        /// The clock value before which it is not made (its backoff).
        not_before: Millis,
    },
    /// A tool's breaker changed state.
    BreakerChanged {
        /// The tool.
        tool: String,
        /// The state before.
        from: BreakerState,
        /// The state after.
        to: BreakerState,
    },
    /// The run asked the LLM (or a person).
    Escalated {
        /// Why.
        reason: EscalationReason,
        /// The goal pursued.
        goal: String,
        /// Tools that failed in this task.
        failed: Vec<String>,
        /// Nodes completed so far.
        completed: Vec<String>,
        /// Recovery text from the last failure, verbatim.
        #[serde(skip_serializing_if = "Option::is_none")]
        agent_action: Option<String>,
        /// The LLM call this escalation costs, counted from 1; 0 when the escalation budget is
        /// spent, nobody is asked and the task ends (reason `budget`).
        llm_call: u32,
    },
    /// An escalation's decision demoted the goal.
    GoalDemoted {
        /// The goal before.
        from: String,
        /// The goal after.
        to: String,
    },
    /// A cyclic workflow plans another visit of a completed tool.
    Revisited {
        /// The tool.
        tool: String,
        /// Which visit this is, from 2.
        visit: u32,
    },
    /// A side effect was undone: `by` succeeded for `tool` before the run branched back past it.
    Compensated {
        /// The tool whose side effect was undone.
        tool: String,
        /// The compensating tool.
        by: String,
    },
    /// A tool would not take a call now (breaker, bulkhead, rate limit) or a failure was not
    /// retried (retry budget): the run goes around it, or waits when nothing else leads on.
    Shed {
        /// The tool.
        tool: String,
        /// Why it would not take the call.
        reason: Refusal,
    },
    /// The host ran another tool than the ones it was given (control-flow fault injection).
    Redirected {
        /// The tools the host was given.
        from: Vec<String>,
        /// The tool it ran.
        to: String,
    },
    /// The task ended.
    Finished {
        /// How.
        status: Status,
        /// The goal pursued at the end.
        goal: String,
        /// Completed nodes in completion order.
        path: Vec<String>,
        /// The cost of the path taken.
        #[serde(deserialize_with = "null_is_infinite")]
        cost: f64,
        /// Why it ended so, when not completed.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The opt-in cost adjustment moved a tool's cost (see [`crate::health::costs`]); made by a
    /// [`crate::health::costs::CostLearner`] between runs, not by a run.
    CostAdjusted {
        /// The tool whose cost moved.
        tool: String,
        /// Its cost before.
        from: f64,
        /// Its cost now.
        to: f64,
        /// Why, for people: the figures behind it and the hysteresis passed.
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
