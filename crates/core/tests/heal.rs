//! Heal back, never wedge, never act twice (issue 41), natively: a recovered tool gets its
//! traffic back from real runs (no probe configured), a lost host holds a tool for one lease at
//! most, every call carries an idempotency key, and a side effect whose call timed out is
//! verified or escalated before anything acts again. Each test prints its figure.

use proptest::prelude::*;
use shr_core::health::{AdmissionConfig, BreakerConfig};
use shr_core::{
    Action, Decision, EscalationReason, Monitors, Router, Run, SessionConfig, Status, Task, ToolGraph,
    ToolResult,
};

/// `start -> stripe -> done` (cost 1) and `start -> paypal -> done` (cost 3), with `extra` on
/// both tools (JSON members).
fn pay_graph(extra: &str) -> ToolGraph {
    ToolGraph::from_json(&format!(
        r#"{{"nodes":[{{"id":"start","tool":false}},{{"id":"stripe"{extra}}},{{"id":"paypal"{extra}}},
              {{"id":"done","tool":false}}],
            "edges":[{{"from":"start","to":"stripe","cost":1}},{{"from":"start","to":"paypal","cost":3}},
                     {{"from":"stripe","to":"done","cost":1}},{{"from":"paypal","to":"done","cost":1}}],
            "start":"start","goal":"done"}}"#
    ))
    .unwrap()
}

fn router(graph: ToolGraph, cooldown_ms: u64) -> Router {
    let config = SessionConfig {
        breaker: BreakerConfig { cooldown_ms, ..BreakerConfig::default() },
        ..SessionConfig::default()
    };
    Router::with_parts(graph, config, Monitors::default()).unwrap()
}

/// Drives one run to its end, every call answered by `tool(name, now)` 1 ms later; escalations
/// are aborted. Returns the tools called, in order, and the run.
fn run_one(r: &mut Router, now: u64, tool: &mut impl FnMut(&str, u64) -> ToolResult) -> (Vec<String>, Run) {
    let mut run = r.start(Task::default(), now).unwrap();
    let mut t = now;
    let mut called = Vec::new();
    for _ in 0..100 {
        match r.next(&mut run, t).unwrap() {
            Action::CallTools { calls } => {
                for c in calls {
                    called.push(c.tool.clone());
                    let result = tool(&c.tool, t + 1);
                    r.report(&mut run, &c.tool, result, t + 1).unwrap();
                }
                t += 1;
            }
            Action::Escalate { .. } => {
                r.resolve_escalation(&mut run, Decision::Abort { message: "test".into() }, t).unwrap();
            }
            Action::Finished { .. } => return (called, run),
            Action::Wait | Action::Pause { .. } => t += 1,
        }
    }
    panic!("the run did not finish: {called:?}");
}

/// The issue's case: stripe fails until `recovers`, then is healthy; a run every 5 ms for 11 s.
/// Returns the share of runs through paypal that started `settle` ms or more after recovery.
fn paypal_share_after(fail: impl Fn(u64) -> ToolResult, recovers: u64, settle: u64) -> f64 {
    let mut r = router(pay_graph(""), 200);
    let (mut late, mut on_paypal) = (0u32, 0u32);
    let mut tool = |name: &str, t: u64| {
        if name == "stripe" && t < recovers {
            fail(t)
        } else {
            ToolResult::ok(serde_json::json!({}), 1.0)
        }
    };
    for i in 0..2_200u64 {
        let at = i * 5;
        let (called, run) = run_one(&mut r, at, &mut tool);
        assert_eq!(run.outcome().unwrap().status, Status::Completed, "at {at}: {called:?}");
        if at >= recovers + settle {
            late += 1;
            on_paypal += u32::from(called.iter().any(|c| c == "paypal"));
        }
    }
    f64::from(on_paypal) / f64::from(late)
}

#[test]
fn a_recovered_tool_gets_its_traffic_back_without_a_probe() {
    // Cooldown 200 ms, runs 5 ms apart: "within cooldown + 2 runs' time" is 210 ms.
    let transient = paypal_share_after(|_| ToolResult::transient("503"), 500, 210);
    let thrown_once = paypal_share_after(
        |t| if t < 2 { ToolResult::transient("boom") } else { ToolResult::ok(serde_json::json!({}), 1.0) },
        500,
        210,
    );
    let permanent_once = paypal_share_after(
        |t| if t < 2 { ToolResult::outage("gone") } else { ToolResult::ok(serde_json::json!({}), 1.0) },
        2,
        210,
    );
    println!("share of runs on paypal after recovery + 210 ms: transient outage {transient}, one thrown error {thrown_once}, one permanent failure {permanent_once}");
    for share in [transient, thrown_once, permanent_once] {
        assert!(share <= 0.01, "{share}");
    }
}

#[test]
fn a_half_open_tool_takes_one_trial_at_a_time_at_its_healthy_weight() {
    let mut r = router(pay_graph(""), 200);
    let stripe = r.graph().index("stripe").unwrap();
    r.mark_down(stripe, 0);
    assert!(!r.health().weight(stripe, 199).is_finite());
    r.advance(200);
    assert_eq!(r.health().weight(stripe, 200), 1.0, "trial slot free: healthy weight");
    let mut a = r.start(Task::default(), 200).unwrap();
    let Ok(Action::CallTools { calls }) = r.next(&mut a, 200) else { panic!() };
    assert_eq!(calls[0].tool, "stripe", "the next run takes the trial");
    let mut b = r.start(Task::default(), 200).unwrap();
    let Ok(Action::CallTools { calls }) = r.next(&mut b, 200) else { panic!() };
    assert_eq!(calls[0].tool, "paypal", "one trial at a time: the others route around");
    r.report(&mut a, "stripe", ToolResult::ok(serde_json::json!({}), 3.0), 203).unwrap();
    assert_eq!(r.health().weight(stripe, 203), 1.0, "closed with nothing from before");
}

#[test]
fn a_host_that_never_reports_holds_a_tool_for_one_lease_at_most() {
    // One call at a time on stripe; a host takes a call and vanishes.
    let mut r = router(pay_graph(r#","max_concurrent":1,"timeout_ms":1000"#), 30_000);
    let stripe = r.graph().index("stripe").unwrap();
    let mut lost = r.start(Task::default(), 0).unwrap();
    let Ok(Action::CallTools { calls }) = r.next(&mut lost, 0) else { panic!() };
    assert_eq!((calls[0].tool.as_str(), calls[0].timeout_ms), ("stripe", 1000));
    let mut ok = |_: &str, _: u64| ToolResult::ok(serde_json::json!({}), 1.0);
    let (during, _) = run_one(&mut r, 10, &mut ok);
    assert_eq!(during, ["paypal"], "stripe is full while the lost call holds it");
    // Timeout 1,000 ms plus the default grace of 5,000 ms.
    let (still, _) = run_one(&mut r, 5_999, &mut ok);
    assert_eq!(still, ["paypal"]);
    let (after, _) = run_one(&mut r, 6_000, &mut ok);
    assert_eq!(after, ["stripe"], "the lease ran out");
    assert_eq!(r.health().tool(stripe).unwrap().in_flight(), 0);
    assert_eq!(r.health().tool(stripe).unwrap().leases_expired(), 1);
    assert!(r.metrics(6_001).contains("shr_tool_in_flight{tool=\"stripe\"} 0\n"));
    // The lost host comes back late: its report is refused, and nothing is given back twice.
    r.report(&mut lost, "stripe", ToolResult::ok(serde_json::json!({}), 1.0), 6_002).unwrap();
    assert_eq!(r.health().tool(stripe).unwrap().in_flight(), 0);
    assert_eq!(r.health().leases_held(), 0);
}

#[test]
fn a_dropped_run_gives_its_places_back_at_once() {
    let mut r = router(pay_graph(r#","max_concurrent":1"#), 30_000);
    let stripe = r.graph().index("stripe").unwrap();
    for _ in 0..3 {
        let mut run = r.start(Task::default(), 0).unwrap();
        let _ = r.next(&mut run, 0).unwrap();
        r.release_run(&mut run);
        assert!(r.report(&mut run, "stripe", ToolResult::ok(serde_json::json!({}), 1.0), 1).is_err());
    }
    assert_eq!(r.health().tool(stripe).unwrap().in_flight(), 0);
    let (called, _) = run_one(&mut r, 1, &mut |_, _| ToolResult::ok(serde_json::json!({}), 1.0));
    assert_eq!(called, ["stripe"]);
}

#[test]
fn a_call_keeps_its_key_across_retries_and_a_new_step_gets_a_new_one() {
    let g = pay_graph(r#","retry":{"attempts":1}"#);
    let mut r = router(g, 30_000);
    let mut run = r.start(Task { id: Some("order-7".into()), ..Task::default() }, 0).unwrap();
    let mut keys = Vec::new();
    let mut t = 0;
    loop {
        match r.next(&mut run, t).unwrap() {
            Action::CallTools { calls } => {
                for c in calls {
                    keys.push((c.tool.clone(), c.attempt, c.call_id.clone()));
                    let result = if c.tool == "stripe" {
                        ToolResult::transient("503")
                    } else {
                        ToolResult::ok(serde_json::json!({}), 1.0)
                    };
                    r.report(&mut run, &c.tool, result, t + 1).unwrap();
                }
            }
            Action::Finished { .. } => break,
            other => panic!("{other:?}"),
        }
        t += 1;
    }
    assert_eq!(
        keys,
        [
            ("stripe".into(), 1, "order-7:stripe:1".into()),
            ("stripe".into(), 2, "order-7:stripe:1".into()),
            ("paypal".into(), 1, "order-7:paypal:1".into()),
        ]
    );
    let called: Vec<_> = run
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            shr_core::event::EventKind::ToolCalled { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        called,
        ["order-7:stripe:1", "order-7:stripe:1", "order-7:paypal:1"],
        "the events carry the keys"
    );
    let other = r.start(Task::default(), t).unwrap();
    assert_ne!(other.key(), r.start(Task::default(), t).unwrap().key(), "each run its own key");
}

/// Refunds through two side-effect tools; stripe's call times out. `verify` on stripe when
/// given. Returns the tools called and the run's end.
fn refund(verify: Option<bool>, decide: Decision) -> (Vec<(String, String)>, Run) {
    let extra = r#","side_effect":true"#;
    let v = if verify.is_some() { r#","verify":"ledger""# } else { "" };
    let g = ToolGraph::from_json(&format!(
        r#"{{"nodes":[{{"id":"start","tool":false}},{{"id":"stripe"{extra}{v}}},{{"id":"paypal"{extra}}},
              {{"id":"ledger"}},{{"id":"done","tool":false}}],
            "edges":[{{"from":"start","to":"stripe","cost":1}},{{"from":"start","to":"paypal","cost":3}},
                     {{"from":"stripe","to":"done"}},{{"from":"paypal","to":"done"}}],
            "start":"start","goal":"done"}}"#
    ))
    .unwrap();
    let mut r = router(g, 30_000);
    let mut run = r.start(Task { id: Some("r1".into()), ..Task::default() }, 0).unwrap();
    let mut called = Vec::new();
    for t in 0..50 {
        match r.next(&mut run, t).unwrap() {
            Action::CallTools { calls } => {
                for c in calls {
                    called.push((c.tool.clone(), c.call_id.clone()));
                    let result = match c.tool.as_str() {
                        "stripe" => ToolResult::unknown("timed out after 50 ms"),
                        "ledger" => ToolResult::ok(serde_json::json!({ "done": verify.unwrap() }), 1.0),
                        _ => ToolResult::ok(serde_json::json!({}), 1.0),
                    };
                    r.report(&mut run, &c.tool, result, t + 1).unwrap();
                }
            }
            Action::Escalate { request } => {
                assert_eq!(request.reason, EscalationReason::OutcomeUnknown);
                assert_eq!(request.call_id.as_deref(), Some("r1:stripe:1"), "the escalation names the key");
                assert!(request.agent_action.as_deref().unwrap().contains("r1:stripe:1"));
                r.resolve_escalation(&mut run, decide.clone(), t).unwrap();
            }
            Action::Finished { .. } => return (called, run),
            Action::Wait | Action::Pause { .. } => {}
        }
    }
    panic!("did not finish: {called:?}");
}

#[test]
fn a_side_effect_whose_call_timed_out_never_acts_twice() {
    let abort = Decision::Abort { message: "a person checks stripe".into() };
    let tools = |c: &[(String, String)]| c.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(" ");
    // No verify: an escalation naming the key; aborting leaves one possible refund, no second.
    let (called, run) = refund(None, abort.clone());
    assert_eq!(tools(&called), "stripe");
    assert_eq!(run.outcome().unwrap().status, Status::Escalated);
    // A person checked: it did not act, approve: paypal refunds, once.
    let (called, run) = refund(None, Decision::Approve);
    assert_eq!(tools(&called), "stripe paypal");
    assert_eq!(run.outcome().unwrap().status, Status::Completed);
    // The ledger says it acted: done through stripe, paypal never called.
    let (called, run) = refund(Some(true), abort.clone());
    assert_eq!(tools(&called), "stripe ledger");
    assert_eq!(called[1].1, "r1:stripe:1", "verify carries the unknown call's key");
    assert_eq!(run.outcome().unwrap().path, ["start", "stripe", "done"]);
    // The ledger says it did not: paypal refunds, once.
    let (called, run) = refund(Some(false), abort);
    assert_eq!(tools(&called), "stripe ledger paypal");
    assert_eq!(run.outcome().unwrap().status, Status::Completed);
    println!("refunds: at most one in each of the four endings");
}

#[test]
fn timeouts_and_grace_are_checked() {
    let bad = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a","timeout_ms":0},{"id":"b","verify":"a"},{"id":"g","tool":false}],
            "edges":[{"from":"s","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"g"}],"start":"s","goal":"g"}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(bad.contains("timeout_ms must be 1..="), "{bad}");
    assert!(bad.contains("verify is for a node with side_effect: true"), "{bad}");
    let config = SessionConfig {
        admission: AdmissionConfig { call_timeout_ms: 0, ..AdmissionConfig::default() },
        ..SessionConfig::default()
    };
    assert_eq!(config.check().unwrap_err().field, "admission.call_timeout_ms");
}

#[derive(Clone, Debug)]
enum Op {
    Start,
    /// Ask run `i` what to do (and keep its calls in flight).
    Next(usize),
    /// Report run `i`'s first call in flight: ok, failed, or unknown.
    Report(usize, u8),
    Abandon(usize),
    /// The host drops run `i` (a freed session).
    Drop(usize),
    /// The host vanishes with run `i` (nothing given back).
    Lose(usize),
    Tick(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Start),
        4 => (0..8usize).prop_map(Op::Next),
        4 => (0..8usize, 0..3u8).prop_map(|(i, k)| Op::Report(i, k)),
        1 => (0..8usize).prop_map(Op::Abandon),
        1 => (0..8usize).prop_map(Op::Drop),
        1 => (0..8usize).prop_map(Op::Lose),
        2 => (1..3_000u64).prop_map(Op::Tick),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Random interleavings of runs, failures, recoveries, timeouts, abandons and lost hosts:
    /// no tool ever has more calls in flight than its bulkhead, every place comes back (at the
    /// latest when its lease runs out), and a tool healthy for longer than the cooldown is
    /// routed to again.
    #[test]
    fn leases_never_leak_and_healthy_tools_come_back(ops in proptest::collection::vec(op(), 1..120)) {
        let g = pay_graph(r#","max_concurrent":2,"timeout_ms":500"#);
        let config = SessionConfig {
            breaker: BreakerConfig { cooldown_ms: 300, ..BreakerConfig::default() },
            admission: AdmissionConfig { lease_grace_ms: 200, ..AdmissionConfig::default() },
            ..SessionConfig::default()
        };
        let mut r = Router::with_parts(g, config, Monitors::default()).unwrap();
        let tools: Vec<usize> = ["stripe", "paypal"].iter().map(|t| r.graph().index(t).unwrap()).collect();
        let mut runs: Vec<(Run, Vec<String>)> = Vec::new();
        let mut now = 0u64;
        for op in ops {
            match op {
                Op::Start => runs.push((r.start(Task::default(), now).unwrap(), Vec::new())),
                Op::Next(i) if i < runs.len() => {
                    let (run, out) = &mut runs[i];
                    if let Ok(Action::CallTools { calls }) = r.next(run, now) {
                        out.extend(calls.into_iter().map(|c| c.tool));
                    }
                }
                Op::Report(i, kind) if i < runs.len() && !runs[i].1.is_empty() => {
                    let (run, out) = &mut runs[i];
                    let tool = out.remove(0);
                    let result = match kind {
                        0 => ToolResult::ok(serde_json::json!({}), 5.0),
                        1 => ToolResult::transient("503"),
                        _ => ToolResult::unknown("timed out"),
                    };
                    let _ = r.report(run, &tool, result, now);
                }
                Op::Abandon(i) if i < runs.len() => {
                    let _ = r.abandon(&mut runs[i].0, "deadline", now);
                    runs[i].1.clear();
                }
                Op::Drop(i) if i < runs.len() => {
                    let (mut run, _) = runs.remove(i);
                    r.release_run(&mut run);
                }
                Op::Lose(i) if i < runs.len() => {
                    runs.remove(i);
                }
                Op::Tick(ms) => now += ms,
                _ => {}
            }
            r.advance(now);
            for &v in &tools {
                let t = r.health().tool(v).unwrap();
                prop_assert!(t.in_flight() <= 2, "{} calls in flight past the bulkhead of 2", t.in_flight());
            }
            let in_flight: u32 = tools.iter().map(|&v| r.health().tool(v).unwrap().in_flight()).sum();
            prop_assert_eq!(in_flight as usize, r.health().leases_held());
        }
        // Every host gone: past the longest lease (500 + 200 ms) nothing is held.
        for (mut run, _) in runs.drain(..) {
            if run.outcome().is_none() && run.in_flight().count() > 0 {
                // Half the hosts vanish, half drop their runs.
                if run.key().ends_with(['0', '2', '4', '6', '8']) {
                    r.release_run(&mut run);
                }
            }
        }
        now += 701;
        r.advance(now);
        prop_assert_eq!(r.health().leases_held(), 0);
        for &v in &tools {
            prop_assert_eq!(r.health().tool(v).unwrap().in_flight(), 0);
        }
        // Both healthy from now on: within the cooldown and two runs, stripe serves again.
        now += 301;
        let mut ok = |_: &str, _: u64| ToolResult::ok(serde_json::json!({}), 5.0);
        let (_, _) = run_one(&mut r, now, &mut ok);
        let (second, _) = run_one(&mut r, now + 10, &mut ok);
        prop_assert_eq!(second, vec!["stripe".to_string()]);
    }
}
