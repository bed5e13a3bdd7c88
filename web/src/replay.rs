//! Replays the recorded Dijkstra search step by step (record-then-replay): settled nodes,
//! frontier, the edge being relaxed or skipped, then the chosen route. Ticks come from
//! gloo-timers; the search itself ran once, in shr-core, when the setup changed.

use leptos::prelude::*;
use shr_core::algo::TraceStep;

use crate::model::num;
use crate::state::Page;

/// What the replay is showing, in words.
fn describe(page: &Page, k: usize) -> String {
    page.view.with(|v| {
        let g = &v.0.graph;
        let label = |n: usize| g.node(n).label.clone();
        let total = v.0.trace.steps.len();
        if k >= total {
            return match &v.0.route {
                Some(p) => format!("Search over: the route costs {}.", num(p.cost)),
                None => {
                    format!("Search over: no healthy path reaches {}; the router escalates.", label(g.goal()))
                }
            };
        }
        if k == 0 {
            return format!("Start at {} (cost 0).", label(g.start()));
        }
        match &v.0.trace.steps[k - 1] {
            TraceStep::Settled { node, dist } => format!("Settle {} at cost {}.", label(*node), num(*dist)),
            TraceStep::Relaxed { from, to, dist, improved, .. } => {
                let verdict = if *improved { "a better cost" } else { "no improvement" };
                format!("Relax {} → {}: {} ({verdict}).", label(*from), label(*to), num(*dist))
            }
            TraceStep::Skipped { from, to, .. } => {
                format!("Skip {} → {}: {} is down, the edge costs ∞.", label(*from), label(*to), label(*to))
            }
        }
    })
}

/// Play / pause / step / speed.
#[component]
pub fn Player() -> impl IntoView {
    let page = expect_context::<Page>();
    let r = page.replay;
    let counter = move || format!("step {} / {}", r.step.get().min(r.total()), r.total());
    view! {
        <div class="player" role="group" aria-label="Search replay">
            <button data-testid="replay-restart" aria-label="Replay from the start" on:click=move |_| r.restart()>"↺ Restart"</button>
            <button data-testid="replay-back" aria-label="Step back" on:click=move |_| r.back()>"◂ Back"</button>
            <button data-testid="replay-play" aria-label=move || if r.playing.get() { "Pause" } else { "Play" }
                on:click=move |_| r.toggle()>
                {move || if r.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <button data-testid="replay-step" aria-label="Step forward" on:click=move |_| r.forward()>"Step ▸"</button>
            <button data-testid="replay-end" aria-label="Skip to the route" on:click=move |_| r.finish()>"End ⇥"</button>
            <label class="speed">
                "speed "
                <select data-testid="replay-speed" on:change=move |ev| {
                    if let Ok(x) = event_target_value(&ev).parse::<f64>() { r.speed.set(x) }
                }>
                    <option value="1">"1 step/s"</option>
                    <option value="4" selected=true>"4 steps/s"</option>
                    <option value="12">"12 steps/s"</option>
                    <option value="40">"40 steps/s"</option>
                </select>
            </label>
            <span class="counter" data-testid="replay-counter">{counter}</span>
        </div>
        <p class="replay-text" data-testid="replay-text" aria-live="polite">{move || describe(&page, r.step.get())}</p>
    }
}
