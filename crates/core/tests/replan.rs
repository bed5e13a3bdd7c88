//! Replanning from any completed node (issue 30): a dead end after completed work costs no LLM
//! call while a healthy path from earlier work exists; side effects branched back past are
//! compensated first (saga), and never branched back past when nothing can undo them.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::json;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::{
    check_observability, Call, Decision, EscalationReason, EscalationRequest, Monitors, Performed,
    ReplanFrom, Session, SessionConfig, Status, Task, ToolGraph, ToolResult,
};

/// Layers of tools between `s` and `g`; `edges[l][i][j]`: tool i of layer l leads to tool j of
/// layer l+1 (every tool of the first layer follows `s`, every tool of the last leads to `g`).
#[derive(Clone, Debug)]
struct Layered {
    widths: Vec<usize>,
    edges: Vec<Vec<Vec<bool>>>,
    costs: Vec<u8>,
}

fn id(l: usize, i: usize) -> String {
    format!("t{l}_{i}")
}

impl Layered {
    fn graph(&self) -> ToolGraph {
        let mut nodes = vec![json!({"id": "s", "tool": false})];
        let mut edges = Vec::new();
        let mut k = 0;
        for (l, &w) in self.widths.iter().enumerate() {
            for i in 0..w {
                nodes.push(json!({"id": id(l, i)}));
                if l == 0 {
                    edges.push(json!({"from": "s", "to": id(l, i), "cost": 1}));
                }
                if l + 1 == self.widths.len() {
                    edges.push(json!({"from": id(l, i), "to": "g", "cost": 1}));
                } else {
                    for j in 0..self.widths[l + 1] {
                        if self.edges[l][i][j] {
                            let cost = 1 + self.costs[k % self.costs.len()] % 5;
                            k += 1;
                            edges.push(json!({"from": id(l, i), "to": id(l + 1, j), "cost": cost}));
                        }
                    }
                }
            }
        }
        nodes.push(json!({"id": "g", "tool": false}));
        let text = json!({"nodes": nodes, "edges": edges, "start": "s", "goal": "g"}).to_string();
        ToolGraph::from_json(&text).unwrap()
    }
}

fn layered() -> impl Strategy<Value = Layered> {
    prop::collection::vec(2usize..=4, 3..=5).prop_flat_map(|widths| {
        let edges = (0..widths.len() - 1)
            .map(|l| {
                prop::collection::vec(
                    prop::collection::vec(prop::bool::weighted(0.6), widths[l + 1]),
                    widths[l],
                )
            })
            .collect::<Vec<_>>();
        (Just(widths), edges, prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(widths, edges, costs)| Layered { widths, edges, costs })
    })
}

/// Whether a path of tools not in `failed` leads from any of `from` to the goal without entering
/// a completed node (completed work is never entered again, only left).
fn oracle_path(g: &ToolGraph, from: &[usize], failed: &BTreeSet<usize>, completed: &BTreeSet<usize>) -> bool {
    let mut seen: BTreeSet<usize> = from.iter().copied().collect();
    let mut stack: Vec<usize> = from.to_vec();
    while let Some(u) = stack.pop() {
        if u == g.goal() {
            return true;
        }
        for &e in g.out_edges(u) {
            let v = g.edge(e as usize).to;
            if failed.contains(&v) || completed.contains(&v) || !seen.insert(v) {
                continue;
            }
            stack.push(v);
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// With the `completed` policy and no side effects, a run escalates `no_path` only when no
    /// healthy path to the goal leaves any of its completed nodes (checked by a search of its
    /// own at the moment of the escalation).
    #[test]
    fn no_llm_call_while_a_path_from_completed_work_exists(case in layered(), down in prop::collection::vec(any::<u8>(), 1..4)) {
        let g = case.graph();
        let tools: Vec<usize> = (0..g.node_count()).filter(|&v| g.node(v).tool).collect();
        let failing: BTreeSet<usize> = down.iter().map(|d| tools[*d as usize % tools.len()]).collect();
        let mut s = Session::new(g.clone(), Task::default(), 0).unwrap();
        let mut checks = Vec::new();
        let call = |c: &Call| {
            let v = g.index(&c.tool).unwrap();
            let result = if failing.contains(&v) { ToolResult::outage("down") } else { ToolResult::ok(json!({}), 1.0) };
            Performed { result, latency_ms: 1 }
        };
        let escalate = |r: &EscalationRequest| {
            checks.push(r.clone());
            Decision::Abort { message: "stop".into() }
        };
        s.drive(&mut FnHost::new(call, escalate), 0);
        check_observability(s.events()).unwrap();
        for r in checks {
            prop_assert_eq!(r.reason, EscalationReason::NoPath);
            let completed: BTreeSet<usize> = r.completed.iter().map(|id| g.index(id).unwrap()).collect();
            let failed: BTreeSet<usize> = r.failed.iter().map(|id| g.index(id).unwrap()).collect();
            let from: Vec<usize> = completed.iter().copied().collect();
            prop_assert!(!oracle_path(&g, &from, &failed, &completed),
                "escalated although a healthy path leaves completed work: {:?}", r);
        }
    }
}

/// `s -> charge -> notify -> done` and `s -> charge -> ship -> done`... in short: a pipeline
/// whose second step dead-ends, with an alternative branching from the start.
fn saga(charge: &str) -> ToolGraph {
    ToolGraph::from_json(&format!(
        r#"{{"nodes":[{{"id":"s","tool":false}},{{"id":"charge"{charge}}},{{"id":"refund"}},{{"id":"book"}},
                     {{"id":"invoice"}},{{"id":"voucher"}},{{"id":"done","tool":false}}],
            "edges":[{{"from":"s","to":"charge","cost":1}},{{"from":"charge","to":"book","cost":1}},
                     {{"from":"book","to":"done","cost":1}},{{"from":"s","to":"voucher","cost":5}},
                     {{"from":"voucher","to":"invoice","cost":1}},{{"from":"invoice","to":"done","cost":1}}],
            "start":"s","goal":"done"}}"#
    ))
    .unwrap()
}

fn run_saga(g: ToolGraph, refund_fails: bool) -> (Session, Vec<String>) {
    let mut s = Session::new(g, Task::default(), 0).unwrap();
    let mut called = Vec::new();
    let call = |c: &Call| {
        called.push(c.tool.clone());
        let result = match c.tool.as_str() {
            "book" => ToolResult::outage("no seats"),
            "refund" if refund_fails => ToolResult::outage("refund API down"),
            _ => ToolResult::ok(json!({}), 1.0),
        };
        Performed { result, latency_ms: 1 }
    };
    s.drive(&mut FnHost::new(call, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }), 0);
    check_observability(s.events()).unwrap();
    (s, called)
}

#[test]
fn a_side_effect_branched_back_past_is_compensated_first() {
    let (s, called) = run_saga(saga(r#","side_effect":true,"compensate":"refund""#), false);
    assert_eq!(
        called,
        ["charge", "book", "refund", "voucher", "invoice"],
        "the refund runs before the new branch"
    );
    let o = s.outcome().unwrap();
    assert_eq!((o.status, o.llm_calls), (Status::Completed, 0));
    let names: Vec<&str> = s.events().iter().map(|e| e.kind.name()).collect();
    let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(at("Rerouted") < at("Compensated"));
    assert!(s.events().iter().any(|e| matches!(&e.kind,
        EventKind::Compensated { tool, by } if tool == "charge" && by == "refund")));
    assert!(s.events().iter().any(|e| matches!(&e.kind,
        EventKind::Rerouted { abandoned, .. } if abandoned == &["charge"])));
}

#[test]
fn a_failing_compensation_escalates_and_says_the_side_effect_stands() {
    let (s, called) = run_saga(saga(r#","side_effect":true,"compensate":"refund""#), true);
    assert_eq!(called, ["charge", "book", "refund"]);
    let escalations: Vec<_> = s
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Escalated { reason, agent_action, failed, .. } => {
                Some((*reason, agent_action.clone(), failed.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(escalations.len(), 1);
    let (reason, action, failed) = &escalations[0];
    assert_eq!(*reason, EscalationReason::Compensation);
    assert!(
        action.as_deref().is_some_and(|a| a.contains("charge") && a.contains("side effect stands")),
        "{action:?}"
    );
    assert!(failed.contains(&"refund".to_string()));
    assert_eq!(s.outcome().unwrap().status, Status::Escalated);
}

#[test]
fn a_side_effect_with_no_compensation_is_never_branched_back_past() {
    let (s, called) = run_saga(saga(r#","side_effect":true"#), false);
    assert_eq!(called, ["charge", "book"], "no call of the other branch");
    let request = s
        .events()
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Escalated { reason, agent_action, .. } => Some((*reason, agent_action.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(request.0, EscalationReason::NoPath);
    assert!(
        request.1.as_deref().is_some_and(|a| a.contains("`charge`") && a.contains("no `compensate`")),
        "{request:?}"
    );
    // Without a side effect the same graph branches back and finishes with no LLM call.
    let (s, called) = run_saga(saga(""), false);
    assert_eq!(called, ["charge", "book", "voucher", "invoice"]);
    assert_eq!(s.outcome().unwrap().llm_calls, 0);
    // And the `tip` policy keeps the old behaviour: an escalation.
    let config = SessionConfig { replan_from: ReplanFrom::Tip, ..SessionConfig::default() };
    let mut s = Session::with_parts(saga(""), Task::default(), config, Monitors::default(), 0).unwrap();
    let call = |c: &Call| Performed {
        result: if c.tool == "book" {
            ToolResult::outage("no seats")
        } else {
            ToolResult::ok(json!({}), 1.0)
        },
        latency_ms: 1,
    };
    s.drive(&mut FnHost::new(call, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }), 0);
    assert_eq!(s.outcome().unwrap().llm_calls, 1);
}

#[test]
fn a_compensate_that_is_not_a_tool_is_refused() {
    let err = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a","side_effect":true,"compensate":"ghost"},{"id":"g","tool":false}],
            "edges":[{"from":"s","to":"a"},{"from":"a","to":"g"}],"start":"s","goal":"g"}"#,
    )
    .unwrap_err();
    assert!(err.problems.iter().any(|p| p.at == "a" && p.message.contains("ghost")), "{err}");
}
