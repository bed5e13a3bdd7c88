//! Why a proposed graph is what it is (issue 47): `shr discover` gives each capability it
//! grouped, each tool and each data-flow edge a `reason` (the graph format's field). After an
//! Import the page shows them all: on the graph as a tooltip (`graph_view`) and, for the node or
//! edge under the pointer or the keyboard's focus, in words under it; and whole, as a list a
//! reader can go through with the keyboard. A graph without reasons shows none of this.

use leptos::prelude::*;
use shr_core::ToolGraph;
use wasm_bindgen::JsCast;

use crate::state::Page;
use crate::timeline::edge_ix;
use crate::words::esc;

/// An edge as a reader names it: "from → to", by labels.
pub fn edge_name(g: &ToolGraph, e: usize) -> String {
    let edge = g.edge(e);
    format!("{} → {}", g.node(edge.from).label(), g.node(edge.to).label())
}

/// Whether anything in the graph says why it is there.
fn has_reasons(g: &ToolGraph) -> bool {
    (0..g.node_count()).any(|v| g.node(v).reason().is_some())
        || (0..g.edge_count()).any(|e| g.edge_reason(e).is_some())
}

/// Under the graph: the reason of the node or edge pointed at or focused, and every reason in
/// a list that opens.
#[component]
pub fn Reasons() -> impl IntoView {
    let page = expect_context::<Page>();
    // The node or edge whose reason is shown, "what: why" (empty: none yet).
    let shown = RwSignal::new(String::new());
    // One listener for the whole graph: the node or edge under the pointer or the focus.
    let explain = move |target: Option<web_sys::EventTarget>| {
        let Some(hit) = target
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("svg.graph [data-node], svg.graph [data-edge]").ok().flatten())
        else {
            return;
        };
        let found = page.view.with_untracked(|v| {
            let g = &v.0.graph;
            if let Some(n) = hit.get_attribute("data-node").and_then(|id| g.index(&id)) {
                return g.node(n).reason().map(|r| format!("{}: {r}", g.node(n).label()));
            }
            let (a, b) =
                hit.get_attribute("data-edge")?.split_once("->").map(|(a, b)| (g.index(a), g.index(b)))?;
            let e = edge_ix(g, a?, b?)?;
            g.edge_reason(e).map(|r| format!("{}: {r}", edge_name(g, e)))
        });
        if let Some(text) = found {
            shown.set(text);
        }
    };
    let focus = window_event_listener(leptos::ev::focusin, move |ev| explain(ev.target()));
    let hover = window_event_listener(leptos::ev::mouseover, move |ev| explain(ev.target()));
    on_cleanup(move || {
        focus.remove();
        hover.remove();
    });
    // Another graph: what was shown of the last one goes.
    Effect::new(move |_| {
        page.view.track();
        shown.set(String::new());
    });
    move || {
        let v = page.view.get().0;
        let g = &v.graph;
        if !has_reasons(g) {
            return None;
        }
        // Markup set whole (built element by element, a long list costs the module more).
        let mut list = String::from(r#"<ul class="reason-list">"#);
        for n in (0..g.node_count()).filter(|&n| g.node(n).reason().is_some()) {
            list.push_str(&format!(
                r#"<li data-testid="reason-node" data-node="{}"><b>{}</b>: {}</li>"#,
                esc(g.id(n)),
                esc(g.node(n).label()),
                esc(g.node(n).reason().unwrap_or_default())
            ));
        }
        list.push_str(r#"</ul><ul class="reason-list">"#);
        for (e, r) in (0..g.edge_count()).filter_map(|e| g.edge_reason(e).map(|r| (e, r))) {
            let edge = g.edge(e);
            list.push_str(&format!(
                r#"<li data-testid="reason-edge" data-edge="{}-&gt;{}"><b>{}</b>: {}</li>"#,
                esc(g.id(edge.from)),
                esc(g.id(edge.to)),
                esc(&edge_name(g, e)),
                esc(r)
            ));
        }
        list.push_str("</ul>");
        let now = move || match shown.get() {
            s if s.is_empty() => {
                "Point at or focus a tool or an edge of the graph to read why it is there.".into()
            }
            s => s,
        };
        Some(view! {
            <section class="reasons" aria-label="Why this graph">
                <p class="reason-now" role="status" data-testid="reason-now">{now}</p>
                <details data-testid="reasons">
                    <summary>"Why each grouping, tool and edge (the graph's reasons)"</summary>
                    <div inner_html=list></div>
                </details>
            </section>
        })
    }
}
