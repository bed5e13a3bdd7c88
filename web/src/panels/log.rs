//! The SHR run's events in order, marked past, current or still to come at the replay's
//! position. Picking one moves the replay there.

use leptos::html::Ol;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::Page;
use crate::words::log_line;

#[component]
pub fn EventLog() -> impl IntoView {
    let page = expect_context::<Page>();
    let list = NodeRef::<Ol>::new();
    let lines = move || {
        let v = page.view.get().0;
        v.shr
            .events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                log_line(&e.kind).map(|(class, text)| (i, e.seq, e.kind.name(), class, text))
            })
            .map(|(i, seq, name, class, text)| {
                let n = move || page.replay.moment.with(|m| m.events);
                let step = v.timeline.position_of(i);
                view! {
                    <li class=format!("ev {class}") data-event=name data-seq=seq
                        class:past=move || i < n() class:current=move || i + 1 == n()
                        aria-current=move || (i + 1 == n()).then_some("step")>
                        <button on:click=move |_| if let Some(s) = step { page.replay.seek(s) }>
                            <span class="seq">{seq}</span>
                            <span class="kind">{name}</span>
                            <span class="text">{text}</span>
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    // Keep the current event in sight inside the log, without scrolling the page.
    Effect::new(move |_| {
        page.replay.moment.track();
        let Some(ol) = list.get() else { return };
        let Ok(Some(li)) = ol.query_selector("li.current") else { return };
        if let Ok(li) = li.dyn_into::<web_sys::HtmlElement>() {
            // The list is positioned (style.css), so the offset is within it.
            ol.set_scroll_top(li.offset_top() - ol.client_height() / 2);
        }
    });
    let note = super::shr_only(page, |lane| match lane {
        crate::lanes::Lane::React => {
            "This is its event log; the ReAct agent's steps are listed under the graph."
        }
        _ => "This is its event log; the static workflow's steps are listed under the graph.",
    });
    let other = move || page.replay.lane.get() != crate::lanes::Lane::Shr;
    view! {
        <section class="panel log">
            <h2>"Event log (SHR run)"</h2>
            {note}
            <ol data-testid="events" node_ref=list class:hidden=other>{lines}</ol>
        </section>
    }
}
