//! The scenario's story, told along SHR's replay: the step whose moment the replay has reached
//! is the one shown, and the graph elements it names are highlighted. A guided tour takes a
//! first-time reader through S1 -> S2 -> S6 -> S4.

use std::collections::BTreeSet;

use leptos::prelude::*;

use crate::lanes::Lane;
use crate::model::View;
use crate::state::{Library, Page};
use crate::timeline::edge_ix;

/// The story step told at replay position `k`, if the view has a story.
pub fn current(v: &View, k: usize) -> Option<usize> {
    v.story.iter().rposition(|(_, at)| *at <= k)
}

/// The nodes and edges the story step being told names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Named {
    pub nodes: BTreeSet<usize>,
    pub edges: BTreeSet<usize>,
}

/// What the story highlights on the graph now; provided once by the app.
#[derive(Clone, Copy)]
pub struct Highlight(pub Memo<Named>);

impl Highlight {
    pub fn provide(page: Page) {
        let memo = Memo::new(move |_| {
            if page.replay.lane.get() != Lane::Shr {
                return Named::default();
            }
            let k = page.replay.step.get();
            page.view.with(|v| {
                let v = &v.0;
                let g = &v.graph;
                let mut out = Named::default();
                let Some(i) = current(v, k) else { return out };
                for h in &v.story[i].0.highlight {
                    match h.split_once("->") {
                        Some((a, b)) => {
                            if let Some(e) = g.index(a).zip(g.index(b)).and_then(|(a, b)| edge_ix(g, a, b)) {
                                out.edges.insert(e);
                            }
                        }
                        None => {
                            out.nodes.extend(g.index(h));
                        }
                    }
                }
                out
            })
        });
        provide_context(Highlight(memo));
    }
}

/// The story: every step listed, the one being told marked and readable on its own; a click
/// on a step moves the replay to it.
#[component]
pub fn Narration() -> impl IntoView {
    let page = expect_context::<Page>();
    let r = page.replay;
    let body = move || {
        let lane = r.lane.get();
        let k = r.step.get();
        page.view.with(|v| {
            let v = &v.0;
            if v.story.is_empty() {
                let why = page.setup.with(|s| {
                    if s.source.is_pack() {
                        "This run is not the scenario as written (tools were failed or set probing): no story to tell. Pick the scenario again to hear it."
                    } else {
                        "Stories are written for the paper's scenarios."
                    }
                });
                let has_story = page.setup.with(|s| match &s.source {
                    crate::model::Source::Pack(sc) => !sc.story.is_empty(),
                    _ => false,
                });
                return has_story.then(|| view! { <p class="story-none" data-testid="story-none">{why}</p> }).into_any();
            }
            let now = if lane == Lane::Shr { current(v, k) } else { None };
            let items = v
                .story
                .iter()
                .enumerate()
                .map(|(i, (step, at))| {
                    let at = *at;
                    let is_now = now == Some(i);
                    let names = step.highlight.join(" ");
                    let show = match step.show.as_deref() {
                        Some("react") => Some((Lane::React, "▶ Watch the ReAct agent's run")),
                        Some("static") => Some((Lane::Static, "▶ Watch the static workflow's run")),
                        _ => None,
                    };
                    let show = show.map(|(lane, text)| {
                        view! {
                            <button class="story-show" data-testid=format!("story-show-{}", lane.key())
                                on:click=move |_| r.switch(lane)>{text}</button>
                        }
                    });
                    view! {
                        <li class:now=is_now class:told=now.is_some_and(|n| i < n)
                            aria-current=if is_now { Some("step") } else { None }
                            data-testid="story-step" data-at=at.to_string() data-names=names>
                            <button class="story-jump" title="Show this moment of the run"
                                on:click=move |_| { r.lane.set(Lane::Shr); r.seek(at) }>{i + 1}</button>
                            <span>{step.text.clone()} {show}</span>
                        </li>
                    }
                })
                .collect_view();
            let note = (lane != Lane::Shr).then(|| {
                view! { <p class="story-note">"The story follows the Self-Healing Router's run; switch back to it to hear it."</p> }
            });
            view! {
                {note}
                <ol class="story-steps" data-testid="story" data-now=now.map(|n| n.to_string()).unwrap_or_default()>{items}</ol>
            }
            .into_any()
        })
    };
    view! {
        <section class="story" aria-label="What happens, step by step" aria-live="polite">
            {body}
        </section>
    }
}

/// The first-visit tour: the happy path, a reroute, the static workflow's silent failure, the
/// risk monitor.
pub const TOUR: [&str; 4] = ["S1", "S2", "S6", "S4"];

/// The tour's bar: start it, or move through it.
#[component]
pub fn Tour(library: StoredValue<Library>, first_visit: bool) -> impl IntoView {
    let page = expect_context::<Page>();
    // A first visit opens on the tour's first stop.
    let stop = RwSignal::new(first_visit.then_some(0));
    // The stop shown, while the page shows its scenario (another pick leaves the tour).
    let at = Signal::derive(move || {
        stop.get().filter(|&i| page.setup.with(|s| s.down.is_none() && s.source.id() == TOUR[i]))
    });
    let go = move |i: usize| {
        let Some(source) = library.with_value(|l| l.source(TOUR[i], &Default::default())) else { return };
        stop.set(Some(i));
        page.replay.lane.set(Lane::Shr);
        page.show(source);
        page.replay.restart();
    };
    let title = move |i: usize| {
        library.with_value(|l| {
            l.pack.iter().find(|s| s.id == TOUR[i]).map(|s| s.title.clone()).unwrap_or_default()
        })
    };
    view! {
        <div class="tour" class:offer=first_visit data-testid="tour-bar">
            {move || match at.get() {
                None => view! {
                    <span class="tour-invite">{if first_visit { "New here? " } else { "" }}</span>
                    <button data-testid="tour-start" on:click=move |_| go(0)>"▶ Guided tour: four scenarios, narrated"</button>
                }
                .into_any(),
                Some(i) => view! {
                    <span class="tour-where" data-testid="tour-where">{format!("Tour {}/{}: {} ({})", i + 1, TOUR.len(), TOUR[i], title(i))}</span>
                    <button data-testid="tour-prev" disabled=i == 0 on:click=move |_| go(i.saturating_sub(1))>"◂ Previous"</button>
                    {(i + 1 < TOUR.len()).then(|| view! {
                        <button data-testid="tour-next" on:click=move |_| go(i + 1)>{format!("Next: {} ▸", TOUR[i + 1])}</button>
                    })}
                    <button data-testid="tour-end" on:click=move |_| stop.set(None)>"End tour"</button>
                }
                .into_any(),
            }}
        </div>
    }
}
