//! `reason` on nodes and edges (issue 47): why a proposed grouping or edge exists, for the
//! person reviewing a discovered graph. It survives a round trip, routing ignores it, and a
//! reason too long is a problem naming its place.

use shr_core::{ProblemKind, ToolGraph};

const GRAPH: &str = r#"{"nodes":[{"id":"a","reason":"grouped: same input"},{"id":"b"},{"id":"c"}],
  "edges":[{"from":"a","to":"b","reason":"output.x -> input.x (string)"},{"from":"b","to":"c"},
  {"from":"a","to":"c","cost":5,"reason":"second"}],"start":"a","goal":"c"}"#;

#[test]
fn reasons_survive_a_round_trip_and_change_no_route() {
    let g = ToolGraph::from_json(GRAPH).expect("valid");
    let spec = g.to_spec();
    assert_eq!(spec.nodes[0].reason.as_deref(), Some("grouped: same input"));
    assert_eq!(spec.edges[0].reason.as_deref().map(String::as_str), Some("output.x -> input.x (string)"));
    assert_eq!(spec.edges[1].reason, None);
    assert_eq!(spec.edges[2].reason.as_deref().map(String::as_str), Some("second"));
    assert_eq!(g.edge_reason(0), Some("output.x -> input.x (string)"));
    assert_eq!(g.edge_reason(1), None);
    assert_eq!(g.edge_reason(9), None);
    let again = ToolGraph::from_spec(spec.clone()).expect("valid").to_spec();
    assert_eq!(again, spec);
}

#[test]
fn a_reason_too_long_is_a_problem_at_its_place() {
    let long = "r".repeat(2001);
    let text = GRAPH.replace("\"second\"", &format!("\"{long}\""));
    let err = ToolGraph::from_json(&text).expect_err("too long");
    let p = err.problems.iter().find(|p| p.path == "/edges/2/reason").expect("problem at /edges/2/reason");
    assert_eq!(p.kind, ProblemKind::BadValue);
}
