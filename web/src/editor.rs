//! Editing the graph in the page: add and remove tools and edges, change costs and labels.
//! Every edit is validated by shr-core like an import; an edited graph is the user's own (an
//! imported graph, kept with the tools they failed) and lives in the URL. Exports as JSON,
//! Mermaid and DOT.

use std::sync::Arc;

use leptos::html::{Input, Select};
use leptos::prelude::*;
use shr_core::{GraphSpec, ToolGraph};
use shr_eval::scenario::Scenario;

use crate::model::{num, Setup, Source};
use crate::state::{ClickMode, Page};

/// One edit of a description; `Err` says why it cannot apply.
pub enum Edit {
    AddTool {
        id: String,
        label: String,
    },
    RemoveTool(String),
    Label {
        id: String,
        label: String,
    },
    AddEdge {
        from: String,
        to: String,
        cost: f64,
    },
    RemoveEdge {
        from: String,
        to: String,
    },
    Cost {
        from: String,
        to: String,
        cost: f64,
    },
    /// Where the run starts (`true`) or what it must reach (`false`).
    End {
        id: String,
        start: bool,
    },
}

fn edge_pos(spec: &GraphSpec, from: &str, to: &str) -> Result<usize, String> {
    spec.edges
        .iter()
        .position(|e| e.from == from && e.to == to)
        .ok_or_else(|| format!("there is no edge {from} → {to}"))
}

fn cost_ok(cost: f64) -> Result<f64, String> {
    if cost.is_finite() && cost >= 0.0 {
        Ok(cost)
    } else {
        Err("a cost is a number, 0 or more".into())
    }
}

/// Applies an edit to a description.
pub fn apply(spec: &mut GraphSpec, edit: Edit) -> Result<(), String> {
    match edit {
        Edit::AddTool { id, label } => {
            let id = id.trim().to_string();
            if id.is_empty() {
                return Err("a new tool needs an id".into());
            }
            if spec.nodes.iter().any(|n| n.id == id) {
                return Err(format!("there is already a node `{id}`"));
            }
            let mut node = serde_json::json!({ "id": id });
            if !label.trim().is_empty() {
                node["label"] = label.trim().into();
            }
            spec.nodes.push(serde_json::from_value(node).map_err(|e| e.to_string())?);
        }
        Edit::RemoveTool(id) => {
            if spec.start.as_deref() == Some(id.as_str()) || spec.goal.as_deref() == Some(id.as_str()) {
                return Err(format!("`{id}` is the start or the goal; it stays"));
            }
            let before = spec.nodes.len();
            spec.nodes.retain(|n| n.id != id);
            if spec.nodes.len() == before {
                return Err(format!("there is no node `{id}`"));
            }
            spec.edges.retain(|e| e.from != id && e.to != id);
        }
        Edit::Label { id, label } => {
            let node = spec
                .nodes
                .iter_mut()
                .find(|n| n.id == id)
                .ok_or_else(|| format!("there is no node `{id}`"))?;
            node.label = (!label.trim().is_empty()).then(|| label.trim().to_string());
        }
        Edit::AddEdge { from, to, cost } => {
            let cost = cost_ok(cost)?;
            if edge_pos(spec, &from, &to).is_ok() {
                return Err(format!("there is already an edge {from} → {to}"));
            }
            let edge = serde_json::json!({ "from": from, "to": to, "cost": cost });
            spec.edges.push(serde_json::from_value(edge).map_err(|e| e.to_string())?);
        }
        Edit::RemoveEdge { from, to } => {
            let i = edge_pos(spec, &from, &to)?;
            spec.edges.remove(i);
        }
        Edit::Cost { from, to, cost } => {
            let cost = cost_ok(cost)?;
            let i = edge_pos(spec, &from, &to)?;
            spec.edges[i].cost = cost;
        }
        Edit::End { id, start } => {
            if !spec.nodes.iter().any(|n| n.id == id) {
                return Err(format!("there is no node `{id}`"));
            }
            *if start { &mut spec.start } else { &mut spec.goal } = Some(id);
        }
    }
    Ok(())
}

/// A Mermaid flowchart: nodes as `n0`, `n1`… with their labels, edges with their costs.
pub fn to_mermaid(g: &ToolGraph) -> String {
    let quote = |s: &str| s.replace('"', "#quot;");
    let mut out = String::from("flowchart LR\n");
    for v in 0..g.node_count() {
        let n = g.node(v);
        let label = quote(n.label());
        if n.tool {
            out.push_str(&format!("  n{v}[\"{label}\"]\n"));
        } else {
            out.push_str(&format!("  n{v}([\"{label}\"])\n"));
        }
    }
    for e in 0..g.edge_count() {
        let edge = g.edge(e);
        out.push_str(&format!("  n{} -->|{}| n{}\n", edge.from, num(edge.cost), edge.to));
    }
    out
}

/// A Graphviz DOT digraph, ids quoted, tools as boxes and waypoints as ellipses.
pub fn to_dot(g: &ToolGraph) -> String {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut out = String::from("digraph shr {\n  rankdir=LR;\n");
    for v in 0..g.node_count() {
        let n = g.node(v);
        let shape = if n.tool { "box" } else { "ellipse" };
        out.push_str(&format!("  {} [label={}, shape={shape}];\n", quote(g.id(v)), quote(n.label())));
    }
    for e in 0..g.edge_count() {
        let edge = g.edge(e);
        out.push_str(&format!(
            "  {} -> {} [label={}];\n",
            quote(g.id(edge.from)),
            quote(g.id(edge.to)),
            quote(&num(edge.cost))
        ));
    }
    out.push_str("}\n");
    out
}

/// A scenario edited: its context (task, monitors' signals, ReAct's catalogue) kept, and its
/// story, static workflow and failures where they still apply to the new graph; says which of
/// them no longer do.
fn kept(base: &Scenario, graph: ToolGraph) -> (Scenario, Vec<&'static str>) {
    let mut sc = base.clone();
    let mut lost = Vec::new();
    let has = |t: &String| graph.index(t).is_some();
    if !sc.story.is_empty() && shr_eval::scenario::story::check(&sc.story, &graph, "").is_err() {
        sc.story.clear();
        lost.push("its story (it names a tool no longer there)");
    }
    if sc.workflow.steps.iter().any(|st| !st.tools.iter().chain(&st.fallback).all(has)) {
        sc.workflow.steps.clear();
        lost.push("its static workflow (a step calls a tool no longer there)");
    }
    sc.failures.retain(|f| has(&f.tool));
    let ends = |g: &ToolGraph| (g.id(g.start()).to_string(), g.id(g.goal()).to_string());
    if ends(&base.graph) != ends(&graph) {
        // Another start or goal: the task is the new one, told to the ReAct agent as such.
        if !sc.story.is_empty() {
            sc.story.clear();
            lost.push("its story (told for another start and goal)");
        }
        if !sc.workflow.steps.is_empty() {
            sc.workflow.steps.clear();
            lost.push("its static workflow (coded for another start and goal)");
        }
        let fresh = Scenario::from_graph(graph.clone());
        (sc.expected, sc.react) = (fresh.expected, fresh.react);
    }
    sc.graph = graph;
    (sc, lost)
}

/// Shows an edited description, keeping the tools that were down (those that still exist), and
/// what of a scenario still applies ([`kept`]). Returns what no longer does.
fn show_edited(page: Page, graph: ToolGraph) -> Vec<&'static str> {
    let (base, down, probing) = page.setup.with_untracked(|s| {
        let base = match &s.source {
            Source::Pack(sc) | Source::Imported(sc) => Some(sc.clone()),
            _ => None,
        };
        (base, s.down.clone(), s.probing.clone())
    });
    let keep = |ids: Vec<String>| -> Vec<String> {
        ids.into_iter().filter(|t| graph.index(t).is_some_and(|v| graph.node(v).tool)).collect()
    };
    let (down, probing) = (down.map(keep), keep(probing));
    let (scenario, lost) = match base {
        Some(b) => kept(&b, graph),
        None => (Scenario::from_graph(graph), Vec::new()),
    };
    page.ghost.set(Default::default());
    page.setup.set(Setup { source: Source::Imported(Arc::new(scenario)), down, probing });
    page.replay.open();
    lost
}

/// Where the editor says what an edit did, or why it did not apply.
#[derive(Clone, Copy)]
struct EditorSays {
    message: RwSignal<String>,
    error: RwSignal<String>,
}

thread_local! {
    /// The editor's words, for edits made by a click on the graph too.
    static SAYS: std::cell::Cell<Option<EditorSays>> = const { std::cell::Cell::new(None) };
}

/// Applies an edit to the graph shown, validated by shr-core like an import, and says so.
fn run_edit(page: Page, edit: Edit) {
    let says = SAYS.get();
    let say = |message: String, error: String| {
        if let Some(s) = says {
            s.message.set(message);
            s.error.set(error);
        }
    };
    let mut spec = page.view.with_untracked(|v| v.0.graph.to_spec());
    let result = apply(&mut spec, edit).and_then(|()| {
        ToolGraph::from_spec(spec)
            .map_err(|e| e.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))
    });
    match result {
        Ok(graph) => {
            let counts = format!("Edited: {} nodes, {} edges.", graph.node_count(), graph.edge_count());
            let lost = show_edited(page, graph);
            let kept = if lost.is_empty() {
                String::new()
            } else {
                format!(" No longer shown: {}.", lost.join("; "))
            };
            say(format!("{counts}{kept} The link in the address bar holds this graph."), String::new());
        }
        Err(e) => say(String::new(), e),
    }
}

/// A click (or Enter) on a node of the graph: in the start or goal mode it moves the run's start
/// or goal there (any node), else it fails / probes the tool ([`Page::click_tool`]).
pub fn click_node(page: Page, id: &str, tool: bool) {
    let ends = page.setup.with_untracked(|s| s.source.takes_failures());
    match page.mode.get_untracked() {
        ClickMode::Start if ends => run_edit(page, Edit::End { id: id.to_string(), start: true }),
        ClickMode::Goal if ends => run_edit(page, Edit::End { id: id.to_string(), start: false }),
        _ if tool => page.click_tool(id),
        _ => {}
    }
}

fn value(r: &NodeRef<Input>) -> String {
    r.get_untracked().map(|e| e.value()).unwrap_or_default()
}

fn choice(r: &NodeRef<Select>) -> String {
    r.get_untracked().map(|e| e.value()).unwrap_or_default()
}

#[component]
pub fn Editor() -> impl IntoView {
    let page = expect_context::<Page>();
    let message = RwSignal::new(String::new());
    let error = RwSignal::new(String::new());
    let (node_sel, label_in, new_id, new_label) =
        (NodeRef::<Select>::new(), NodeRef::<Input>::new(), NodeRef::<Input>::new(), NodeRef::<Input>::new());
    let (edge_sel, cost_in, from_sel, to_sel, new_cost) = (
        NodeRef::<Select>::new(),
        NodeRef::<Input>::new(),
        NodeRef::<Select>::new(),
        NodeRef::<Select>::new(),
        NodeRef::<Input>::new(),
    );
    let export = RwSignal::new(String::new());
    SAYS.set(Some(EditorSays { message, error }));
    let run = move |edit: Edit| run_edit(page, edit);
    let edge_of = move || {
        let v = choice(&edge_sel);
        v.split_once("->").map(|(a, b)| (a.to_string(), b.to_string()))
    };
    let cost = |r: &NodeRef<Input>| value(r).trim().parse::<f64>().unwrap_or(f64::NAN);

    let nodes = move || {
        page.view.with(|v| {
            let g = &v.0.graph;
            (0..g.node_count())
                .map(|i| (g.id(i).to_string(), g.node(i).label().to_string()))
                .collect::<Vec<_>>()
        })
    };
    let node_options = move || {
        nodes()
            .into_iter()
            .map(|(id, label)| view! { <option value=id.clone()>{format!("{label} ({id})")}</option> })
            .collect_view()
    };
    let edge_options = move || {
        page.view.with(|v| {
            let g = &v.0.graph;
            (0..g.edge_count())
                .map(|e| {
                    let edge = g.edge(e);
                    let (a, b) = (g.id(edge.from).to_string(), g.id(edge.to).to_string());
                    view! { <option value=format!("{a}->{b}")>{format!("{a} → {b} ({})", num(edge.cost))}</option> }
                })
                .collect_view()
        })
    };
    let exported = move |kind: &'static str| {
        let text = page.view.with_untracked(|v| match kind {
            "mermaid" => to_mermaid(&v.0.graph),
            "dot" => to_dot(&v.0.graph),
            _ => v.0.graph.to_json(),
        });
        export.set(text);
    };

    view! {
        <section class="panel editor" data-testid="editor">
            <h2>"Edit the graph"</h2>
            <p class="small">"An edited graph is yours: it lives in the address bar, so the link shares it (with the tools you failed)."</p>
            <div class="edit-row">
                <select node_ref=node_sel data-testid="edit-node" aria-label="Node">{node_options}</select>
                <input node_ref=label_in data-testid="edit-label" placeholder="new label" aria-label="New label" />
                <button data-testid="edit-set-label" on:click=move |_| run(Edit::Label { id: choice(&node_sel), label: value(&label_in) })>"Set label"</button>
                <button data-testid="edit-remove-tool" on:click=move |_| run(Edit::RemoveTool(choice(&node_sel)))>"Remove tool"</button>
                <button data-testid="edit-set-start" on:click=move |_| run(Edit::End { id: choice(&node_sel), start: true })>"Make it the start"</button>
                <button data-testid="edit-set-goal" on:click=move |_| run(Edit::End { id: choice(&node_sel), start: false })>"Make it the goal"</button>
            </div>
            <div class="edit-row">
                <input node_ref=new_id data-testid="edit-new-id" placeholder="new tool id" aria-label="New tool id" />
                <input node_ref=new_label data-testid="edit-new-label" placeholder="its label" aria-label="New tool label" />
                <button data-testid="edit-add-tool" on:click=move |_| run(Edit::AddTool { id: value(&new_id), label: value(&new_label) })>"Add tool"</button>
            </div>
            <div class="edit-row">
                <select node_ref=edge_sel data-testid="edit-edge" aria-label="Edge">{edge_options}</select>
                <input node_ref=cost_in data-testid="edit-cost" type="number" min="0" step="0.5" placeholder="cost" aria-label="New cost" />
                <button data-testid="edit-set-cost" on:click=move |_| {
                    if let Some((from, to)) = edge_of() { run(Edit::Cost { from, to, cost: cost(&cost_in) }) }
                }>"Set cost"</button>
                <button data-testid="edit-remove-edge" on:click=move |_| {
                    if let Some((from, to)) = edge_of() { run(Edit::RemoveEdge { from, to }) }
                }>"Remove edge"</button>
            </div>
            <div class="edit-row">
                <select node_ref=from_sel data-testid="edit-from" aria-label="New edge from">{node_options}</select>
                "→"
                <select node_ref=to_sel data-testid="edit-to" aria-label="New edge to">{node_options}</select>
                <input node_ref=new_cost data-testid="edit-new-cost" type="number" min="0" step="0.5" value="1" aria-label="New edge cost" />
                <button data-testid="edit-add-edge" on:click=move |_| run(Edit::AddEdge { from: choice(&from_sel), to: choice(&to_sel), cost: cost(&new_cost) })>"Add edge"</button>
            </div>
            <p class="error" role="alert" data-testid="edit-error" hidden=move || error.with(String::is_empty)>{move || error.get()}</p>
            <p class="small" data-testid="edit-message">{move || message.get()}</p>
            <div class="edit-row">
                "Export: "
                <button data-testid="export-json" on:click=move |_| exported("json")>"JSON"</button>
                <button data-testid="export-mermaid" on:click=move |_| exported("mermaid")>"Mermaid"</button>
                <button data-testid="export-dot" on:click=move |_| exported("dot")>"DOT"</button>
            </div>
            <textarea readonly=true rows="5" data-testid="export-text" aria-label="Exported graph" spellcheck="false"
                hidden=move || export.with(String::is_empty) prop:value=move || export.get()></textarea>
        </section>
    }
}
