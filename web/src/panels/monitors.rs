//! The monitors' competition at the replay's position: every monitor's signal at the latest
//! decision as a priority bar, the winner marked. Its arrows move the replay between decisions.

use leptos::prelude::*;
use shr_core::event::{Event, EventKind};
use shr_core::monitor::{MonitorKind, Signal};

use crate::state::Page;
use crate::words::signal_text;

/// One decision point of the run: every signal raised, and the winner.
#[derive(Clone, Debug, PartialEq)]
struct DecisionPoint {
    /// The index of its `SignalWon` event.
    event: usize,
    signals: Vec<Signal>,
    winner: Signal,
}

fn decision_points(events: &[Event]) -> Vec<DecisionPoint> {
    let mut out = Vec::new();
    let mut raised = Vec::new();
    for (i, e) in events.iter().enumerate() {
        match &e.kind {
            EventKind::SignalRaised { signal } => raised.push(signal.clone()),
            EventKind::SignalWon { signal } => out.push(DecisionPoint {
                event: i,
                signals: std::mem::take(&mut raised),
                winner: signal.clone(),
            }),
            _ => {}
        }
    }
    out
}

fn bars(p: &DecisionPoint) -> impl IntoView {
    MonitorKind::ALL
        .iter()
        .map(|&kind| {
            let name = kind.label();
            let best = p
                .signals
                .iter()
                .filter(|s| s.source == kind)
                .max_by(|a, b| a.priority.total_cmp(&b.priority))
                .cloned();
            let won = best.as_ref().is_some_and(|s| *s == p.winner);
            let priority = best.as_ref().map_or(0.0, |s| s.priority);
            let text = best.as_ref().map_or_else(|| "quiet".to_string(), signal_text);
            let width = format!("width: {:.0}%", priority * 100.0);
            view! {
                <li class="monitor" class:winner=won data-testid=format!("monitor-{}", name.replace(' ', "-"))>
                    <span class="name">{name}{if won { " ★ wins" } else { "" }}</span>
                    <span class="bar" role="meter" aria-valuemin="0" aria-valuemax="1" aria-valuenow=priority
                        aria-label=format!("{name} priority")>
                        <span class="fill" style=width></span>
                    </span>
                    <span class="priority">{format!("{priority:.2}")}</span>
                    <span class="what">{text}</span>
                </li>
            }
        })
        .collect_view()
}

#[component]
pub fn MonitorPanel() -> impl IntoView {
    let page = expect_context::<Page>();
    let points = Memo::new(move |_| page.view.with(|v| decision_points(&v.0.shr.events)));
    // The latest decision that happened by the replay's position.
    let index = move || {
        let decision = page.replay.moment.with(|m| m.decision);
        decision.and_then(|d| points.with(|ps| ps.iter().position(|p| p.event == d)))
    };
    let go = move |delta: isize| {
        let target = match index() {
            Some(i) => i as isize + delta,
            None if delta > 0 => 0,
            None => return,
        };
        let event =
            points.with_untracked(|ps| usize::try_from(target).ok().and_then(|i| ps.get(i)).map(|p| p.event));
        if let Some(step) = event.and_then(|e| page.view.with_untracked(|v| v.0.timeline.position_of(e))) {
            page.replay.seek(step);
        }
    };
    let shown = move || {
        let i = index();
        points.with(|ps| match i.and_then(|i| ps.get(i)) {
            Some(p) => bars(p).into_any(),
            None => view! { <li class="small">"No decision yet at this step of the run."</li> }.into_any(),
        })
    };
    let position = move || {
        let n = points.with(Vec::len);
        match index() {
            Some(i) => format!("decision {} of {n}", i + 1),
            None => format!("no decision yet ({n} in the run)"),
        }
    };
    let note = super::shr_only(page, |lane| match lane {
        crate::lanes::Lane::React => {
            "Its monitors compete at every decision; the ReAct agent has none: its LLM decides every step."
        }
        _ => "Its monitors compete at every decision; the static workflow has none: its steps are coded.",
    });
    let other = move || page.replay.lane.get() != crate::lanes::Lane::Shr;
    view! {
        <section class="panel monitors">
            <h2>"Monitors"</h2>
            {note}
            <div class="decision-nav" class:hidden=other>
                <button data-testid="decision-prev" aria-label="Previous decision" on:click=move |_| go(-1)>"◀"</button>
                <span data-testid="decision">{position}</span>
                <button data-testid="decision-next" aria-label="Next decision" on:click=move |_| go(1)>"▶"</button>
            </div>
            <ul class="bars" class:hidden=other>{shown}</ul>
        </section>
    }
}
