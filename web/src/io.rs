//! Import and export of a graph as JSON. A bad description is shown as the core's list of
//! problems (each naming the offending id), never a crash.

use leptos::html::Textarea;
use leptos::prelude::*;
use shr_eval::scenario::Scenario;

use crate::state::Page;

pub use crate::share::parse;

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
