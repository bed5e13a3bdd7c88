//! The fault model beyond outages: seed 003's structured error categories (golden event
//! streams), validators catching implicit failures, and the ToolMaze matrix properties.

use serde_json::json;
use shr_core::check_observability;
use shr_core::drive::FnHost;
use shr_core::event::to_json_lines;
use shr_core::{
    Call, Category, Decision, EscalationReason, EscalationRequest, Performed, Session, Status, Task,
    ToolFailure, ToolGraph, ToolResult,
};
use shr_eval::perturb::{self, Complexity, Mode};

/// start -> book (retry 2) | book_alt (cost 3) -> done. `book` validates its output.
fn graph() -> ToolGraph {
    ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},
            {"id":"book","retry":{"attempts":2,"backoff_ms":100},
             "validators":[{"field":"slots","non_empty":true},{"field":"count","min":0}]},
            {"id":"book_alt"},{"id":"done","tool":false}],
           "edges":[{"from":"start","to":"book"},{"from":"start","to":"book_alt","cost":3},
                    {"from":"book","to":"done"},{"from":"book_alt","to":"done"}],
           "start":"start","goal":"done"}"#,
    )
    .unwrap()
}

fn fail(category: Category, transient: bool, message: &str, agent_action: Option<&str>) -> ToolResult {
    ToolResult::Err(ToolFailure {
        category,
        transient,
        message: message.into(),
        agent_action: agent_action.map(String::from),
        latency_ms: 5.0,
    })
}

/// Drives the graph: `book` answers from `script` in turn, `book_alt` always succeeds;
/// escalations get `decision`.
fn drive(graph: ToolGraph, mut script: Vec<ToolResult>, decision: Decision) -> Session {
    script.reverse();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let call = |c: &Call| {
        let result = if c.tool == "book" {
            script.pop().unwrap_or_else(|| ToolResult::ok(json!({"slots": [1], "count": 1}), 5.0))
        } else {
            ToolResult::ok(json!({}), 5.0)
        };
        Performed { result, latency_ms: 10 }
    };
    s.drive(&mut FnHost::new(call, |_: &EscalationRequest| decision.clone()), 0);
    check_observability(s.events()).unwrap();
    s
}

fn golden(name: &str, s: &Session) {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/errors_{name}.jsonl"));
    let got = to_json_lines(s.events());
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "{name} differs from {}", path.display());
}

const ASK_DATE: &str = "The date format was not recognized. Ask the patient to provide the date in Month Day format, for example 'July 15th'.";

#[test]
fn input_error_escalates_with_agent_action_verbatim_and_is_terminal_on_abort() {
    let s = drive(
        graph(),
        vec![fail(Category::Input, false, "invalid_date_format", Some(ASK_DATE))],
        Decision::Abort { message: "asked the patient".into() },
    );
    let req = s.events().iter().find_map(|e| match &e.kind {
        shr_core::EventKind::Escalated { reason, agent_action, .. } => Some((*reason, agent_action.clone())),
        _ => None,
    });
    assert_eq!(req, Some((EscalationReason::Input, Some(ASK_DATE.to_string()))));
    assert_eq!(s.outcome().unwrap().status, Status::Escalated);
    assert_eq!(s.tool_calls(), 1, "terminal escalation: no further tool calls");
    assert_eq!(s.health().state(1), shr_core::BreakerState::Closed, "input errors never trip a breaker");
    golden("input", &s);
}

#[test]
fn transient_service_error_is_retried_then_succeeds() {
    let s = drive(graph(), vec![ToolResult::transient("api_timeout")], Decision::Approve);
    let o = s.outcome().unwrap();
    assert_eq!(o.path, ["start", "book", "done"]);
    assert_eq!(o.retries, 1);
    golden("service_transient", &s);
}

#[test]
fn exhausted_retries_reroute_to_the_alternative() {
    let t = || ToolResult::transient("api_timeout");
    let s = drive(graph(), vec![t(), t(), t()], Decision::Approve);
    let o = s.outcome().unwrap();
    assert_eq!(o.path, ["start", "book_alt", "done"]);
    assert_eq!((o.retries, o.reroutes), (2, 1));
    golden("service_exhausted", &s);
}

#[test]
fn permanent_service_error_skips_retries() {
    let s = drive(
        graph(),
        vec![fail(Category::Service, false, "AccountQuotaExhausted", None)],
        Decision::Approve,
    );
    let o = s.outcome().unwrap();
    assert_eq!((o.retries, o.reroutes), (0, 1));
    assert_eq!(o.path, ["start", "book_alt", "done"]);
}

#[test]
fn policy_error_reroutes_to_an_alternative() {
    let action = "The patient is out-of-network; offer a referral to an in-network provider.";
    let s = drive(
        graph(),
        vec![fail(Category::Policy, false, "out_of_network", Some(action))],
        Decision::Approve,
    );
    assert_eq!(s.outcome().unwrap().path, ["start", "book_alt", "done"]);
    golden("policy_reroute", &s);
}

#[test]
fn policy_error_without_alternative_escalates_with_reason_policy() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"book"},{"id":"done","tool":false}],
           "edges":[{"from":"start","to":"book"},{"from":"book","to":"done"}],"start":"start","goal":"done"}"#,
    )
    .unwrap();
    let action = "Let them know they can still be seen but will have higher cost-sharing.";
    let s = drive(
        g,
        vec![fail(Category::Policy, false, "out_of_network", Some(action))],
        Decision::Abort { message: "told the patient".into() },
    );
    let esc = s.events().iter().find_map(|e| match &e.kind {
        shr_core::EventKind::Escalated { reason, agent_action, .. } => Some((*reason, agent_action.clone())),
        _ => None,
    });
    assert_eq!(esc, Some((EscalationReason::Policy, Some(action.to_string()))));
    assert_eq!(s.outcome().unwrap().status, Status::Escalated);
    golden("policy_escalate", &s);
}

#[test]
fn a_result_failing_its_validator_is_an_implicit_failure() {
    let wrong = ToolResult::ok(json!({"slots": [], "count": 0}), 5.0);
    let s = drive(graph(), vec![wrong.clone(), wrong.clone(), wrong], Decision::Approve);
    let implicit = s
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, shr_core::EventKind::ToolFailed { implicit: true, .. }))
        .count();
    assert_eq!(implicit, 3);
    assert_eq!(s.outcome().unwrap().path, ["start", "book_alt", "done"]);
    golden("implicit", &s);
}

#[test]
fn with_validators_prr_is_full_and_tasks_without_alternative_escalate() {
    for c in Complexity::ALL {
        for seed in 0..30 {
            let task = perturb::generate(c, seed);
            for mode in [Mode::P1, Mode::P2, Mode::P3, Mode::P4] {
                let r = perturb::run_task(&task, mode, true);
                assert!(r.perturbed, "{} {mode:?}", task.id);
                assert!(r.recovered, "{} {mode:?}: not recovered", task.id);
                if task.has_alternative || !mode.permanent() {
                    assert!(r.success, "{} {mode:?}: a healthy alternative existed", task.id);
                } else {
                    assert!(r.escalated && !r.success, "{} {mode:?}: must escalate, never continue", task.id);
                }
            }
        }
    }
}

#[test]
fn the_ablation_shows_the_implicit_failure_blind_spot() {
    let with = perturb::matrix("with", 20, 7, true);
    let without = perturb::matrix("without", 20, 7, false);
    for (mi, mode) in Mode::ALL.iter().enumerate() {
        for ci in 0..4 {
            let (a, b) = (with.cells[mi][ci], without.cells[mi][ci]);
            if mode.implicit() {
                assert!(b.prr.unwrap() < a.prr.unwrap(), "{mode:?}: ablation should drop PRR");
                assert!(b.tsr < a.tsr);
            } else {
                assert_eq!(a.tsr, b.tsr, "{mode:?}: explicit failures do not need validators");
            }
        }
    }
}

#[test]
fn generation_is_deterministic() {
    let a = perturb::generate(Complexity::C4, 11);
    let b = perturb::generate(Complexity::C4, 11);
    assert_eq!(a.spec, b.spec);
    assert_eq!(a.victim, b.victim);
    assert_ne!(perturb::generate(Complexity::C4, 12).spec, a.spec);
}
