//! What the LLM was asked so far (no path, or a risk that won) and what the mock LLM answered.

use leptos::prelude::*;
use shr_core::Decision;

use crate::state::Page;

fn decision_text(d: &Decision) -> String {
    match d {
        Decision::Demote { goal } => format!("demote the goal to {goal}"),
        Decision::Approve => "approve and carry on".into(),
        Decision::Abort { message } => format!("abort: {message}"),
        Decision::HandOff { to } => format!("hand off to {to}"),
    }
}

#[component]
pub fn Escalations() -> impl IntoView {
    let page = expect_context::<Page>();
    // The host records one escalation per LLM call, in order.
    let asked = move || {
        let n = page.replay.moment.with(|m| m.events);
        page.view.with(|v| super::llm_calls(super::happened(&v.0.shr.events, n)) as usize)
    };
    let items = move || {
        let v = page.view.get().0;
        v.shr
            .escalations
            .iter()
            .take(asked())
            .enumerate()
            .map(|(i, rec)| {
                let request = serde_json::to_string_pretty(&rec.request).unwrap_or_default();
                let reason = serde_json::to_value(rec.request.reason)
                    .ok()
                    .and_then(|x| x.as_str().map(String::from))
                    .unwrap_or_default();
                view! {
                    <article class="escalation" data-testid="escalation">
                        <h3>{format!("LLM call {}: escalation, reason ", i + 1)}<code data-testid="escalation-reason">{reason}</code></h3>
                        <p class="small">"The request the LLM gets:"</p>
                        <pre data-testid="escalation-request">{request}</pre>
                        <p data-testid="escalation-decision">
                            "Mock LLM decision: " <strong>{decision_text(&rec.decision)}</strong>
                        </p>
                    </article>
                }
            })
            .collect_view()
    };
    let none = move || {
        if page.replay.moment.with(|m| m.finished) {
            "None: every failure was handled by rerouting, without the LLM."
        } else {
            "None so far."
        }
    };
    let shr = move || page.replay.lane.get() == crate::lanes::Lane::Shr;
    let note = super::shr_only(page, |lane| {
        match lane {
        crate::lanes::Lane::React => {
            "The ReAct agent escalates nothing: it asks its LLM at every step (its trace, under the graph, counts them)."
        }
        _ => "The static workflow never asks an LLM: a failure it has no coded edge for is skipped.",
    }
    });
    view! {
        <section class="panel escalations">
            <h2>"Escalations"</h2>
            {note}
            <Show when=move || shr() && asked() == 0>
                <p class="small">{none}</p>
            </Show>
            <Show when=shr>{items}</Show>
        </section>
    }
}
