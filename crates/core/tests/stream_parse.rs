//! `ToolGraph::from_json` reads the text straight into an `Assembly` (issue 48: no whole
//! `GraphSpec` held while parsing). It must say exactly what deserializing a `GraphSpec` and
//! `ToolGraph::from_spec` said: the same graph, the same problems in the same order, the same
//! errors for text of the wrong shape, whatever order the description's keys come in.

use shr_core::graph::GraphSpec;
use shr_core::{GraphError, ToolGraph};

/// What the parser said before issue 48's streaming reader: the whole description, then its checks.
fn whole(text: &str) -> Result<ToolGraph, GraphError> {
    match serde_json::from_str::<GraphSpec>(text) {
        Ok(spec) => ToolGraph::from_spec(spec),
        Err(e) => Err(GraphError {
            problems: vec![shr_core::Problem {
                kind: shr_core::ProblemKind::MalformedJson,
                at: "json".into(),
                path: shr_core::json_path::pointer(&shr_core::json_path::path_of(text, &e)),
                message: format!("line {} column {}: {}", e.line(), e.column(), e),
            }],
        }),
    }
}

fn same(text: &str) {
    match (ToolGraph::from_json(text), whole(text)) {
        (Ok(a), Ok(b)) => assert_eq!(a.to_spec(), b.to_spec(), "{text}"),
        (Err(a), Err(b)) => {
            let strip = |e: GraphError| -> Vec<_> {
                e.problems.into_iter().map(|p| (p.kind, p.at, p.path, p.message)).collect()
            };
            assert_eq!(strip(a), strip(b), "{text}");
        }
        (a, b) => panic!("{text}: streamed {:?}, whole {:?}", a.map(|_| ()), b.map(|_| ())),
    }
}

const NODES: &str = r#""nodes":[{"id":"s","tool":false},{"id":"a","base_cost":-2},{"id":"a"},{"id":"",
  "join":{"quorum":3}},{"id":"b","compensate":"zz","verify":"s"},{"id":"g","tool":false}]"#;
const EDGES: &str = r#""edges":[{"from":"s","to":"x","cost":-1},{"from":"s","to":"a"},{"from":"s","to":"a"},
  {"from":"b","to":"b","cost":-0.25},{"from":"y","to":"z","guard":{"field":"","equals":1}},{"from":"a","to":"g"}]"#;

#[test]
fn problems_read_the_same_in_either_key_order() {
    let tail = r#""start":"s","goal":"nowhere","version":2,"risk_rules":[{"key":"k","max":1,"stage":"p","priority":2}]"#;
    same(&format!("{{{NODES},{EDGES},{tail}}}"));
    same(&format!("{{{EDGES},{NODES},{tail}}}"));
    same(&format!("{{{tail},{EDGES},{NODES}}}"));
    let a = ToolGraph::from_json(&format!("{{{NODES},{EDGES},{tail}}}")).unwrap_err();
    let b = ToolGraph::from_json(&format!("{{{EDGES},{NODES},{tail}}}")).unwrap_err();
    assert_eq!(a, b, "the edges' places do not depend on where the nodes are");
    assert!(a.problems.len() > 10, "{a}");
}

#[test]
fn a_valid_graph_reads_the_same_in_either_key_order() {
    let nodes = r#""nodes":[{"id":"s","tool":false},{"id":"p","side_effect":true,"compensate":"u"},{"id":"u"},
      {"id":"j","join":{"quorum":2}},{"id":"g","tool":false,"label":"Goal"}]"#;
    let edges = r#""edges":[{"from":"s","to":"p","cost":2},{"from":"s","to":"u"},{"from":"p","to":"j"},
      {"from":"u","to":"j","reason":"why","guard":{"field":"ok","equals":true}},{"from":"j","to":"g"}]"#;
    for text in [
        format!(r#"{{{nodes},{edges},"start":"s","goal":"g","name":"x"}}"#),
        format!(r#"{{"goal":"g",{edges},"start":"s",{nodes},"name":"x"}}"#),
    ] {
        same(&text);
        let g = ToolGraph::from_json(&text).expect("valid");
        assert_eq!(g.index("p").map(|p| g.node(p).compensate()), Some(g.index("u")));
        assert_eq!(ToolGraph::from_json(&g.to_json()).expect("round trip").to_spec(), g.to_spec());
    }
}

#[test]
fn text_of_the_wrong_shape_is_refused_as_before() {
    for text in [
        r#"{"nodes":[],"nodes":[]}"#,
        r#"{"edges":[]}"#,
        r#"{"nodes":[{"id":"a"}],"edgez":[]}"#,
        r#"{"nodes":{}}"#,
        r#"{"nodes":null}"#,
        r#"{"nodes":[{"id":"a","cost":1}]}"#,
        r#"{"nodes":[{"id":"a"}],"edges":[{"from":"a"}]}"#,
        r#"{"nodes":[{"id":"a"}],"version":-1}"#,
        r#"{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":"a","cost":"x"}]}"#,
        r#"{"nodes":[{"id":"a"},]}"#,
        r#""nodes""#,
        r#"7"#,
        r#"{"#,
    ] {
        same(text);
    }
}

#[test]
fn ids_alike_in_their_first_bytes_are_told_apart() {
    // The id order sorts by the first 8 bytes, then by the whole id within a run.
    let ids: Vec<String> = (0..300).map(|i| format!("node_000_{:03}", (i * 7919) % 300)).collect();
    let nodes: Vec<String> = ids.iter().map(|id| format!(r#"{{"id":"{id}"}}"#)).collect();
    let edges: Vec<String> =
        ids.windows(2).map(|w| format!(r#"{{"from":"{}","to":"{}"}}"#, w[0], w[1])).collect();
    let text = |extra: &str| {
        format!(
            r#"{{"nodes":[{},{{"id":"node_000"}},{{"id":"node_000\u0000"}}{extra}],"edges":[{}],"start":"{}","goal":"{}"}}"#,
            nodes.join(","),
            edges.join(","),
            ids[0],
            ids[299]
        )
    };
    let duplicate = text(r#",{"id":"node_000_007"}"#);
    same(&duplicate);
    let e = ToolGraph::from_json(&duplicate).unwrap_err();
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(e.problems[0].path, "/nodes/302/id");
    let text = text("");
    same(&text);
    let g = ToolGraph::from_json(&text).expect("valid");
    for (v, id) in ids.iter().enumerate() {
        assert_eq!(g.index(id), Some(v));
    }
    assert_eq!(g.index("node_000"), Some(300));
    assert_eq!(g.index("node_000\u{0}"), Some(301));
    assert_eq!(g.index("node_00"), None);
}

#[test]
fn an_assembly_fed_out_of_order_says_so() {
    let mut a = shr_core::graph::Assembly::new();
    a.plain_node("s".into(), false, 1.0, None);
    a.index();
    a.plain_node("g".into(), false, 1.0, None);
    let rest = GraphSpec { start: Some("s".into()), goal: Some("s".into()), ..GraphSpec::default() };
    let e = a.finish(rest).expect_err("a node after the index is refused");
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(e.problems[0].path, "/nodes/1");
}
