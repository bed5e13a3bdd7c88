//! Reroute latency after K = 0, 1, 2, 3, 5, 10 simultaneous failures, on the random graphs of
//! `bench/graphs` (`rand_1000`, `rand_100000`): K tools of the current best path are marked
//! failed (infinite weight on every edge into them), then the path is recomputed once.
//!
//! The target compares K with K (flat in K: max/min within 1.5x), so every K is measured under
//! the same conditions: the K values take turns, one batch each per round, over many rounds, and
//! each K's figure is the median of its batches. Measuring one K after another (as criterion
//! does) lets a slow minute of a shared machine land on one K alone. A batch covers all
//! [`PLACEMENTS`] placements of the K failures, because the two-sided search's cost depends on
//! where they sit; each placement is repeated in a row, so every K is timed on a warm cache (see
//! [`time_batch`]). Each timed call marks its K tools failed, recomputes, and clears them: one
//! failure table, as a router has one health book.
//!
//! Also counts the nodes each reroute settles (`Dijkstra::settled_count`), its work, which no
//! timing noise touches. Writes JSON to the file named by the first argument:
//!
//! ```text
//! cargo bench -p shr-core --bench reroute -- OUT.json [--time S]
//! ```
//!
//! `--time S` (default 3) is the measuring time per K and search, as criterion's
//! `--measurement-time`.

mod common;

use std::hint::black_box;
use std::time::Instant;

use common::{load_graphs, OneSided};
use shr_core::algo::{Dijkstra, Plan};
use shr_core::{NodeIx, ToolGraph};

const REROUTE_K: [usize; 6] = [0, 1, 2, 3, 5, 10];
const REROUTE_GRAPHS: [&str; 2] = ["rand_1000", "rand_100000"];
/// Failure sets per K, the spread of K failures shifted along the path.
const PLACEMENTS: usize = 8;
/// Rounds (samples per K): at least this many, more when batches are short...
const MIN_ROUNDS: usize = 10;
/// ...but no more than this many.
const MAX_ROUNDS: usize = 40;

/// Edge weight = cost, infinite into a failed tool.
fn around<'a>(g: &'a ToolGraph, failed: &'a [bool]) -> impl Fn(usize) -> f64 + 'a {
    move |e| if failed[g.edge(e).to] { f64::INFINITY } else { g.edge(e).cost }
}

/// The failed tools for K: tools of the current best path, spread along it from a start that
/// `placement` (of [`PLACEMENTS`]) shifts. A tool whose failure would cut the goal off is passed
/// over (that is an escalation, not a reroute); when the path has too few tools, route again
/// and take more from the new best path.
fn failure_set(g: &ToolGraph, k: usize, placement: usize) -> Vec<NodeIx> {
    let mut failed = vec![false; g.node_count()];
    let mut set = Vec::new();
    let mut d = Dijkstra::new();
    let mut plan = Plan::default();
    let mut reachable = |failed: &[bool], plan: &mut Plan| {
        d.route_into(g, &[g.start()], g.goal(), &around(g, failed), &mut (), plan)
    };
    while set.len() < k {
        if !reachable(&failed, &mut plan) {
            break;
        }
        // Plan nodes are in path order; the tools are the nodes between start and goal.
        let tools: Vec<NodeIx> = plan.nodes[1..plan.nodes.len() - 1].to_vec();
        let take = (k - set.len()).min(tools.len());
        let shift = placement * tools.len() / (PLACEMENTS * take.max(1));
        let spread = (0..take).map(|i| tools[(i * tools.len() / take + shift) % tools.len()]);
        let mut progressed = false;
        for t in spread.chain(tools.iter().copied()) {
            if set.len() == k {
                break;
            }
            if failed[t] {
                continue;
            }
            failed[t] = true;
            let mut probe = Plan::default();
            if reachable(&failed, &mut probe) {
                set.push(t);
                progressed = true;
            } else {
                failed[t] = false;
            }
        }
        if !progressed {
            break;
        }
    }
    set
}

/// Marks `set` failed in `failed`, recomputes once from the start (the search as routed, or
/// forced one-sided), and clears the marks.
fn reroute(
    d: &mut Dijkstra,
    g: &ToolGraph,
    failed: &mut [bool],
    set: &[NodeIx],
    one_sided: bool,
    plan: &mut Plan,
) -> bool {
    set.iter().for_each(|&t| failed[t] = true);
    let found = {
        let weights = around(g, failed);
        if one_sided {
            d.route_into(g, &[g.start()], black_box(g.goal()), &weights, &mut OneSided, plan)
        } else {
            d.route_into(g, &[g.start()], black_box(g.goal()), &weights, &mut (), plan)
        }
    };
    set.iter().for_each(|&t| failed[t] = false);
    found
}

/// Nanoseconds per reroute: each placement of `sets` rerouted `repeats` times in a row, the mean
/// over placements. In a row, not in turns: K = 1's eight distinct failure sets in turns touch
/// eight regions of the graph and miss the cache more than K = 0's one set repeated (measured:
/// the one-sided search, which settles the same nodes at every K, ran 1.5x slower at K = 1 on
/// `rand_1000`), and that is the bench's footprint, not the reroute's.
fn time_batch(
    d: &mut Dijkstra,
    g: &ToolGraph,
    failed: &mut [bool],
    sets: &[Vec<NodeIx>],
    one_sided: bool,
    plan: &mut Plan,
    repeats: usize,
) -> f64 {
    let t0 = Instant::now();
    for set in sets {
        for _ in 0..repeats {
            reroute(d, g, failed, set, one_sided, plan);
            black_box(plan.cost);
        }
    }
    t0.elapsed().as_nanos() as f64 / (repeats * sets.len()) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args.iter().find(|a| !a.starts_with('-')).cloned().unwrap_or_else(|| {
        eprintln!("usage: cargo bench -p shr-core --bench reroute -- OUT.json [--time S]");
        std::process::exit(2)
    });
    let time_s: f64 = args
        .iter()
        .position(|a| a == "--time")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse().expect("--time takes seconds"))
        .unwrap_or(3.0);
    let mut rows = Vec::new();
    for (name, g, _) in load_graphs().iter().filter(|(n, _, _)| REROUTE_GRAPHS.contains(&n.as_str())) {
        let mut d = Dijkstra::new();
        let mut plan = Plan::default();
        let mut failed = vec![false; g.node_count()];
        // sets[i][p]: the failed tools of REROUTE_K[i] at placement p.
        let sets: Vec<Vec<Vec<NodeIx>>> =
            REROUTE_K.iter().map(|&k| (0..PLACEMENTS).map(|p| failure_set(g, k, p)).collect()).collect();
        // Checks every failure set, and counts the nodes each reroute settles (its work):
        // settled[search][i][p], search 0 as routed, 1 one-sided.
        let mut settled = [vec![Vec::new(); REROUTE_K.len()], vec![Vec::new(); REROUTE_K.len()]];
        for (i, (&k, placements)) in REROUTE_K.iter().zip(&sets).enumerate() {
            for set in placements {
                assert_eq!(set.len(), k, "{name}: could not fail {k} tools");
                assert!(
                    reroute(&mut d, g, &mut failed, set, false, &mut plan),
                    "{name}: K={k} cuts the goal off"
                );
                assert!(plan.nodes.iter().all(|v| !set.contains(v)), "{name}: K={k} plan uses a failed tool");
                settled[0][i].push(d.settled_count());
                let cost = plan.cost;
                assert!(reroute(&mut d, g, &mut failed, set, true, &mut plan));
                assert_eq!(plan.cost, cost, "{name}: K={k}: the two searches disagree");
                settled[1][i].push(d.settled_count());
            }
        }
        for (search, one_sided, settled) in
            [("shr", false, &settled[0]), ("shr_one_sided", true, &settled[1])]
        {
            // Warm up with one cycle per K, then size each K's batch from a second cycle.
            let cycle_ns: Vec<f64> = sets
                .iter()
                .map(|s| {
                    time_batch(&mut d, g, &mut failed, s, one_sided, &mut plan, 1);
                    time_batch(&mut d, g, &mut failed, s, one_sided, &mut plan, 1) * PLACEMENTS as f64
                })
                .collect();
            let budget_ns = time_s * 1e9 * REROUTE_K.len() as f64;
            let batch_ns = budget_ns / (REROUTE_K.len() * MAX_ROUNDS) as f64;
            let repeats: Vec<usize> =
                cycle_ns.iter().map(|&c| ((batch_ns / c).round() as usize).max(1)).collect();
            let round_ns: f64 = cycle_ns.iter().zip(&repeats).map(|(&c, &n)| c * n as f64).sum();
            let rounds = ((budget_ns / round_ns) as usize).clamp(MIN_ROUNDS, MAX_ROUNDS);
            let mut samples = vec![Vec::with_capacity(rounds); REROUTE_K.len()];
            for round in 0..rounds {
                // Each round starts at another K, so that no K always follows the same one.
                for j in 0..REROUTE_K.len() {
                    let i = (round + j) % REROUTE_K.len();
                    let ns = time_batch(&mut d, g, &mut failed, &sets[i], one_sided, &mut plan, repeats[i]);
                    samples[i].push(ns);
                }
            }
            for (i, (&k, ns)) in REROUTE_K.iter().zip(&mut samples).enumerate() {
                ns.sort_by(f64::total_cmp);
                let median = ns[ns.len() / 2];
                eprintln!("reroute {name} {search} K={k}: {:.1} µs ({rounds} rounds)", median / 1e3);
                rows.push(serde_json::json!({
                    "graph": name, "search": search, "k": k,
                    "median_ns": median, "min_ns": ns[0], "max_ns": ns[ns.len() - 1],
                    "rounds": rounds, "calls_per_sample": repeats[i] * PLACEMENTS,
                    "settled": settled[i],
                }));
            }
        }
    }
    let text = serde_json::to_string_pretty(&rows).expect("rows are JSON");
    std::fs::write(&out, text).unwrap_or_else(|e| panic!("{out}: {e}"));
}
