//! What the run's events and signals say, in words: one wording for the event log, the replay
//! line and the monitor panel.

use shr_core::event::EventKind;
use shr_core::monitor::{Signal, SignalKind};
use shr_core::{EscalationReason, ToolGraph};

use crate::model::num;

/// A node's label, or the id itself when the graph has no such node.
pub fn label(graph: &ToolGraph, id: &str) -> String {
    graph.index(id).map_or_else(|| id.to_string(), |v| graph.node(v).label().to_string())
}

pub fn signal_text(s: &Signal) -> String {
    match &s.kind {
        SignalKind::Intent { intent } => format!("intent “{intent}”: follow the plan"),
        SignalKind::Risk { key, value, max, stage, .. } => {
            format!("{key} = {} exceeds {} before {stage}: escalate before acting", num(*value), num(*max))
        }
        SignalKind::ToolDown { tools } => format!("{} down: reweight and reroute", tools.join(", ")),
        SignalKind::Budget { used, limit } => format!("budget {used}/{limit}: escalate"),
        SignalKind::KnownBad { tool } => format!("{tool} known bad: avoid it"),
        SignalKind::Thrash { cycle, repeats } => {
            format!("cycle {} repeated {repeats}×: escalate", cycle.join(" → "))
        }
    }
}

/// Why a run escalated, as the headline says it.
pub fn reason_text(reason: EscalationReason, goal: &str) -> String {
    match reason {
        EscalationReason::NoPath => format!("No healthy path to {goal}"),
        EscalationReason::Risk => format!("The risk monitor stopped the route to {goal}"),
        EscalationReason::Budget => format!("The budget ran out on the way to {goal}"),
        EscalationReason::Policy => format!("A policy blocks the route to {goal}"),
        EscalationReason::Input => format!("A tool on the way to {goal} rejected its input"),
        EscalationReason::Compensation => format!("A side effect could not be undone on the way to {goal}"),
        other => format!("The run on the way to {goal} escalated ({other:?})"),
    }
}

/// An event as a log line: (kind class, text). `None` for raised signals, which the monitor
/// panel shows at the decision they feed.
pub fn log_line(e: &EventKind) -> Option<(&'static str, String)> {
    Some(match e {
        EventKind::PathPlanned { plan } => {
            ("plan", format!("planned {} (cost {})", plan.nodes.join(" → "), num(plan.cost)))
        }
        EventKind::SignalRaised { .. } => return None,
        EventKind::SignalWon { signal } => {
            ("signal", format!("{:?} monitor wins: {}", signal.source, signal_text(signal)))
        }
        EventKind::ToolCalled { tool, attempt, .. } => (
            "call",
            if *attempt > 1 { format!("call {tool} (attempt {attempt})") } else { format!("call {tool}") },
        ),
        EventKind::ToolSucceeded { tool, latency_ms } => {
            ("ok", format!("{tool} succeeded in {} ms", num(*latency_ms)))
        }
        EventKind::ToolFailed { tool, message, implicit, transient, category, .. } => {
            let kind = match (implicit, transient) {
                (true, _) => "implicit: its output failed a validator",
                (false, true) => "transient",
                (false, false) => "permanent",
            };
            ("failed", format!("{tool} failed ({category:?}, {kind}): {message}"))
        }
        EventKind::Reweighted { tool, weight } => {
            ("weight", format!("{tool} reweighted to {}", num(*weight)))
        }
        EventKind::Rerouted { to_plan, around, .. } => {
            let plan = format!("{} (cost {})", to_plan.nodes.join(" → "), num(to_plan.cost));
            // No tool named: a new goal (a demotion) or live weights moved the plan.
            let text = if around.is_empty() {
                format!("replanned: {plan}")
            } else {
                format!("rerouted around {}: {plan}", around.join(", "))
            };
            ("reroute", text)
        }
        EventKind::Retried { tool, attempt, .. } => ("retry", format!("retry {tool} (attempt {attempt})")),
        EventKind::BreakerChanged { tool, from, to } => {
            ("breaker", format!("{tool} breaker {from:?} → {to:?}"))
        }
        // llm_call 0: the escalation budget is spent, so the task stops without asking the LLM.
        EventKind::Escalated { reason, goal, llm_call: 0, .. } => {
            ("escalate", format!("escalated ({reason:?}) on {goal}: escalation budget spent, no LLM call"))
        }
        EventKind::Escalated { reason, goal, llm_call, .. } => {
            ("escalate", format!("escalated ({reason:?}) on {goal}: LLM call #{llm_call}"))
        }
        EventKind::GoalDemoted { from, to } => ("demote", format!("goal demoted from {from} to {to}")),
        EventKind::Revisited { tool, visit } => ("call", format!("revisit {tool} (visit {visit})")),
        EventKind::Redirected { to, from } if from.is_empty() => ("failed", format!("redirected to {to}")),
        // The calls in flight are cancelled: they were never made, and the count drops them.
        EventKind::Redirected { to, from } => {
            ("failed", format!("redirected to {to}; calls cancelled: {}", from.join(", ")))
        }
        EventKind::Finished { status, goal, path, cost, .. } => (
            "finished",
            format!("finished: {status:?} at {goal} via {} (cost {})", path.join(" → "), num(*cost)),
        ),
        // An event kind newer than this page: the log names it.
        other => ("signal", other.name().to_string()),
    })
}

/// Text for HTML: the page's markup built as a string (names and labels come from imported
/// graphs, so `<`, `&` and quotes are escaped).
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
