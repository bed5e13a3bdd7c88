//! Monitors and priority competition: each built-in monitor's signal, the fixed tie-break, and
//! that the winner decides what happens.

use serde_json::json;
use shr_core::event::EventKind;
use shr_core::monitor::{compete, MonitorKind, Signal, SignalKind};
use shr_eval::scenario::{self, Executor};

fn sig(source: MonitorKind, priority: f64) -> Signal {
    Signal { source, priority, kind: SignalKind::Intent { intent: "x".into() } }
}

#[test]
fn the_highest_priority_wins_and_ties_go_to_the_fixed_order() {
    let s = [sig(MonitorKind::Intent, 0.9), sig(MonitorKind::Risk, 0.95), sig(MonitorKind::ToolHealth, 0.99)];
    assert_eq!(compete(&s), Some(2));
    let tie = [sig(MonitorKind::Intent, 0.9), sig(MonitorKind::Memory, 0.9), sig(MonitorKind::Risk, 0.9)];
    assert_eq!(compete(&tie), Some(2), "risk before memory before intent");
    assert_eq!(compete(&[]), None);
}

fn winners(id: &str, context: Option<(&str, serde_json::Value)>) -> (Vec<SignalKind>, Vec<String>) {
    let mut s = scenario::get(id).unwrap();
    if let Some((k, v)) = context {
        s.task.context.insert(k.into(), v);
    }
    let r = scenario::run(&s, Executor::Shr);
    let won = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SignalWon { signal } => Some(signal.kind.clone()),
            _ => None,
        })
        .collect();
    let called = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCalled { tool, .. } => Some(tool.clone()),
            _ => None,
        })
        .collect();
    (won, called)
}

#[test]
fn intent_keywords_raise_the_routine_signal() {
    let (won, _) = winners("S1", None);
    assert!(won.iter().all(|k| matches!(k, SignalKind::Intent { intent } if intent == "refund")), "{won:?}");
    let (won, _) = winners("S1", Some(("request", json!("hello"))));
    assert!(won.iter().all(|k| matches!(k, SignalKind::Intent { intent } if intent == "proceed")));
}

#[test]
fn memory_of_a_known_bad_tool_reroutes_before_calling_it() {
    let (won, called) = winners("S1", Some(("known_bad", json!(["stripe"]))));
    assert!(won.iter().any(|k| matches!(k, SignalKind::KnownBad { tool } if tool == "stripe")));
    assert_eq!(called, ["crm", "razorpay", "email"], "stripe avoided without a failed call");
}

#[test]
fn every_signal_is_an_event_and_each_decision_point_has_one_winner() {
    let r = scenario::run(&scenario::get("S4").unwrap(), Executor::Shr);
    let raised = r.events.iter().filter(|e| matches!(e.kind, EventKind::SignalRaised { .. })).count();
    let won = r.events.iter().filter(|e| matches!(e.kind, EventKind::SignalWon { .. })).count();
    assert!(raised > won && won >= 2, "raised {raised}, won {won}");
    // At the payment step both intent (0.90) and risk (0.95) are raised; risk wins.
    let kinds: Vec<&SignalKind> = r
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SignalRaised { signal } => Some(&signal.kind),
            _ => None,
        })
        .collect();
    assert!(kinds
        .iter()
        .any(|k| matches!(k, SignalKind::Risk { value, max, .. } if *value == 15000.0 && *max == 10000.0)));
}

#[test]
fn a_tool_whose_breaker_is_open_from_earlier_tasks_is_routed_around() {
    use shr_core::drive::FnHost;
    use shr_core::{drive, Call, EscalationRequest, Performed, Router, Task};
    let s = scenario::get("S1").unwrap();
    let g = s.graph.clone();
    let email = g.index("email").unwrap();
    let mut router = Router::new(g);
    router.mark_down(email, 0);
    let mut run = router.start(Task::default(), 10).unwrap();
    let mut calls = Vec::new();
    let all_well = |c: &Call| {
        calls.push(c.tool.clone());
        Performed { result: shr_core::ToolResult::ok(json!({}), 1.0), latency_ms: 0 }
    };
    drive(&mut router, &mut run, &mut FnHost::new(all_well, |r: &EscalationRequest| panic!("{r:?}")), 10);
    assert_eq!(calls, ["crm", "stripe", "sms"]);
}
