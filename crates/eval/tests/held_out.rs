//! Held-out correctness cases that live in the lab: each one a regression test.

use shr_core::drive::FnHost;
use shr_core::{Decision, EscalationRequest, Performed, Session, Task, ToolResult};
use shr_eval::scenario::{self, Executor, Scenario};

/// A service error's recovery text reaches the LLM when no path is left, as an input error's
/// does (seed 003).
#[test]
fn a_service_errors_agent_action_travels_into_the_escalation() {
    let graph = scenario::domains().unwrap().remove(0).graph;
    let mut session = Session::new(graph, Task::default(), 0).unwrap();
    let mut asked: Vec<EscalationRequest> = Vec::new();
    let mut host = FnHost::new(
        |call| {
            let result = match call.tool.as_str() {
                "stripe" | "razorpay" => ToolResult::outage("503")
                    .with_agent_action(format!("{} is in maintenance until 14:00", call.tool)),
                _ => ToolResult::ok(serde_json::json!({"ok": true}), 1.0),
            };
            Performed { result, latency_ms: 1 }
        },
        |request| {
            asked.push(request.clone());
            Decision::Abort { message: "stop".into() }
        },
    );
    session.drive(&mut host, 0);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].agent_action.as_deref(), Some("razorpay is in maintenance until 14:00"));
}

/// An imported graph's expected outcome is only "reach the goal": the router's route is not
/// held against an empty expected path.
#[test]
fn an_imported_graph_is_judged_on_its_goal_not_on_an_empty_path() {
    let graph = scenario::domains().unwrap().remove(0).graph;
    let r = scenario::run(&Scenario::from_graph(graph), Executor::Shr);
    assert!(r.correct, "{:?}", r.problems);
}
