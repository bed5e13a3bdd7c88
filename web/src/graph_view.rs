//! The tool graph as SVG. Each state is told apart by colour *and* by shape or icon (failed:
//! dashed outline and ✕; half-open: dotted outline and ◐; completed: ✓; route: thick outline and
//! thick edges), so it reads without colour too. Tools are focusable buttons: Tab + Enter.

use std::sync::Arc;

use leptos::prelude::*;

use crate::app::Page;
use crate::model::{label_lines, layout, num, ToolState, View};

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

fn render(page: Page, view: Arc<View>) -> impl IntoView {
    let g = &view.graph;
    let pos = layout(g);
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for &(x, y) in &pos {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if pos.is_empty() {
        (x0, y0, x1, y1) = (0.0, 0.0, 100.0, 100.0);
    }
    let pad = 12.0;
    let view_box = format!(
        "{} {} {} {}",
        x0 - HALF_W - pad,
        y0 - HALF_H - pad,
        (x1 - x0) + 2.0 * (HALF_W + pad),
        (y1 - y0) + 2.0 * (HALF_H + pad)
    );
    let ran_nodes = view.run_nodes();
    let perturbation = page.setup.with_untracked(|s| match &s.source {
        crate::model::Source::Perturb { mode, .. } => Some(format!("{mode:?} {}", mode.describe())),
        _ => None,
    });
    // Visit counts matter once the run went back somewhere (a cyclic workflow); then every
    // completed tool shows its count.
    let show_visits = !view.revisits.is_empty() || view.visits.iter().any(|&c| c > 1);
    let ran_edges = view.run_edges();
    let replay = page.replay;

    let edges = g
        .edges()
        .iter()
        .enumerate()
        .map(|(e, edge)| {
            let (a, b) = (pos[edge.from], pos[edge.to]);
            let (mut p, mut q) = (exit(a, b), exit(b, a));
            // A two-way pair would be drawn on top of itself: shift each edge to its own side.
            if g.find_edge(edge.to, edge.from).is_some() {
                let (dx, dy) = (q.0 - p.0, q.1 - p.1);
                let len = (dx * dx + dy * dy).sqrt().max(1e-9);
                let (nx, ny) = (-dy / len * 7.0, dx / len * 7.0);
                p = (p.0 + nx, p.1 + ny);
                q = (q.0 + nx, q.1 + ny);
            }
            let w = view.weights[e];
            let cost_text = if !w.is_finite() {
                "∞".to_string()
            } else if (w - edge.cost).abs() > 1e-9 {
                format!("{}→{}", num(edge.cost), num(w))
            } else {
                num(edge.cost)
            };
            let (mx, my) = ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
            let in_route = view.route.as_ref().is_some_and(|r| r.edges.contains(&e));
            let ran = ran_edges.contains(&e);
            let revisit = view.revisits.get(&e).copied();
            let infinite = !w.is_finite();
            let ghost = page.ghost;
            let class = move || {
                let f = replay.frame.get();
                let done = replay.done();
                let mut c = String::from("edge");
                if infinite {
                    c.push_str(" infinite");
                }
                if done && in_route {
                    c.push_str(" route");
                }
                if done && ran {
                    c.push_str(" ran");
                }
                if revisit.is_some() {
                    c.push_str(" revisit");
                }
                if !done {
                    if ghost.with(|gh| gh.as_ref().is_some_and(|p| p.edges.contains(&e))) {
                        c.push_str(" ghost");
                    }
                    match f.edge {
                        Some((x, true)) if x == e => c.push_str(" current skipped"),
                        Some((x, false)) if x == e => c.push_str(" current"),
                        _ => {}
                    }
                }
                c
            };
            let from_id = g.id(edge.from).to_string();
            let to_id = g.id(edge.to).to_string();
            view! {
                <g class=class data-edge=format!("{from_id}->{to_id}")>
                    <line x1=p.0 y1=p.1 x2=q.0 y2=q.1 marker-end="url(#arrow)" />
                    <text class="cost" x=mx y=my - 4.0 text-anchor="middle">{cost_text}</text>
                    {revisit.map(|n| view! { <text class="revisits" x=mx y=my + 12.0 text-anchor="middle">{format!("↺×{n}")}</text> })}
                </g>
            }
        })
        .collect_view();

    let nodes = g
        .nodes()
        .iter()
        .enumerate()
        .map(|(v, node)| {
            let (x, y) = pos[v];
            let state = view.states[v];
            let in_route = view.route.as_ref().is_some_and(|r| r.nodes.contains(&v));
            let ran = ran_nodes.contains(&v);
            let is_goal = v == g.goal();
            let class = move || {
                let f = replay.frame.get();
                let done = replay.done();
                let mut c = format!("node {}", state_class(state));
                if is_goal {
                    c.push_str(" goal");
                }
                if done && in_route {
                    c.push_str(" route");
                }
                if done && ran {
                    c.push_str(" ran");
                }
                if !done {
                    if f.settled.contains(&v) {
                        c.push_str(" settled");
                    } else if f.frontier.contains(&v) {
                        c.push_str(" frontier");
                    }
                }
                c
            };
            let dist = move || {
                if replay.done() {
                    return String::new();
                }
                replay.frame.with(|f| f.dist.get(v).copied().flatten().map(|d| format!("d={}", num(d))).unwrap_or_default())
            };
            let icon = match state {
                ToolState::Failed => "✕",
                ToolState::Probing => "◐",
                ToolState::Perturbed => "⚡",
                _ if ran => "✓",
                _ => "",
            };
            let visits = view.visits[v];
            let visit_text = (show_visits && visits > 0).then(|| format!("{visits} visit{}", if visits == 1 { "" } else { "s" }));
            let strikes = match state {
                ToolState::Perturbed => perturbation.clone(),
                _ => view.fails_after[v].filter(|&n| n > 0).map(|n| format!("fails after {n} calls")),
            };
            let lines = label_lines(&node.label, 17);
            let n_lines = lines.len() as f64;
            let texts = lines
                .into_iter()
                .enumerate()
                .map(|(i, l)| {
                    let dy = (i as f64 - (n_lines - 1.0) / 2.0) * 13.0 + 4.0;
                    view! { <text class="label" x="0" y=dy text-anchor="middle">{l}</text> }
                })
                .collect_view();
            let id = node.id.clone();
            let status = match state {
                ToolState::Waypoint => "waypoint",
                ToolState::Healthy => "healthy",
                ToolState::Failed => "failed",
                ToolState::Probing => "half-open",
                ToolState::Perturbed => "perturbed",
            };
            let aria = format!("{} ({status}{})", node.label, if ran { ", completed" } else { "" });
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
                    {texts}
                    <text class="icon" x=HALF_W - 11.0 y=-HALF_H + 13.0 text-anchor="middle">{icon}</text>
                    <text class="dist" x="0" y=HALF_H + 13.0 text-anchor="middle">{dist}</text>
                    {strikes.map(|s| view! { <text class="strikes" x="0" y=-HALF_H - 5.0 text-anchor="middle">{s}</text> })}
                    {visit_text.map(|s| view! { <text class="visits" data-visits=visits x=-HALF_W + 2.0 y=-HALF_H - 5.0>{s}</text> })}
                </g>
            }
        })
        .collect_view();

    view! {
        <svg class="graph" data-testid="graph" viewBox=view_box preserveAspectRatio="xMidYMid meet">
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" />
                </marker>
            </defs>
            <g class="edges">{edges}</g>
            <g class="nodes">{nodes}</g>
        </svg>
    }
}
