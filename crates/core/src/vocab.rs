//! The vocabulary hosts and sessions speak: a [`Task`], the [`Call`]s a session asks for, the
//! [`ToolResult`] a host reports, the [`Action`] it is told to take, an escalation's request and
//! [`Decision`], and the [`Outcome`] of a task. Plain data, serializable; no behaviour beyond
//! constructors, so every other module may depend on it.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ConfigError;
use crate::health::{AdmissionConfig, BreakerConfig};
use crate::monitor::{Context, Signal};
use crate::Millis;

/// A task: where to go, and what monitors should know.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// The run's key, unique across every process of an agent fleet (a UUID): the prefix of the
    /// idempotency key of each of its calls. `run-N` (N counting the router's runs) when absent,
    /// unique within one router only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Goal node id; the graph's goal when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// Start node id; the graph's start when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default)]
    /// Your data: the monitors read `request`, the risk rules' keys and `known_bad`.
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
    /// The circuit breaker's settings.
    pub breaker: BreakerConfig,
    /// How calls are let through to each tool, for every run of the router together.
    pub admission: AdmissionConfig,
    /// Where a run may replan from when no plan from the tip of its work exists.
    pub replan_from: ReplanFrom,
}

/// Where a run replans from when its failures leave no plan from the tip of its work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplanFrom {
    /// Only from the tip: a dead end after completed work is an escalation.
    Tip,
    /// From any completed node, the tip first: a dead end costs no LLM call while a healthy
    /// path from earlier work exists. Work branched back past is kept; a side effect on it is
    /// compensated first, and one with no compensation is never branched back past.
    #[default]
    Completed,
}

impl SessionConfig {
    /// The first setting that is out of range, named (see [`BreakerConfig::check`]).
    pub fn check(&self) -> Result<(), ConfigError> {
        self.breaker.check().map_err(|e| e.within("breaker"))?;
        self.admission.check().map_err(|e| e.within("admission"))
    }
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            tool_budget: 64,
            escalation_budget: 4,
            visit_budget: 4,
            breaker: BreakerConfig::default(),
            admission: AdmissionConfig::default(),
            replan_from: ReplanFrom::default(),
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
    /// Whose fault it is: input, service or policy.
    pub category: Category,
    /// Worth retrying (a timeout, a 503). A permanent failure skips the retries.
    #[serde(default)]
    pub transient: bool,
    #[serde(default)]
    /// What went wrong, for people.
    pub message: String,
    /// Recovery text from the tool (seed 003), carried verbatim into an escalation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_action: Option<String>,
    #[serde(default)]
    /// How long the call took.
    pub latency_ms: f64,
}

impl ToolFailure {
    /// What an unknown outcome is when it cannot matter (a tool with no side effect, a
    /// compensation, whose retry with the same key is safe): a transient service failure.
    pub fn unknown(message: String, latency_ms: f64) -> Self {
        ToolFailure { category: Category::Service, transient: true, message, agent_action: None, latency_ms }
    }
}

/// The outcome of one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ToolResult {
    /// The call succeeded.
    Ok {
        #[serde(default)]
        /// The tool's output (checked by its validators).
        output: Value,
        #[serde(default)]
        /// How long the call took.
        latency_ms: f64,
    },
    /// The call failed.
    Err(ToolFailure),
    /// Nobody knows what the call did: it timed out, or was aborted, after it may have acted.
    /// A tool without a side effect takes it as a transient service failure; for a side effect
    /// the run neither retries it nor lets another side effect act until the outcome is known
    /// (its node's `verify` tool answers, or an escalation of reason `outcome_unknown` does).
    Unknown {
        #[serde(default)]
        /// What is known of it.
        message: String,
        #[serde(default)]
        /// How long the call took before it was given up on.
        latency_ms: f64,
    },
}

impl ToolResult {
    /// A success with `output`, after `latency_ms`.
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

    /// A call whose outcome is unknown (it timed out after it may have acted).
    pub fn unknown(message: impl Into<String>) -> Self {
        ToolResult::Unknown { message: message.into(), latency_ms: 0.0 }
    }

    /// An unknown outcome as the transient service failure it is for a tool with no side
    /// effect; anything else as it is.
    pub fn into_known(self) -> Self {
        match self {
            ToolResult::Unknown { message, latency_ms } => {
                ToolResult::Err(ToolFailure::unknown(message, latency_ms))
            }
            other => other,
        }
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
    /// The tool to call.
    pub tool: String,
    /// 1 for the first call, 2 for the first retry...
    pub attempt: u32,
    /// Do not call before this clock value (retry backoff).
    pub not_before: Millis,
    /// The same wait as a duration from when the call was handed out: a host should sleep this
    /// long on a monotonic clock, so that its wall clock stepping back changes no backoff.
    #[serde(default)]
    pub delay_ms: Millis,
    /// The call's idempotency key (Stripe's `Idempotency-Key`): the same on every attempt of
    /// one step of the run, a new one for a new step; `<task id>:<tool>:<step>`. A `verify`
    /// call carries the key of the call whose outcome it checks.
    #[serde(default)]
    pub call_id: String,
    /// How long the call may take before the host gives up on it (and aborts it): the node's
    /// `timeout_ms`, else the run's, else the router's `admission.call_timeout_ms`.
    #[serde(default)]
    pub timeout_ms: Millis,
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
    /// A side effect could not be undone before branching back past it.
    Compensation,
    /// The host ended the run: its deadline passed, or it gave up waiting on a call or an
    /// answer (see [`crate::Router::abandon`]). Nobody is asked.
    Deadline,
    /// A side effect's call timed out and nobody knows whether it acted (no `verify`, or it
    /// could not tell). The request names the call's key; `approve` means it did not act (the
    /// run routes around it), `abort` or `hand_off` stop the task.
    OutcomeUnknown,
}

/// What the session asks the LLM (or a person).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscalationRequest {
    /// Why no path is taken.
    pub reason: EscalationReason,
    /// The goal being pursued.
    pub goal: String,
    /// Tools that failed in this task.
    pub failed: Vec<String>,
    /// Nodes completed so far.
    pub completed: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Recovery text from the last failure, verbatim.
    pub agent_action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The signal that made the escalation, if any.
    pub signal: Option<Signal>,
    /// The key of the call whose outcome is unknown (reason `outcome_unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

/// The answer to an escalation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Pursue another goal node instead.
    Demote {
        /// The goal to pursue instead.
        goal: String,
    },
    /// Carry on (a risk was reviewed and accepted, or input was fixed).
    Approve,
    /// Stop the task with a message. Terminal.
    Abort {
        /// Why, for the outcome.
        message: String,
    },
    /// Hand the task to someone else. Terminal.
    HandOff {
        /// Who takes it over.
        to: String,
    },
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

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The result of a task, covering the whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// How it ended.
    pub status: Status,
    /// The goal pursued at the end (another than the original after a demotion).
    pub goal: String,
    /// The task's goal at the start.
    pub original_goal: String,
    /// The executed path the final plan used: completed nodes it built on, in completion order.
    /// (Until a run ends at its goal, completed work not abandoned.)
    pub path: Vec<String>,
    /// Sum over the edges of `path` the run traversed of `cost x base_cost` of the node each
    /// enters: the executed path's price without health factors (docs/graph-format.md, "What a
    /// cost means").
    pub cost: f64,
    /// Completed tools no plan built on in the end (branched back past), in completion order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub abandoned: Vec<String>,
    /// Cost of the edges traversed into abandoned work: spent, not on `path`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sunk_cost: f64,
    /// Tool calls made.
    pub tool_calls: u32,
    /// LLM (escalation) calls made.
    pub llm_calls: u32,
    /// Times the plan was recomputed around a failure.
    pub reroutes: u32,
    /// Retries of transient failures.
    pub retries: u32,
    /// Failures seen.
    pub failures: u32,
    /// Planned revisits of completed tools (cyclic workflows).
    #[serde(default)]
    pub revisits: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Why it ended so, when not completed (an abort's message...).
    pub message: Option<String>,
}

/// What the host should do next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Make these calls.
    CallTools {
        /// The calls, to start together.
        calls: Vec<Call>,
    },
    /// Calls are in flight; report them first.
    Wait,
    /// Nothing can be called now: what this run needs is only full or rate-limited for the
    /// moment (other runs hold it). Ask again at `until`, or sooner after any report to the
    /// router; a run waits at most `admission.max_wait_ms` in all, then escalates.
    Pause {
        /// When to ask again.
        until: Millis,
    },
    /// No path: ask the LLM (or a person) and answer with `resolve_escalation`.
    Escalate {
        /// What to ask.
        request: EscalationRequest,
    },
    /// The task has ended.
    Finished {
        /// How it ended.
        outcome: Outcome,
    },
}
