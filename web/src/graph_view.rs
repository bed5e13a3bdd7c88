//! The tool graph as SVG. Each state is told apart by colour *and* by shape or icon (failed:
//! dashed outline and ✕; half-open: dotted outline and ◐; completed: ✓; route: thick outline and
//! thick edges), so it reads without colour too. Tools are focusable buttons: Tab + Enter.
//! Everything drawn is the SHR run at the replay's position ([`crate::timeline::Moment`]).

use std::sync::Arc;

use leptos::html::Div;
use leptos::prelude::*;
use shr_core::BreakerState;

use crate::layout::{self, Direction, Engine, Layout, LABEL_LINE_H, NODE_H, NODE_W};
use crate::minimap::Minimap;
use crate::model::{label_lines, num, ToolState, View};
use crate::state::{ClickMode, Page};
use crate::timeline::Moment;
use crate::viewport::{self, Viewport};

const HALF_W: f64 = NODE_W / 2.0;
const HALF_H: f64 = NODE_H / 2.0;

fn state_class(s: ToolState) -> &'static str {
    match s {
        ToolState::Waypoint => "waypoint",
        ToolState::Healthy => "healthy",
        ToolState::Failed => "failed",
        // Still `failed` (down in the world), drawn apart: the router has not seen it fail.
        ToolState::Unseen => "failed unseen",
        ToolState::Probing => "probing",
        ToolState::Perturbed => "perturbed",
    }
}

/// The graph: laid out by ELK (asynchronously, in a worker; "Laying out…" until then), drawn
/// in SVG under one pan/zoom transform, with a zoom toolbar and, for big graphs, a minimap.
#[component]
pub fn GraphView() -> impl IntoView {
    let page = expect_context::<Page>();
    let vp = Viewport::new();
    let wrap = NodeRef::<Div>::new();
    let drawn = RwSignal::new(None::<Arc<Layout>>);
    // The graph's identity: a click changes the run, not the graph, and lays nothing out.
    let want = Memo::new(move |_| page.view.with(|v| layout::key(&v.0.graph)));
    let stage_width = move || wrap.get_untracked().map(|w| w.client_width() as f64).unwrap_or(640.0);
    // Of the layouts tried, the one that fits the stage at the larger scale (the first on a tie);
    // ELK's before any fallback grid.
    let choose = move |layouts: Vec<Arc<Layout>>| {
        let width = stage_width();
        let any_elk = layouts.iter().any(|l| l.engine == Engine::Elk);
        let mut best: Option<(f64, Arc<Layout>)> = None;
        for l in layouts.into_iter().filter(|l| !any_elk || l.engine == Engine::Elk) {
            let k = Viewport::scale_to_fit((l.width, l.height), width);
            if best.as_ref().is_none_or(|(bk, _)| k > bk + 1e-9) {
                best = Some((k, l));
            }
        }
        best.map(|(_, l)| l)
    };
    let cached_choice = move || {
        let (key, dirs) =
            page.view.with_untracked(|v| (layout::key(&v.0.graph), Direction::candidates(&v.0.graph)));
        let ls: Option<Vec<_>> = dirs.iter().map(|&d| layout::cached(key, d)).collect();
        ls.and_then(choose)
    };
    Effect::new(move |_| {
        want.track();
        if let Some(l) = cached_choice() {
            drawn.set(Some(l));
            return;
        }
        let graph = page.view.with_untracked(|v| v.0.graph.clone());
        leptos::task::spawn_local(async move {
            let mut ls = Vec::new();
            for dir in Direction::candidates(&graph) {
                ls.push(layout::compute(&graph, dir).await);
            }
            // A layout that finished after the user moved on to another graph is not shown.
            match choose(ls) {
                Some(l) if want.get_untracked() == l.key => drawn.set(Some(l)),
                _ => {}
            }
        });
    });
    // A new drawing is fitted to the stage.
    Effect::new(move |prev: Option<(u64, Direction)>| {
        let Some(l) = drawn.get() else { return prev.unwrap_or((0, Direction::Right)) };
        if prev != Some((l.key, l.direction)) {
            let start = page.view.with_untracked(|v| v.0.graph.start());
            let anchor = l.nodes.get(start).map(|r| r.centre()).unwrap_or((0.0, 0.0));
            vp.set_content((l.width, l.height), anchor);
            vp.fit(stage_width());
        }
        (l.key, l.direction)
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        // Another stage shape may suit the other direction better.
        if let Some(l) = cached_choice().filter(|l| Some(l) != drawn.get_untracked().as_ref()) {
            drawn.set(Some(l));
        } else if vp.fitted.get_untracked() {
            vp.fit(stage_width());
        }
    });
    on_cleanup(move || resize.remove());
    viewport::wire(wrap, vp);
    viewport::wire_fit_shortcut(wrap, vp);

    let drawing = move || {
        let view = page.view.get().0;
        match drawn.get() {
            Some(l) if l.key == want.get() => render(page, view, l, vp).into_any(),
            _ => view! { <p class="layout-wait" data-testid="layout-wait">"Laying out the graph…"</p> }
                .into_any(),
        }
    };
    // Zoomed in past the stage, a minimap shows the whole graph and where the view is (fitted,
    // the whole graph is in view and a minimap would only cover part of it).
    let overflows = Memo::new(move |_| {
        let (w, h) = vp.content.get();
        let k = vp.k.get();
        w * k > vp.width.get() * 1.3 || h * k > vp.height.get() * 1.3
    });
    let minimap =
        move || drawn.get().filter(|_| overflows.get()).map(|l| view! { <Minimap layout=l vp=vp /> });

    let note = move || {
        drawn.get().and_then(|l| match &l.engine {
            Engine::Elk => None,
            Engine::Fallback(why) => Some(view! {
                <p class="note" role="status">{format!("The layout engine is unavailable ({why}); the graph is drawn on a simple grid.")}</p>
            }),
        })
    };
    view! {
        {note}
        <div class="zoom-bar" role="toolbar" aria-label="Zoom">
            <span class="hint">"Drag to pan · wheel or pinch to zoom · F fits"</span>
            <button data-testid="zoom-out" title="Zoom out (−)" on:click=move |_| vp.zoom(0.8)>"−"</button>
            <button data-testid="zoom-in" title="Zoom in (+)" on:click=move |_| vp.zoom(1.25)>"+"</button>
            <button data-testid="zoom-fit" title="Fit to view (F)" on:click=move |_| vp.fit(stage_width())>"Fit"</button>
        </div>
        <div class="graph-wrap" node_ref=wrap tabindex="0" data-testid="graph-wrap" data-want=move || want.get().to_string()
            role="group" aria-label="Tool graph. Drag to pan; wheel, pinch or + and − to zoom; arrows pan; F fits."
            class:lite=move || Viewport::lite(vp.k.get())>
            {drawing}
            {minimap}
        </div>
    }
}

/// What every edge and node of one drawing needs.
struct Drawing {
    page: Page,
    view: Arc<View>,
    layout: Arc<Layout>,
    /// Visit counts matter once the run went back somewhere (a cyclic workflow); then every
    /// completed tool shows its count.
    show_visits: bool,
    /// The perturbation's mode: its name on the graph, its description as the tooltip.
    perturbation: Option<(String, String)>,
}

/// The edge states that have an arrowhead of their own colour (style.css picks one per state).
const ARROWS: [&str; 7] = ["plain", "route", "infinite", "current", "skipped", "ghost", "revisit"];

fn render(page: Page, view: Arc<View>, layout: Arc<Layout>, vp: Viewport) -> impl IntoView {
    let perturbation = page.setup.with_untracked(|s| match &s.source {
        crate::model::Source::Perturb { mode, .. } => {
            Some((format!("{mode:?}"), mode.describe().to_string()))
        }
        _ => None,
    });
    let whole = view.moment(view.timeline.len());
    let key = layout.key.to_string();
    let millis = format!("{:.0}", layout.millis);
    let direction = match layout.direction {
        Direction::Right => "right",
        Direction::Down => "down",
    };
    let engine = match layout.engine {
        Engine::Elk => "elk",
        Engine::Fallback(_) => "fallback",
    };
    let (d_page, d_layout) = (page, layout.clone());
    let d = Drawing {
        page,
        show_visits: !whole.revisits.is_empty() || whole.visits.iter().any(|&c| c > 1),
        perturbation,
        layout,
        view,
    };
    let edges = (0..d.view.graph.edge_count()).map(|e| edge_view(&d, e)).collect_view();
    let nodes = (0..d.view.graph.node_count()).map(|v| node_view(&d, v)).collect_view();
    // In user units, so a thick route edge does not blow its arrowhead up.
    let markers = ARROWS.map(|state| {
        view! {
            <marker id=format!("arrow-{state}") class=format!("arrow {state}") viewBox="0 0 10 10" refX="9" refY="5"
                markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse">
                <path d="M 0 0 L 10 5 L 0 10 z" />
            </marker>
        }
    });
    view! {
        <svg class="graph" data-testid="graph" data-layout=engine data-key=key data-direction=direction data-layout-ms=millis
            style=move || format!("height:{:.0}px;--k:{:.4}", vp.height.get(), vp.k.get())
            data-k=move || format!("{:.4}", vp.k.get())>
            <defs>{markers}</defs>
            <g class="viewport" transform=move || vp.transform()>
                <g class="edges">{edges}</g>
                <g class="nodes">{nodes}</g>
                {crate::lane_view::overlay(d_page, d_layout)}
            </g>
        </svg>
    }
}

/// An SVG path through the points.
fn path_d(points: &[(f64, f64)]) -> String {
    let mut d = String::new();
    for (i, (x, y)) in points.iter().enumerate() {
        d.push_str(if i == 0 { "M" } else { " L" });
        d.push_str(&format!("{x:.1} {y:.1}"));
    }
    d
}

/// The weight label: the description cost, and the live weight when health changed it.
fn cost_text(cost: f64, w: f64) -> String {
    if !w.is_finite() {
        "∞".to_string()
    } else if (w - cost).abs() > 1e-9 {
        format!("{}→{}", num(cost), num(w))
    } else {
        num(cost)
    }
}

fn edge_view(d: &Drawing, e: usize) -> impl IntoView {
    let g = &d.view.graph;
    let edge = g.edge(e);
    let route = &d.layout.edges[e];
    let d_attr = path_d(&route.points);
    let label = route.label;
    let (mx, my) = (label.x + label.w / 2.0, label.y + LABEL_LINE_H - 3.5);
    let (ghost, replay) = (d.page.ghost, d.page.replay);
    let (view, cost) = (d.view.clone(), edge.cost);
    // The weight routing uses at the replay's position.
    let weight = move || replay.moment.with(|m| view.timeline.weights(m).get(e).copied().unwrap_or(cost));
    let label_weight = weight.clone();
    let story = use_context::<crate::story::Highlight>();
    let class = move || {
        let infinite = !weight().is_finite();
        let done = replay.done();
        replay.moment.with(|m| {
            let mut c = String::from("edge");
            if story.is_some_and(|h| h.0.with(|n| n.edges.contains(&e))) {
                c.push_str(" story");
            }
            if infinite {
                c.push_str(" infinite");
            }
            let route = m.route_edges.contains(&e);
            if route {
                c.push_str(" route");
            }
            if m.ran_edges.contains(&e) {
                c.push_str(" ran");
            }
            if m.revisits.contains_key(&e) {
                c.push_str(" revisit");
            }
            if !route && (m.broken.contains(&e) || (!done && ghost.with(|gh| gh.contains(&e)))) {
                c.push_str(" ghost");
            }
            match m.frame.as_ref().and_then(|f| f.edge) {
                Some((x, true)) if x == e => c.push_str(" current skipped"),
                Some((x, false)) if x == e => c.push_str(" current"),
                _ => {}
            }
            c
        })
    };
    let revisits = move || replay.moment.with(|m| m.revisits.get(&e).copied());
    let name = format!("{}->{}", g.id(edge.from), g.id(edge.to));
    // A proposed edge's reason (issue 47): a tooltip, and in words under the graph on focus
    // (crate::reasons listens).
    let reason = g.edge_reason(e).map(str::to_string);
    let aria = reason.as_ref().map(|_| format!("Edge {}", crate::reasons::edge_name(g, e)));
    let (tab, role) = (reason.as_ref().map(|_| "0"), reason.as_ref().map(|_| "img"));
    view! {
        <g class=class data-edge=name tabindex=tab role=role
            aria-label=aria>
            {reason.map(|r| view! { <title>{r}</title> })}
            <path d=d_attr />
            <text class="cost" x=mx y=my text-anchor="middle">{move || cost_text(cost, label_weight())}</text>
            {move || revisits().map(|n| view! { <text class="revisits" x=mx y=my + LABEL_LINE_H text-anchor="middle">{format!("↺×{n}")}</text> })}
        </g>
    }
}

/// How a node's state reads without colour: its icon, and its status in words.
fn state_marks(state: ToolState, ran: bool) -> (&'static str, &'static str) {
    let icon = match state {
        ToolState::Failed => "✕",
        ToolState::Unseen => "?",
        ToolState::Probing => "◐",
        ToolState::Perturbed => "⚡",
        _ if ran => "✓",
        _ => "",
    };
    let status = match state {
        ToolState::Waypoint => "waypoint",
        ToolState::Healthy => "healthy",
        ToolState::Failed => "failed",
        ToolState::Unseen => "down, not yet known to the router",
        ToolState::Probing => "half-open",
        ToolState::Perturbed => "perturbed",
    };
    (icon, status)
}

/// A node's label in at most two centred lines.
fn label_view(label: &str) -> impl IntoView {
    let lines = label_lines(label, 16);
    let lines_n = lines.len();
    let n_lines = lines_n as f64;
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            // Centred a little below the middle: the top row has the distance and the icon.
            let dy = (i as f64 - (n_lines - 1.0) / 2.0) * 14.0 + 8.0;
            // A space ends every line but the last: the lines read as the label's words (its
            // accessible name holds the text shown).
            let l = if i + 1 < lines_n { format!("{l} ") } else { l };
            view! { <text class="label" x="0" y=dy text-anchor="middle">{l}</text> }
        })
        .collect_view()
}

/// A node's state at a moment: as the run started, then as the run saw it (a breaker that
/// opened, closed or went half-open; a tool failed for good). A tool down from the start is
/// drawn ✕ only from its first failing call: until then the router plans through it.
pub fn state_at(start: ToolState, m: &Moment, v: usize) -> ToolState {
    if start == ToolState::Failed && !m.seen_failed.contains(&v) && !m.breakers.contains_key(&v) {
        return ToolState::Unseen;
    }
    match (start, m.breakers.get(&v)) {
        (ToolState::Waypoint | ToolState::Perturbed, _) | (_, None) => start,
        (_, Some(BreakerState::Open)) => ToolState::Failed,
        (_, Some(BreakerState::HalfOpen)) => ToolState::Probing,
        (ToolState::Failed, Some(BreakerState::Closed)) => ToolState::Failed,
        (_, Some(BreakerState::Closed)) => ToolState::Healthy,
    }
}

fn node_view(d: &Drawing, v: usize) -> impl IntoView {
    let g = &d.view.graph;
    let node = g.node(v);
    let (x, y) = d.layout.nodes[v].centre();
    let start_state = d.view.states[v];
    let is_goal = v == g.goal();
    let (page, replay) = (d.page, d.page.replay);
    let state = move || replay.moment.with(|m| state_at(start_state, m, v));
    let ran = move || replay.moment.with(|m| m.ran_nodes.contains(&v));
    let story = use_context::<crate::story::Highlight>();
    let class = move || {
        let mut c = format!("node {}", state_class(state()));
        if story.is_some_and(|h| h.0.with(|n| n.nodes.contains(&v))) {
            c.push_str(" story");
        }
        replay.moment.with(|m| {
            if is_goal {
                c.push_str(" goal");
            }
            if m.route_nodes.contains(&v) {
                c.push_str(" route");
            }
            if m.ran_nodes.contains(&v) {
                c.push_str(" ran");
            }
            if m.focus == Some(v) {
                c.push_str(" current");
            }
            if let Some(f) = &m.frame {
                if f.settled.contains(&v) {
                    c.push_str(" settled");
                } else if f.frontier.contains(&v) {
                    c.push_str(" frontier");
                }
            }
        });
        c
    };
    let dist = move || {
        replay.moment.with(|m| {
            m.frame
                .as_ref()
                .and_then(|f| f.dist.get(v).copied().flatten())
                .map(|d| format!("d={}", num(d)))
                .unwrap_or_default()
        })
    };
    let visits = move || replay.moment.with(|m| m.visits.get(v).copied().unwrap_or(0));
    // Over tools only: ELK keeps no band free over the start and the goal.
    let show_visits = d.show_visits && node.tool;
    let strikes = match start_state {
        ToolState::Perturbed => d.perturbation.as_ref().map(|(name, _)| name.clone()),
        _ => d.view.fails_after[v].map(|n| match n {
            0 => "will fail".to_string(),
            n => format!("fails after {n} calls"),
        }),
    };
    // A label cut to fit its box ("Awaiting approval…") is whole in the tooltip.
    let cut = label_lines(node.label(), 16).last().is_some_and(|l| l.ends_with('…'));
    let tooltip = match start_state {
        ToolState::Perturbed => d.perturbation.as_ref().map(|(name, what)| format!("{name}: {what}")),
        // A proposed graph's reason (issue 47), after the label when the box cuts it.
        _ => match (cut, node.reason()) {
            (true, Some(r)) => Some(format!("{}: {r}", node.label())),
            (false, Some(r)) => Some(r.to_string()),
            (cut, None) => cut.then(|| node.label().to_string()),
        },
    };
    // The band over the box that ELK keeps free: the strike, the visit count.
    let band = move || {
        let n = visits();
        let visits = (show_visits && n > 0).then(|| format!("{n} visit{}", if n == 1 { "" } else { "s" }));
        // "will fail" only until the router learns it: then the ✕ says it.
        let strikes = strikes.clone().filter(|s| s != "will fail" || state() == ToolState::Unseen);
        (strikes.is_some() || visits.is_some()).then(|| {
            let sep = (strikes.is_some() && visits.is_some()).then_some(" · ");
            view! {
                <text class="band" x="0" y=-HALF_H - 4.0 text-anchor="middle">
                    {strikes.map(|s| view! { <tspan class="strikes">{s}</tspan> })}
                    {sep}
                    {visits.map(|v| view! { <tspan class="visits" data-visits=n>{v}</tspan> })}
                </text>
            }
        })
    };
    let id = node.id().to_string();
    let label = node.label().to_string();
    let aria = move || {
        let (_, status) = state_marks(state(), false);
        format!("{label} ({status}{})", if ran() { ", completed" } else { "" })
    };
    let icon = move || state_marks(state(), ran()).0;
    let shape = if node.tool {
        view! { <rect x=-HALF_W y=-HALF_H width=2.0 * HALF_W height=2.0 * HALF_H rx="8" /> }.into_any()
    } else {
        view! { <ellipse cx="0" cy="0" rx=HALF_W ry=HALF_H /> }.into_any()
    };
    // Tools fail and probe; any node can be made the start or the goal (crate::editor).
    let (tool, reason) = (node.tool, node.reason().is_some());
    let interactive = move || tool || matches!(page.mode.get(), ClickMode::Start | ClickMode::Goal);
    let (click_id, key_id) = (id.clone(), id.clone());
    view! {
        <g class=class data-node=id transform=format!("translate({x},{y})")
            tabindex=move || if interactive() || reason { "0" } else { "-1" }
            role=move || if interactive() { "button" } else { "img" }
            aria-label=aria
            on:click=move |_| crate::editor::click_node(page, &click_id, tool)
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Enter" || ev.key() == " " {
                    ev.prevent_default();
                    crate::editor::click_node(page, &key_id, tool);
                }
            }>
            {shape}
            {label_view(node.label())}
            {tooltip.map(|t| view! { <title>{t}</title> })}
            <text class="icon" x=HALF_W - 10.0 y=-HALF_H + 14.0 text-anchor="middle">{icon}</text>
            <text class="dist" x=-HALF_W + 5.0 y=-HALF_H + 13.0>{dist}</text>
            {band}
        </g>
    }
}
