//! Arbitrary bytes -> `ToolGraph::from_json`.
//!
//! Must never panic. An accepted graph must round-trip through `to_json` (same description,
//! same text on the second pass), route the same with a fresh and a reused `Dijkstra`, agree
//! with the brute-force oracle on small graphs, and drive a session to a finish that keeps the
//! observability and completion invariants.
//!
//! The reused `Dijkstra` is primed within the input (on the same graph without its joins), not
//! kept across inputs: state carried between inputs made a crash depend on the inputs before
//! it, and its artifact did not reproduce on its own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shr_core::algo::{oracle, Dijkstra, Plan, Trace};
use shr_core::audit_completion;
use shr_core::check_observability;
use shr_core::graph::GraphSpec;
use shr_core::{Action, Decision, Session, Status, Task, ToolGraph, ToolResult};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let graph = match ToolGraph::from_json(text) {
        Ok(g) => g,
        Err(e) => {
            assert!(!e.problems.is_empty(), "an error with no problem in it");
            let _ = e.to_string();
            return;
        }
    };
    round_trip(text, &graph);
    route(&graph);
    drive(&graph);
});

fn round_trip(text: &str, graph: &ToolGraph) {
    // The graph keeps no copy of its description: the one it re-creates is the one read.
    let read: GraphSpec = serde_json::from_str(text).expect("a description from_json accepted");
    assert_eq!(graph.to_spec(), read, "to_spec differs from the description read");
    let json = graph.to_json();
    let again =
        ToolGraph::from_json(&json).unwrap_or_else(|e| panic!("to_json output is refused: {e}\n{json}"));
    assert_eq!(again.to_spec(), graph.to_spec(), "the description changed through to_json\n{json}");
    assert_eq!(again.to_json(), json, "to_json is not stable");
    assert_eq!(again.node_count(), graph.node_count());
    assert_eq!(again.edge_count(), graph.edge_count());
    assert_eq!(again.warnings(), graph.warnings());
}

fn route(graph: &ToolGraph) {
    let (s, g) = (graph.start(), graph.goal());
    let w = |e: usize| graph.edge(e).cost;
    let fresh = Dijkstra::new().route(graph, &[s], g, &w, &mut ());
    // A search state used before on a graph of the same size with other joins (none), as a
    // long-running host would reuse one; then reused on the same graph.
    let mut reused = Dijkstra::new();
    if let Some(plain) = without_joins(graph) {
        let pw = |e: usize| plain.edge(e).cost;
        let _ = reused.route(&plain, &[plain.start()], plain.goal(), &pw, &mut ());
    }
    for _ in 0..2 {
        let again = reused.route(graph, &[s], g, &w, &mut ());
        assert_eq!(fresh, again, "a reused Dijkstra routes differently from a fresh one");
    }
    let unreachable = graph.warnings().iter().any(|p| p.kind == shr_core::ProblemKind::GoalUnreachable);
    if unreachable {
        assert!(fresh.is_none(), "a plan to a goal validation called unreachable");
    }
    if let Some(p) = &fresh {
        assert!(p.contains(s) && p.contains(g), "plan misses its ends");
        assert!(!p.cost.is_nan());
    }
    // The brute-force oracle is O(V x E x k): only on small graphs.
    if graph.node_count() * (graph.edge_count() + 1) <= 20_000 {
        let want = oracle::cheapest_cost(graph, &[s], g, &w);
        match (&fresh, want) {
            (Some(p), Some(o)) => {
                let tol = 1e-9 * p.cost.abs().max(o.abs()).max(1.0);
                assert!((p.cost - o).abs() <= tol || p.cost == o, "dijkstra {} oracle {o}", p.cost);
            }
            (None, None) => {}
            (p, o) => panic!("dijkstra {:?} oracle {o:?}", p.as_ref().map(|p| p.cost)),
        }
    }
    let mut trace = Trace::default();
    let mut plan = Plan::default();
    Dijkstra::new().route_from_into(graph, &[], &[s], g, &w, &mut trace, &mut plan);
    let _ = graph.to_petgraph();
    let _ = graph.stage_order();
}

/// The same graph with every join back to the default `any` (always valid: only joins can
/// make a quorum problem). `None` when the graph has no join.
fn without_joins(graph: &ToolGraph) -> Option<ToolGraph> {
    let mut spec = graph.to_spec();
    let mut changed = false;
    for n in &mut spec.nodes {
        changed |= n.join.take().is_some();
    }
    if !changed {
        return None;
    }
    Some(ToolGraph::from_spec(spec).expect("a valid graph without its joins is valid"))
}

/// A plain host: every call succeeds with an empty object, every escalation is answered by
/// Approve once and then Abort. The session must finish within its budgets.
fn drive(graph: &ToolGraph) {
    if graph.node_count() > 300 {
        return;
    }
    let Ok(mut s) = Session::new(graph.clone(), Task::default(), 0) else { return };
    let mut now = 0u64;
    let mut approved = false;
    for _ in 0..2_000 {
        match s.next(now) {
            Action::CallTools { calls } => {
                assert!(!calls.is_empty(), "CallTools with no call");
                for c in calls {
                    now += 3;
                    s.report(&c.tool, ToolResult::ok(serde_json::json!({}), 3.0), now).unwrap();
                }
            }
            Action::Escalate { .. } => {
                let d = if approved {
                    Decision::Abort { message: "fuzz".into() }
                } else {
                    approved = true;
                    Decision::Approve
                };
                s.resolve_escalation(d, now).unwrap();
            }
            Action::Wait => panic!("asked to wait with nothing in flight"),
            // A rate-limited tool refills as time passes.
            Action::Pause { until } => now = now.max(until),
            Action::Finished { outcome } => {
                check_observability(s.events()).unwrap();
                assert_ne!(outcome.message.as_deref(), Some("session made no progress"));
                if outcome.status != Status::Escalated {
                    let done: Vec<usize> = s.completed().filter_map(|id| graph.index(id)).collect();
                    let goal = graph.index(&outcome.goal).unwrap();
                    audit_completion(graph, graph.start(), &done, goal).unwrap();
                }
                return;
            }
        }
    }
    panic!("the session did not finish in 2000 steps");
}
