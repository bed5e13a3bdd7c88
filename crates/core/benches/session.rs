//! One run of a session on the customer-support scenario, natively: the core's own share of a
//! `Router.run` from JS (issue 48, target 3; `scripts/bench --driver` times the JS side). One
//! router, runs one after another; every tool succeeds at once (output `{"ok": true}`, no
//! latency), as in bench/driver.mjs. The host loop is the JS driver's: ask, start the calls,
//! report each, take the run's events after every step, and keep them with the outcome.
//!
//! Prints the CPU time per run (thread CPU time, the median of rounds), without and with the
//! events and outcome written as JSON (what the wasm driver hands to JS):
//!
//! ```text
//! cargo bench -p shr-core --bench session [-- --runs N] [-- --profile N]
//! ```
//!
//! `--profile N` runs N runs and nothing else, for `perf record` or `valgrind --tool=callgrind`;
//! `--events` prints one run's events.

use std::hint::black_box;

use shr_core::{Action, Event, Outcome, Router, Task, ToolGraph, ToolResult};

const SCENARIO: &str = include_str!("../../eval/scenarios/customer_support.json");
const ROUNDS: usize = 7;

/// CPU time of this thread, in nanoseconds (as the `floor` bench reads it).
fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn graph() -> ToolGraph {
    let scenario: serde_json::Value = serde_json::from_str(SCENARIO).expect("scenario JSON");
    ToolGraph::from_json(&scenario["graph"].to_string()).expect("scenario graph")
}

/// One run, driven as bench/driver.mjs drives `Router.run`; returns its events and outcome.
fn one_run(router: &mut Router, events: &mut Vec<Event>) -> Outcome {
    events.clear();
    let now = 0;
    let mut run = router.start(Task::default(), now).expect("start");
    let mut in_flight = Vec::new();
    let outcome = loop {
        let action = router.next(&mut run, now).expect("next");
        events.extend(run.drain_events());
        match action {
            Action::Finished { outcome } => break outcome,
            Action::CallTools { calls } => in_flight.extend(calls),
            Action::Wait => {
                let call = in_flight.remove(0);
                let result = ToolResult::ok(serde_json::json!({ "ok": true }), 0.0);
                router.report(&mut run, &call.tool, result, now).expect("report");
                events.extend(run.drain_events());
            }
            Action::Pause { .. } | Action::Escalate { .. } => panic!("unexpected {action:?}"),
        }
    };
    router.release_run(&mut run);
    outcome
}

fn time_rounds(router: &mut Router, runs: usize, json: bool) -> f64 {
    let mut events = Vec::new();
    let mut per_run = Vec::new();
    for _ in 0..ROUNDS {
        let t0 = thread_cpu_ns();
        for _ in 0..runs {
            let outcome = one_run(router, &mut events);
            if json {
                black_box(serde_json::to_string(&outcome).expect("outcome JSON"));
                black_box(serde_json::to_string(&events).expect("events JSON"));
            }
            black_box(&outcome);
        }
        per_run.push((thread_cpu_ns() - t0) as f64 / runs as f64 / 1e3);
    }
    per_run.sort_by(f64::total_cmp);
    per_run[ROUNDS / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse().ok());
    let mut router = Router::new(graph());
    let mut events = Vec::new();
    let first = one_run(&mut router, &mut events);
    assert_eq!(first.status, shr_core::Status::Completed, "{first:?}");
    if args.iter().any(|a| a == "--events") {
        for e in &events {
            println!("{}", serde_json::to_string(e).expect("event JSON"));
        }
        return;
    }
    if let Some(n) = arg("--profile") {
        for _ in 0..n {
            black_box(one_run(&mut router, &mut events));
        }
        return;
    }
    let runs = arg("--runs").unwrap_or(20_000);
    let _ = time_rounds(&mut router, runs / 10, true); // warm-up
    let bare = time_rounds(&mut router, runs, false);
    let json = time_rounds(&mut router, runs, true);
    println!("session run, scn_customer_support: {bare:.2} us a run; {json:.2} us with events and outcome as JSON ({} events)", events.len());
}
