//! Malformed input of each kind gives a typed error naming what is wrong, never a panic.

use shr_core::error::ProblemKind::{self, *};
use shr_core::{Action, Decision, Session, SessionError, Task, ToolGraph, ToolResult};

fn problems(json: &str) -> Vec<(ProblemKind, String)> {
    match ToolGraph::from_json(json) {
        Ok(_) => vec![],
        Err(e) => e.problems.into_iter().map(|p| (p.kind, p.at)).collect(),
    }
}

const OK: &str =
    r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","cost":1}],"start":"a","goal":"b"}"#;

#[test]
fn a_valid_graph_round_trips_through_json() {
    let g = ToolGraph::from_json(OK).unwrap();
    let again = ToolGraph::from_json(&g.to_json()).unwrap();
    assert_eq!(g.to_spec(), again.to_spec());
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = ToolGraph::from_json("{\"nodes\": [").unwrap_err();
    assert_eq!(e.problems[0].kind, MalformedJson);
    assert!(e.to_string().contains("line 1"), "{e}");
    assert_eq!(problems(r#"{"nodes": 3}"#)[0].0, MalformedJson);
    assert_eq!(problems("[]")[0].0, MalformedJson);
    assert_eq!(problems("")[0].0, MalformedJson);
}

#[test]
fn text_after_the_description_is_refused() {
    // Found by fuzzing: two descriptions pasted one after the other were read as the first.
    let one = r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","cost":1}],"start":"a","goal":"b"}"#;
    for tail in ["{}", "]", " x", one] {
        let text = format!("{one}{tail}");
        let e = ToolGraph::from_json(&text).expect_err("trailing text is refused");
        assert_eq!(e.problems[0].kind, ProblemKind::MalformedJson, "{text}");
        assert!(e.problems[0].message.contains("trailing characters"), "{}", e.problems[0].message);
    }
    // Whitespace after it is not text.
    assert!(ToolGraph::from_json(&format!("{one} \n\t")).is_ok());
}

#[test]
fn each_kind_of_problem_names_the_offender() {
    let cases: &[(&str, ProblemKind, &str)] = &[
        (r#"{"nodes":[{"id":"a"},{"id":"a"}],"start":"a","goal":"a"}"#, DuplicateId, "a"),
        (
            r#"{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":"zz"}],"start":"a","goal":"a"}"#,
            UnknownNode,
            "a->zz",
        ),
        (
            r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","cost":-1}],"start":"a","goal":"b"}"#,
            NegativeCost,
            "a->b",
        ),
        (r#"{"nodes":[{"id":"a","base_cost":-3}],"start":"a","goal":"a"}"#, NegativeCost, "a"),
        (r#"{"nodes":[{"id":"a"}],"goal":"a"}"#, MissingStart, "start"),
        (r#"{"nodes":[{"id":"a"}],"start":"a"}"#, MissingGoal, "goal"),
        (r#"{"nodes":[{"id":"a"}],"start":"a","goal":"q"}"#, UnknownNode, "goal"),
        (
            r#"{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":"a"}],"start":"a","goal":"a"}"#,
            SelfLoop,
            "a->a",
        ),
        (
            r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b"},{"from":"a","to":"b"}],"start":"a","goal":"b"}"#,
            DuplicateEdge,
            "a->b",
        ),
        (
            r#"{"nodes":[{"id":"a"},{"id":"b","join":{"quorum":2}}],"edges":[{"from":"a","to":"b"}],"start":"a","goal":"b"}"#,
            BadQuorum,
            "b",
        ),
        (r#"{"nodes":[{"id":""}],"start":"","goal":""}"#, BadId, ""),
        (r#"{"nodes":[{"id":"a","retry":{"attempts":99}}],"start":"a","goal":"a"}"#, BadValue, "a"),
    ];
    for (json, kind, at) in cases {
        let got = problems(json);
        assert!(
            got.iter().any(|(k, a)| k == kind && a == at),
            "{json}\n expected {kind:?} at {at:?}, got {got:?}"
        );
    }
}

#[test]
fn every_problem_is_reported_not_only_the_first() {
    let json = r#"{"nodes":[{"id":"a"},{"id":"a"},{"id":"b"}],
        "edges":[{"from":"a","to":"x","cost":1},{"from":"a","to":"b","cost":-2}]}"#;
    let kinds: Vec<ProblemKind> = problems(json).into_iter().map(|p| p.0).collect();
    for k in [DuplicateId, UnknownNode, NegativeCost, MissingStart, MissingGoal] {
        assert!(kinds.contains(&k), "{k:?} missing from {kinds:?}");
    }
}

#[test]
fn nan_and_infinite_costs_are_refused_from_a_spec() {
    use shr_core::graph::{EdgeSpec, GraphSpec, NodeSpec};
    let node = |id: &str| serde_json::from_value::<NodeSpec>(serde_json::json!({ "id": id })).unwrap();
    for cost in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let spec = GraphSpec {
            nodes: vec![node("a"), node("b")],
            edges: vec![EdgeSpec { from: "a".into(), to: "b".into(), cost, guard: None, reason: None }],
            start: Some("a".into()),
            goal: Some("b".into()),
            ..GraphSpec::default()
        };
        let e = ToolGraph::from_spec(spec).unwrap_err();
        assert!(e.has(NonFiniteCost), "{cost}: {e}");
    }
}

#[test]
fn limits_are_enforced_with_a_clear_error() {
    let long = "x".repeat(shr_core::limits::MAX_LABEL + 1);
    let json = format!(r#"{{"nodes":[{{"id":"a","label":"{long}"}}],"start":"a","goal":"a"}}"#);
    assert_eq!(problems(&json)[0].0, LabelTooLong);
    let long_id = "i".repeat(shr_core::limits::MAX_ID + 1);
    let json = format!(r#"{{"nodes":[{{"id":"{long_id}"}}],"start":"{long_id}","goal":"{long_id}"}}"#);
    assert_eq!(problems(&json)[0].0, BadId);
}

#[test]
fn unreachable_goal_is_a_warning_not_an_error() {
    let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"}],"start":"a","goal":"b"}"#).unwrap();
    assert_eq!(g.warnings()[0].kind, GoalUnreachable);
}

fn session() -> Session {
    Session::new(ToolGraph::from_json(OK).unwrap(), Task::default(), 0).unwrap()
}

#[test]
fn hostile_session_operations_are_errors_not_panics() {
    let g = ToolGraph::from_json(OK).unwrap();
    let bad_task = Task { goal: Some("nowhere".into()), ..Task::default() };
    assert_eq!(Session::new(g, bad_task, 0).err(), Some(SessionError::UnknownNode { id: "nowhere".into() }));

    let mut s = session();
    assert_eq!(
        s.report("ghost", ToolResult::ok(serde_json::json!({}), 1.0), 0),
        Err(SessionError::UnknownNode { id: "ghost".into() })
    );
    assert_eq!(
        s.report("b", ToolResult::ok(serde_json::json!({}), 1.0), 0),
        Err(SessionError::NotInFlight { tool: "b".into() }),
        "reporting a tool never called"
    );
    assert_eq!(s.resolve_escalation(Decision::Approve, 0), Err(SessionError::NoEscalation));
    let Action::CallTools { calls } = s.next(0) else { panic!("expected a call") };
    assert_eq!(calls[0].tool, "a");
    s.report("a", ToolResult::ok(serde_json::json!({}), 1.0), 10).unwrap();
    assert_eq!(
        s.report("a", ToolResult::ok(serde_json::json!({}), 1.0), 10),
        Err(SessionError::NotInFlight { tool: "a".into() }),
        "duplicate report"
    );
    // The clock going backwards is held, not a panic.
    let Action::CallTools { calls } = s.next(3) else { panic!() };
    s.report(&calls[0].tool, ToolResult::ok(serde_json::json!({}), 1.0), 1).unwrap();
    assert!(matches!(s.next(0), Action::Finished { .. }));
    assert!(s.events().windows(2).all(|w| w[0].at <= w[1].at));
    assert_eq!(s.report("a", ToolResult::outage("x"), 0), Err(SessionError::Finished));
}

#[test]
fn demoting_to_an_unknown_goal_is_refused_and_the_escalation_stays() {
    let mut s = session();
    let Action::CallTools { .. } = s.next(0) else { panic!() };
    s.report("a", ToolResult::outage("down"), 1).unwrap();
    let Action::Escalate { .. } = s.next(1) else { panic!("a failing first tool escalates") };
    assert_eq!(
        s.resolve_escalation(Decision::Demote { goal: "nope".into() }, 2),
        Err(SessionError::UnknownGoal { goal: "nope".into() })
    );
    assert!(matches!(s.next(2), Action::Escalate { .. }));
}

#[test]
fn a_partial_retry_policy_keeps_the_default_attempts() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a","retry":{"backoff_ms":500}},{"id":"b"},{"id":"g","tool":false}],
            "edges":[{"from":"s","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"g"}],"start":"s","goal":"g"}"#,
    )
    .unwrap();
    let a = g.node(g.index("a").unwrap()).retry();
    let b = g.node(g.index("b").unwrap()).retry();
    assert_eq!(a.attempts, b.attempts, "leaving `attempts` out is the same as leaving `retry` out");
    assert_eq!(a.attempts, 1);
    assert_eq!(a.backoff_ms, 500);
}

#[test]
fn a_negative_weight_from_a_custom_weight_function_is_unusable_not_taken() {
    use shr_core::algo::Dijkstra;
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a"},{"id":"b"},{"id":"g","tool":false}],
            "edges":[{"from":"s","to":"a","cost":1},{"from":"s","to":"b","cost":5},
                     {"from":"a","to":"g","cost":1},{"from":"b","to":"g","cost":1}],"start":"s","goal":"g"}"#,
    )
    .unwrap();
    let a = g.index("a").unwrap();
    // A host's weight function that goes negative into `a`: Dijkstra cannot honour it, so the
    // edge is skipped like a failed tool's, and the plan goes through `b`.
    let weights = |e: usize| if g.edge(e).to == a { -3.0 } else { g.edge(e).cost };
    let plan = Dijkstra::new().route(&g, &[g.start()], g.goal(), &weights, &mut ()).unwrap();
    assert_eq!(plan.ids(&g), ["s", "b", "g"]);
    assert_eq!(plan.cost, 6.0);
}

/// Costs each finite but summing past `f64::MAX`: the graph is accepted with a `cost_overflow`
/// warning, and a run with every tool healthy says why it found no path instead of reporting
/// an outage that is not there.
#[test]
fn costs_that_overflow_are_a_warning_and_the_escalation_says_so() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a"},{"id":"g","tool":false}],
            "edges":[{"from":"s","to":"a","cost":1e308},{"from":"a","to":"g","cost":1e308}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    assert!(g.warnings().iter().any(|w| w.kind == shr_core::ProblemKind::CostOverflow), "{:?}", g.warnings());
    let mut s = shr_core::Session::new(g, shr_core::Task::default(), 0).unwrap();
    let shr_core::Action::Escalate { request } = s.next(0) else { panic!("no escalation") };
    assert_eq!(request.reason, shr_core::EscalationReason::NoPath);
    assert!(request.agent_action.as_deref().is_some_and(|a| a.contains("cost_overflow")), "{request:?}");
}

/// A misspelt field used to be ignored, which turned a validator, a retry or a cost off in
/// silence. Every part of the description is read strictly: the error names the field.
#[test]
fn a_misspelt_graph_field_is_an_error_naming_it() {
    for (json, field) in [
        (
            r#"{"nodes":[{"id":"a","validator":[]},{"id":"b"}],"edges":[{"from":"a","to":"b"}],"start":"a","goal":"b"}"#,
            "validator",
        ),
        (
            r#"{"nodes":[{"id":"a","retries":{"attempts":2}},{"id":"b"}],"edges":[{"from":"a","to":"b"}],"start":"a","goal":"b"}"#,
            "retries",
        ),
        (
            r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","costs":3}],"start":"a","goal":"b"}"#,
            "costs",
        ),
        (
            r#"{"nodes":[{"id":"a","retry":{"attempt":2}},{"id":"b"}],"edges":[{"from":"a","to":"b"}],"start":"a","goal":"b"}"#,
            "attempt",
        ),
        (
            r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b"}],"start":"a","goal":"b","goals":"b"}"#,
            "goals",
        ),
    ] {
        let err = ToolGraph::from_json(json).unwrap_err();
        assert_eq!(err.problems[0].kind, MalformedJson, "{json}");
        assert!(
            err.problems[0].message.contains(&format!("unknown field `{field}`")),
            "{}",
            err.problems[0].message
        );
    }
}

/// A start that is a tool and down is no place to start from: the router's route says there is
/// no path, as a run's first plan does (it used to return a path through the failed start).
#[test]
fn a_route_from_a_failed_start_tool_is_no_route() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"a"},{"id":"b"},{"id":"c","tool":false}],
            "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}],"start":"a","goal":"c"}"#,
    )
    .unwrap();
    let mut router = shr_core::Router::new(g);
    assert!(router.route(0, 2, 0).is_some());
    router.mark_down(0, 0);
    assert!(router.route(0, 2, 0).is_none());
}
