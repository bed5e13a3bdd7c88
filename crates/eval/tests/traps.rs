//! Known traps of earlier public implementations of the paper, one test each.

use serde_json::json;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::health::{BreakerConfig, HealthBook};
use shr_core::monitor::Monitors;
use shr_core::{
    Action, Call, Decision, EscalationReason, EscalationRequest, Performed, Router, Session, SessionConfig,
    Status, Task, ToolGraph, ToolResult,
};
use shr_eval::scenario::{self, Executor};

fn calls_of(events: &[shr_core::Event], tool: &str) -> usize {
    events.iter().filter(|e| matches!(&e.kind, EventKind::ToolCalled { tool: t, .. } if t == tool)).count()
}

#[test]
fn replanning_starts_from_the_last_completed_node() {
    // S5: email dies after the refund went through.
    let r = scenario::run(&scenario::get("S5").unwrap(), Executor::Shr);
    let reroute = r
        .events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Rerouted { to_plan, .. } => Some(to_plan.clone()),
            _ => None,
        })
        .expect("a reroute");
    // Not from the task start, not from the failed node: from stripe, the last completed node.
    assert_eq!(reroute.nodes, ["stripe", "sms", "refund_done"]);
    // Completed steps are never executed again (the refund is not paid twice).
    assert_eq!(calls_of(&r.events, "crm"), 1);
    assert_eq!(calls_of(&r.events, "stripe"), 1);
    assert_eq!(calls_of(&r.events, "razorpay"), 0);
}

#[test]
fn a_winning_risk_signal_escalates_before_acting() {
    let r = scenario::run(&scenario::get("S4").unwrap(), Executor::Shr);
    let won = r.events.iter().position(|e| {
        matches!(&e.kind, EventKind::SignalWon { signal } if matches!(signal.kind, shr_core::SignalKind::Risk { .. }))
    });
    let escalated = r
        .events
        .iter()
        .position(|e| matches!(&e.kind, EventKind::Escalated { reason: EscalationReason::Risk, .. }));
    assert!(won.is_some() && escalated > won, "risk won, then escalation");
    for payment in ["stripe", "razorpay"] {
        assert_eq!(calls_of(&r.events, payment), 0, "{payment} must not run for a $15k refund");
    }
    // The same task below the threshold pays normally.
    let mut small = scenario::get("S4").unwrap();
    small.task.context.insert("amount".into(), json!(500));
    let r = scenario::run(&small, Executor::Shr);
    assert_eq!(calls_of(&r.events, "stripe"), 1);
}

fn pay_graph() -> ToolGraph {
    ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"stripe","quota":100,"baseline_latency_ms":100},
            {"id":"razorpay"},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"stripe","cost":1},{"from":"start","to":"razorpay","cost":2},
                     {"from":"stripe","to":"done","cost":1},{"from":"razorpay","to":"done","cost":1}],
            "start":"start","goal":"done"}"#,
    )
    .unwrap()
}

fn first_call(graph: &ToolGraph, health: HealthBook, now: u64) -> String {
    let mut router =
        Router::with_health(graph.clone(), health, SessionConfig::default(), Monitors::default()).unwrap();
    let mut run = router.start(Task::default(), now).unwrap();
    match router.next(&mut run, now).unwrap() {
        Action::CallTools { calls } => calls[0].tool.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn routing_uses_the_composite_weight_latency_and_rate_limit() {
    let g = pay_graph();
    let stripe = g.index("stripe").unwrap();
    let healthy = HealthBook::new(&g, BreakerConfig::default());
    assert_eq!(first_call(&g, healthy.clone(), 0), "stripe");

    // Stripe averaging 3x its baseline latency over the breaker's minimum of 5 calls: 1 x 3 > 2,
    // so Razorpay is cheaper.
    let mut slow = healthy.clone();
    for _ in 0..5 {
        slow.on_success(stripe, 300.0, 0);
    }
    assert_eq!(first_call(&g, slow, 0), "razorpay");

    // Stripe at 96% of its quota: the rate-limit factor (2.5) outweighs the cost difference.
    let mut busy = healthy.clone();
    for t in 0..96 {
        busy.on_call(stripe, t);
    }
    assert!(busy.factors(stripe, 100).rate_limit > 2.0);
    assert_eq!(first_call(&g, busy, 100), "razorpay");

    // At 90% the factor is still 1: no change.
    let mut fine = healthy;
    for t in 0..90 {
        fine.on_call(stripe, t);
    }
    assert_eq!(first_call(&g, fine, 100), "stripe");
}

#[test]
fn a_tool_that_failed_in_this_task_is_not_retried_on_its_earlier_history() {
    let g = pay_graph();
    let mut s = Session::new(g, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!() };
    assert_eq!(calls[0].tool, "stripe");
    s.report("stripe", ToolResult::outage("down"), 10).unwrap();
    let Action::CallTools { calls } = s.next(10) else { panic!() };
    assert_eq!(calls[0].tool, "razorpay");
    // Long past Stripe's cooldown (its breaker is half-open, finite weight) Razorpay fails too.
    let later = 10 + 10 * BreakerConfig::default().cooldown_ms;
    s.report("razorpay", ToolResult::outage("down"), later).unwrap();
    match s.next(later) {
        Action::Escalate { request } => {
            assert_eq!(request.reason, EscalationReason::NoPath);
            assert_eq!(request.failed, ["stripe", "razorpay"]);
        }
        other => panic!("expected an escalation, got {other:?}"),
    }
    assert_eq!(calls_of(s.events(), "stripe"), 1);
}

#[test]
fn a_failing_first_tool_escalates_instead_of_looping() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"crm"},{"id":"pay"}],"edges":[{"from":"crm","to":"pay"}],"start":"crm","goal":"pay"}"#,
    )
    .unwrap();
    let mut s = Session::new(g, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!() };
    assert_eq!(calls[0].tool, "crm");
    s.report("crm", ToolResult::outage("down"), 5).unwrap();
    assert!(matches!(s.next(5), Action::Escalate { .. }));
    s.resolve_escalation(Decision::Approve, 6).unwrap();
    // Approving does not bring the failed tool back: still no path, a second (counted) escalation.
    assert!(matches!(s.next(6), Action::Escalate { .. }));
    assert_eq!(s.llm_calls(), 2);
    s.resolve_escalation(Decision::Abort { message: "nothing to do".into() }, 7).unwrap();
    let Action::Finished { outcome } = s.next(7) else { panic!() };
    assert_eq!(outcome.status, Status::Escalated);
    assert_eq!(calls_of(s.events(), "crm"), 1);
}

#[test]
fn the_reported_path_and_cost_cover_the_whole_run() {
    let r = scenario::run(&scenario::get("S5").unwrap(), Executor::Shr);
    let EventKind::Finished { path, cost, .. } = &r.events.last().unwrap().kind else { panic!() };
    assert_eq!(path, &["start", "crm", "stripe", "sms", "refund_done"]);
    // start->crm 1 + crm->stripe 1 + stripe->sms 2 + sms->done 1, not the last segment's 3.
    assert_eq!(*cost, 5.0);
}

#[test]
fn k_simultaneous_failures_cost_one_recomputation() {
    let r = scenario::run(&scenario::get("M4").unwrap(), Executor::Shr);
    let failed = r.events.iter().filter(|e| matches!(e.kind, EventKind::ToolFailed { .. })).count();
    let rerouted: Vec<_> = r.events.iter().filter(|e| matches!(e.kind, EventKind::Rerouted { .. })).collect();
    assert_eq!(failed, 3);
    assert_eq!(rerouted.len(), 1);
    let EventKind::Rerouted { around, .. } = &rerouted[0].kind else { unreachable!() };
    assert_eq!(around, &["image_clf", "text_clf", "history_clf"]);
}

#[test]
fn transient_failures_are_retried_within_the_budget_then_rerouted() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a","retry":{"attempts":2,"backoff_ms":50,"jitter":false}},{"id":"b"},{"id":"g","tool":false}],
            "edges":[{"from":"s","to":"a"},{"from":"s","to":"b","cost":3},{"from":"a","to":"g"},{"from":"b","to":"g"}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    let mut s = Session::new(g, Task::default(), 0).unwrap();
    let mut attempts = Vec::new();
    let a_fails = |c: &Call| {
        attempts.push((c.tool.clone(), c.attempt, c.not_before));
        let result =
            if c.tool == "a" { ToolResult::transient("503") } else { ToolResult::ok(json!({}), 5.0) };
        Performed { result, latency_ms: 10 }
    };
    s.drive(&mut FnHost::new(a_fails, |r: &EscalationRequest| panic!("escalated: {r:?}")), 0);
    let outcome = s.outcome().unwrap();
    assert_eq!(outcome.path, ["s", "b", "g"]);
    assert_eq!(outcome.retries, 2);
    assert_eq!(
        attempts,
        [("a".into(), 1, 0), ("a".into(), 2, 60), ("a".into(), 3, 170), ("b".into(), 1, 180)]
    );
}

#[test]
fn input_errors_escalate_with_agent_action_and_do_not_trip_the_breaker() {
    let g = pay_graph();
    let stripe = g.index("stripe").unwrap();
    let mut s = Session::new(g, Task::default(), 0).unwrap();
    let Action::CallTools { .. } = s.next(0) else { panic!() };
    let failure = shr_core::ToolFailure {
        category: shr_core::Category::Input,
        transient: false,
        message: "invalid card".into(),
        agent_action: Some("Ask the customer for the card's expiry date.".into()),
        latency_ms: 3.0,
    };
    s.report("stripe", ToolResult::Err(failure), 5).unwrap();
    let Action::Escalate { request } = s.next(5) else { panic!() };
    assert_eq!(request.reason, EscalationReason::Input);
    assert_eq!(request.agent_action.as_deref(), Some("Ask the customer for the card's expiry date."));
    assert_eq!(s.health().state(stripe), shr_core::BreakerState::Closed);
    // With better input, the same tool is called again.
    s.resolve_escalation(Decision::Approve, 6).unwrap();
    let Action::CallTools { calls } = s.next(6) else { panic!() };
    assert_eq!(calls[0].tool, "stripe");
}
