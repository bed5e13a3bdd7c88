//! Routing on layered tool graphs, the shape agents have: a source, layers of 2-8 alternative
//! tools where every tool of a layer leads to every tool of the next, a sink. 12, 50, 200 and
//! 1,000 nodes; each query runs with 0-3 failed tools drawn per query (weights infinite), from
//! the source to the sink.
//!
//! - `layered/shr/<n>`: `Dijkstra::route_into` as a router calls it (the topological sweep on
//!   these acyclic graphs when the window fits, else the two-sided search), with the failure set
//!   given as live weights give health: a factor per tool (infinite when failed);
//! - `layered/shr_router/<n>`: the whole `Router::route` a host calls, one router per failure set
//!   (its failed tools marked down), over the live weights it remembers between routes;
//! - `layered/shr_two_sided/<n>`: the two-sided search on the same queries;
//! - `layered/petgraph_dijkstra/<n>`: petgraph's `dijkstra` with the goal given (it stops there);
//! - `layered/petgraph_astar/<n>`: petgraph's `astar` with a zero heuristic.
//!
//! Costs are checked against each other before timing.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use petgraph::algo::{astar, dijkstra};
use petgraph::graph::NodeIndex;
use shr_core::algo::{entered_weight, Bidirectional, Dijkstra, EdgeWeight, Plan};
use shr_core::rng::SplitMix64;
use shr_core::{Router, ToolGraph};

/// A failure set in the form live weights have: a factor per tool, infinite when it failed.
struct Failed<'a> {
    g: &'a ToolGraph,
    failed: &'a [bool],
}

impl EdgeWeight for Failed<'_> {
    #[inline]
    fn weight(&self, e: usize) -> f64 {
        let edge = self.g.edge(e);
        entered_weight(edge.cost, self.entry_factor(edge.to).unwrap_or(f64::INFINITY))
    }
    #[inline]
    fn entry_factor(&self, v: usize) -> Option<f64> {
        Some(if self.failed[v] { f64::INFINITY } else { 1.0 })
    }
}

fn layered(target: usize, seed: u64) -> ToolGraph {
    let mut rng = SplitMix64::new(seed);
    let mut nodes = vec![serde_json::json!({"id": "source", "tool": false})];
    let mut edges = Vec::new();
    let mut prev = vec!["source".to_string()];
    let mut layer = 0;
    while nodes.len() + 1 < target {
        let width = (2 + rng.below(7) as usize).min(target - 1 - nodes.len());
        let ids: Vec<String> = (0..width).map(|k| format!("l{layer}t{k}")).collect();
        for (k, id) in ids.iter().enumerate() {
            nodes.push(serde_json::json!({"id": id}));
            for p in &prev {
                edges.push(serde_json::json!({"from": p, "to": id, "cost": 1 + k + rng.below(3) as usize}));
            }
        }
        prev = ids;
        layer += 1;
    }
    nodes.push(serde_json::json!({"id": "sink", "tool": false}));
    for p in &prev {
        edges.push(serde_json::json!({"from": p, "to": "sink", "cost": 1}));
    }
    let spec = serde_json::json!({"nodes": nodes, "edges": edges, "start": "source", "goal": "sink"});
    ToolGraph::from_json(&spec.to_string()).expect("layered graphs are valid")
}

/// 64 failure sets of 0-3 tools, drawn once per graph and cycled through by the queries.
fn failure_sets(g: &ToolGraph) -> Vec<Vec<bool>> {
    let mut rng = SplitMix64::new(7);
    (0..64)
        .map(|_| {
            let mut failed = vec![false; g.node_count()];
            for _ in 0..rng.below(4) {
                failed[1 + rng.below(g.node_count() as u64 - 2) as usize] = true;
            }
            failed
        })
        .collect()
}

fn bench_layered(c: &mut Criterion) {
    let mut group = c.benchmark_group("layered");
    for n in [12, 50, 200, 1000] {
        let g = layered(n, n as u64);
        let sets = failure_sets(&g);
        let (s, goal) = (g.start(), g.goal());
        let pg = g.to_petgraph();
        let mut d = Dijkstra::new();
        let mut two = Bidirectional::new();
        let mut plan = Plan::default();
        // One router per failure set, its failed tools marked down: what a host holds.
        let mut routers: Vec<Router> = sets
            .iter()
            .map(|failed| {
                let mut r = Router::new(g.clone());
                for v in (0..g.node_count()).filter(|&v| failed[v]) {
                    r.mark_down(v, 0);
                }
                r
            })
            .collect();
        for (failed, router) in sets.iter().zip(&mut routers) {
            let w = |e: usize| if failed[g.edge(e).to] { f64::INFINITY } else { g.edge(e).cost };
            let live = Failed { g: &g, failed };
            let found = d.route_into(&g, &[s], goal, &w, &mut (), &mut plan).then_some(plan.cost);
            let pulled = d.route_into(&g, &[s], goal, &live, &mut (), &mut plan).then_some(plan.cost);
            let routed = router.route(s, goal, 1).map(|p| p.cost);
            assert_eq!(found, pulled, "{n}: the sweep by edges and by tool factors disagree");
            assert_eq!(found, routed, "{n}: the router disagrees");
            let found2 = two.route_into(&g, &[s], goal, &w, &mut plan).then_some(plan.cost);
            let p = dijkstra(&pg, NodeIndex::new(s), Some(NodeIndex::new(goal)), |e| {
                if failed[petgraph::visit::EdgeRef::target(&e).index()] {
                    f64::INFINITY
                } else {
                    *e.weight()
                }
            });
            let pc = p.get(&NodeIndex::new(goal)).copied().filter(|c| c.is_finite());
            assert_eq!(found, found2, "{n}: the sweep and the two-sided search disagree");
            assert_eq!(found, pc, "{n}: shr and petgraph disagree");
        }
        let mut i = 0usize;
        group.bench_with_input(BenchmarkId::new("shr", n), &g, |b, g| {
            b.iter(|| {
                i = (i + 1) % sets.len();
                let live = Failed { g, failed: &sets[i] };
                d.route_into(g, black_box(&[s]), black_box(goal), &live, &mut (), &mut plan);
                black_box(plan.cost)
            })
        });
        group.bench_function(BenchmarkId::new("shr_router", n), |b| {
            b.iter(|| {
                i = (i + 1) % routers.len();
                black_box(routers[i].route(black_box(s), black_box(goal), 1).map(|p| p.cost))
            })
        });
        group.bench_with_input(BenchmarkId::new("shr_two_sided", n), &g, |b, g| {
            b.iter(|| {
                i = (i + 1) % sets.len();
                let failed = &sets[i];
                let w = |e: usize| if failed[g.edge(e).to] { f64::INFINITY } else { g.edge(e).cost };
                two.route_into(g, black_box(&[s]), black_box(goal), &w, &mut plan);
                black_box(plan.cost)
            })
        });
        group.bench_with_input(BenchmarkId::new("petgraph_dijkstra", n), &pg, |b, pg| {
            b.iter(|| {
                i = (i + 1) % sets.len();
                let failed = &sets[i];
                let m = dijkstra(pg, NodeIndex::new(black_box(s)), Some(NodeIndex::new(goal)), |e| {
                    if failed[petgraph::visit::EdgeRef::target(&e).index()] {
                        f64::INFINITY
                    } else {
                        *e.weight()
                    }
                });
                black_box(m.get(&NodeIndex::new(goal)).copied())
            })
        });
        group.bench_with_input(BenchmarkId::new("petgraph_astar", n), &pg, |b, pg| {
            b.iter(|| {
                i = (i + 1) % sets.len();
                let failed = &sets[i];
                astar(
                    pg,
                    NodeIndex::new(black_box(s)),
                    |v| v.index() == goal,
                    |e| {
                        if failed[petgraph::visit::EdgeRef::target(&e).index()] {
                            f64::INFINITY
                        } else {
                            *e.weight()
                        }
                    },
                    |_| 0.0,
                )
                .map(|(c, p)| (c, p.len()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_layered);
criterion_main!(benches);
