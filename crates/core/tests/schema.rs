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
    assert_eq!(g("").unwrap().spec().version, FORMAT_VERSION);
    assert_eq!(g(r#""version":1,"#).unwrap().spec().version, 1);
    let err = g(r#""version":2,"#).unwrap_err();
    let p = &err.problems[0];
    assert_eq!((p.kind, p.path.as_str()), (shr_core::ProblemKind::UnsupportedVersion, "/version"));
    assert!(p.message.contains("format version 2 is unknown"), "{}", p.message);
    // `$schema` is kept for editors and round-trips.
    let with = g(r#""$schema":"../graph.schema.json","#).unwrap();
    assert_eq!(with.spec().schema.as_deref(), Some("../graph.schema.json"));
    let again = shr_core::ToolGraph::from_json(&with.to_json()).unwrap();
    assert_eq!(again.spec().schema.as_deref(), Some("../graph.schema.json"));
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
