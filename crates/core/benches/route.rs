//! Routing benchmarks on the graph files written by the `gen_graphs` bench (see
//! `bench/graphs/index.json`; `scripts/bench` writes them first):
//!
//! - `route/shr/<graph>`: [`Dijkstra::route_into`] from start to goal, reusing its buffers and
//!   the plan, edge weight = cost (the steady path of a session);
//! - `route/shr_live/<graph>`: the same query over live health weights kept in a
//!   [`WeightMemo`], the work `Router.route` does in shr-wasm (its like-for-like native twin);
//! - `route/shr_one_sided/<graph>`: the same query forced onto the one-directional search (an
//!   observer that asks for the steps), to show what the two-sided search adds;
//! - `route/petgraph_astar/<graph>`: petgraph's `astar` with a zero heuristic on
//!   `ToolGraph::to_petgraph()`, the same query (it returns the path too).
//!
//! Graph loading is never timed. Costs are checked against each other before timing.
//! Set `SHR_BENCH_GRAPHS` to read the graphs from another folder. Reroutes after K failures are
//! the `reroute` bench.

mod common;

use std::hint::black_box;

use common::{load_graphs, OneSided};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use petgraph::algo::astar;
use petgraph::graph::NodeIndex;
use shr_core::algo::{Dijkstra, Plan};
use shr_core::health::{BreakerConfig, WeightMemo};
use shr_core::{HealthBook, NodeIx, ToolGraph};

/// Fewer samples for the large graph, so it fits short measurement times.
fn sample_size(g: &ToolGraph) -> usize {
    if g.node_count() >= 50_000 {
        20
    } else {
        100
    }
}

fn petgraph_cost(pg: &petgraph::graph::DiGraph<NodeIx, f64>, start: NodeIx, goal: NodeIx) -> Option<f64> {
    astar(pg, NodeIndex::new(start), |n| n.index() == goal, |e| *e.weight(), |_| 0.0).map(|(c, _)| c)
}

fn bench_route(c: &mut Criterion) {
    let graphs = load_graphs();
    let mut group = c.benchmark_group("route");
    for (name, g, joins) in &graphs {
        let (s, goal) = (g.start(), g.goal());
        group.sample_size(sample_size(g));
        let weights = |e: usize| g.edge(e).cost;
        let mut d = Dijkstra::new();
        let mut plan = Plan::default();
        assert!(d.route_into(g, &[s], goal, &weights, &mut (), &mut plan), "{name}: no route");
        let pg = g.to_petgraph();
        let pcost = petgraph_cost(&pg, s, goal).expect("petgraph finds a route");
        // With a quorum join SHR sums the join's inputs; petgraph knows no joins.
        if !joins {
            assert_eq!(plan.cost, pcost, "{name}: shr and petgraph disagree");
        }
        group.bench_with_input(BenchmarkId::new("shr", name), g, |b, g| {
            b.iter(|| {
                d.route_into(g, black_box(&[s]), black_box(goal), &weights, &mut (), &mut plan);
                black_box(plan.cost)
            })
        });
        // What `Router.route` does in shr-wasm: live health weights, remembered between routes.
        let mut health = HealthBook::new(g, BreakerConfig::default());
        let mut memo = WeightMemo::default();
        let mut live = Plan::default();
        memo.refresh(g, &mut health, 0);
        assert!(d.route_into(g, &[s], goal, &memo.weights(g, &health, 0), &mut (), &mut live));
        assert_eq!(live.cost, plan.cost, "{name}: healthy tools weigh 1");
        group.bench_with_input(BenchmarkId::new("shr_live", name), g, |b, g| {
            b.iter(|| {
                memo.refresh(g, &mut health, black_box(0));
                d.route_into(
                    g,
                    black_box(&[s]),
                    black_box(goal),
                    &memo.weights(g, &health, 0),
                    &mut (),
                    &mut live,
                );
                black_box(live.cost)
            })
        });
        let mut one_sided = Plan::default();
        assert!(d.route_into(g, &[s], goal, &weights, &mut OneSided, &mut one_sided));
        assert_eq!(one_sided.cost, plan.cost, "{name}: the two searches disagree");
        group.bench_with_input(BenchmarkId::new("shr_one_sided", name), g, |b, g| {
            b.iter(|| {
                d.route_into(g, black_box(&[s]), black_box(goal), &weights, &mut OneSided, &mut one_sided);
                black_box(one_sided.cost)
            })
        });
        group.bench_with_input(BenchmarkId::new("petgraph_astar", name), &pg, |b, pg| {
            b.iter(|| {
                astar(pg, NodeIndex::new(black_box(s)), |n| n.index() == goal, |e| *e.weight(), |_| 0.0)
                    .map(|(c, p)| (c, p.len()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_route);
criterion_main!(benches);
