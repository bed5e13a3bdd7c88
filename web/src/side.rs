//! Side by side (issue 45): the three executors on the same graph and the same failures,
//! playing at once on one clock, as PathFinding.js compares its algorithms. Each tick moves every
//! executor one action on: a tool call answered, an LLM call, the run's end (SHR's search steps
//! and bookkeeping events are passed over, ReAct's and the static workflow's steps are one action
//! each). Each lane is a small drawing of the graph from that executor's own run ([`Moment`]s,
//! as the main drawing has them) with its counters ticking. Nothing here re-runs anything.

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use shr_core::event::EventKind;
use shr_core::Status;
use shr_eval::scenario::RunReport;

use crate::graph_view::state_at;
use crate::lanes::{self, Lane};
use crate::layout::{self, Direction, Layout};
use crate::model::{ToolState, View};
use crate::state::Page;
use crate::timeline::{Moment, Step};
use crate::words::esc;

/// Step and Restart: static markup, handled by the bar's one listener.
const BUTTONS: &str = concat!(
    r#"<button data-testid="side-step">Step ▸</button>"#,
    r#"<button data-testid="side-restart">↺ Restart</button>"#,
);

/// The side-by-side drawings are small: a bigger graph is compared in the table of counters.
const MAX_NODES: usize = 120;

/// The replay positions after each action of a lane, in order.
fn stops(v: &View, lane: Lane) -> Vec<usize> {
    if lane != Lane::Shr {
        return (1..=lanes::len(v, lane)).collect();
    }
    let mut out: Vec<usize> = v
        .timeline
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| match s {
            Step::Event(i) => v.shr.events.get(*i).is_some_and(|e| match e.kind {
                EventKind::ToolSucceeded { .. }
                | EventKind::ToolFailed { .. }
                | EventKind::Finished { .. } => true,
                EventKind::Escalated { llm_call, .. } => llm_call > 0,
                _ => false,
            }),
            Step::Search { .. } => false,
        })
        .map(|(k, _)| k + 1)
        .collect();
    if out.last() != Some(&v.timeline.len()) {
        out.push(v.timeline.len());
    }
    out
}

/// A lane at a tick: its moment, its (LLM calls, tool calls) so far.
fn at(v: &View, lane: Lane, stops: &[usize], tick: usize) -> (Moment, u32, u32) {
    let k = tick.checked_sub(1).and_then(|t| stops.get(t.min(stops.len().saturating_sub(1)))).copied();
    let k = k.unwrap_or(0);
    if lane == Lane::Shr {
        let m = v.moment(k);
        let events = v.shr.events.get(..m.events).unwrap_or(&v.shr.events);
        let llm =
            events.iter().filter(|e| matches!(e.kind, EventKind::Escalated { llm_call, .. } if llm_call > 0));
        // A redirect cancels the calls in flight: never made (as the run's total counts them).
        let called = events.iter().filter(|e| matches!(e.kind, EventKind::ToolCalled { .. })).count();
        let cancelled: usize = events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Redirected { from, .. } => from.len(),
                _ => 0,
            })
            .sum();
        return (m, llm.count() as u32, called.saturating_sub(cancelled) as u32);
    }
    let steps = lanes::steps(v, lane);
    let last = k.checked_sub(1).and_then(|i| steps.get(i));
    (lanes::moment(&v.graph, &steps, k), last.map_or(0, |s| s.llm_calls), last.map_or(0, |s| s.tool_calls))
}

/// How a finished run ended, in a few words.
fn ending(v: &View, r: &RunReport) -> String {
    let goal = v.graph.index(&r.goal).map_or(r.goal.as_str(), |g| v.graph.node(g).label());
    let how = match r.status {
        Status::Completed => format!("reached {goal}"),
        Status::Demoted => format!("demoted to {goal}"),
        Status::Escalated => "stopped by escalation".into(),
    };
    if r.silent_failure {
        format!("⚠ claims success: {how}, with a step skipped")
    } else {
        how
    }
}

/// One lane's drawing, as markup: the graph in small, coloured by the lane's moment. Static
/// markup set whole: built element by element, the three drawings took 11 KB of the module.
fn drawing(v: &View, l: &Layout, m: &Moment) -> String {
    let g = &v.graph;
    let mut out = format!(
        r#"<svg class="side-graph" viewBox="-10 -10 {:.0} {:.0}" aria-hidden="true"><g class="edges">"#,
        l.width + 20.0,
        l.height + 20.0
    );
    for e in 0..g.edge_count() {
        out.push_str(r#"<g class="edge"#);
        for (on, name) in [(m.route_edges.contains(&e), " route"), (m.ran_edges.contains(&e), " ran")] {
            if on {
                out.push_str(name);
            }
        }
        out.push_str(r#""><path d=""#);
        for (i, (x, y)) in l.edges[e].points.iter().enumerate() {
            out.push_str(&format!("{}{x:.0} {y:.0}", if i == 0 { "M" } else { " L" }));
        }
        out.push_str(r#""/></g>"#);
    }
    out.push_str(r#"</g><g class="nodes">"#);
    for n in 0..g.node_count() {
        let r = &l.nodes[n];
        out.push_str(match state_at(v.states[n], m, n) {
            ToolState::Failed => r#"<g class="node failed"#,
            ToolState::Unseen => r#"<g class="node failed unseen"#,
            ToolState::Probing => r#"<g class="node probing"#,
            _ => r#"<g class="node"#,
        });
        for (on, name) in [
            (m.ran_nodes.contains(&n), " ran"),
            (m.route_nodes.contains(&n), " route"),
            (m.focus == Some(n), " current"),
        ] {
            if on {
                out.push_str(name);
            }
        }
        out.push_str(&format!(
            r#"" data-node="{}"><title>{}</title><rect x="{:.0}" y="{:.0}" width="{:.0}" height="{:.0}" rx="8"/></g>"#,
            esc(g.id(n)),
            esc(g.node(n).label()),
            r.x,
            r.y,
            r.w,
            r.h
        ));
    }
    out.push_str("</g></svg>");
    out
}

/// The three executors at once, on their own clock, under a toggle.
#[component]
pub fn SideBySide() -> impl IntoView {
    let page = expect_context::<Page>();
    let open = RwSignal::new(false);
    let tick = RwSignal::new(0usize);
    let playing = RwSignal::new(false);
    // Which press of Play the ticking loop belongs to: a loop from an earlier one stops.
    let round = RwSignal::new(0usize);
    // Each lane's stops, computed when asked (a memo of its own took more of the module).
    let by_lane = move || {
        page.view.with_untracked(|v| {
            Lane::ALL
                .into_iter()
                .filter(|&l| lanes::available(&v.0, l))
                .map(|l| (l, stops(&v.0, l)))
                .collect::<Vec<_>>()
        })
    };
    let ticks = move || by_lane().iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    // Another graph or other failures: from the start.
    Effect::new(move |_| {
        page.view.track();
        tick.set(0);
        playing.set(false);
    });
    let play = move || {
        if tick.get_untracked() >= ticks() {
            tick.set(0);
        }
        // One clock at a time: the main replay holds still while the three play.
        page.replay.playing.set(false);
        playing.set(true);
        round.update(|r| *r += 1);
        let mine = round.get_untracked();
        leptos::task::spawn_local(async move {
            while playing.get_untracked() && round.get_untracked() == mine {
                let speed = page.replay.speed.get_untracked().clamp(0.25, 64.0);
                TimeoutFuture::new((1000.0 / speed) as u32).await;
                if !playing.get_untracked() || !open.get_untracked() || round.get_untracked() != mine {
                    break;
                }
                let t = tick.get_untracked() + 1;
                tick.set(t.min(ticks()));
                if t >= ticks() {
                    playing.set(false);
                }
            }
        });
    };
    // The bar's buttons: one listener for all.
    let press = move |ev: leptos::ev::MouseEvent| match crate::replay::pressed(&ev).as_deref() {
        Some("side-play") if playing.get_untracked() => playing.set(false),
        Some("side-play") => play(),
        Some("side-step") => {
            playing.set(false);
            tick.update(|t| *t = (*t + 1).min(ticks()));
        }
        Some("side-restart") => {
            playing.set(false);
            tick.set(0);
        }
        _ => {}
    };
    // The three lanes as markup, set whole at each tick.
    let lanes_html = move || {
        let t = tick.get();
        let v = page.view.get().0;
        // The main drawing's layout (laid out before a visitor can open this).
        let key = layout::key(&v.graph);
        let Some(l) = Direction::candidates(&v.graph).into_iter().find_map(|d| layout::cached(key, d)) else {
            return "<p>Laying out the graph…</p>".into();
        };
        let mut out = String::new();
        for (lane, stops) in by_lane() {
            let (m, llm, tools) = at(&v, lane, &stops, t);
            let (name, report) = match lane {
                Lane::Shr => ("Self-Healing Router", Some(&v.shr)),
                Lane::React => ("ReAct agent", Some(&v.react)),
                Lane::Static => ("Static workflow", v.workflow.as_ref()),
            };
            let done = t >= stops.len();
            let status = match (done, report, m.focus) {
                (true, Some(r), _) => ending(&v, r),
                (_, _, Some(f)) => format!("at {}", v.graph.node(f).label()),
                _ if t == 0 => "starting".to_string(),
                _ => "deciding what to do next".to_string(),
            };
            out.push_str(&format!(
                r#"<figure class="side-lane{}" data-testid="side-{}"><figcaption><b>{name}</b><span class="side-counts"> LLM calls <b data-testid="side-llm">{llm}</b> · tool calls <b data-testid="side-tools">{tools}</b></span><span class="side-status" data-testid="side-status">{}</span></figcaption>{}</figure>"#,
                if done { " done" } else { "" },
                lane.key(),
                esc(&status),
                drawing(&v, &l, &m)
            ));
        }
        out
    };
    let panel = move || {
        open.get().then(|| {
            if page.view.with(|v| v.0.graph.node_count() > MAX_NODES) {
                return view! { <p class="small" data-testid="side-too-big">{format!("Side by side draws graphs of up to {MAX_NODES} nodes; the counters table compares the three on this one.")}</p> }.into_any();
            }
            view! {
                <div class="side-bar" role="group" aria-label="Side-by-side replay" on:click=press>
                    <button data-testid="side-play">{move || if playing.get() { "❚❚ Pause" } else { "▶ Play all three" }}</button>
                    <span class="buttons" inner_html=BUTTONS></span>
                    <span class="counter" data-testid="side-tick">{move || format!("action {} / {}", tick.get(), ticks())}</span>
                </div>
                <div class="side-lanes" inner_html=lanes_html></div>
            }
            .into_any()
        })
    };
    view! {
        <section class="side" aria-label="The three executors side by side">
            <button data-testid="side-toggle" aria-expanded=move || open.get().to_string()
                on:click=move |_| { playing.set(false); open.update(|o| *o = !*o) }>
                {move || if open.get() { "Hide side by side" } else { "Side by side: the three executors at once" }}
            </button>
            {panel}
        </section>
    }
}
