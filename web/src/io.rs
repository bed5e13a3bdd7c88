//! Import and export of a graph as JSON. A bad description is shown as the core's list of
//! problems (each naming the offending id), never a crash.

use leptos::html::Textarea;
use leptos::prelude::*;
use shr_core::ToolGraph;
use shr_eval::scenario::Scenario;

use crate::state::Page;

/// The page draws at most this many nodes; larger graphs are routed by `shr route` or the wasm
/// API. SVG with one focusable group per tool stays responsive up to about this size.
pub const PAGE_MAX_NODES: usize = 2_000;

/// The largest description the page parses: far more than 2,000 nodes take, and small enough
/// that a pasted 48 MiB file is refused before anything is built from it.
pub const PAGE_MAX_BYTES: usize = 4 << 20;

/// Parses a description for the page: its size first, the core's validation, then the page's
/// own node limit.
pub fn parse(text: &str) -> Result<ToolGraph, Vec<String>> {
    if text.len() > PAGE_MAX_BYTES {
        return Err(vec![format!(
            "the description is {:.1} MiB; the page imports at most {} MiB (route larger graphs with `shr route` or the wasm API)",
            text.len() as f64 / (1 << 20) as f64,
            PAGE_MAX_BYTES >> 20
        )]);
    }
    let graph = ToolGraph::from_json(text)
        .map_err(|e| e.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>())?;
    if graph.node_count() > PAGE_MAX_NODES {
        return Err(vec![format!(
            "the graph has {} nodes; the page draws at most {PAGE_MAX_NODES} (route larger graphs with `shr route` or the wasm API)",
            graph.node_count()
        )]);
    }
    Ok(graph)
}

#[component]
pub fn ImportExport() -> impl IntoView {
    let page = expect_context::<Page>();
    let text = NodeRef::<Textarea>::new();
    let problems = RwSignal::new(Vec::<String>::new());
    let message = RwSignal::new(String::new());

    let import = move |_| {
        let Some(area) = text.get() else { return };
        match parse(&area.value()) {
            Ok(graph) => {
                problems.set(Vec::new());
                let warnings: Vec<String> = graph.warnings().iter().map(|p| p.to_string()).collect();
                message.set(if warnings.is_empty() {
                    format!("Imported {} nodes and {} edges.", graph.node_count(), graph.edge_count())
                } else {
                    format!("Imported, with warnings: {}", warnings.join("; "))
                });
                page.import(Scenario::from_graph(graph));
                // The imported graph is what to look at next, not the import box.
                if let Some(stage) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.query_selector(".stage").ok().flatten())
                {
                    stage.scroll_into_view();
                }
            }
            Err(p) => {
                message.set(String::new());
                problems.set(p);
            }
        }
    };
    let export = move |_| {
        let json = page.view.with_untracked(|v| v.0.graph.to_json());
        let pretty = serde_json::from_str::<serde_json::Value>(&json)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or(json);
        if let Some(area) = text.get() {
            area.set_value(&pretty);
        }
        problems.set(Vec::new());
        message.set("The current graph is in the box: copy it, edit it, import it back.".into());
    };
    let download = move || {
        let json = page.view.with(|v| v.0.graph.to_json());
        format!("data:application/json;charset=utf-8,{}", String::from(js_sys::encode_uri_component(&json)))
    };

    view! {
        <section class="panel io">
            <h2>"Import / export a graph"</h2>
            <textarea node_ref=text data-testid="graph-json" rows="6" spellcheck="false"
                aria-label="Graph JSON"
                placeholder=r#"{"nodes":[{"id":"start","tool":false},{"id":"pay"},{"id":"done","tool":false}],"edges":[{"from":"start","to":"pay"},{"from":"pay","to":"done"}],"start":"start","goal":"done"}"#>
            </textarea>
            <div class="buttons">
                <button data-testid="import" on:click=import>"Import"</button>
                <button data-testid="export" on:click=export>"Export current graph"</button>
                <a data-testid="download" href=download download="shr-graph.json">"Download JSON"</a>
            </div>
            <Show when=move || !problems.with(Vec::is_empty)>
                <div class="error" role="alert" data-testid="import-error">
                    <p>"The graph was not imported:"</p>
                    <ul>{move || problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                </div>
            </Show>
            <p class="small" data-testid="import-message">{move || message.get()}</p>
        </section>
    }
}
