//! The limits of crates/core/src/limits.rs are enforced, each with a typed problem that names
//! the field and the limit (ROBUSTNESS.md lists them). Labels and ids are tested in bad_input.rs.

use shr_core::graph::{GraphSpec, NodeSpec};
use shr_core::limits;
use shr_core::{ProblemKind, ToolGraph};

fn node(id: String) -> NodeSpec {
    NodeSpec::new(id)
}

#[test]
fn more_nodes_than_the_limit_is_refused_before_any_other_work() {
    let spec = GraphSpec {
        // Duplicate ids everywhere: only the size is reported, nothing is checked node by node.
        nodes: vec![node("n".into()); limits::MAX_NODES + 1],
        start: Some("n".into()),
        goal: Some("n".into()),
        ..GraphSpec::default()
    };
    let e = ToolGraph::from_spec(spec).unwrap_err();
    assert_eq!(e.problems.len(), 1, "{e}");
    let p = &e.problems[0];
    assert_eq!((p.kind, p.at.as_str()), (ProblemKind::TooLarge, "nodes"));
    assert!(p.message.contains(&limits::MAX_NODES.to_string()), "{}", p.message);
}

#[test]
fn exactly_the_node_limit_is_accepted() {
    let mut nodes: Vec<NodeSpec> = (0..limits::MAX_NODES).map(|i| node(format!("n{i}"))).collect();
    nodes[0].tool = false;
    let spec = GraphSpec { nodes, start: Some("n0".into()), goal: Some("n0".into()), ..GraphSpec::default() };
    assert_eq!(ToolGraph::from_spec(spec).unwrap().node_count(), limits::MAX_NODES);
}

#[test]
fn a_description_longer_than_the_limit_is_refused_unparsed() {
    // Not JSON at all: the size is checked before the parser sees a byte.
    let text = " ".repeat(limits::MAX_JSON_BYTES + 1);
    let e = ToolGraph::from_json(&text).unwrap_err();
    let p = &e.problems[0];
    assert_eq!((p.kind, p.at.as_str()), (ProblemKind::TooLarge, "json"));
    assert!(p.message.contains(&limits::MAX_JSON_BYTES.to_string()), "{}", p.message);
}

#[test]
fn more_retry_attempts_than_the_limit_is_a_bad_value_naming_the_node() {
    let json = format!(
        r#"{{"nodes":[{{"id":"a","retry":{{"attempts":{}}}}},{{"id":"b","retry":{{"attempts":{}}}}}],
            "edges":[{{"from":"a","to":"b"}}],"start":"a","goal":"b"}}"#,
        limits::MAX_RETRY_ATTEMPTS,
        limits::MAX_RETRY_ATTEMPTS + 1
    );
    let e = ToolGraph::from_json(&json).unwrap_err();
    let bad: Vec<_> = e.problems.iter().map(|p| (p.kind, p.at.as_str())).collect();
    assert_eq!(bad, [(ProblemKind::BadValue, "b")]);
}
