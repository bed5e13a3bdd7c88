//! Inputs the fuzz targets (fuzz/) found crashing, replayed through the public API. Each test
//! names the seed kept in fuzz/corpus/<target>/ that reproduces it there.

use serde_json::json;
use shr_core::algo::{oracle, Dijkstra, Plan};
use shr_core::check_observability;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::{
    Action, Call, Category, Decision, EscalationReason, EscalationRequest, Monitors, Performed, ReplanFrom,
    Session, SessionConfig, Status, Task, ToolGraph, ToolResult,
};

/// The description costs of a graph, as routing weights.
fn cost(g: &ToolGraph) -> impl Fn(usize) -> f64 + '_ {
    move |e| g.edge(e).cost
}

/// Two graphs with the same number of nodes: the first has no join, the second a quorum join.
fn same_size_other_joins() -> (ToolGraph, ToolGraph) {
    let plain = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s"},{"id":"a"},{"id":"b"},{"id":"g"}],
            "edges":[{"from":"s","to":"a"},{"from":"s","to":"b"},{"from":"a","to":"g"},{"from":"b","to":"g"}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    let joined = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s"},{"id":"a"},{"id":"b"},{"id":"g","join":{"quorum":2}}],
            "edges":[{"from":"s","to":"a","cost":1},{"from":"s","to":"b","cost":2},
                     {"from":"a","to":"g","cost":3},{"from":"b","to":"g","cost":4}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    (plain, joined)
}

/// fuzz/corpus/graph_json/regress-reused-dijkstra-join-layout: a `Dijkstra` reused on another
/// graph with as many nodes kept the first graph's join layout, and indexed its join buffer at
/// `u32::MAX` (a panic) when the second graph had a quorum join where the first had none.
#[test]
fn a_reused_dijkstra_follows_the_join_layout_of_each_graph() {
    let (plain, joined) = same_size_other_joins();
    let mut d = Dijkstra::new();
    let first = d.route(&plain, &[plain.start()], plain.goal(), &cost(&plain), &mut ()).unwrap();
    assert_eq!(first.cost, 2.0);

    let reused = d.route(&joined, &[joined.start()], joined.goal(), &cost(&joined), &mut ());
    let fresh = Dijkstra::new().route(&joined, &[joined.start()], joined.goal(), &cost(&joined), &mut ());
    assert_eq!(reused, fresh);
    // The join needs both branches: 1 + 3 and 2 + 4.
    let plan = reused.unwrap();
    assert_eq!(plan.cost, 10.0);
    assert_eq!(plan.ids(&joined), ["s", "a", "b", "g"]);
    let want = oracle::cheapest_cost(&joined, &[joined.start()], joined.goal(), &cost(&joined));
    assert_eq!(Some(plan.cost), want);

    // And back: the join layout is dropped again, into a caller-owned plan.
    let mut again = Plan::default();
    assert!(d.route_into(&plain, &[plain.start()], plain.goal(), &cost(&plain), &mut (), &mut again));
    assert_eq!(again, first);
}

/// The same, with both graphs joined but at different nodes and with different quorums.
#[test]
fn a_reused_dijkstra_follows_moved_joins() {
    let a = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s"},{"id":"x"},{"id":"y"},{"id":"j","join":{"quorum":1}},{"id":"g"}],
            "edges":[{"from":"s","to":"x"},{"from":"s","to":"y"},{"from":"x","to":"j"},
                     {"from":"y","to":"j"},{"from":"j","to":"g"}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    let b = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s"},{"id":"x"},{"id":"y"},{"id":"j"},{"id":"g","join":{"quorum":3}}],
            "edges":[{"from":"s","to":"x","cost":1},{"from":"s","to":"y","cost":1},{"from":"s","to":"j","cost":1},
                     {"from":"x","to":"g","cost":1},{"from":"y","to":"g","cost":1},{"from":"j","to":"g","cost":1}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    let mut d = Dijkstra::new();
    for g in [&a, &b, &a, &b] {
        let w = |e: usize| g.edge(e).cost;
        let reused = d.route(g, &[g.start()], g.goal(), &w, &mut ());
        let fresh = Dijkstra::new().route(g, &[g.start()], g.goal(), &w, &mut ());
        assert_eq!(reused, fresh);
        assert_eq!(reused.map(|p| p.cost), oracle::cheapest_cost(g, &[g.start()], g.goal(), &w));
    }
}

/// A chain of two tools under an intent rule of priority 1.0 that the request matches.
fn chain_with_loud_intent(intent_priority: f64) -> ToolGraph {
    ToolGraph::from_json(&format!(
        r#"{{"nodes":[{{"id":"start","tool":false}},{{"id":"a"}},{{"id":"b"}},{{"id":"done","tool":false}}],
            "edges":[{{"from":"start","to":"a"}},{{"from":"a","to":"b"}},{{"from":"b","to":"done"}}],
            "intents":[{{"keyword":"refund","priority":{intent_priority}}}],
            "start":"start","goal":"done"}}"#
    ))
    .unwrap()
}

fn session(graph: ToolGraph, tool_budget: u32) -> Session {
    let mut context = shr_core::Context::new();
    context.insert("request".into(), json!("refund order 7"));
    let task = Task { context, ..Task::default() };
    let config = SessionConfig { tool_budget, ..SessionConfig::default() };
    Session::with_parts(graph, task, config, Monitors::default(), 0).unwrap()
}

/// fuzz/corpus/session_ops/regress-intent-outbids-tool-budget: an intent rule of priority above
/// the budget signal's (0.97) won the competition and the session dispatched past its tool
/// budget. The budget is a limit, not a preference: reaching it escalates with reason `budget`.
#[test]
fn a_loud_intent_does_not_spend_past_the_tool_budget() {
    for priority in [0.5, 0.98, 1.0] {
        let mut s = session(chain_with_loud_intent(priority), 1);
        let Action::CallTools { calls } = s.next(0) else { panic!("priority {priority}: no call") };
        assert_eq!(calls[0].tool, "a");
        s.report("a", ToolResult::ok(json!({}), 1.0), 1).unwrap();
        match s.next(1) {
            Action::Escalate { request } => {
                assert_eq!(request.reason, EscalationReason::Budget, "{priority}")
            }
            other => panic!("priority {priority}: {other:?} after the budget of 1 call was spent"),
        }
        assert_eq!(s.tool_calls(), 1);
        // Approving does not lift the limit: it asks again until the escalation budget runs out.
        let mut finished = None;
        for _ in 0..10 {
            match s.next(2) {
                Action::Escalate { .. } => s.resolve_escalation(Decision::Approve, 2).unwrap(),
                Action::Finished { outcome } => {
                    finished = Some(outcome);
                    break;
                }
                other => panic!("priority {priority}: {other:?}"),
            }
        }
        let outcome = finished.expect("finished");
        assert_eq!(outcome.status, Status::Escalated);
        assert_eq!(outcome.tool_calls, 1);
        check_observability(s.events()).unwrap();
    }
}

/// The input as the fuzzer found it: start = goal = a tool node, a budget of no calls at all.
#[test]
fn a_loud_intent_does_not_spend_a_zero_budget() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"n0"},{"id":"n1"}],"start":"n0","goal":"n0",
            "intents":[{"keyword":"refund","priority":1.0}]}"#,
    )
    .unwrap();
    let mut s = session(graph, 0);
    match s.next(0) {
        Action::Escalate { request } => assert_eq!(request.reason, EscalationReason::Budget),
        other => panic!("{other:?} with a budget of 0 calls"),
    }
    assert_eq!(s.tool_calls(), 0);
}

/// fuzz/corpus/session_ops/regress-failure-after-escalation-budget: a failure that needed an
/// escalation when the escalation budget was spent finished the task with no `Escalated` event,
/// so its `ToolFailed` had no answer (DESIGN section 7). It is now answered by an `Escalated`
/// event of reason `budget` that costs no LLM call (`llm_call` 0).
#[test]
fn a_failure_past_the_escalation_budget_is_still_answered() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"a","to":"done"}],"start":"start","goal":"done"}"#,
    )
    .unwrap();
    let config = SessionConfig { escalation_budget: 0, ..SessionConfig::default() };
    let mut s = Session::with_parts(graph, Task::default(), config, Monitors::default(), 0).unwrap();
    assert!(matches!(s.next(0), Action::CallTools { .. }));
    s.report("a", ToolResult::outage("down"), 5).unwrap();
    let Action::Finished { outcome } = s.next(5) else { panic!("not finished") };
    assert_eq!(outcome.status, Status::Escalated);
    assert_eq!(outcome.llm_calls, 0);
    assert_eq!(outcome.message.as_deref(), Some("escalation budget exhausted"));
    check_observability(s.events()).unwrap();
    let escalated: Vec<_> = s
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Escalated { reason, llm_call, failed, .. } => {
                Some((*reason, *llm_call, failed.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(escalated, [(EscalationReason::Budget, 0, vec!["a".to_string()])]);
}

/// The same with the default budget of 4: the fifth escalation ends the task, visibly.
#[test]
fn the_escalation_that_exhausts_the_default_budget_is_an_event() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"a","to":"done"}],"start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    // Bad input escalates every time and leaves the tool usable.
    let bad_input =
        |_: &Call| Performed { result: ToolResult::failed(Category::Input, "bad arguments"), latency_ms: 1 };
    s.drive(&mut FnHost::new(bad_input, |_: &EscalationRequest| Decision::Approve), 0);
    let outcome = s.outcome().cloned().expect("finished");
    assert_eq!(outcome.status, Status::Escalated);
    assert_eq!(outcome.llm_calls, 4);
    check_observability(s.events()).unwrap();
    let calls: Vec<u32> = s
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Escalated { llm_call, .. } => Some(llm_call),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [1, 2, 3, 4, 0]);
}

/// fuzz/corpus/session_ops/regress-redirected-failure-before-first-plan: the host redirected to
/// a tool before the session had planned anything, the tool failed, and the first plan that
/// routed around it was announced as `PathPlanned`: the `ToolFailed` had no answer. A plan made
/// around failed tools is a `Rerouted` event, from an empty plan when there was none.
#[test]
fn a_redirected_failure_before_the_first_plan_is_answered() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"b"},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"start","to":"b","cost":2},
                     {"from":"a","to":"done"},{"from":"b","to":"done"}],
            "start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let call = s.redirect("a", 0).unwrap();
    assert_eq!(call.tool, "a");
    s.report("a", ToolResult::outage("down"), 1).unwrap();
    let Action::CallTools { calls } = s.next(1) else { panic!("no call") };
    assert_eq!(calls[0].tool, "b");
    check_observability(s.events()).unwrap();
    let rerouted = s.events().iter().find_map(|e| match &e.kind {
        EventKind::Rerouted { from_plan, to_plan, around, .. } => {
            Some((from_plan.nodes.len(), to_plan.nodes.clone(), around.clone()))
        }
        _ => None,
    });
    assert_eq!(rerouted, Some((0, vec!["start".into(), "b".into(), "done".into()], vec!["a".into()])));
    s.report("b", ToolResult::ok(json!({}), 1.0), 2).unwrap();
    let Action::Finished { outcome } = s.next(2) else { panic!("not finished") };
    assert_eq!(outcome.status, Status::Completed);
    assert_eq!(outcome.reroutes, 1);
}

/// Found by the property test `sessions_keep_their_invariants_and_are_deterministic` while the
/// fuzz fixes were checked: in a graph with a cycle and no guards (not a cyclic workflow, so
/// completed work is never re-entered) a reroute from the tip `y` went back through the completed
/// `x` (`y -> z -> x -> g`). `x` being done made the goal tool `g` ready at once, so `z` and `g`
/// were called together; `z` failed, `g` finished the task, and `z`'s failure had no answer.
#[test]
fn a_reroute_does_not_pass_through_completed_work() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"x"},{"id":"y"},{"id":"f"},{"id":"z"},{"id":"g"}],
            "edges":[{"from":"s","to":"x","cost":0},{"from":"x","to":"y","cost":0},{"from":"y","to":"f","cost":0},
                     {"from":"f","to":"g","cost":0},{"from":"x","to":"g","cost":2},
                     {"from":"y","to":"z","cost":0},{"from":"z","to":"x","cost":0}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    let run = |replan_from: ReplanFrom| {
        let config = SessionConfig { replan_from, ..SessionConfig::default() };
        let mut s =
            Session::with_parts(graph.clone(), Task::default(), config, Monitors::default(), 0).unwrap();
        let mut called = Vec::new();
        let down_f_z = |c: &Call| {
            called.push(c.tool.clone());
            let result = if c.tool == "f" || c.tool == "z" {
                ToolResult::outage("down")
            } else {
                ToolResult::ok(json!({}), 1.0)
            };
            Performed { result, latency_ms: 1 }
        };
        s.drive(
            &mut FnHost::new(down_f_z, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }),
            0,
        );
        check_observability(s.events()).unwrap();
        (s, called)
    };
    // Resuming from the tip `y`, the only way on is back through the completed `x`: with the
    // `tip` policy, an escalation.
    let (s, called) = run(ReplanFrom::Tip);
    assert_eq!(called, ["x", "y", "f"]);
    assert_eq!(s.outcome().unwrap().status, Status::Escalated);
    assert!(s
        .events()
        .iter()
        .any(|e| matches!(e.kind, EventKind::Escalated { reason: EscalationReason::NoPath, .. })));
    // With the `completed` policy the run branches back from `x` to `g`, leaving `y` behind.
    let (s, called) = run(ReplanFrom::Completed);
    assert_eq!(called, ["x", "y", "f", "g"]);
    assert_eq!(s.outcome().unwrap().status, Status::Completed);
    assert!(s
        .events()
        .iter()
        .any(|e| matches!(&e.kind, EventKind::Rerouted { abandoned, .. } if abandoned == &["y"])));
}

/// fuzz/corpus/session_ops/regress-redirect-after-unanswered-failure: the goal tool was refused
/// (policy), and before the session could route around it the host redirected to that same
/// tool, which then succeeded and finished the task: the refusal had no answer. A redirect ends
/// the batch of calls, so the failures reported in it are routed around (or escalated) at once.
#[test]
fn a_redirect_routes_around_the_failures_reported_before_it() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"pay"}],"edges":[{"from":"start","to":"pay"}],
            "start":"start","goal":"pay"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!("no call") };
    assert_eq!(calls[0].tool, "pay");
    let refused = ToolResult::failed(Category::Policy, "not allowed").with_agent_action("ask a person");
    s.report("pay", refused, 1).unwrap();
    assert_eq!(s.redirect("pay", 2).unwrap().tool, "pay");
    s.report("pay", ToolResult::ok(json!({}), 1.0), 3).unwrap();
    let Action::Finished { outcome } = s.next(3) else { panic!("not finished") };
    assert_eq!(outcome.status, Status::Completed);
    check_observability(s.events()).unwrap();
    // No way around `pay`: the refusal is escalated, with the tool's recovery text.
    let names: Vec<&str> = s.events().iter().map(|e| e.kind.name()).collect();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap_or(usize::MAX);
    assert!(at("ToolFailed") < at("Redirected") && at("Redirected") < at("Escalated"), "{names:?}");
    assert!(s.events().iter().any(|e| matches!(
        &e.kind,
        EventKind::Escalated { reason: EscalationReason::Policy, agent_action: Some(a), .. } if a == "ask a person"
    )));
}

/// fuzz/corpus/session_ops/regress-failure-during-pending-escalation: a call of another branch
/// failed while an escalation was pending, and the decision (abort) ended the task: that failure
/// had no answer. It now joins the pending escalation, which is issued again with it (the same
/// LLM call: the host answers once).
#[test]
fn a_failure_while_an_escalation_is_pending_joins_it() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"b"},
                     {"id":"done","tool":false,"join":{"quorum":2}}],
            "edges":[{"from":"start","to":"a"},{"from":"start","to":"b"},
                     {"from":"a","to":"done"},{"from":"b","to":"done"}],
            "start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!("no call") };
    assert_eq!(calls.len(), 2);
    let bad_input = ToolResult::failed(Category::Input, "bad arguments");
    s.report("a", bad_input, 1).unwrap();
    // The question names the tool that refused its input (it is not unhealthy).
    assert_eq!(s.escalation().map(|r| r.failed.clone()), Some(vec!["a".to_string()]));
    s.report("b", ToolResult::outage("down"), 2).unwrap();
    // The pending question now names the failed tool too.
    assert_eq!(s.escalation().map(|r| r.failed.clone()), Some(vec!["a".to_string(), "b".to_string()]));
    s.resolve_escalation(Decision::Abort { message: "stop".into() }, 3).unwrap();
    assert!(s.is_finished());
    check_observability(s.events()).unwrap();
    let escalations: Vec<(u32, Vec<String>)> = s
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Escalated { llm_call, failed, .. } => Some((*llm_call, failed.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(escalations, [(1, vec!["a".to_string()]), (1, vec!["a".to_string(), "b".to_string()])]);
    assert_eq!(s.llm_calls(), 1);
}

/// fuzz/corpus/session_ops/regress-start-tool-down: the start node was itself a tool, its quota
/// (1 call an hour) was spent by a call that failed and was to be retried. The start is entered
/// without an edge, so its infinite weight never reached the search: every plan started on it,
/// the health monitor said "down, reroute", and the session gave up with "session made no
/// progress". A start tool that is down is now no place to start from: no path, an escalation.
#[test]
fn a_start_tool_that_is_down_is_routed_around_or_escalated() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"a","quota":1},{"id":"done","tool":false}],
            "edges":[{"from":"a","to":"done"}],"start":"a","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!("no call") };
    assert_eq!(calls[0].tool, "a");
    s.report("a", ToolResult::transient("503"), 1).unwrap();
    match s.next(2) {
        Action::Escalate { request } => assert_eq!(request.reason, EscalationReason::NoPath),
        other => panic!("{other:?}"),
    }
    // An hour later the quota is back and the retry goes ahead.
    s.resolve_escalation(Decision::Approve, 2).unwrap();
    let hour = 60 * 60 * 1000;
    let Action::CallTools { calls } = s.next(hour + 2) else { panic!("no retry after the quota window") };
    assert_eq!((calls[0].tool.as_str(), calls[0].attempt), ("a", 2));
    s.report("a", ToolResult::ok(json!({}), 1.0), hour + 3).unwrap();
    let Action::Finished { outcome } = s.next(hour + 3) else { panic!("not finished") };
    assert_eq!(outcome.status, Status::Completed);
    check_observability(s.events()).unwrap();
}

/// fuzz/corpus/session_ops/regress-plan-while-redirected-call-out: the host redirected to `x`,
/// the session planned and dispatched `a` while `x` was still out, `x` failed and `a` finished
/// the task: `x`'s failure had no answer. Failures still pending when the goal is reached are
/// answered as the run went: around them (see also the soak case below).
#[test]
fn a_redirected_call_failing_while_the_plan_finishes_is_answered() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"x"},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"a","to":"done"},
                     {"from":"start","to":"x","cost":5},{"from":"x","to":"done"}],
            "start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    assert_eq!(s.redirect("x", 0).unwrap().tool, "x");
    let Action::CallTools { calls } = s.next(1) else { panic!("no call") };
    assert_eq!(calls[0].tool, "a");
    s.report("x", ToolResult::outage("down"), 2).unwrap();
    s.report("a", ToolResult::ok(json!({}), 1.0), 3).unwrap();
    let Action::Finished { outcome } = s.next(3) else { panic!("not finished") };
    assert_eq!(outcome.status, Status::Completed);
    check_observability(s.events()).unwrap();
    assert!(s
        .events()
        .iter()
        .any(|e| matches!(&e.kind, EventKind::Rerouted { around, .. } if around == &["x"])));
}
