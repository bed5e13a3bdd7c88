//! The binary observability guarantee (DESIGN section 7) is checked strictly: a `ToolFailed` is
//! answered only by a `Retried` of that tool, a `Rerouted` whose `around` names it, or an
//! `Escalated` whose `failed` names it. And runs meet it without synthetic events.

use serde_json::json;
use shr_core::event::{Event, EventKind, PlanView};
use shr_core::{
    check_observability, Action, Category, Decision, EscalationReason, Session, Status, Task, ToolGraph,
    ToolResult,
};

fn failed(seq: u32, tool: &str) -> Event {
    Event {
        seq,
        at: 0,
        kind: EventKind::ToolFailed {
            tool: tool.into(),
            category: Category::Service,
            implicit: false,
            transient: false,
            message: "down".into(),
            agent_action: None,
        },
    }
}

fn rerouted(seq: u32, around: &[&str]) -> Event {
    let plan = PlanView::default();
    Event {
        seq,
        at: 0,
        kind: EventKind::Rerouted {
            from_plan: plan.clone(),
            to_plan: plan,
            around: around.iter().map(|s| s.to_string()).collect(),
            abandoned: vec![],
        },
    }
}

fn escalated(seq: u32, failed: &[&str]) -> Event {
    Event {
        seq,
        at: 0,
        kind: EventKind::Escalated {
            reason: EscalationReason::NoPath,
            goal: "done".into(),
            failed: failed.iter().map(|s| s.to_string()).collect(),
            completed: vec![],
            agent_action: None,
            llm_call: 1,
        },
    }
}

#[test]
fn a_failure_answered_only_for_another_tool_breaches_the_guarantee() {
    let breach = |events: &[Event]| check_observability(events).map_err(|b| (b.seq, b.tool));
    // A reroute around another tool does not answer this failure.
    assert_eq!(breach(&[failed(0, "a"), rerouted(1, &["b"])]), Err((0, "a".into())));
    // Nor does an escalation that does not name it, nor a retry of another tool.
    assert_eq!(breach(&[failed(0, "a"), escalated(1, &[])]), Err((0, "a".into())));
    let retry_b =
        Event { seq: 1, at: 0, kind: EventKind::Retried { tool: "b".into(), attempt: 2, not_before: 0 } };
    assert_eq!(breach(&[failed(0, "a"), retry_b]), Err((0, "a".into())));
    // An answer before the failure is no answer.
    assert_eq!(breach(&[rerouted(0, &["a"]), failed(1, "a")]), Err((1, "a".into())));
    // Each failure needs its own answer.
    assert_eq!(breach(&[failed(0, "a"), failed(1, "b"), rerouted(2, &["a"])]), Err((1, "b".into())));
    assert_eq!(breach(&[failed(0, "a"), failed(1, "b"), rerouted(2, &["a", "b"])]), Ok(()));
    assert_eq!(breach(&[failed(0, "a"), escalated(1, &["a"])]), Ok(()));
}

/// A call of an abandoned plan fails while the demoted goal is being reached: the failure is
/// routed around (a real reroute, from where execution stands) before the task finishes. It used
/// to be answered by a `Rerouted` whose two plans were the same, emitted only to pass the check.
#[test]
fn a_failure_pending_when_the_goal_is_reached_is_routed_around_first() {
    let graph = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"b"},{"id":"ticket"},
                     {"id":"both","tool":false,"join":{"quorum":2}},{"id":"done","tool":false}],
            "edges":[{"from":"start","to":"a"},{"from":"start","to":"b"},{"from":"a","to":"both"},
                     {"from":"b","to":"both"},{"from":"both","to":"done"},{"from":"start","to":"ticket","cost":9}],
            "start":"start","goal":"done"}"#,
    )
    .unwrap();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let Action::CallTools { calls } = s.next(0) else { panic!("no calls") };
    assert_eq!(calls.len(), 2, "both branches at once");
    // `a` refuses its input: the LLM is asked while `b` is still out.
    s.report("a", ToolResult::failed(Category::Input, "bad arguments"), 1).unwrap();
    let Action::Escalate { .. } = s.next(1) else { panic!("no escalation") };
    s.resolve_escalation(Decision::Demote { goal: "ticket".into() }, 2).unwrap();
    let Action::CallTools { calls } = s.next(2) else { panic!("no call for the demoted goal") };
    assert_eq!(calls[0].tool, "ticket");
    // `b`, of the abandoned plan, fails; then the demoted goal is reached.
    s.report("b", ToolResult::outage("down"), 3).unwrap();
    s.report("ticket", ToolResult::ok(json!({}), 1.0), 4).unwrap();
    let Action::Finished { outcome } = s.next(4) else { panic!("not finished") };
    assert_eq!(outcome.status, Status::Demoted);
    check_observability(s.events()).unwrap();
    let around_b: Vec<&EventKind> = s
        .events()
        .iter()
        .map(|e| &e.kind)
        .filter(|k| matches!(k, EventKind::Rerouted { around, .. } if !around.is_empty()))
        .collect();
    assert_eq!(around_b.len(), 1);
    let EventKind::Rerouted { from_plan, to_plan, around, .. } = around_b[0] else { unreachable!() };
    assert_eq!(around, &["b"]);
    assert_ne!(from_plan, to_plan, "a real reroute, not a synthetic one");
}
