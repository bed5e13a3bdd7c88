//! Routing on the workloads of `common/workloads.rs`, the same graphs and queries the JS peers
//! time (`bench/peers.mjs --workloads`):
//!
//! - `layered/<lib>/<n>`: layered tool graphs of 12, 50, 200 and 1,000 nodes (a source, layers
//!   of 2-8 alternative tools where every tool of a layer leads to every tool of the next, a
//!   sink); each query from the source to the sink with 0-3 failed tools (64 queries in turn);
//! - `pairs/<lib>/<n>`: 64 random start/goal pairs on the random digraphs `rand_1000` and
//!   `rand_100000`, no failures;
//! - `joins/<lib>/<n>`: the layered graphs and queries with quorum joins of 2 (the sink, and the
//!   first tool of each layer after the first), which petgraph cannot express: the sweep against
//!   the one-sided Dijkstra that routed join graphs before it.
//!
//! Libraries:
//! - `shr`: `Dijkstra::route_into` as a router calls it (the topological sweep on acyclic graphs
//!   when the window fits, else the two-sided search), with the failure set given as live
//!   weights give health: a factor per tool (infinite when failed);
//! - `shr_router`: the whole `Router::route` a host calls, one router per failure set (its
//!   failed tools marked down), over the live weights it remembers between routes;
//! - `shr_two_sided` (layered only): the two-sided search on the same queries;
//! - `shr_one_sided` (joins only): Knuth's generalized Dijkstra, forced by an observer that asks
//!   for the steps (and drops them);
//! - `petgraph_dijkstra`: petgraph's `dijkstra` with the goal given (it stops there);
//! - `petgraph_astar`: petgraph's `astar` with a zero heuristic.
//!
//! Every library's cost is checked against the workload's (petgraph's) before timing.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};
use petgraph::algo::astar;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use shr_core::algo::{Bidirectional, Dijkstra, Plan};
use shr_core::{Router, ToolGraph};

#[path = "common/cases.rs"]
mod cases;
#[path = "common/one_sided.rs"]
mod one_sided;
#[path = "common/workloads.rs"]
mod workloads;
use cases::*;
use one_sided::OneSided;
use workloads::*;

/// Times `shr` (`Dijkstra::route_into`, the failure set given as live weights) and `shr_router`
/// (the `Router::route` of the router holding the failure set), the queries in turn.
fn bench_shr(
    c: &mut BenchmarkGroup<'_, WallTime>,
    n: usize,
    g: &ToolGraph,
    queries: &[Query],
    failed: &[FailureSet],
    routers: &mut [Router],
) {
    let (mut d, mut plan, mut i) = (Dijkstra::new(), Plan::default(), 0usize);
    c.bench_function(BenchmarkId::new("shr", n), |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            let (q, live) = (&queries[i], Failed { g, failed: &failed[i] });
            d.route_into(g, black_box(&[q.start]), black_box(q.goal), &live, &mut (), &mut plan);
            black_box(plan.cost)
        })
    });
    c.bench_function(BenchmarkId::new("shr_router", n), |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            let q = &queries[i];
            black_box(routers[i].route(black_box(q.start), black_box(q.goal), 1).map(|p| p.cost))
        })
    });
}

fn bench_workload(c: &mut Criterion, group: &str, n: usize, graph: &serde_json::Value, queries: &[Query]) {
    let g = ToolGraph::from_json(&graph.to_string()).expect("the workload graphs are valid");
    let pg = g.to_petgraph();
    let failed = failure_sets(&g, queries);
    let mut d = Dijkstra::new();
    let mut two = Bidirectional::new();
    let mut plan = Plan::default();
    let mut routers = routers(&g, queries);
    for ((q, f), router) in queries.iter().zip(&failed).zip(&mut routers) {
        let live = Failed { g: &g, failed: f };
        let want = Some(q.cost);
        let swept = d.route_into(&g, &[q.start], q.goal, &live, &mut (), &mut plan).then_some(plan.cost);
        assert_eq!(swept, want, "{group} {n}: shr");
        assert_eq!(router.route(q.start, q.goal, 1).map(|p| p.cost), want, "{group} {n}: the router");
        let two_sided = two.route_into(&g, &[q.start], q.goal, &live, &mut plan).then_some(plan.cost);
        assert_eq!(two_sided, want, "{group} {n}: the two-sided search");
        assert_eq!(petgraph_cost(&pg, q, f), want, "{group} {n}: petgraph");
    }

    let mut c = c.benchmark_group(group);
    bench_shr(&mut c, n, &g, queries, &failed, &mut routers);
    let mut i = 0usize;
    if group == "layered" {
        c.bench_function(BenchmarkId::new("shr_two_sided", n), |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                let (q, live) = (&queries[i], Failed { g: &g, failed: &failed[i] });
                two.route_into(&g, black_box(&[q.start]), black_box(q.goal), &live, &mut plan);
                black_box(plan.cost)
            })
        });
    }
    c.bench_function(BenchmarkId::new("petgraph_dijkstra", n), |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            black_box(petgraph_cost(&pg, black_box(&queries[i]), &failed[i]))
        })
    });
    c.bench_function(BenchmarkId::new("petgraph_astar", n), |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            let (q, f) = (&queries[i], &failed[i]);
            astar(
                &pg,
                NodeIndex::new(black_box(q.start)),
                |v| v.index() == q.goal,
                |e| if f[e.target().index()] { f64::INFINITY } else { *e.weight() },
                |_| 0.0,
            )
            .map(|(c, p)| (c, p.len()))
        })
    });
    c.finish();
}

fn bench_layered(c: &mut Criterion) {
    for n in LAYERED_SIZES {
        let (graph, queries) = workload("layered", n).expect("a workload");
        bench_workload(c, "layered", n, &graph, &queries);
    }
}

fn bench_pairs(c: &mut Criterion) {
    for n in PAIR_SIZES {
        let (graph, queries) = workload("pairs", n).expect("a workload");
        bench_workload(c, "pairs", n, &graph, &queries);
    }
}

fn bench_joins(c: &mut Criterion) {
    for n in LAYERED_SIZES {
        let (graph, queries) = workload("joins", n).expect("a workload");
        let g = ToolGraph::from_json(&graph.to_string()).expect("the workload graphs are valid");
        assert!(!g.join_nodes().is_empty(), "joins {n}: the graph has joins");
        let failed = failure_sets(&g, &queries);
        let (mut d, mut plan, mut one) = (Dijkstra::new(), Plan::default(), Plan::default());
        let mut routers = routers(&g, &queries);
        let mut routed = 0;
        for ((q, f), router) in queries.iter().zip(&failed).zip(&mut routers) {
            let live = Failed { g: &g, failed: f };
            let swept = d.route_into(&g, &[q.start], q.goal, &live, &mut (), &mut plan).then_some(plan.cost);
            let slow =
                d.route_into(&g, &[q.start], q.goal, &live, &mut OneSided, &mut one).then_some(one.cost);
            assert_eq!(swept, slow, "joins {n}: the sweep and the one-sided search disagree");
            routed += usize::from(swept.is_some());
            assert_eq!(router.route(q.start, q.goal, 1).map(|p| p.cost), swept, "joins {n}: the router");
        }
        // The sink's join can be starved by failed tools of the last layer; most queries route.
        assert!(routed * 2 >= queries.len(), "joins {n}: {routed} of {} queries routed", queries.len());
        let mut c = c.benchmark_group("joins");
        bench_shr(&mut c, n, &g, &queries, &failed, &mut routers);
        let mut i = 0usize;
        c.bench_function(BenchmarkId::new("shr_one_sided", n), |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                let (q, live) = (&queries[i], Failed { g: &g, failed: &failed[i] });
                d.route_into(&g, black_box(&[q.start]), black_box(q.goal), &live, &mut OneSided, &mut plan);
                black_box(plan.cost)
            })
        });
        c.finish();
    }
}

criterion_group!(benches, bench_layered, bench_pairs, bench_joins);
criterion_main!(benches);
