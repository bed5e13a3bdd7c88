//! Plain queries over windows of 1,024 nodes and more (issue 48): a two-sided try on a budget,
//! then the topological sweep when the budget runs out. Either way the cost is the one-sided
//! Dijkstra's, the plan a path that costs what it says, and the same inputs give the same plan.

use proptest::prelude::*;
use serde_json::json;
use shr_core::algo::{Dijkstra, EdgeWeight, Observer, Plan};
use shr_core::ToolGraph;

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
