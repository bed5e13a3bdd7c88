//! The replay of the SHR run, step by step: each search it made to plan (settled nodes,
//! frontier, the edge relaxed or skipped), then each event it logged. Ticks come from
//! gloo-timers; the run itself ran once, in shr-core, when the setup changed.

use leptos::prelude::*;
use shr_core::algo::TraceStep;

use crate::model::{num, View};
use crate::state::Page;
use crate::timeline::Step;
use crate::words::log_line;

/// What the step just taken did, in words.
fn describe(v: &View, k: usize) -> String {
    let g = &v.graph;
    let label = |n: usize| g.node(n).label().to_string();
    let t = &v.timeline;
    let Some(step) = k.checked_sub(1).and_then(|s| t.steps.get(s)) else {
        return format!(
            "Start at {} (cost 0): the router searches the cheapest healthy route to {}.",
            label(g.start()),
            label(g.goal())
        );
    };
    match *step {
        Step::Search { search, step } => {
            let Some(s) = t.searches.get(search).and_then(|s| s.trace.steps.get(step)) else {
                return String::new();
            };
            match s {
                TraceStep::Settled { node, dist } => {
                    format!("Settle {} at cost {}.", label(*node), num(*dist))
                }
                TraceStep::Relaxed { from, to, dist, improved, .. } => {
                    let verdict = if *improved { "a better cost" } else { "no improvement" };
                    format!("Relax {} → {}: {} ({verdict}).", label(*from), label(*to), num(*dist))
                }
                TraceStep::Skipped { from, to, .. } => {
                    format!(
                        "Skip {} → {}: {} is down, the edge costs ∞.",
                        label(*from),
                        label(*to),
                        label(*to)
                    )
                }
            }
        }
        Step::Event(i) => {
            let Some(e) = v.shr.events.get(i) else { return String::new() };
            let text = log_line(&e.kind).map(|(_, t)| t).unwrap_or_default();
            // The step before was the last of the search that found this plan.
            let cost = match k.checked_sub(2).and_then(|s| t.steps.get(s)) {
                Some(Step::Search { search, .. }) => t.searches.get(*search).map(|s| s.cost),
                _ => None,
            };
            match cost {
                Some(c) => format!("Search over: the route costs {}. Event {}: {text}.", num(c), e.seq),
                None => format!("Event {}: {text}.", e.seq),
            }
        }
    }
}

/// Restart / back / play / step / end / speed.
#[component]
pub fn Player() -> impl IntoView {
    let page = expect_context::<Page>();
    let r = page.replay;
    let counter = move || format!("step {} / {}", r.step.get().min(r.total()), r.total());
    view! {
        <div class="player" role="group" aria-label="Run replay">
            <button data-testid="replay-restart" aria-label="Replay from the start" on:click=move |_| r.restart()>"↺ Restart"</button>
            <button data-testid="replay-back" aria-label="Step back" on:click=move |_| r.back()>"◂ Back"</button>
            <button data-testid="replay-play" aria-label=move || if r.playing.get() { "Pause" } else { "Play" }
                on:click=move |_| r.toggle()>
                {move || if r.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <button data-testid="replay-step" aria-label="Step forward" on:click=move |_| r.forward()>"Step ▸"</button>
            <button data-testid="replay-prev-event" aria-label="Back to the previous event, over the search steps"
                on:click=move |_| r.jump_event(false)>"◂◂ Event"</button>
            <button data-testid="replay-next-event" aria-label="On to the next event, over the search steps"
                on:click=move |_| r.jump_event(true)>"Event ▸▸"</button>
            <button data-testid="replay-end" aria-label="Skip to the end of the run" on:click=move |_| r.finish()>"End ⇥"</button>
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
        <p class="replay-text" data-testid="replay-text" aria-live="polite">
            {move || {
                let k = r.step.get();
                match r.lane.get() {
                    crate::lanes::Lane::Shr => page.view.with(|v| describe(&v.0, k)),
                    lane => page.view.with(|v| crate::lanes::describe(&v.0, lane, k)),
                }
            }}
        </p>
    }
}
