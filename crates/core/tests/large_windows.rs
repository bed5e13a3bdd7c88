//! Plain queries over windows of 1,024 nodes and more (issue 48): a two-sided try on a budget,
//! then the topological sweep when the budget runs out. Either way the cost is the one-sided
//! Dijkstra's, the plan a path that costs what it says, and the same inputs give the same plan.

use proptest::prelude::*;
use serde_json::json;
use shr_core::algo::{Dijkstra, EdgeWeight, FactorTable, Observer, Plan};
use shr_core::graph::WAVES_FROM;
use shr_core::health::{BreakerConfig, WeightMemo};
use shr_core::{HealthBook, ToolGraph};
use std::cell::Cell;

/// Asks for the steps, so the search stays one-sided (the reference).
struct OneSided;
impl Observer for OneSided {}

#[path = "support/live.rs"]
mod live;
use live::Live;

/// An acyclic graph of `n` nodes: each node to the next (so windows are long), and `extra`
/// edges forward, near (up to 8 on) or far (anywhere later).
fn dag(n: usize, extra: &[(usize, usize, bool, u32)]) -> ToolGraph {
    let mut edges = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for v in 0..n - 1 {
        seen.insert((v, v + 1));
        edges.push(json!({"from": format!("n{v}"), "to": format!("n{}", v + 1), "cost": 1 + v % 5}));
    }
    for &(a, b, near, c) in extra {
        let a = a % (n - 1);
        let b = if near { (a + 1 + b % 8).min(n - 1) } else { a + 1 + b % (n - 1 - a) };
        if seen.insert((a, b)) {
            edges.push(json!({"from": format!("n{a}"), "to": format!("n{b}"), "cost": c as f64 / 2.0}));
        }
    }
    let nodes: Vec<_> = (0..n).map(|v| json!({"id": format!("n{v}")})).collect();
    let spec = json!({"nodes": nodes, "edges": edges, "start": "n0", "goal": format!("n{}", n - 1)});
    ToolGraph::from_json(&spec.to_string()).expect("generated graphs are valid")
}

fn check(g: &ToolGraph, sources: &[usize], goal: usize, failed: &[bool]) -> Result<(), TestCaseError> {
    let live = Live { graph: g, failed };
    let (mut plan, mut again, mut one) = (Plan::default(), Plan::default(), Plan::default());
    let mut d = Dijkstra::new();
    let found = d.route_into(g, sources, goal, &live, &mut (), &mut plan);
    let want = Dijkstra::new().route_into(g, sources, goal, &live, &mut OneSided, &mut one);
    prop_assert_eq!(found, want);
    if !found {
        return Ok(());
    }
    prop_assert_eq!(plan.cost, one.cost);
    prop_assert!(sources.contains(&plan.nodes[0]));
    prop_assert_eq!(plan.nodes.last(), Some(&goal));
    let mut total = 0.0;
    for (i, &e) in plan.edges.iter().enumerate() {
        let edge = g.edge(e);
        prop_assert_eq!((edge.from, edge.to), (plan.nodes[i], plan.nodes[i + 1]));
        total += live.weight(e);
    }
    prop_assert_eq!(total, plan.cost);
    d.route_into(g, sources, goal, &live, &mut (), &mut again);
    prop_assert_eq!(&again, &plan);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn large_windows_route_as_the_one_sided_search_does(
        n in 1030usize..2500,
        extra in prop::collection::vec((0usize..2500, 0usize..2500, prop::bool::ANY, 0u32..=20), 0..3000),
        fail in prop::collection::vec(0usize..2500, 0..6),
        start in 0usize..40,
        goal_back in 0usize..40,
    ) {
        let g = dag(n, &extra);
        let mut failed = vec![false; n];
        for f in fail {
            failed[f % n] = true;
        }
        check(&g, &[start], n - 1 - goal_back, &failed)?;
        // A goal a few hops on from a far start: the window is still large, the balls small.
        check(&g, &[start], n / 2 + start, &failed)?;
    }
}

/// A long chain with a shortcut: the two-sided try finds the goal within its budget and settles
/// far fewer nodes than the window holds; on the chain alone the budget runs out and the window
/// is swept.
#[test]
fn the_two_sided_try_answers_when_the_balls_stay_small() {
    let n = 5000;
    let with_shortcuts = dag(n, &[(0, 4998, false, 1)]);
    let none = vec![false; n];
    let live = Live { graph: &with_shortcuts, failed: &none };
    let (mut d, mut plan) = (Dijkstra::new(), Plan::default());
    assert!(d.route_into(&with_shortcuts, &[0], n - 1, &live, &mut (), &mut plan));
    assert_eq!(plan.nodes, [0, n - 1]);
    assert!(d.settled_count() < 10, "{} settled", d.settled_count());
    let chain = dag(n, &[]);
    let live = Live { graph: &chain, failed: &none };
    assert!(d.route_into(&chain, &[0], n - 1, &live, &mut (), &mut plan));
    assert_eq!(plan.nodes.len(), n);
    assert_eq!(d.settled_count(), n - 1, "the window was swept");
}

/// Weights that count the edges weighed one by one: the two-sided try weighs each edge it
/// scans, the sweep reads factors.
struct Counted<'a, W> {
    inner: W,
    edges: &'a Cell<usize>,
}

impl<W: EdgeWeight> EdgeWeight for Counted<'_, W> {
    fn weight(&self, e: usize) -> f64 {
        self.edges.set(self.edges.get() + 1);
        self.inner.weight(e)
    }
    fn entry_factor(&self, v: usize) -> Option<f64> {
        self.inner.entry_factor(v)
    }
    fn factor_table(&self) -> Option<&FactorTable> {
        self.inner.factor_table()
    }
}

/// A query whose two-sided try ran out of budget is swept at once the next time, to the same
/// plan, while the weights hold; another query, or the same after a health change, is tried
/// again; and a try that answered is made again.
#[test]
fn a_try_that_ran_out_is_not_made_again_while_the_weights_hold() {
    let n = 5000;
    let chain = dag(n, &[]);
    let mut health = HealthBook::new(&chain, BreakerConfig::default());
    let mut memo = WeightMemo::default();
    memo.refresh(&chain, &mut health, 0);
    let edges = Cell::new(0);
    let (mut d, mut plan, mut again) = (Dijkstra::new(), Plan::default(), Plan::default());
    let mut route = |memo: &WeightMemo, health: &HealthBook, sources: &[usize], plan: &mut Plan| {
        edges.set(0);
        let w = Counted { inner: memo.weights(&chain, health, 0), edges: &edges };
        let found = d.route_into(&chain, sources, n - 1, &w, &mut (), plan);
        assert_eq!(found, !plan.nodes.is_empty());
        edges.get()
    };
    let tried = route(&memo, &health, &[0], &mut plan);
    assert!(tried > 10, "the first query tries two-sided ({tried} edges weighed)");
    assert_eq!(route(&memo, &health, &[0], &mut again), 0, "the second is swept at once");
    assert_eq!(again, plan);
    // The plan a fresh router finds, trying first.
    let mut fresh = WeightMemo::default();
    fresh.refresh(&chain, &mut health, 0);
    let fresh_weights = fresh.weights(&chain, &health, 0);
    let mut want = Plan::default();
    assert!(Dijkstra::new().route_into(&chain, &[0], n - 1, &fresh_weights, &mut (), &mut want));
    assert_eq!(plan, want);
    assert!(route(&memo, &health, &[1], &mut again) > 10, "another query is tried");
    // A health change: the weights are new, the try is made again.
    health.trip(n / 2, 0);
    memo.forget();
    memo.refresh(&chain, &mut health, 0);
    assert!(route(&memo, &health, &[0], &mut again) > 10);
    assert!(again.nodes.is_empty(), "the chain is cut");

    let shortcut = dag(n, &[(0, 4998, false, 1)]);
    let mut health = HealthBook::new(&shortcut, BreakerConfig::default());
    let mut memo = WeightMemo::default();
    memo.refresh(&shortcut, &mut health, 0);
    for _ in 0..2 {
        let w = memo.weights(&shortcut, &health, 0);
        assert!(d.route_into(&shortcut, &[0], n - 1, &w, &mut (), &mut plan));
        assert!(d.settled_count() < 10, "answered two-sided: {} settled", d.settled_count());
    }
}

/// Layers of 50 nodes, each node to 1-3 of the next layer (so 0-6 edges enter a node).
fn layered(n: usize) -> ToolGraph {
    let width = 50;
    let mut edges = Vec::new();
    for v in 0..n.saturating_sub(width) {
        let next = (v / width + 1) * width;
        let mut to: Vec<usize> = (0..1 + v * 7 % 3).map(|k| next + (v * 31 + k * 17) % width).collect();
        to.dedup();
        for t in to.into_iter().filter(|&t| t < n) {
            edges.push(json!({"from": format!("n{v}"), "to": format!("n{t}"), "cost": 1}));
        }
    }
    let nodes: Vec<_> = (0..n).map(|v| json!({"id": format!("n{v}")})).collect();
    let spec = json!({"nodes": nodes, "edges": edges, "start": "n0", "goal": format!("n{}", n - 1)});
    ToolGraph::from_json(&spec.to_string()).expect("generated graphs are valid")
}

/// From [`WAVES_FROM`] nodes the topological order goes by waves (longest path from a node no
/// edge enters), then by how many edges enter a node, then index; below, lowest ready index
/// first.
#[test]
fn large_graphs_are_ordered_by_waves_grouped_by_entering_edges() {
    for n in [WAVES_FROM - 1, WAVES_FROM, 3 * WAVES_FROM] {
        let g = layered(n);
        let order = g.topo_order();
        assert_eq!(order.len(), n);
        let mut entering = vec![0usize; n];
        let mut wave = vec![0usize; n];
        for &v in order {
            for &e in g.out_edges(v as usize) {
                let to = g.edge(e as usize).to;
                assert!(g.topo_position(to) > g.topo_position(v as usize), "topological");
                entering[to] += 1;
            }
        }
        for &v in order {
            for &e in g.out_edges(v as usize) {
                let to = g.edge(e as usize).to;
                wave[to] = wave[to].max(wave[v as usize] + 1);
            }
        }
        let keys: Vec<_> = order.iter().map(|&v| (wave[v as usize], entering[v as usize], v)).collect();
        let sorted = keys.windows(2).all(|k| k[0] < k[1]);
        if n >= WAVES_FROM {
            assert!(sorted, "by wave, entering edges, index at {n} nodes");
        } else {
            // Layer by layer: lowest ready index first is index order.
            assert!(order.iter().enumerate().all(|(i, &v)| v as usize == i));
            assert!(!sorted);
        }
    }
}
