//! Every graph in the repository validates against the checked-in JSON Schema of the graph
//! format, checked by an independent validator (the `jsonschema` crate), and the schema refuses
//! what the core refuses for its shape: a misspelt field, a cost as a string, a missing list.

use serde_json::Value;

fn schema() -> jsonschema::Validator {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/graph.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).unwrap()
}

fn errors(v: &jsonschema::Validator, graph: &Value) -> Vec<String> {
    v.iter_errors(graph).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

#[test]
fn every_graph_and_scenario_file_validates_against_the_schema() {
    let v = schema();
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"));
    let mut checked = 0;
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for sub in [dir.to_path_buf(), dir.join("literal")] {
        files.extend(std::fs::read_dir(sub).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()));
    }
    for path in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // A graph file, or a domain file holding one under `graph` (scenario files hold none).
        let graph = if doc.get("nodes").is_some() { Some(&doc) } else { doc.get("graph") };
        if let Some(graph) = graph {
            assert_eq!(errors(&v, graph), Vec::<String>::new(), "{}", path.display());
            // And the core reads it.
            shr_core::ToolGraph::from_json(&graph.to_string()).unwrap();
            checked += 1;
        }
    }
    assert_eq!(checked, 6, "three domains, the literal reading's domain and two cyclic workflows");
}

#[test]
fn the_schema_refuses_malformed_graphs_as_the_core_does() {
    let v = schema();
    for bad in [
        r#"{"nodes":[{"id":"a","validator":[]},{"id":"b"}],"edges":[],"start":"a","goal":"b"}"#,
        r#"{"nodes":[{"id":"a"},{"id":"b"}],"edges":[{"from":"a","to":"b","cost":"3"}],"start":"a","goal":"b"}"#,
        r#"{"edges":[],"start":"a","goal":"b"}"#,
        r#"{"version":2,"nodes":[{"id":"a"}],"edges":[],"start":"a","goal":"a"}"#,
    ] {
        let graph: Value = serde_json::from_str(bad).unwrap();
        assert!(!errors(&v, &graph).is_empty(), "the schema accepts {bad}");
        assert!(shr_core::ToolGraph::from_json(bad).is_err(), "the core accepts {bad}");
    }
}
