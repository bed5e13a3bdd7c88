//! The sweep's sparse start (issue 48): on a DAG whose edges jump far ahead in the order, a
//! query sweeps only the nodes its sources reach, and turns to the full sweep where they are
//! dense. Its plans are the full sweep's to the edge: the same cost, the same path among plans
//! of equal cost (small whole costs make many), checked against the push sweep, which weighs
//! edge by edge and visits every node of the window.

use proptest::prelude::*;
use serde_json::json;
use shr_core::algo::{Dijkstra, EdgeWeight, Plan, TopoSweep};
use shr_core::ToolGraph;

#[path = "support/live.rs"]
mod live;
use live::Live;

/// A random DAG of `n` nodes: node `u` to `fanout` later nodes drawn from `picks` (anywhere
/// later, or, for a `near` pick, within 4), costs 0-3 from `picks` too (zero costs and ties).
fn dag(n: usize, fanout: usize, picks: &[(u32, bool)]) -> ToolGraph {
    let mut edges = Vec::new();
    let mut k = 0;
    for u in 0..n - 1 {
        let mut to = std::collections::BTreeSet::new();
        for _ in 0..fanout {
            let (r, near) = picks[k % picks.len()];
            k += 1;
            let span = if near { 4.min(n - 1 - u) } else { n - 1 - u };
            if to.insert(u + 1 + r as usize % span) {
                let c = (r / 7) % 4;
                edges.push(json!({"from": format!("n{u}"), "to": format!("n{}", u + 1 + r as usize % span), "cost": c}));
            }
        }
    }
    let nodes: Vec<_> = (0..n).map(|v| json!({"id": format!("n{v}")})).collect();
    let spec = json!({"nodes": nodes, "edges": edges, "start": "n0", "goal": format!("n{}", n - 1)});
    ToolGraph::from_json(&spec.to_string()).expect("generated graphs are valid")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_sparse_start_plans_as_the_full_sweep_does(
        n in 130usize..3000,
        fanout in 1usize..5,
        picks in prop::collection::vec((0u32..1_000_000, prop::bool::weighted(0.2)), 1..200),
        fail in prop::collection::vec(0usize..3000, 0..40),
        pairs in prop::collection::vec((0usize..3000, 0usize..3000), 1..12),
    ) {
        let g = dag(n, fanout, &picks);
        let mut failed = vec![false; n];
        for f in fail {
            failed[f % n] = true;
        }
        let live = Live { graph: &g, failed: &failed };
        let edge_by_edge = |e: usize| live.weight(e);
        let (mut d, mut pull, mut push) = (Dijkstra::new(), TopoSweep::new(), TopoSweep::new());
        let (mut routed, mut pulled, mut pushed) = (Plan::default(), Plan::default(), Plan::default());
        for (a, b) in pairs {
            let (start, goal) = (a % n, b % n);
            // Live weights: the sparse start, then the pull sweep where the reached nodes are
            // dense.
            let found = pull.route_into(&g, &[start], goal, &live, &mut pulled);
            // A closure's weights: the push sweep over the whole window.
            prop_assert_eq!(found, push.route_into(&g, &[start], goal, &edge_by_edge, &mut pushed));
            prop_assert_eq!(&pulled, &pushed, "{} to {}", start, goal);
            // A router's query: the same cost (on a large dense window the two-sided try may
            // answer, with another plan of that cost).
            prop_assert_eq!(found, d.route_into(&g, &[start], goal, &live, &mut (), &mut routed));
            prop_assert_eq!(routed.cost, pulled.cost);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A router's memo keeps the sweep's factors by position between queries while the health
    /// holds (`FactorTable`): every answer equals that of a fresh memo and search, through
    /// tools failing and coming back, the clock moving, windows of every size and sparse
    /// starts.
    #[test]
    fn kept_factors_route_as_fresh_weights_do(
        n in 130usize..1500,
        fanout in 1usize..5,
        picks in prop::collection::vec((0u32..1_000_000, prop::bool::weighted(0.5)), 1..200),
        steps in prop::collection::vec((0u8..8, 0usize..1500, 0usize..1500), 1..40),
    ) {
        use shr_core::health::{BreakerConfig, WeightMemo};
        use shr_core::HealthBook;
        let g = dag(n, fanout, &picks);
        let mut health = HealthBook::new(&g, BreakerConfig::default());
        let (mut memo, mut d, mut plan) = (WeightMemo::default(), Dijkstra::new(), Plan::default());
        let mut now = 0;
        for (op, a, b) in steps {
            match op {
                0 => {
                    health.trip(a % n, now);
                    memo.forget();
                }
                1 => {
                    health.reset(a % n, now);
                    memo.forget();
                }
                // Past a breaker's cooldown now and then: tripped tools half-open.
                2 => now += 1 + 40_000 * (b % 2) as u64,
                _ => {
                    let (start, goal) = (a % n, b % n);
                    memo.refresh(&g, &mut health, now);
                    let found = d.route_into(&g, &[start], goal, &memo.weights(&g, &health, now), &mut (), &mut plan);
                    let (mut fresh, mut want) = (WeightMemo::default(), Plan::default());
                    fresh.refresh(&g, &mut health, now);
                    let weights = fresh.weights(&g, &health, now);
                    prop_assert_eq!(found, Dijkstra::new().route_into(&g, &[start], goal, &weights, &mut (), &mut want));
                    prop_assert_eq!(&plan, &want, "{} to {} at {}", start, goal, now);
                }
            }
        }
    }
}

/// Weights whose table was sized for another graph (a caller's mistake) route as if they kept
/// none: the sweep uses its own.
#[test]
fn a_table_sized_for_another_graph_is_passed_over() {
    use shr_core::algo::FactorTable;
    struct Misfit<'a>(Live<'a>, FactorTable);
    impl EdgeWeight for Misfit<'_> {
        fn weight(&self, e: usize) -> f64 {
            self.0.weight(e)
        }
        fn entry_factor(&self, v: usize) -> Option<f64> {
            self.0.entry_factor(v)
        }
        fn factor_table(&self) -> Option<&FactorTable> {
            Some(&self.1)
        }
    }
    let picks: Vec<(u32, bool)> = (0..50).map(|k| (k * 7919 % 1000, k % 3 == 0)).collect();
    let g = dag(400, 3, &picks);
    let failed = vec![false; 400];
    let mut small = FactorTable::default();
    small.forget(10);
    let misfit = Misfit(Live { graph: &g, failed: &failed }, small);
    let (mut a, mut b) = (Plan::default(), Plan::default());
    let found = TopoSweep::new().route_into(&g, &[0], 399, &misfit, &mut a);
    assert_eq!(
        found,
        TopoSweep::new().route_into(&g, &[0], 399, &Live { graph: &g, failed: &failed }, &mut b)
    );
    assert!(found);
    assert_eq!(a, b);
}

/// One memo shared by threads routing at once (`&WeightMemo` is `Sync`): their sweeps weigh
/// and keep the same table concurrently, and every plan equals a fresh memo's.
#[test]
fn threads_sharing_a_memo_keep_its_table_right() {
    use shr_core::health::{BreakerConfig, WeightMemo};
    use shr_core::HealthBook;
    let picks: Vec<(u32, bool)> = (0..97).map(|k| (k * 7919 % 100_000, k % 4 == 0)).collect();
    let g = dag(3000, 3, &picks);
    let mut health = HealthBook::new(&g, BreakerConfig::default());
    for v in [17, 400, 1200, 2900] {
        health.trip(v, 0);
    }
    let mut memo = WeightMemo::default();
    memo.refresh(&g, &mut health, 0);
    let pairs: Vec<(usize, usize)> = (0..64).map(|k| ((k * 37) % 200, 2999 - (k * 53) % 300)).collect();
    let want: Vec<(bool, Plan)> = pairs
        .iter()
        .map(|&(s, t)| {
            let (mut fresh, mut plan) = (WeightMemo::default(), Plan::default());
            let mut h = health.clone();
            fresh.refresh(&g, &mut h, 0);
            let found =
                Dijkstra::new().route_into(&g, &[s], t, &fresh.weights(&g, &h, 0), &mut (), &mut plan);
            (found, plan)
        })
        .collect();
    std::thread::scope(|scope| {
        for offset in 0..8 {
            let (g, memo, health, pairs, want) = (&g, &memo, &health, &pairs, &want);
            scope.spawn(move || {
                let (mut d, mut plan) = (Dijkstra::new(), Plan::default());
                for round in 0..40 {
                    let k = (offset * 7 + round * 13) % pairs.len();
                    let (s, t) = pairs[k];
                    let found = d.route_into(g, &[s], t, &memo.weights(g, health, 0), &mut (), &mut plan);
                    assert_eq!((found, &plan), (want[k].0, &want[k].1), "thread {offset}, {s} to {t}");
                }
            });
        }
    });
}
