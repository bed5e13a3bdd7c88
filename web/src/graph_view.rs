//! The tool graph as SVG. Each state is told apart by colour *and* by shape or icon (failed:
//! dashed outline and ✕; half-open: dotted outline and ◐; completed: ✓; route: thick outline and
//! thick edges), so it reads without colour too. Tools are focusable buttons: Tab + Enter.
//! Everything drawn is the SHR run at the replay's position ([`crate::timeline::Moment`]).

use std::sync::Arc;

use leptos::prelude::*;
use shr_core::BreakerState;

use crate::model::{label_lines, layout, num, ToolState, View};
use crate::state::Page;
use crate::timeline::Moment;

const HALF_W: f64 = 58.0;
const HALF_H: f64 = 21.0;

/// Where the segment from `a` towards `b` leaves the box around `a`.
fn exit(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let tx = if dx.abs() > 1e-9 { HALF_W / dx.abs() } else { f64::INFINITY };
    let ty = if dy.abs() > 1e-9 { HALF_H / dy.abs() } else { f64::INFINITY };
    let t = tx.min(ty).min(1.0);
    (a.0 + dx * t, a.1 + dy * t)
}

fn state_class(s: ToolState) -> &'static str {
    match s {
        ToolState::Waypoint => "waypoint",
        ToolState::Healthy => "healthy",
        ToolState::Failed => "failed",
        ToolState::Probing => "probing",
        ToolState::Perturbed => "perturbed",
    }
}

#[component]
pub fn GraphView() -> impl IntoView {
    let page = expect_context::<Page>();
    move || {
        let view = page.view.get().0;
        render(page, view)
    }
}

/// What every edge and node of one drawing needs.
struct Drawing {
    page: Page,
    view: Arc<View>,
    pos: Vec<(f64, f64)>,
    /// Visit counts matter once the run went back somewhere (a cyclic workflow); then every
    /// completed tool shows its count.
    show_visits: bool,
    /// The perturbation's mode, in words, for the perturbed tool.
    perturbation: Option<String>,
}

/// The edge states that have an arrowhead of their own colour (style.css picks one per state).
const ARROWS: [&str; 7] = ["plain", "route", "infinite", "current", "skipped", "ghost", "revisit"];

fn render(page: Page, view: Arc<View>) -> impl IntoView {
    let pos = layout(&view.graph);
    let view_box = view_box(&pos);
    let perturbation = page.setup.with_untracked(|s| match &s.source {
        crate::model::Source::Perturb { mode, .. } => Some(format!("{mode:?} {}", mode.describe())),
        _ => None,
    });
    let whole = view.moment(view.timeline.len());
    let d = Drawing {
        page,
        show_visits: !whole.revisits.is_empty() || whole.visits.iter().any(|&c| c > 1),
        perturbation,
        pos,
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
        <svg class="graph" data-testid="graph" viewBox=view_box preserveAspectRatio="xMidYMid meet">
            <defs>{markers}</defs>
            <g class="edges">{edges}</g>
            <g class="nodes">{nodes}</g>
        </svg>
    }
}

/// The box around every node, with a margin.
fn view_box(pos: &[(f64, f64)]) -> String {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for &(x, y) in pos {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if pos.is_empty() {
        (x0, y0, x1, y1) = (0.0, 0.0, 100.0, 100.0);
    }
    let pad = 12.0;
    format!(
        "{} {} {} {}",
        x0 - HALF_W - pad,
        y0 - HALF_H - pad,
        (x1 - x0) + 2.0 * (HALF_W + pad),
        (y1 - y0) + 2.0 * (HALF_H + pad)
    )
}

/// Where edge `e` is drawn: from box edge to box edge, a two-way pair side by side.
fn edge_ends(d: &Drawing, e: usize) -> ((f64, f64), (f64, f64)) {
    let g = &d.view.graph;
    let edge = g.edge(e);
    let (a, b) = (d.pos[edge.from], d.pos[edge.to]);
    let (mut p, mut q) = (exit(a, b), exit(b, a));
    // A two-way pair would be drawn on top of itself: shift each edge to its own side.
    if g.find_edge(edge.to, edge.from).is_some() {
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len = (dx * dx + dy * dy).sqrt().max(1e-9);
        let (nx, ny) = (-dy / len * 7.0, dx / len * 7.0);
        p = (p.0 + nx, p.1 + ny);
        q = (q.0 + nx, q.1 + ny);
    }
    (p, q)
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
    let (p, q) = edge_ends(d, e);
    let (mx, my) = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
    let (ghost, replay) = (d.page.ghost, d.page.replay);
    let (view, cost) = (d.view.clone(), edge.cost);
    // The weight routing uses at the replay's position.
    let weight = move || replay.moment.with(|m| view.timeline.weights(m).get(e).copied().unwrap_or(cost));
    let label_weight = weight.clone();
    let class = move || {
        let infinite = !weight().is_finite();
        let done = replay.done();
        replay.moment.with(|m| {
            let mut c = String::from("edge");
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
    view! {
        <g class=class data-edge=name>
            <line x1=p.0 y1=p.1 x2=q.0 y2=q.1 />
            <text class="cost" x=mx y=my - 4.0 text-anchor="middle">{move || cost_text(cost, label_weight())}</text>
            {move || revisits().map(|n| view! { <text class="revisits" x=mx y=my + 12.0 text-anchor="middle">{format!("↺×{n}")}</text> })}
        </g>
    }
}

/// How a node's state reads without colour: its icon, and its status in words.
fn state_marks(state: ToolState, ran: bool) -> (&'static str, &'static str) {
    let icon = match state {
        ToolState::Failed => "✕",
        ToolState::Probing => "◐",
        ToolState::Perturbed => "⚡",
        _ if ran => "✓",
        _ => "",
    };
    let status = match state {
        ToolState::Waypoint => "waypoint",
        ToolState::Healthy => "healthy",
        ToolState::Failed => "failed",
        ToolState::Probing => "half-open",
        ToolState::Perturbed => "perturbed",
    };
    (icon, status)
}

/// A node's label in at most two centred lines.
fn label_view(label: &str) -> impl IntoView {
    let lines = label_lines(label, 17);
    let n_lines = lines.len() as f64;
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let dy = (i as f64 - (n_lines - 1.0) / 2.0) * 13.0 + 4.0;
            view! { <text class="label" x="0" y=dy text-anchor="middle">{l}</text> }
        })
        .collect_view()
}

/// A node's state at a moment: as the run started, then as the run saw it (a breaker that
/// opened, closed or went half-open; a tool failed for good).
fn state_at(start: ToolState, m: &Moment, v: usize) -> ToolState {
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
    let (x, y) = d.pos[v];
    let start_state = d.view.states[v];
    let is_goal = v == g.goal();
    let (page, replay) = (d.page, d.page.replay);
    let state = move || replay.moment.with(|m| state_at(start_state, m, v));
    let ran = move || replay.moment.with(|m| m.ran_nodes.contains(&v));
    let class = move || {
        let mut c = format!("node {}", state_class(state()));
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
    let show_visits = d.show_visits;
    let visit_text = move || {
        let n = visits();
        (show_visits && n > 0).then(|| {
            let text = format!("{n} visit{}", if n == 1 { "" } else { "s" });
            view! { <text class="visits" data-visits=n x=-HALF_W + 2.0 y=-HALF_H - 5.0>{text}</text> }
        })
    };
    let strikes = match start_state {
        ToolState::Perturbed => d.perturbation.clone(),
        _ => d.view.fails_after[v].filter(|&n| n > 0).map(|n| format!("fails after {n} calls")),
    };
    let id = node.id.clone();
    let label = node.label.clone();
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
    let interactive = node.tool;
    let click_id = id.clone();
    let key_id = id.clone();
    view! {
        <g class=class data-node=id transform=format!("translate({x},{y})")
            tabindex=if interactive { "0" } else { "-1" }
            role=if interactive { "button" } else { "img" }
            aria-label=aria
            on:click=move |_| if interactive { page.click_tool(&click_id) }
            on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                if interactive && (ev.key() == "Enter" || ev.key() == " ") {
                    ev.prevent_default();
                    page.click_tool(&key_id);
                }
            }>
            {shape}
            {label_view(&node.label)}
            <text class="icon" x=HALF_W - 11.0 y=-HALF_H + 13.0 text-anchor="middle">{icon}</text>
            <text class="dist" x="0" y=HALF_H + 13.0 text-anchor="middle">{dist}</text>
            {strikes.map(|s| view! { <text class="strikes" x="0" y=-HALF_H - 5.0 text-anchor="middle">{s}</text> })}
            {visit_text}
        </g>
    }
}
