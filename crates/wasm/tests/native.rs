//! The native side of "a JS-driven run equals the native run": drives the core `Session` on the
//! paper's 19 scenarios exactly as `Router.run` drives it from JS, with the core's mock tools
//! and mock LLM, and checks the result against `tests/node/fixtures/scenarios.json`, which the
//! Node test `tests/node/scenarios.test.mjs` replays through the wasm package with a virtual
//! clock. `UPDATE_FIXTURES=1 cargo test -p shr-wasm --test native` rewrites the fixture.
//!
//! The host loop (the same as the JS driver's): `next(now)`; on `call_tools` start every call
//! (a call settles at `max(now, not_before) + latency`); on `wait` report the first call to
//! settle (earliest time, then call order) at its settle time; on `escalate` answer with the
//! mock LLM. Where every batch holds one call this is the core's own scenario driver, and the
//! test checks that the events are the same as `shr_eval::scenario::run`'s.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Value};
use shr_core::{Action, Session, ToolResult};
use shr_eval::scenario::{self, Executor, MockTools, Scenario};
use shr_wasm::convert::{camelize, events_to_json_camel, outcome_to_json_camel, to_json_camel};

struct Run {
    events: Value,
    /// The events, outcome and escalations as the JS driver writes them (`to_json_camel`).
    texts: [String; 3],
    outcome: Value,
    escalations: Vec<Value>,
    max_batch: usize,
}

fn drive_like_js(s: &Scenario) -> Run {
    let graph = s.graph.clone();
    let mut session = Session::new(graph.clone(), s.task.clone(), 0).expect("scenario task is valid");
    let mut tools = MockTools::new(&graph, s);
    let mut in_flight: Vec<(String, ToolResult, u64)> = Vec::new();
    let mut escalations = Vec::new();
    let mut now = 0u64;
    let mut max_batch = 0;
    for _ in 0..10_000 {
        match session.next(now) {
            Action::Finished { outcome } => {
                let requests: Vec<_> = escalations.iter().map(|(r, _)| r).collect();
                let texts = [
                    events_to_json_camel(session.events()).unwrap(),
                    outcome_to_json_camel(&outcome),
                    to_json_camel(&requests).unwrap(),
                ];
                // The events every run has and the outcome are written straight: the same text
                // as serde's.
                assert_eq!(texts[0], to_json_camel(session.events()).unwrap());
                assert_eq!(texts[1], to_json_camel(&outcome).unwrap());
                let escalations =
                    escalations.into_iter().map(|(r, d)| json!({ "request": r, "decision": d })).collect();
                return Run {
                    events: serde_json::to_value(session.events()).unwrap(),
                    texts,
                    outcome: serde_json::to_value(outcome).unwrap(),
                    escalations,
                    max_batch,
                };
            }
            Action::CallTools { calls } => {
                max_batch = max_batch.max(calls.len());
                for call in calls {
                    let v = graph.index(&call.tool).expect("called tool exists");
                    let result = tools.call(&graph, v);
                    let done = now + call.delay_ms + MockTools::latency(v) as u64;
                    in_flight.push((call.tool, result, done));
                }
            }
            Action::Pause { .. } => panic!("{}: a run alone has nothing to wait for", s.id),
            Action::Wait => {
                let first =
                    (0..in_flight.len()).min_by_key(|&i| (in_flight[i].2, i)).expect("a call in flight");
                let (tool, result, done) = in_flight.remove(first);
                now = now.max(done);
                session.report(&tool, result, now).expect("report accepted");
            }
            Action::Escalate { request } => {
                let decision = s.llm.decide(&graph, &request);
                session.resolve_escalation(decision.clone(), now).expect("decision accepted");
                escalations.push((request, decision));
            }
        }
    }
    panic!("{}: the session did not finish", s.id);
}

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/node/fixtures/scenarios.json")
}

fn fixtures() -> Value {
    let mut out = Vec::new();
    for s in scenario::pack().unwrap() {
        let run = drive_like_js(s);
        let latency: BTreeMap<String, f64> = s
            .graph
            .nodes()
            .iter()
            .enumerate()
            .map(|(v, n)| (n.id().to_string(), MockTools::latency(v)))
            .collect();
        out.push(json!({
            "id": s.id,
            "title": s.title,
            "graph": s.graph.to_spec(),
            "task": s.task,
            "failures": s.failures,
            "latency": latency,
            // What JS sees: camelCase keys (the graph and the task stay as they are written).
            "escalations": camelize(json!(run.escalations)),
            "events": camelize(run.events),
            "outcome": camelize(run.outcome),
        }));
    }
    Value::Array(out)
}

#[test]
fn the_js_host_loop_reaches_every_scenarios_expected_outcome() {
    let pack = scenario::pack().unwrap();
    for id in scenario::PAPER_SCENARIOS {
        assert!(pack.iter().any(|s| s.id == id), "the paper's {id} is in the pack");
    }
    for s in pack {
        let run = drive_like_js(s);
        assert_eq!(run.outcome["status"], json!(s.expected.status), "{}", s.id);
        assert_eq!(run.outcome["goal"], json!(s.expected.goal), "{}", s.id);
        assert_eq!(run.outcome["path"], json!(s.expected.path), "{}", s.id);
    }
}

#[test]
fn the_js_host_loop_equals_the_core_driver_where_batches_are_single_calls() {
    let mut compared = 0;
    for s in scenario::pack().unwrap() {
        let run = drive_like_js(s);
        if run.max_batch > 1 {
            continue;
        }
        let core = scenario::run(s, Executor::Shr);
        assert_eq!(run.events, serde_json::to_value(&core.events).unwrap(), "{}", s.id);
        compared += 1;
    }
    assert!(compared >= 7, "only {compared} scenarios compared");
}

#[test]
fn node_fixture_matches_the_native_runs() {
    let want = fixtures();
    let path = fixture_path();
    // Only on request: a fixture written by the test it checks would make the test pass blindly.
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        let text = serde_json::to_string_pretty(&want).unwrap() + "\n";
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (create it with UPDATE_FIXTURES=1)", path.display()));
    let got: Value = serde_json::from_str(&text).unwrap();
    assert!(got == want, "{} is stale: rerun with UPDATE_FIXTURES=1", path.display());
}

/// The JS driver's JSON writer (`to_json_camel`, parsed by `JSON.parse`) gives what serde_json
/// and `camelize` give, on every scenario's events, outcome and escalation requests.
#[test]
fn the_camel_json_writer_equals_serde_json_camelized() {
    for s in scenario::pack().unwrap() {
        let run = drive_like_js(s);
        let requests: Vec<Value> = run.escalations.iter().map(|e| e["request"].clone()).collect();
        let want = [camelize(run.events), camelize(run.outcome), camelize(Value::Array(requests))];
        for (text, want) in run.texts.iter().zip(want) {
            let got: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{}: {e}: {text}", s.id));
            assert_eq!(got, want, "{}", s.id);
        }
    }
    // Strings that need escaping, keys that are not snake_case, non-finite numbers, maps with
    // number keys, enum variants with data.
    #[derive(serde::Serialize)]
    enum Kind {
        Unit,
        Tuple(u8, f64),
        Struct { inner_key: i64 },
    }
    let mut map = BTreeMap::new();
    map.insert(7u32, "x");
    let v = json!({
        "a_b": "q\"uote\\ \n\t\u{1}é",
        "c\"d": [f64::NAN, 1.5, -0.0, 1e300, u64::MAX],
        "_lead": null,
        "__x_": 1,
        "a__b_c": 2,
        "_": 3,
        "é_ü_x": 4,
    });
    let kinds = (Kind::Unit, Kind::Tuple(1, f64::INFINITY), Kind::Struct { inner_key: -3 }, map);
    for (text, want) in [
        (to_json_camel(&v).unwrap(), camelize(v.clone())),
        (to_json_camel(&kinds).unwrap(), camelize(serde_json::to_value(&kinds).unwrap())),
    ] {
        let got: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(got, want, "{text}");
    }
    // The outcome and events written straight, with every optional field there and non-finite
    // numbers: the same text as the serde writer's.
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let outcome = shr_core::Outcome {
        status: shr_core::Status::Demoted,
        goal: "g\"x".into(),
        original_goal: "é".into(),
        path: strs(&["a", "b"]),
        cost: f64::INFINITY,
        abandoned: strs(&["c"]),
        sunk_cost: 2.5,
        tool_calls: 3,
        llm_calls: 1,
        reroutes: 2,
        retries: 4,
        failures: 5,
        revisits: 6,
        message: Some("m\n".into()),
    };
    assert_eq!(outcome_to_json_camel(&outcome), to_json_camel(&outcome).unwrap());
    let plan =
        shr_core::PlanView { nodes: strs(&["a"]), edges: vec![("a".into(), "b".into())], cost: f64::NAN };
    let events: Vec<shr_core::Event> = [
        shr_core::EventKind::PathPlanned { plan },
        shr_core::EventKind::Finished {
            status: shr_core::Status::Escalated,
            goal: "g".into(),
            path: vec![],
            cost: 1.25,
            message: Some("why".into()),
        },
        shr_core::EventKind::ToolCalled { tool: "t".into(), attempt: 2, call_id: String::new() },
        shr_core::EventKind::ToolSucceeded { tool: "t".into(), latency_ms: f64::INFINITY },
    ]
    .into_iter()
    .enumerate()
    .map(|(i, kind)| shr_core::Event { seq: i as u32, at: u64::MAX, kind })
    .collect();
    assert_eq!(events_to_json_camel(&events).unwrap(), to_json_camel(&events).unwrap());
}
