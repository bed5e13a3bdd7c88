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

/// The replay's buttons but Play (whose words change) and its speeds: static markup, set whole
/// and handled by one listener on the bar (built element by element they took a kilobyte more of
/// the module).
const BACKWARD: &str = concat!(
    r#"<button data-testid="replay-restart" aria-label="Restart the replay from the start">↺ Restart</button>"#,
    r#"<button data-testid="replay-back" aria-label="Step back">◂ Back</button>"#,
);
const FORWARD: &str = concat!(
    r#"<button data-testid="replay-step" aria-label="Step forward">Step ▸</button>"#,
    r#"<button data-testid="replay-prev-event" aria-label="Back to the previous event, over the search steps">◂◂ Event</button>"#,
    r#"<button data-testid="replay-next-event" aria-label="On to the next event, over the search steps">Event ▸▸</button>"#,
    r#"<button data-testid="replay-end" aria-label="Skip to the end of the run">End ⇥</button>"#,
);
const SPEEDS: &str = concat!(
    r#"<option value="1">1 step/s</option><option value="4" selected>4 steps/s</option>"#,
    r#"<option value="12">12 steps/s</option><option value="40">40 steps/s</option>"#,
);

/// Restart / back / play / step / events / end / speed / position.
#[component]
pub fn Player() -> impl IntoView {
    let page = expect_context::<Page>();
    let r = page.replay;
    let counter = move || format!("step {} / {}", r.step.get().min(r.total()), r.total());
    let press = move |ev: leptos::ev::MouseEvent| match pressed(&ev).as_deref() {
        Some("replay-restart") => r.restart(),
        Some("replay-back") => r.back(),
        Some("replay-play") => r.toggle(),
        Some("replay-step") => r.forward(),
        Some("replay-prev-event") => r.jump_event(false),
        Some("replay-next-event") => r.jump_event(true),
        Some("replay-end") => r.finish(),
        _ => {}
    };
    view! {
        <div class="player" role="group" aria-label="Run replay" on:click=press>
            <span class="buttons" inner_html=BACKWARD></span>
            <button data-testid="replay-play" aria-label=move || if r.playing.get() { "Pause" } else { "Play" }>
                {move || if r.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <span class="buttons" inner_html=FORWARD></span>
            <label class="speed">
                "speed "
                <select data-testid="replay-speed" inner_html=SPEEDS on:change=move |ev| {
                    if let Ok(x) = event_target_value(&ev).parse::<f64>() { r.speed.set(x) }
                }></select>
            </label>
            <span class="counter" data-testid="replay-counter">{counter}</span>
            <input type="range" class="scrub" data-testid="replay-scrub" aria-label="Replay position" min="0"
                max=move || r.total().to_string() prop:value=move || r.step.get().to_string()
                on:input=move |ev| r.seek(event_target_value(&ev).parse().unwrap_or(0)) />
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

/// The `data-testid` of the button a click landed in: one listener serves a bar of buttons
/// (each button's own listener took more of the module).
pub fn pressed(ev: &leptos::ev::MouseEvent) -> Option<String> {
    use wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|t| t.closest("button").ok().flatten())
        .and_then(|b| b.get_attribute("data-testid"))
}
