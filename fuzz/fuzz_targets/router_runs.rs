//! Arbitrary interleavings of many runs on one router: the runs share one live health (breakers,
//! probes, bulkheads, rate limits, retry budgets), and the host interleaves their steps, reports
//! out of order, abandons, drops and loses runs and moves the clock. The router must never panic;
//! the calls in flight its health counts are the leases it holds, never more than the calls the
//! runs hold (a lease runs out; a dropped run gives its back); no bulkhead is ever exceeded; a
//! pause is always into the future; every finished run keeps the observability guarantee.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use shr_core::event::EventKind;
use shr_core::graph::{EdgeSpec, GraphSpec, NodeSpec, RateLimitSpec, RetryPolicy};
use shr_core::{check_observability, Action, Decision, Router, Run, Task, ToolGraph, ToolResult};

#[derive(Arbitrary, Debug)]
struct Tool {
    cost: u8,
    max_concurrent: Option<u8>,
    rate_limit: Option<(u8, u16)>,
    retries: u8,
    side_effect: bool,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Start,
    Next(u8),
    /// Run, which of its calls in flight, and how it went (0 ok, 1 transient, 2 outage, 3 bad
    /// data, 4 unknown: timed out).
    Report(u8, u8, u8),
    Resolve(u8, bool),
    Abandon(u8),
    /// The host drops the run (its places given back) or loses it (nothing given back).
    Drop(u8, bool),
    Advance(u16),
}

#[derive(Arbitrary, Debug)]
struct Input {
    tools: Vec<Tool>,
    /// Layers: tool `i` sits in layer `layer_of[i] % 3`; every tool of a layer leads to every tool
    /// of the next.
    layer_of: Vec<u8>,
    ops: Vec<Op>,
}

fn graph(input: &Input) -> Option<ToolGraph> {
    let tools = &input.tools[..input.tools.len().min(8)];
    if tools.is_empty() {
        return None;
    }
    let layer = |i: usize| input.layer_of.get(i).map_or(0, |l| l % 3);
    let mut nodes = vec![NodeSpec { tool: false, ..NodeSpec::new("start") }];
    for (i, t) in tools.iter().enumerate() {
        let mut n = NodeSpec::new(format!("t{i}"));
        n.base_cost = 1.0 + f64::from(t.cost % 4);
        n.max_concurrent = t.max_concurrent.map(|m| 1 + u32::from(m % 4));
        n.rate_limit = t
            .rate_limit
            .map(|(c, p)| RateLimitSpec { calls: 1 + u32::from(c % 3), per_ms: 1 + u64::from(p) });
        n.retry = Some(RetryPolicy {
            attempts: u32::from(t.retries % 3),
            backoff_ms: 10,
            ..RetryPolicy::default()
        });
        n.side_effect = t.side_effect;
        nodes.push(n);
    }
    nodes.push(NodeSpec { tool: false, ..NodeSpec::new("done") });
    let mut edges = Vec::new();
    let edge = |from: String, to: String| EdgeSpec { from, to, cost: 1.0, guard: None, reason: None };
    for i in 0..tools.len() {
        if layer(i) == 0 {
            edges.push(edge("start".into(), format!("t{i}")));
        }
        if layer(i) == 2 || (0..tools.len()).all(|j| layer(j) != layer(i) + 1) {
            edges.push(edge(format!("t{i}"), "done".into()));
        }
        for j in 0..tools.len() {
            if layer(j) == layer(i) + 1 {
                edges.push(edge(format!("t{i}"), format!("t{j}")));
            }
        }
    }
    let spec = GraphSpec {
        nodes,
        edges,
        start: Some("start".into()),
        goal: Some("done".into()),
        ..GraphSpec::default()
    };
    ToolGraph::from_spec(spec).ok()
}

fuzz_target!(|input: Input| {
    let Some(graph) = graph(&input) else { return };
    let mut router = Router::new(graph);
    let mut runs: Vec<Run> = Vec::new();
    // Runs whose host vanished: nobody drives them again, their calls still count until their
    // leases run out.
    let mut lost: Vec<Run> = Vec::new();
    let mut now = 0u64;
    let pick = |n: u8, len: usize| (len > 0).then(|| n as usize % len);
    for op in input.ops.iter().take(400) {
        match *op {
            Op::Start if runs.len() < 16 => runs.push(router.start(Task::default(), now).unwrap()),
            Op::Start => {}
            Op::Next(r) => {
                let Some(r) = pick(r, runs.len()) else { continue };
                match router.next(&mut runs[r], now).unwrap() {
                    Action::Pause { until } => assert!(until > now, "a pause into the past"),
                    Action::Wait => {
                        assert!(runs[r].in_flight().next().is_some(), "a wait with nothing in flight")
                    }
                    _ => {}
                }
            }
            Op::Report(r, c, how) => {
                let Some(r) = pick(r, runs.len()) else { continue };
                let flying: Vec<usize> = runs[r].in_flight().collect();
                let Some(c) = pick(c, flying.len()) else { continue };
                let tool = router.graph().id(flying[c]).to_string();
                let result = match how % 5 {
                    0 => ToolResult::ok(json!({}), 5.0),
                    1 => ToolResult::transient("timeout"),
                    2 => ToolResult::outage("down"),
                    3 => ToolResult::ok(json!(null), 5.0),
                    _ => ToolResult::unknown("timed out"),
                };
                router.report(&mut runs[r], &tool, result, now).unwrap();
            }
            Op::Resolve(r, go_on) => {
                let Some(r) = pick(r, runs.len()) else { continue };
                let d = if go_on { Decision::Approve } else { Decision::Abort { message: "fuzz".into() } };
                let asked = runs[r].escalation().is_some();
                assert_eq!(router.resolve_escalation(&mut runs[r], d, now).is_ok(), asked);
            }
            Op::Abandon(r) => {
                let Some(r) = pick(r, runs.len()) else { continue };
                router.abandon(&mut runs[r], "fuzz: deadline", now).unwrap();
            }
            Op::Drop(r, give_back) => {
                let Some(r) = pick(r, runs.len()) else { continue };
                let mut run = runs.remove(r);
                if give_back {
                    router.release_run(&mut run);
                } else {
                    lost.push(run);
                }
            }
            Op::Advance(dt) => now += u64::from(dt),
        }
        router.advance(now);
        // The health counts its leases, never more than the calls the runs hold (a lease runs
        // out, a lost run's too), and no bulkhead is exceeded.
        let g = router.graph();
        let mut total = 0;
        for v in 0..g.node_count() {
            let held = runs.iter().chain(&lost).filter(|r| r.in_flight().any(|f| f == v)).count() as u32;
            let counted = router.health().tool(v).map_or(0, |t| t.in_flight());
            total += counted as usize;
            assert!(counted <= held, "{} counts {counted} calls in flight, runs hold {held}", g.id(v));
            if let Some(max) = g.node(v).max_concurrent() {
                assert!(counted <= max, "{} has {counted} calls in flight, max {max}", g.id(v));
            }
        }
        assert_eq!(total, router.health().leases_held());
    }
    // Past the longest lease nothing is held, whatever the hosts did.
    router.advance(now + 20_000);
    assert_eq!(router.health().leases_held(), 0);
    for run in &runs {
        if run.is_finished() {
            check_observability(run.events()).unwrap();
            assert!(matches!(run.events().last().map(|e| &e.kind), Some(EventKind::Finished { .. })));
        }
    }
});
