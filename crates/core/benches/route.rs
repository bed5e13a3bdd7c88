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
//!   `ToolGraph::to_petgraph()`, the same query (it returns the path too);
//! - `reroute_<graph>/shr/<K>`: K = 0, 1, 2, 3, 5, 10 tools of the current best path marked failed
//!   (infinite weight on every edge into them), then one timed recomputation, over [`PLACEMENTS`]
//!   placements of the K failures taken in turn; `reroute_<graph>/shr_one_sided/<K>` the same on
//!   the one-directional search.
//!
//! Graph loading is never timed. Costs are checked against each other before timing.
//! Set `SHR_BENCH_GRAPHS` to read the graphs from another folder, and `SHR_BENCH_WORK` to a file
//! to get the nodes each reroute settles (per graph, search, K and placement) as JSON: the
//! reroute's work, which no timing noise touches.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use petgraph::algo::astar;
use petgraph::graph::NodeIndex;
use serde_json::Value;
use shr_core::algo::{Dijkstra, Observer, Plan};
use shr_core::health::{BreakerConfig, WeightMemo};
use shr_core::{HealthBook, NodeIx, ToolGraph};

const REROUTE_K: [usize; 6] = [0, 1, 2, 3, 5, 10];
const REROUTE_GRAPHS: [&str; 2] = ["rand_1000", "rand_100000"];
/// Failure sets per K: a two-sided search's cost depends on where the failures sit (near an end
/// they prune a frontier), so each K is timed over several placements, one recomputation each.
const PLACEMENTS: usize = 8;

fn graphs_dir() -> PathBuf {
    std::env::var_os("SHR_BENCH_GRAPHS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/graphs")))
}

/// (name, graph, whether it has joins) for every graph of the index.
fn load_graphs() -> Vec<(String, ToolGraph, bool)> {
    let dir = graphs_dir();
    let index = std::fs::read_to_string(dir.join("index.json")).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write the graphs first: cargo bench -p shr-core --bench gen_graphs",
            dir.join("index.json").display()
        )
    });
    let index: Value = serde_json::from_str(&index).expect("index.json is JSON");
    index
        .as_array()
        .expect("index.json is an array")
        .iter()
        .map(|entry| {
            let name = entry["name"].as_str().expect("name").to_string();
            let text =
                std::fs::read_to_string(dir.join(entry["file"].as_str().expect("file"))).expect("read graph");
            let graph = ToolGraph::from_json(&text).expect("valid graph");
            let joins = entry["joins"].as_u64().unwrap_or(0) > 0;
            (name, graph, joins)
        })
        .collect()
}

/// Fewer samples for the large graph, so it fits short measurement times.
fn sample_size(g: &ToolGraph) -> usize {
    if g.node_count() >= 50_000 {
        20
    } else {
        100
    }
}

/// Watches nothing, but asks for the steps: the search stays one-directional.
struct OneSided;
impl Observer for OneSided {}

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

/// Edge weight = cost, infinite into a failed tool.
fn around<'a>(g: &'a ToolGraph, failed: &'a [bool]) -> impl Fn(usize) -> f64 + 'a {
    move |e| if failed[g.edge(e).to] { f64::INFINITY } else { g.edge(e).cost }
}

/// The failed set for K: tools of the current best path, spread along it from a start that
/// `placement` (of [`PLACEMENTS`]) shifts. A tool whose failure would cut the goal off is passed
/// over (that is an escalation, not a reroute); when the path has too few tools, route again
/// (untimed) and take more from the new best path.
fn failure_set(g: &ToolGraph, k: usize, placement: usize) -> Vec<bool> {
    let mut failed = vec![false; g.node_count()];
    let mut count = 0;
    let mut d = Dijkstra::new();
    let mut plan = Plan::default();
    let mut reachable = |failed: &[bool], plan: &mut Plan| {
        d.route_into(g, &[g.start()], g.goal(), &around(g, failed), &mut (), plan)
    };
    while count < k {
        if !reachable(&failed, &mut plan) {
            break;
        }
        // Plan nodes are in path order; the tools are the nodes between start and goal.
        let tools: Vec<NodeIx> = plan.nodes[1..plan.nodes.len() - 1].to_vec();
        let take = (k - count).min(tools.len());
        let shift = placement * tools.len() / (PLACEMENTS * take.max(1));
        let spread = (0..take).map(|i| tools[(i * tools.len() / take + shift) % tools.len()]);
        let mut progressed = false;
        for t in spread.chain(tools.iter().copied()) {
            if count == k {
                break;
            }
            if failed[t] {
                continue;
            }
            failed[t] = true;
            let mut probe = Plan::default();
            if reachable(&failed, &mut probe) {
                count += 1;
                progressed = true;
            } else {
                failed[t] = false;
            }
        }
        if !progressed {
            break;
        }
    }
    failed
}

/// One recomputation from the start, on the search as routed or forced one-sided.
fn reroute(
    d: &mut Dijkstra,
    g: &ToolGraph,
    goal: NodeIx,
    weights: &impl Fn(usize) -> f64,
    one_sided: bool,
    plan: &mut Plan,
) {
    if one_sided {
        d.route_into(g, &[g.start()], goal, weights, &mut OneSided, plan);
    } else {
        d.route_into(g, &[g.start()], goal, weights, &mut (), plan);
    }
}

fn bench_reroute(c: &mut Criterion) {
    let graphs = load_graphs();
    let mut work = Vec::new();
    for (name, g, _) in graphs.iter().filter(|(n, _, _)| REROUTE_GRAPHS.contains(&n.as_str())) {
        let mut group = c.benchmark_group(format!("reroute_{name}"));
        group.sample_size(sample_size(g));
        let mut d = Dijkstra::new();
        let mut plan = Plan::default();
        for k in REROUTE_K {
            let sets: Vec<Vec<bool>> = (0..PLACEMENTS).map(|p| failure_set(g, k, p)).collect();
            for failed in &sets {
                assert_eq!(failed.iter().filter(|&&f| f).count(), k, "{name}: could not fail {k} tools");
                assert!(
                    d.route_into(g, &[g.start()], g.goal(), &around(g, failed), &mut (), &mut plan),
                    "{name}: K={k} cuts the goal off"
                );
                assert!(plan.nodes.iter().all(|&v| !failed[v]), "{name}: K={k} plan uses a failed tool");
            }
            for (id, one_sided) in [("shr", false), ("shr_one_sided", true)] {
                let settled: Vec<usize> = sets
                    .iter()
                    .map(|failed| {
                        reroute(&mut d, g, g.goal(), &around(g, failed), one_sided, &mut plan);
                        d.settled_count()
                    })
                    .collect();
                work.push(serde_json::json!({"graph": name, "search": id, "k": k, "settled": settled}));
            }
            // One recomputation per iteration, the placements taken in turn.
            for (id, one_sided) in [("shr", false), ("shr_one_sided", true)] {
                let mut turn = 0;
                group.bench_with_input(BenchmarkId::new(id, k), g, |b, g| {
                    b.iter(|| {
                        let weights = around(g, &sets[turn % PLACEMENTS]);
                        turn += 1;
                        reroute(&mut d, g, black_box(g.goal()), &weights, one_sided, &mut plan);
                        black_box(plan.cost)
                    })
                });
            }
        }
        group.finish();
    }
    if let Some(path) = std::env::var_os("SHR_BENCH_WORK") {
        let text = serde_json::to_string_pretty(&work).expect("work is JSON");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", PathBuf::from(&path).display()));
    }
}

criterion_group!(benches, bench_route, bench_reroute);
criterion_main!(benches);
