//! Instructions per route, the measure that does not move with the machine's load: a plain
//! program (no timing) that routes every query of a workload `rounds` times with one library,
//! for `scripts/bench --icount` to run under `valgrind --tool=cachegrind` at two round counts.
//! The difference of the two counts over the routes between them is the instructions one route
//! takes, building the graph and the first answers cancelled out.
//!
//! ```text
//! icount <workload> <nodes> <library> <rounds>
//!   workload: layered | pairs | joins (the workloads of `layered`, common/cases.rs)
//!   library:  shr | shr_router | shr_one_sided (joins) | petgraph_dijkstra (layered, pairs)
//! ```
//!
//! Every answer is checked against petgraph's (the sweep's against the one-sided search's on
//! joins) before counting, as the `layered` bench checks before timing. Instructions are not
//! time: a library with more cache misses or branch misses per instruction (petgraph's hash map
//! and heap) loses more time than instructions, so the timed tables remain the targets' measure.
//! This one shows that a change made no route slower.

use std::hint::black_box;
use std::process::ExitCode;

use shr_core::algo::{Dijkstra, Plan};
use shr_core::ToolGraph;

#[path = "common/cases.rs"]
mod cases;
#[path = "common/one_sided.rs"]
mod one_sided;
#[path = "common/workloads.rs"]
mod workloads;
use cases::*;
use one_sided::OneSided;

fn main() -> ExitCode {
    // `cargo bench` adds `--bench`; scripts/bench runs the program itself.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    if args.is_empty() {
        // A run with no arguments (`cargo bench` of the whole crate) has nothing to count.
        return ExitCode::SUCCESS;
    }
    let [workload_name, n, library, rounds] = args.as_slice() else {
        eprintln!("usage: icount <layered|pairs|joins> <nodes> <library> <rounds>");
        return ExitCode::FAILURE;
    };
    let (Ok(n), Ok(rounds)) = (n.parse::<usize>(), rounds.parse::<usize>()) else {
        eprintln!("nodes and rounds are numbers");
        return ExitCode::FAILURE;
    };
    let Some((graph, queries)) = workload(workload_name, n) else {
        eprintln!("unknown workload {workload_name}: layered, pairs or joins");
        return ExitCode::FAILURE;
    };
    let g = ToolGraph::from_json(&graph.to_string()).expect("the workload graphs are valid");
    let failed = failure_sets(&g, &queries);
    let joins = workload_name == "joins";
    let (mut d, mut plan, mut check) = (Dijkstra::new(), Plan::default(), Plan::default());
    let mut routers = routers(&g, &queries);
    let pg = g.to_petgraph();
    for ((q, f), router) in queries.iter().zip(&failed).zip(&mut routers) {
        let live = Failed { g: &g, failed: f };
        let shr = d.route_into(&g, &[q.start], q.goal, &live, &mut (), &mut plan).then_some(plan.cost);
        let want = if joins {
            d.route_into(&g, &[q.start], q.goal, &live, &mut OneSided, &mut check).then_some(check.cost)
        } else {
            assert_eq!(petgraph_cost(&pg, q, f), Some(q.cost), "{workload_name} {n}: petgraph");
            Some(q.cost)
        };
        assert_eq!(shr, want, "{workload_name} {n}: shr");
        assert_eq!(router.route(q.start, q.goal, 1).map(|p| p.cost), want, "{workload_name} {n}: the router");
    }

    let mut sum = 0.0;
    for _ in 0..rounds {
        for (i, q) in queries.iter().enumerate() {
            let found = match library.as_str() {
                "shr" => {
                    let live = Failed { g: &g, failed: &failed[i] };
                    d.route_into(&g, black_box(&[q.start]), black_box(q.goal), &live, &mut (), &mut plan)
                        .then_some(plan.cost)
                }
                "shr_router" => routers[i].route(black_box(q.start), black_box(q.goal), 1).map(|p| p.cost),
                "shr_one_sided" if joins => {
                    let live = Failed { g: &g, failed: &failed[i] };
                    d.route_into(
                        &g,
                        black_box(&[q.start]),
                        black_box(q.goal),
                        &live,
                        &mut OneSided,
                        &mut plan,
                    )
                    .then_some(plan.cost)
                }
                "petgraph_dijkstra" if !joins => petgraph_cost(&pg, black_box(q), &failed[i]),
                other => {
                    eprintln!("no library {other} for {workload_name}");
                    return ExitCode::FAILURE;
                }
            };
            sum += found.unwrap_or(0.0);
        }
    }
    println!("{}", black_box(sum));
    ExitCode::SUCCESS
}
