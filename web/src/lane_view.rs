//! The baselines' lanes on the page: the executor switch, a baseline's steps as they replay,
//! and its path drawn over the graph. The lanes' data (steps, moments) is `crate::lanes`, which
//! the replay clock in `crate::state` reads; these views read the page state.

use leptos::prelude::*;

use shr_core::NodeIx;

use crate::lanes::{available, steps, Lane};
use crate::layout::{Layout, NODE_H};
use crate::state::Page;

/// The executor switch: the same graph and failures, another executor's run.
#[component]
pub fn LaneSwitch() -> impl IntoView {
    let page = expect_context::<Page>();
    let r = page.replay;
    let button = move |lane: Lane, text: &'static str| {
        let disabled = move || page.view.with(|v| !available(&v.0, lane));
        view! {
            <button role="tab" data-testid=format!("lane-{}", lane.key())
                aria-selected=move || (r.lane.get() == lane).to_string()
                class:active=move || r.lane.get() == lane
                disabled=disabled
                on:click=move |_| r.switch(lane)>{text}</button>
        }
    };
    view! {
        <div class="lanes" role="tablist" aria-label="Executor replayed on the graph">
            <span class="lanes-title">"Executor: "</span>
            {button(Lane::Shr, "Self-Healing Router")}
            {button(Lane::React, "ReAct agent")}
            {button(Lane::Static, "Static workflow")}
        </div>
    }
}

/// A baseline's steps so far, newest last, with its counters ticking.
#[component]
pub fn LaneTrace() -> impl IntoView {
    let page = expect_context::<Page>();
    let r = page.replay;
    let body = move || {
        let lane = r.lane.get();
        if lane == Lane::Shr {
            return None;
        }
        let k = r.step.get();
        let steps = page.view.with(|v| steps(&v.0, lane));
        let shown = &steps[..k.min(steps.len())];
        let last = shown.last();
        let llm = last.map_or(0, |s| s.llm_calls);
        let tools = last.map_or(0, |s| s.tool_calls);
        let intro = match lane {
            Lane::React => "ReAct asks its LLM at every step: a Thought, then an Action; a tool's answer is the Observation.",
            _ => "A coded state machine: one fallback edge per step, no LLM. A failure it has no edge for is skipped.",
        };
        let items = shown
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let lines = s
                    .lines
                    .iter()
                    .map(|(h, t)| view! { <div><b>{*h}": "</b>{t.clone()}</div> })
                    .collect_view();
                view! {
                    <li class:marked=s.marked class:now=i + 1 == shown.len()
                        data-testid=if s.marked { "marked-step" } else { "lane-step" }>{lines}</li>
                }
            })
            .collect_view();
        Some(view! {
            <section class="lane-trace" data-testid="lane-trace" data-lane=lane.key()>
                <p class="lane-intro">{intro}</p>
                <p class="lane-counters">
                    "LLM calls: " <b data-testid="llm-counter">{llm}</b>
                    " · tool calls: " <b data-testid="tool-counter">{tools}</b>
                </p>
                <ol class="lane-steps" tabindex="0" aria-label="Its steps so far">{items}</ol>
            </section>
        })
    };
    view! { {body} }
}

/// Drawn over the graph for the static workflow: its coded fallback edges taken so far, and a
/// mark on each step it skipped and on the success it claims without it.
pub fn overlay(page: Page, layout: std::sync::Arc<Layout>) -> impl IntoView {
    let r = page.replay;
    move || {
        let lane = r.lane.get();
        if lane == Lane::Shr {
            return None;
        }
        let k = r.step.get();
        let steps = page.view.with(|v| steps(&v.0, lane));
        let centre = |v: NodeIx| layout.nodes.get(v).map(|n| n.centre());
        let g = page.view.with(|v| v.0.graph.clone());
        let mut out = Vec::new();
        for s in &steps[..k.min(steps.len())] {
            if let (Some(from), Some((to, _))) = (s.fallback_from, s.call) {
                if let (Some((x1, y1)), Some((x2, y2))) = (centre(from), centre(to)) {
                    let name = format!("{}->{}", g.id(from), g.id(to));
                    out.push(
                        view! {
                            <g class="fallback-edge" data-fallback=name>
                                // Named by the legend and the trace beside: a text on the line covered
                                // the tools it passes.
                                <title>"coded fallback"</title>
                                <path d=format!("M{x1:.1} {y1:.1} L{x2:.1} {y2:.1}") />
                            </g>
                        }
                        .into_any(),
                    );
                }
            }
            // Below a skipped tool; above the goal claimed, which sits at the bottom.
            let marks = s
                .skipped
                .iter()
                .map(|&v| (v, "⚠ step skipped", NODE_H / 2.0 + 2.0))
                .chain(s.claim.filter(|c| c.1).map(|(v, _)| (v, "⚠ claims success", -46.0)));
            for (v, text, dy) in marks {
                if let Some((x, y)) = centre(v) {
                    out.push(
                        view! {
                            <g class="marked-step" data-marked=g.id(v).to_string() transform=format!("translate({x:.1},{y:.1})")>
                                <rect x="-62" y=dy width="124" height="20" rx="4" />
                                <text x="0" y=dy + 14.0 text-anchor="middle">{text}</text>
                            </g>
                        }
                        .into_any(),
                    );
                }
            }
        }
        Some(view! { <g class="lane-overlay" data-lane=lane.key()>{out}</g> })
    }
}
