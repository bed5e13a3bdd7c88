//! The payment graphs the concurrency tests share, and many runs started and finished on one
//! router with their calls interleaved.

use shr_core::event::EventKind;
use shr_core::{Action, Router, Run, Task, ToolGraph, ToolResult};

/// `s -> pay -> done` (cost 1) and `s -> backup -> done` (cost 2), with `extra` on `pay`.
pub fn pay_graph(extra: &str) -> ToolGraph {
    ToolGraph::from_json(&format!(
        r#"{{"nodes":[{{"id":"s","tool":false}},{{"id":"pay"{extra}}},{{"id":"backup"}},{{"id":"done","tool":false}}],
            "edges":[{{"from":"s","to":"pay","cost":1}},{{"from":"s","to":"backup","cost":2}},
                     {{"from":"pay","to":"done"}},{{"from":"backup","to":"done"}}],
            "start":"s","goal":"done"}}"#
    ))
    .unwrap()
}

/// `s -> pay -> done` only.
pub fn only_pay(extra: &str) -> ToolGraph {
    ToolGraph::from_json(&format!(
        r#"{{"nodes":[{{"id":"s","tool":false}},{{"id":"pay"{extra}}},{{"id":"done","tool":false}}],
            "edges":[{{"from":"s","to":"pay"}},{{"from":"pay","to":"done"}}],"start":"s","goal":"done"}}"#
    ))
    .unwrap()
}

/// Starts `n` runs and asks each once, before any call is reported (the worst interleaving:
/// every run decides before any outcome is known). Returns the runs and their first calls.
pub fn start_all(router: &mut Router, n: usize, now: u64) -> (Vec<Run>, Vec<Vec<String>>) {
    let mut runs = Vec::new();
    let mut calls = Vec::new();
    for _ in 0..n {
        let mut run = router.start(Task::default(), now).unwrap();
        let called = match router.next(&mut run, now).unwrap() {
            Action::CallTools { calls } => calls.into_iter().map(|c| c.tool).collect(),
            Action::Pause { .. } => Vec::new(),
            other => panic!("{other:?}"),
        };
        runs.push(run);
        calls.push(called);
    }
    (runs, calls)
}

/// Reports every call in flight with `outcome(tool)` and drives every run to its end.
pub fn finish_all(
    router: &mut Router,
    runs: &mut [Run],
    mut now: u64,
    outcome: impl Fn(&str) -> ToolResult,
) -> u64 {
    for _ in 0..10_000 {
        let mut busy = false;
        // Every run acts at the same clock in a sweep; time moves between sweeps.
        let mut next_at = now + 1;
        for run in runs.iter_mut() {
            if run.is_finished() {
                continue;
            }
            busy = true;
            let flying: Vec<String> = run.in_flight().map(|v| router.graph().id(v).to_string()).collect();
            for tool in flying {
                let result = outcome(&tool);
                router.report(run, &tool, result, now).unwrap();
            }
            match router.next(run, now).unwrap() {
                Action::Escalate { .. } => router
                    .resolve_escalation(run, shr_core::Decision::Abort { message: "stop".into() }, now)
                    .unwrap(),
                Action::Pause { until } => next_at = next_at.max(until),
                _ => {}
            }
        }
        if !busy {
            return now;
        }
        now = next_at;
    }
    panic!("runs did not finish");
}

pub fn calls_to(runs: &[Run], tool: &str) -> usize {
    runs.iter()
        .flat_map(|r| r.events())
        .filter(|e| matches!(&e.kind, EventKind::ToolCalled { tool: t, .. } if t == tool))
        .count()
}
