//! The route in words, at the replay's position: the path taken and the plan from where
//! execution stands, why there is none, or what the run ended with.

use leptos::prelude::*;
use shr_core::event::EventKind;
use shr_core::{EscalationReason, Status};

use crate::model::{num, View};
use crate::state::Page;
use crate::timeline::Moment;
use crate::words::{label, path, reason_text};

/// The reason of the last escalation among the events that happened.
fn last_reason(v: &View, m: &Moment) -> EscalationReason {
    super::happened(&v.shr.events, m.events)
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Escalated { reason, .. } => Some(*reason),
            _ => None,
        })
        .unwrap_or(EscalationReason::NoPath)
}

/// The goal the LLM demoted to, if it did by this moment.
fn demoted_to(v: &View, m: &Moment) -> Option<String> {
    super::happened(&v.shr.events, m.events).iter().rev().find_map(|e| match &e.kind {
        EventKind::GoalDemoted { to, .. } => Some(to.clone()),
        _ => None,
    })
}

fn headline(v: &View, m: &Moment) -> String {
    let g = &v.graph;
    let run = &v.shr;
    let goal = g.node(g.goal()).label();
    let done: Vec<&String> = run.path.iter().take(m.completed).collect();
    let done_text = path(g, &done);
    let demotion = demoted_to(v, m).map(|to| {
        format!("{}: the LLM demoted the goal to {}. ", reason_text(last_reason(v, m), goal), label(g, &to))
    });
    if m.finished {
        let all = path(g, &run.path);
        return match run.status {
            Status::Completed => {
                format!("Route: {all} (cost {})", v.run_cost().map_or_else(|| "?".into(), num))
            }
            Status::Demoted => format!("{}Route: {all}", demotion.unwrap_or_default()),
            Status::Escalated => format!(
                "{}: the run stopped with an escalation after {all}.",
                reason_text(last_reason(v, m), goal)
            ),
        };
    }
    if let Some(reason) = m.escalated {
        let now_goal = demoted_to(v, m).map_or_else(|| goal.to_string(), |d| label(g, &d));
        return format!(
            "{}: the run escalates after {done_text}; the LLM is asked.",
            reason_text(reason, &now_goal)
        );
    }
    if let Some(tool) = m.broke {
        return format!(
            "{} failed: the router searches a new route from where the run stands (done: {done_text}).",
            g.node(tool).label()
        );
    }
    let Some(plan) = &m.plan else {
        return format!(
            "Planning: the router searches the cheapest healthy route from {} to {goal}.",
            g.node(g.start()).label()
        );
    };
    let ahead: Vec<&str> = plan.nodes.iter().filter(|v| !m.ran_nodes.contains(v)).map(|&v| g.id(v)).collect();
    let whole: Vec<&str> = done.iter().map(|s| s.as_str()).chain(ahead).collect();
    let last = done.last().map_or_else(String::new, |id| label(g, id));
    format!(
        "{}Route: {} (done up to {last}; the rest is the plan from there, cost {})",
        demotion.unwrap_or_default(),
        path(g, &whole),
        num(plan.cost)
    )
}

/// The route at the replay's position, or why there is none.
#[component]
pub fn RouteSummary() -> impl IntoView {
    let page = expect_context::<Page>();
    let text = move || {
        let m = page.replay.moment.get();
        page.view.with(|v| headline(&v.0, &m))
    };
    let no_path = move || {
        let m = page.replay.moment.get();
        m.escalated.is_some() || (m.finished && page.view.with(|v| v.0.shr.status != Status::Completed))
    };
    let broken = move || page.replay.moment.with(|m| m.broke.is_some());
    view! {
        <section class="panel route-summary" class:no-path=no_path class:broken=broken aria-live="polite">
            <p data-testid="route">{text}</p>
        </section>
    }
}
