//! The graph format's JSON Schema (draft 2020-12) is generated from the description's Rust
//! types, never written by hand: this test fails when the types and the checked-in
//! `graph.schema.json` differ. `UPDATE_SCHEMA=1 cargo test -p shr-core --test schema` rewrites it.

use shr_core::graph::{GraphSpec, FORMAT_VERSION};

#[test]
fn the_checked_in_schema_is_the_one_the_types_give() {
    let schema = schemars::schema_for!(GraphSpec);
    let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graph.schema.json");
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == text,
        "{} is out of date with the graph types: run UPDATE_SCHEMA=1 cargo test -p shr-core --test schema",
        path.display()
    );
    assert!(text.contains("https://json-schema.org/draft/2020-12/schema"));
}

#[test]
fn a_description_without_a_version_is_version_1_and_an_unknown_one_is_refused() {
    let g = |extra: &str| {
        shr_core::ToolGraph::from_json(&format!(
            r#"{{{extra}"nodes":[{{"id":"a"}},{{"id":"b"}}],"edges":[{{"from":"a","to":"b"}}],"start":"a","goal":"b"}}"#
        ))
    };
    assert_eq!(g("").unwrap().to_spec().version, FORMAT_VERSION);
    assert_eq!(g(r#""version":1,"#).unwrap().to_spec().version, 1);
    let err = g(r#""version":2,"#).unwrap_err();
    let p = &err.problems[0];
    assert_eq!((p.kind, p.path.as_str()), (shr_core::ProblemKind::UnsupportedVersion, "/version"));
    assert!(p.message.contains("format version 2 is unknown"), "{}", p.message);
    // `$schema` is kept for editors and round-trips.
    let with = g(r#""$schema":"../graph.schema.json","#).unwrap();
    assert_eq!(with.to_spec().schema.as_deref(), Some("../graph.schema.json"));
    let again = shr_core::ToolGraph::from_json(&with.to_json()).unwrap();
    assert_eq!(again.to_spec().schema.as_deref(), Some("../graph.schema.json"));
}

/// An LLM-style malformed graph: each problem names its place in the description.
#[test]
fn problems_name_their_json_pointer() {
    let path = |json: &str| {
        let e = shr_core::ToolGraph::from_json(json).unwrap_err();
        e.problems.iter().map(|p| p.path.clone()).collect::<Vec<_>>()
    };
    // A field misspelt: the pointer ends at it.
    assert_eq!(
        path(r#"{"nodes":[{"id":"a"},{"id":"b","retry":{"attemps":2}}],"edges":[],"start":"a","goal":"b"}"#),
        ["/nodes/1/retry/attemps"]
    );
    // A cost as a string.
    assert_eq!(
        path(
            r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","cost":"3"}],"start":"a","goal":"b"}"#
        ),
        ["/edges/0/cost"]
    );
    // A missing goal, and a negative cost: found by validation, every one reported.
    assert_eq!(
        path(r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","cost":-1}],"start":"a"}"#),
        ["/edges/0/cost", "/goal"]
    );
    assert_eq!(
        path(
            r#"{"nodes":[{"id":"a","retry":{"attempts":99}},{"id":"b"}],"edges":[],"start":"a","goal":"b"}"#
        ),
        ["/nodes/0/retry/attempts"]
    );
}

/// The graph keeps no copy of its description, only what routing and export need: every field
/// a description can hold, the explicit and the left-out alike, comes back from `to_spec`.
#[test]
fn the_graph_re_creates_the_description_it_was_built_from() {
    let text = r#"{
        "$schema": "../graph.schema.json",
        "version": 1,
        "name": "every field",
        "nodes": [
            {"id": "start", "tool": false, "x": 0.5, "y": -2},
            {"id": "search", "label": "search", "stage": "find", "base_cost": 2.5,
             "description": "looks things up", "retry": {"attempts": 1, "backoff_ms": 0,
             "max_backoff_ms": 30000, "jitter": true}, "quota": 9, "max_concurrent": 2,
             "rate_limit": {"calls": 3, "per_ms": 1000}, "baseline_latency_ms": 120.5,
             "probe": {"interval_ms": 500, "input": {"q": "ping"}},
             "validators": [{"field": "ok", "required": true}]},
            {"id": "book", "label": "Book it", "side_effect": true, "compensate": "cancel",
             "probe": {"interval_ms": 50}},
            {"id": "cancel", "stage": "undo", "retry": {"attempts": 3}},
            {"id": "done", "tool": false, "join": {"quorum": 2}}
        ],
        "edges": [
            {"from": "start", "to": "search", "cost": 0},
            {"from": "search", "to": "book", "guard": {"field": "hits.count", "equals": 0,
             "negate": true}},
            {"from": "book", "to": "search", "cost": 4,
             "guard": {"field": "ok", "equals": false}},
            {"from": "book", "to": "done", "cost": 1e-3},
            {"from": "search", "to": "done", "cost": 7}
        ],
        "start": "start",
        "goal": "done",
        "stages": ["find", "book"],
        "risk_rules": [{"key": "amount", "max": 100, "stage": "book"}],
        "intents": [{"keyword": "refund", "priority": 0.5}]
    }"#;
    let read: GraphSpec = serde_json::from_str(text).unwrap();
    let g = shr_core::ToolGraph::from_spec(read.clone()).unwrap();
    assert_eq!(g.to_spec(), read);
    assert_eq!(shr_core::ToolGraph::from_json(&g.to_json()).unwrap().to_spec(), read);

    // What the run reads, through the compact layout.
    let node = |id: &str| g.node(g.index(id).unwrap());
    assert_eq!((node("book").label(), node("cancel").label()), ("Book it", "cancel"));
    assert_eq!(node("search").retry(), node("start").retry(), "an explicit default policy");
    assert_eq!(node("cancel").retry().attempts, 3);
    assert_eq!(node("book").compensate(), g.index("cancel"));
    assert_eq!(node("search").probe().and_then(|p| p.input.clone()), Some(serde_json::json!({"q": "ping"})));
    assert_eq!((node("book").probe_interval_ms(), node("cancel").probe_interval_ms()), (Some(50), None));
    assert_eq!(node("start").validators().len() + node("search").validators().len(), 1);
    assert_eq!(g.stage_order(), ["find", "book", "undo"]);
    assert_eq!(g.name(), Some("every field"));
    let guarded: Vec<bool> = (0..g.edge_count()).map(|e| g.guard(e).is_some()).collect();
    assert_eq!(guarded, [false, true, true, false, false]);
    assert_eq!(g.guard(2).map(|c| c.field.as_str()), Some("ok"));
    for v in 0..g.node_count() {
        assert_eq!(g.index(g.id(v)), Some(v));
    }
    assert_eq!((g.index(""), g.index("sear"), g.index("zzz")), (None, None, None));
}

/// The sizes the memory budget of a large graph rests on (the `peak_mem` bench): a node keeps
/// its rarely set attributes behind one pointer, and an edge keeps its guard in a side table.
#[test]
fn nodes_and_edges_stay_compact() {
    assert!(std::mem::size_of::<shr_core::graph::Node>() <= 48);
    assert!(std::mem::size_of::<shr_core::graph::Edge>() <= 24);
}
