//! Cyclic workflows (seed 004): guards, revisits, the visit and tool budgets, thrash detection
//! and control-flow fault injection.

use serde_json::json;
use shr_core::check_observability;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::monitor::repeated_cycle;
use shr_core::{
    Action, Call, Decision, EscalationReason, EscalationRequest, Performed, Session, SessionConfig,
    SignalKind, Task, ToolGraph, ToolResult,
};
use shr_eval::cyclic::{self, CyclicMetrics};

fn search_verify() -> ToolGraph {
    cyclic::examples().into_iter().find(|e| e.id == "search_verify").unwrap().graph
}

/// Drives a session where `verify` answers from `verdicts` in turn.
fn drive(graph: ToolGraph, config: SessionConfig, verdicts: &[&str]) -> Session {
    let mut s = Session::with_parts(graph.clone(), Task::default(), config, shr_core::Monitors::default(), 0)
        .unwrap();
    let mut verdicts = verdicts.iter();
    let verify = |c: &Call| {
        let out = match c.tool.as_str() {
            "verify" => {
                let v = verdicts.next().copied().unwrap_or("found");
                json!({ "found": v == "found", "status": v })
            }
            _ => json!({ "ok": true }),
        };
        Performed { result: ToolResult::ok(out, 5.0), latency_ms: 10 }
    };
    s.drive(&mut FnHost::new(verify, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }), 0);
    check_observability(s.events()).unwrap();
    s
}

#[test]
fn a_failed_guard_sends_the_task_back_and_revisits_count_as_new_visits() {
    let s = drive(search_verify(), SessionConfig::default(), &["not_here", "found"]);
    let o = s.outcome().unwrap();
    assert_eq!(o.path, ["start", "search", "verify", "search", "verify", "take", "done"]);
    assert_eq!(o.revisits, 2);
    let revisited: Vec<(String, u32)> = s
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Revisited { tool, visit } => Some((tool.clone(), *visit)),
            _ => None,
        })
        .collect();
    assert_eq!(revisited, [("search".to_string(), 2), ("verify".to_string(), 2)]);
}

#[test]
fn guards_choose_between_branches() {
    // "lost" takes the repair edge, not the plain search edge.
    let s = drive(search_verify(), SessionConfig::default(), &["lost", "found"]);
    assert_eq!(
        s.outcome().unwrap().path,
        ["start", "search", "verify", "repair", "search", "verify", "take", "done"]
    );
}

#[test]
fn guard_semantics() {
    let g = shr_core::graph::Guard { field: "a.b".into(), equals: json!(3), negate: false };
    assert!(g.holds(&json!({"a": {"b": 3}})));
    assert!(!g.holds(&json!({"a": {"b": 4}})));
    assert!(!g.holds(&json!({})));
    let not = shr_core::graph::Guard { negate: true, ..g };
    assert!(not.holds(&json!({"a": {"b": 4}})));
}

#[test]
fn the_visit_budget_escalates_with_reason_budget() {
    let config = SessionConfig { visit_budget: 2, ..SessionConfig::default() };
    let s = drive(search_verify(), config, &["not_here", "not_here", "found"]);
    let reasons: Vec<EscalationReason> = s
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Escalated { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, [EscalationReason::Budget]);
    assert_eq!(s.tool_calls(), 4, "two visits each of search and verify, never a third");
}

#[test]
fn the_tool_call_budget_escalates_with_reason_budget() {
    let config = SessionConfig { tool_budget: 3, ..SessionConfig::default() };
    let s = drive(search_verify(), config, &["not_here", "found"]);
    assert!(s.events().iter().any(|e| matches!(
        &e.kind,
        EventKind::SignalWon { signal } if matches!(signal.kind, SignalKind::Budget { .. })
    )));
    assert!(s.tool_calls() <= 3);
}

#[test]
fn thrashing_raises_a_progress_signal_and_escalates() {
    let config = SessionConfig { visit_budget: 10, ..SessionConfig::default() };
    let s = drive(search_verify(), config, &["not_here"; 10]);
    let thrash = s.events().iter().find_map(|e| match &e.kind {
        EventKind::SignalWon { signal } => match &signal.kind {
            SignalKind::Thrash { cycle, repeats } => Some((cycle.clone(), *repeats)),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(thrash, Some((vec!["search".to_string(), "verify".to_string()], 3)));
    assert_eq!(s.tool_calls(), 6, "stopped after the third repeat, not at the visit budget");
}

#[test]
fn repeated_cycle_detection() {
    assert_eq!(repeated_cycle(&[1, 2, 1, 2, 1, 2], 3), Some(&[1, 2][..]));
    assert_eq!(repeated_cycle(&[0, 1, 2, 1, 2], 3), None);
    assert_eq!(repeated_cycle(&[1, 1, 1, 1, 1, 1], 3), None, "a cycle has distinct tools");
    assert_eq!(repeated_cycle(&[5, 1, 2, 3, 1, 2, 3, 1, 2, 3], 3), Some(&[1, 2, 3][..]));
}

#[test]
fn redirects_are_recovered_from_and_change_only_the_call_count() {
    let ex = cyclic::examples().into_iter().find(|e| e.id == "prerequisites").unwrap();
    let nominal = CyclicMetrics::of(&(0..50).map(|s| cyclic::run(&ex, 0.0, s)).collect::<Vec<_>>());
    assert_eq!((nominal.sr, nominal.tc, nominal.asr), (1.0, 4.0, 0.0));
    let faulty: Vec<_> = (0..50).map(|s| cyclic::run(&ex, 0.25, s)).collect();
    assert!(faulty.iter().any(|r| r.redirects > 0));
    let m = CyclicMetrics::of(&faulty);
    assert!(m.tc > nominal.tc, "redirects cost extra calls");
    assert!(m.asr > 0.0, "recovery revisits earlier steps");
    // Deterministic: same seed, same run.
    assert_eq!(cyclic::run(&ex, 0.25, 7), cyclic::run(&ex, 0.25, 7));
}

#[test]
fn a_redirect_names_unknown_tools_as_errors() {
    let mut s = Session::new(search_verify(), Task::default(), 0).unwrap();
    let Action::CallTools { .. } = s.next(0) else { panic!() };
    assert!(s.redirect("nowhere", 1).is_err());
    let call = s.redirect("take", 1).unwrap();
    assert_eq!(call.tool, "take");
    assert!(s.report("search", ToolResult::ok(json!({}), 1.0), 2).is_err(), "the cancelled call is gone");
}

#[test]
fn bench_rows_cover_both_examples_at_three_probabilities() {
    let rows = cyclic::bench(&[0.0, 0.25, 0.5], 20);
    assert_eq!(rows.len(), 12, "both examples, three probabilities, SHR and the ReAct agent");
    assert_eq!(rows.iter().filter(|r| r.executor == "ReAct").count(), 6);
    for r in rows.iter().filter(|r| r.p == 0.0) {
        assert_eq!(r.srr, 1.0);
        assert_eq!(r.delta_tc, 0.0);
    }
}
