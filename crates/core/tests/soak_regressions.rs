//! Inputs the soak and the fuzz targets found failing late in a task (a demoted goal already
//! reached, a breaker cooled down between tasks, a waypoint result, exported costs, huge
//! backoffs, a failure pending at the goal), replayed through the public API. The rest are in
//! fuzz_regressions.rs.

use serde_json::json;
use shr_core::check_observability;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::{
    Action, Call, Category, Decision, EscalationReason, EscalationRequest, Performed, Session, Status, Task,
    ToolGraph, ToolResult,
};

/// Found by the soak (crates/core/examples/soak.rs, seed 1, session 8): an escalation answered by
/// demoting to a node already completed planned a goal with nothing left to do, and the session
/// replanned until its loop guard gave up ("session made no progress"). A demoted goal that is
/// already reached finishes the task.
#[test]
fn demoting_to_a_completed_node_finishes_the_task() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"b"},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"done"}],
            "start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!("no call") };
    s.report(&calls[0].tool, ToolResult::ok(json!({}), 1.0), 1).unwrap();
    let Action::CallTools { calls } = s.next(1) else { panic!("no call") };
    assert_eq!(calls[0].tool, "b");
    s.report("b", ToolResult::outage("down"), 2).unwrap();
    let Action::Escalate { request } = s.next(2) else { panic!("no escalation") };
    assert_eq!(request.reason, EscalationReason::NoPath);
    s.resolve_escalation(Decision::Demote { goal: "a".into() }, 3).unwrap();
    let Action::Finished { outcome } = s.next(3) else { panic!("not finished") };
    assert_eq!((outcome.status, outcome.goal.as_str()), (Status::Demoted, "a"));
    assert_eq!(outcome.path, ["start", "a"]);
    assert_eq!(outcome.message, None);
    check_observability(s.events()).unwrap();
}

/// Found by the soak (sessions sharing a router's health): a breaker opened in one task, its
/// cooldown passed before the next task began, yet the next task planned over the stale open
/// state, found no path and escalated instead of probing. Breakers are brought up to date
/// before every plan.
#[test]
fn a_breaker_cooled_down_between_tasks_is_probed_not_escalated() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"a","to":"done"}],"start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut first = Session::new(graph.clone(), Task::default(), 0).unwrap();
    assert!(matches!(first.next(0), Action::CallTools { .. }));
    first.report("a", ToolResult::outage("down"), 1).unwrap();
    assert!(matches!(first.next(1), Action::Escalate { .. }));
    first.resolve_escalation(Decision::Abort { message: "later".into() }, 1).unwrap();
    let (mut router, _) = first.into_parts();
    assert_eq!(router.health().state(1), shr_core::BreakerState::Open);

    let later = 1 + router.config().breaker.cooldown_ms;
    let mut second = router.start(Task::default(), later).unwrap();
    match router.next(&mut second, later).unwrap() {
        Action::CallTools { calls } => assert_eq!(calls[0].tool, "a"),
        other => panic!("{other:?} after the cooldown"),
    }
    router.report(&mut second, "a", ToolResult::ok(json!({}), 1.0), later + 1).unwrap();
    let Action::Finished { outcome } = router.next(&mut second, later + 1).unwrap() else {
        panic!("not finished")
    };
    assert_eq!(outcome.status, Status::Completed);
    check_observability(second.events()).unwrap();
    assert!(second
        .events()
        .iter()
        .any(|e| matches!(e.kind, EventKind::BreakerChanged { to: shr_core::BreakerState::HalfOpen, .. })));
}

/// fuzz/corpus/session_ops/regress-redirect-to-waypoint-guard-loop: the host redirected to a
/// waypoint (not a tool) and reported a result for it. That stale result then failed the guard
/// of an edge leaving the waypoint on every plan; revisiting a waypoint produces no new result
/// and costs no visit, so the session replanned the same revisit until its loop guard gave up
/// ("session made no progress"). A waypoint keeps no result: guards on its edges hold.
#[test]
fn a_result_reported_for_a_waypoint_does_not_trap_the_plan() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"n0","tool":false},{"id":"n1","join":{"quorum":2}},{"id":"n2"},{"id":"n3"}],
            "edges":[{"from":"n2","to":"n0","cost":60},{"from":"n3","to":"n1","cost":29},
                     {"from":"n0","to":"n1","cost":28,"guard":{"field":"ok","equals":false}},
                     {"from":"n2","to":"n3","cost":25,"guard":{"field":"ok","equals":false,"negate":true}},
                     {"from":"n0","to":"n2","cost":7}],
            "start":"n0","goal":"n1"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let first = s.redirect("n0", 0).unwrap().tool;
    s.report(&first, ToolResult::ok(json!({ "ok": true }), 9.0), 10).unwrap();
    let ok = |_: &Call| Performed { result: ToolResult::ok(json!({ "ok": true }), 9.0), latency_ms: 10 };
    s.drive(&mut FnHost::new(ok, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }), 10);
    let outcome = s.outcome().cloned().expect("finished");
    assert_ne!(outcome.message.as_deref(), Some("session made no progress"));
    assert_eq!(outcome.status, Status::Completed);
    check_observability(s.events()).unwrap();
}

/// fuzz/corpus/graph_json/regress-float-round-trip: a cost written as a large integer was read as
/// the nearest f64, written back by `to_json` in its shortest form, and that text read back as
/// a neighbouring f64: export then import changed the description. serde_json's exact float
/// parsing (`float_roundtrip`) makes the round trip lossless.
#[test]
fn costs_survive_export_and_import_exactly() {
    for cost in [
        "4444444444144444441",
        "4.4444444441444444e+18",
        "0.30000000000000004",
        "1e-300",
        "123456789.12345679",
    ] {
        let text = format!(
            r#"{{"nodes":[{{"id":"a"}},{{"id":"b"}}],"edges":[{{"from":"a","to":"b","cost":{cost}}}],
                "start":"a","goal":"b"}}"#
        );
        let g = ToolGraph::from_json(&text).unwrap();
        let again = ToolGraph::from_json(&g.to_json()).unwrap();
        assert_eq!(again.edge(0).cost.to_bits(), g.edge(0).cost.to_bits(), "{cost}");
        assert_eq!(again.to_spec(), g.to_spec());
        assert_eq!(again.to_json(), g.to_json());
    }
    // And the value read is the correctly rounded one.
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","cost":4.4444444441444444e+18}],
            "start":"a","goal":"b"}"#,
    )
    .unwrap();
    assert_eq!(g.edge(0).cost, 4_444_444_444_144_444_416.0);
}

/// fuzz/corpus/session_ops/regress-retry-backoff-overflow: a description may declare any u64
/// backoff; the retry time `now + backoff x attempt` overflowed (a panic with overflow checks, a
/// retry time in the past without). It saturates: the retry is due at the end of time. (The
/// default cap, 30 s, keeps such a wait short; this one lifts the cap.)
#[test]
fn a_huge_retry_backoff_saturates() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a","retry":{"attempts":2,"backoff_ms":18446744073709551615,
                     "max_backoff_ms":18446744073709551615,"jitter":false}},
                     {"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"a","to":"done"}],"start":"start","goal":"done"}"#,
    )
    .unwrap();
    let now = 80_876_777_290_858_495;
    let mut s = Session::new(graph, Task::default(), now).unwrap();
    assert!(matches!(s.next(now), Action::CallTools { .. }));
    s.report("a", ToolResult::transient("503"), now).unwrap();
    let Action::CallTools { calls } = s.next(now) else { panic!("no retry") };
    assert_eq!((calls[0].attempt, calls[0].not_before), (2, u64::MAX));
    check_observability(s.events()).unwrap();
}

/// Found by the soak (seed 1, sessions 80986 and 717258 of 1,000,000): branches were out when
/// an escalation demoted the goal to one of them; another branch then failed, and the demoted
/// goal completed before any replan answered that failure. Failures still pending when the goal
/// is reached are answered as the run went: around them (`Rerouted`, same plan).
#[test]
fn a_failure_pending_when_the_goal_is_reached_is_answered() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"b"},{"id":"c"},
                     {"id":"done","tool":false,"join":{"quorum":3}}],
            "edges":[{"from":"start","to":"a"},{"from":"start","to":"b"},{"from":"start","to":"c"},
                     {"from":"a","to":"done"},{"from":"b","to":"done"},{"from":"c","to":"done"}],
            "start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!("no call") };
    assert_eq!(calls.len(), 3);
    let bad_input = ToolResult::failed(Category::Input, "bad arguments");
    s.report("c", bad_input, 1).unwrap();
    assert!(matches!(s.next(1), Action::Escalate { .. }));
    s.resolve_escalation(Decision::Demote { goal: "a".into() }, 2).unwrap();
    assert_eq!(s.next(2), Action::Wait);
    s.report("b", ToolResult::outage("down"), 3).unwrap();
    s.report("a", ToolResult::ok(json!({}), 1.0), 4).unwrap();
    let Action::Finished { outcome } = s.next(4) else { panic!("not finished") };
    assert_eq!((outcome.status, outcome.goal.as_str()), (Status::Demoted, "a"));
    check_observability(s.events()).unwrap();
    let around: Vec<Vec<String>> = s
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Rerouted { around, .. } if !around.is_empty() => Some(around.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(around, [vec!["b".to_string()]]);
}
