//! The route in words, at the replay's position: the path taken and the plan from where
//! execution stands, why there is none, or what the run ended with.

use leptos::prelude::*;
use shr_core::event::EventKind;
use shr_core::{EscalationReason, Status, ToolGraph};

use crate::lanes::{self, Lane};
use crate::model::{num, View};
use crate::state::Page;
use crate::timeline::{edge_ix, Moment};
use crate::words::{label, reason_text};

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

/// The headline at a moment of SHR's run, and the route it states (node ids, in order).
fn headline(v: &View, m: &Moment) -> (String, Vec<String>) {
    let g = &v.graph;
    let run = &v.shr;
    // The tools the host redirected the run to (control-flow faults): reached by a jump.
    let jumps: Vec<&str> = super::happened(&run.events, m.events)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Redirected { to, .. } => Some(to.as_str()),
            _ => None,
        })
        .collect();
    let path = |g: &ToolGraph, ids: &[String]| route_words(g, ids, &jumps);
    let goal = g.node(g.goal()).label();
    let done: Vec<String> = crate::timeline::completed(g, &run.edges).into_iter().take(m.completed).collect();
    let done_text = path(g, &done);
    let demotion = demoted_to(v, m).map(|to| {
        format!("{}: the LLM demoted the goal to {}. ", reason_text(last_reason(v, m), goal), label(g, &to))
    });
    if m.finished {
        let all = path(g, &run.path);
        let text = match run.status {
            Status::Completed => {
                format!("Route: {all} (cost {})", v.run_cost().map_or_else(|| "?".into(), num))
            }
            Status::Demoted => format!("{}Route: {all}", demotion.unwrap_or_default()),
            Status::Escalated => format!(
                "{}: the run stopped with an escalation after {all}.",
                reason_text(last_reason(v, m), goal)
            ),
        };
        return (text, run.path.clone());
    }
    if let Some(reason) = m.escalated {
        let now_goal = demoted_to(v, m).map_or_else(|| goal.to_string(), |d| label(g, &d));
        let text = format!(
            "{}: the run escalates after {done_text}; the LLM is asked.",
            reason_text(reason, &now_goal)
        );
        return (text, done);
    }
    if let Some(tool) = m.broke {
        let text = format!(
            "{} failed: the router searches a new route from where the run stands (done: {done_text}).",
            g.node(tool).label()
        );
        return (text, done);
    }
    let Some(plan) = &m.plan else {
        let text = format!(
            "Planning: the router searches the cheapest healthy route from {} to {goal}.",
            g.node(g.start()).label()
        );
        return (text, done);
    };
    let ahead = plan.nodes.iter().filter(|v| !m.ran_nodes.contains(v)).map(|&v| g.id(v).to_string());
    let whole: Vec<String> = done.iter().cloned().chain(ahead).collect();
    let last = done.last().map_or_else(String::new, |id| label(g, id));
    let text = format!(
        "{}Route: {} (done up to {last}; the rest is the plan from there, cost {})",
        demotion.unwrap_or_default(),
        path(g, &whole),
        num(plan.cost)
    );
    (text, whole)
}

/// A route in words: labels joined by →, or by ⤳ where no edge joins two nodes because the host
/// redirected the run (a control-flow fault: to the tool redirected to, and from it back to the
/// plan), then said once. `jumps`: the tools redirected to so far.
fn route_words(g: &ToolGraph, ids: &[String], jumps: &[&str]) -> String {
    let mut out = String::new();
    let mut jumped = false;
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            let edge = g.index(&ids[i - 1]).zip(g.index(id)).and_then(|(a, b)| edge_ix(g, a, b));
            if edge.is_none() && !jumps.is_empty() {
                jumped = true;
                out.push_str(" ⤳ ");
            } else {
                out.push_str(" → ");
            }
        }
        out.push_str(&label(g, id));
    }
    if jumped {
        out.push_str(" [⤳: no edge; the host redirected the run, which then went on with its plan]");
    }
    out
}

/// The headline while a baseline is replayed: its own route so far, and what it ended with.
fn lane_headline(v: &View, lane: Lane, k: usize) -> (String, Vec<String>) {
    let g = &v.graph;
    let steps = lanes::steps(v, lane);
    let ids: Vec<String> = lanes::path(g, &steps, k).into_iter().map(|n| g.id(n).to_string()).collect();
    let name = match lane {
        Lane::React => "ReAct agent",
        _ => "Static workflow",
    };
    let shown = &steps[..k.min(steps.len())];
    let failed: Vec<String> = shown
        .iter()
        .filter_map(|s| s.call.filter(|c| !c.1).map(|c| g.node(c.0).label().to_string()))
        .collect();
    let skipped: Vec<String> =
        shown.iter().flat_map(|s| s.skipped.iter().map(|&n| g.node(n).label().to_string())).collect();
    let mut text = format!("{name}: {}", route_words(g, &ids, &[]));
    if !failed.is_empty() {
        text.push_str(&format!("; failed calls: {}", failed.join(", ")));
    }
    if !skipped.is_empty() {
        text.push_str(&format!("; ⚠ skipped: {}", skipped.join(", ")));
    }
    match shown.iter().rev().find_map(|s| s.claim) {
        Some((goal, true)) => text.push_str(&format!(
            ". It reports success at {} although a required step never ran (silent failure).",
            g.node(goal).label()
        )),
        Some((goal, false)) => text.push_str(&format!(". It finishes at {}.", g.node(goal).label())),
        None if k >= steps.len() => text.push_str(". It stopped without reaching a goal."),
        None => text.push_str(" (so far)"),
    }
    (text, ids)
}

/// The route at the replay's position, or why there is none.
#[component]
pub fn RouteSummary() -> impl IntoView {
    let page = expect_context::<Page>();
    let said = Memo::new(move |_| {
        let m = page.replay.moment.get();
        match page.replay.lane.get() {
            Lane::Shr => page.view.with(|v| headline(&v.0, &m)),
            lane => page.view.with(|v| lane_headline(&v.0, lane, m.position)),
        }
    });
    let text = move || said.with(|s| s.0.clone());
    let ids = move || said.with(|s| s.1.join(" "));
    let no_path = move || {
        let m = page.replay.moment.get();
        page.replay.lane.get() == Lane::Shr
            && (m.escalated.is_some()
                || (m.finished && page.view.with(|v| v.0.shr.status != Status::Completed)))
    };
    let broken = move || page.replay.moment.with(|m| m.broke.is_some());
    view! {
        <section class="panel route-summary" class:no-path=no_path class:broken=broken aria-live="polite">
            <p data-testid="route" data-route=ids>{text}</p>
        </section>
    }
}
