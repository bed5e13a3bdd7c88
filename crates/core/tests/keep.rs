//! What a plan keeps and what it abandons, with joins and guards (issue 44): a side effect the
//! final plan builds on is never undone; an uncompensated side effect bars only the plans that
//! abandon it; a guarded graph branches back too; `outcome.path` is the executed path.

use serde_json::json;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::{
    check_observability, Call, Decision, EscalationRequest, Performed, Session, Status, Task, ToolGraph,
    ToolResult,
};

fn fixture(name: &str) -> ToolGraph {
    let path = format!("{}/tests/fixtures/replan/{name}.json", env!("CARGO_MANIFEST_DIR"));
    ToolGraph::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Drives `g` with `down` failing every call; returns the session and the tools called.
fn drive(g: ToolGraph, down: &[&str]) -> (Session, Vec<String>) {
    let mut s = Session::new(g, Task::default(), 0).unwrap();
    let mut called = Vec::new();
    let call = |c: &Call| {
        called.push(c.tool.clone());
        let result = if down.contains(&c.tool.as_str()) {
            ToolResult::outage("down")
        } else {
            ToolResult::ok(json!({"ok": true}), 1.0)
        };
        Performed { result, latency_ms: 1 }
    };
    s.drive(&mut FnHost::new(call, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }), 0);
    check_observability(s.events()).unwrap();
    (s, called)
}

fn compensated(s: &Session) -> Vec<String> {
    s.events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Compensated { tool, .. } => Some(tool.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_side_effect_the_new_plan_builds_on_is_not_undone() {
    let (s, called) = drive(fixture("join_keeps_side_effect"), &["X"]);
    assert!(!called.contains(&"RK".to_string()), "{called:?}");
    assert_eq!(compensated(&s), Vec::<String>::new());
    let o = s.outcome().unwrap();
    assert_eq!((o.status, o.llm_calls), (Status::Completed, 0));
    // The executed path is the one the final plan used; Q was branched back past.
    assert_eq!(o.path, ["s", "A", "K", "P", "Y", "J", "g"]);
    assert_eq!(o.abandoned, ["Q"]);
    assert_eq!((o.cost, o.sunk_cost), (11.0, 1.0));
}

#[test]
fn the_answer_does_not_depend_on_completion_order() {
    // K declared (so called and completed) before A: the same answer.
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/replan/join_keeps_side_effect.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["nodes"].as_array_mut().unwrap().swap(0, 1);
    v["edges"].as_array_mut().unwrap().swap(0, 2);
    let (s, _) = drive(ToolGraph::from_json(&v.to_string()).unwrap(), &["X"]);
    assert_eq!(compensated(&s), Vec::<String>::new());
    assert_eq!(s.outcome().unwrap().abandoned, ["Q"]);
}

#[test]
fn with_no_way_on_nothing_kept_is_undone() {
    // With X and Y down the join has one input left: an escalation, and K is not undone.
    let (s, called) = drive(fixture("join_keeps_side_effect"), &["X", "Y"]);
    let o = s.outcome().unwrap();
    assert_eq!(o.status, Status::Escalated, "{called:?}");
    assert_eq!(compensated(&s), Vec::<String>::new(), "nothing kept is undone on the way");
}

#[test]
fn an_uncompensated_side_effect_does_not_block_a_plan_that_keeps_it() {
    let (s, called) = drive(fixture("join_needs_side_effect"), &["B"]);
    let o = s.outcome().unwrap();
    assert_eq!((o.status, o.llm_calls), (Status::Completed, 0), "{called:?} {:?}", o.message);
    assert_eq!(called, ["A", "B", "J"]);
    assert_eq!(o.path, ["s", "A", "J", "g"]);
}

#[test]
fn a_guarded_graph_branches_back_from_completed_work() {
    let (s, called) = drive(fixture("guarded_branch_back"), &["X"]);
    let o = s.outcome().unwrap();
    assert_eq!((o.status, o.llm_calls), (Status::Completed, 0), "{called:?} {:?}", o.message);
    assert_eq!(o.path, ["s", "A", "Y", "g"]);
    assert_eq!(o.abandoned, ["B"]);
}

/// `s -> A (side effect, undone by UA) -> B -> C -> g`, `A -> E (e) -> g`, `s -> D (4) -> g`.
fn undo_or_keep(e: u32, undo_cost: u32) -> ToolGraph {
    let text = json!({
        "nodes": [{"id": "s", "tool": false}, {"id": "A", "side_effect": true, "compensate": "UA"},
                  {"id": "UA", "base_cost": undo_cost}, {"id": "B"}, {"id": "C"}, {"id": "D"}, {"id": "E"},
                  {"id": "g", "tool": false}],
        "edges": [{"from": "s", "to": "A", "cost": 1}, {"from": "A", "to": "B", "cost": 1},
                  {"from": "B", "to": "C", "cost": 1}, {"from": "C", "to": "g", "cost": 1},
                  {"from": "A", "to": "E", "cost": e}, {"from": "E", "to": "g", "cost": 1},
                  {"from": "s", "to": "D", "cost": 4}, {"from": "D", "to": "g", "cost": 1}],
        "start": "s", "goal": "g"
    });
    ToolGraph::from_json(&text.to_string()).unwrap()
}

#[test]
fn branching_back_weighs_what_undoing_costs() {
    // Keeping A costs 9 from A; abandoning it 5 plus its undo (10): A is kept.
    let (s, called) = drive(undo_or_keep(8, 10), &["C"]);
    assert_eq!(called, ["A", "B", "C", "E"]);
    assert_eq!(s.outcome().unwrap().path, ["s", "A", "E", "g"]);
    // With an undo of 1 the other way is cheaper: A is undone first, then D.
    let (s, called) = drive(undo_or_keep(8, 1), &["C"]);
    assert_eq!(called, ["A", "B", "C", "UA", "D"]);
    let o = s.outcome().unwrap();
    assert_eq!(
        (o.path.clone(), o.abandoned.clone()),
        (vec!["s".to_string(), "D".into(), "g".into()], vec!["A".to_string(), "B".into()])
    );
    assert_eq!(compensated(&s), ["A"]);
}

#[test]
fn a_join_keeps_side_effects_of_two_branches() {
    // A and B cannot be undone. After P fails the cheapest join is R and R2, both from A, which
    // abandons Q and with it B: the plan keeps both, one through each of the join's inputs.
    let text = json!({
        "nodes": [{"id": "s", "tool": false}, {"id": "A", "side_effect": true}, {"id": "B", "side_effect": true},
                  {"id": "P"}, {"id": "Q"}, {"id": "R"}, {"id": "R2"}, {"id": "J", "join": {"quorum": 2}},
                  {"id": "g", "tool": false}],
        "edges": [{"from": "s", "to": "A", "cost": 10}, {"from": "s", "to": "B", "cost": 1},
                  {"from": "A", "to": "P", "cost": 1}, {"from": "P", "to": "J", "cost": 1},
                  {"from": "B", "to": "Q", "cost": 1}, {"from": "Q", "to": "J", "cost": 3},
                  {"from": "A", "to": "R", "cost": 1.5}, {"from": "R", "to": "J", "cost": 1},
                  {"from": "A", "to": "R2", "cost": 1.5}, {"from": "R2", "to": "J", "cost": 1},
                  {"from": "J", "to": "g", "cost": 1}],
        "start": "s", "goal": "g"
    });
    let g = ToolGraph::from_json(&text.to_string()).unwrap();
    let (s, called) = drive(g, &["P"]);
    let o = s.outcome().unwrap();
    assert_eq!((o.status, o.llm_calls), (Status::Completed, 0), "{called:?}");
    assert_eq!(called, ["B", "A", "Q", "P", "R", "J"]);
    assert_eq!(o.path, ["s", "B", "A", "Q", "R", "J", "g"]);
}

/// Many runs of the first graph on one router, their steps interleaved in a seeded random
/// order, X down: every run completes with no LLM call and undoes nothing it builds on, though
/// the runs share X's breaker and each other's reroutes.
#[test]
fn interleaved_runs_on_one_router_keep_what_they_build_on() {
    use shr_core::rng::SplitMix64;
    use shr_core::{Action, Router};
    for seed in 0..20u64 {
        let mut router = Router::new(fixture("join_keeps_side_effect"));
        let mut runs: Vec<_> = (0..16).map(|_| router.start(Task::default(), 0).unwrap()).collect();
        let mut rng = SplitMix64::new(seed);
        let mut now = 0;
        for _ in 0..20_000 {
            let open: Vec<usize> = (0..runs.len()).filter(|&i| !runs[i].is_finished()).collect();
            let Some(&i) = open.get(rng.below(open.len().max(1) as u64) as usize) else { break };
            now += 1;
            let run = &mut runs[i];
            let flying: Vec<String> = run.in_flight().map(|v| router.graph().id(v).to_string()).collect();
            if let Some(tool) = flying.first() {
                let result =
                    if tool == "X" { ToolResult::outage("down") } else { ToolResult::ok(json!({}), 1.0) };
                router.report(run, tool, result, now).unwrap();
            }
            match router.next(run, now).unwrap() {
                Action::Escalate { request } => panic!("seed {seed}: run {i} escalated: {request:?}"),
                // A run waiting for a place others hold: the clock moves on to when it asks again.
                Action::Pause { until } => now = now.max(until),
                _ => {}
            }
        }
        for run in &runs {
            let o = run.outcome().expect("every run finishes");
            assert_eq!((o.status, o.llm_calls), (Status::Completed, 0), "seed {seed}");
            assert!(
                !run.events().iter().any(|e| matches!(e.kind, EventKind::Compensated { .. })),
                "seed {seed}"
            );
            assert!(o.path.contains(&"K".to_string()), "seed {seed}: {:?}", o.path);
        }
    }
}
