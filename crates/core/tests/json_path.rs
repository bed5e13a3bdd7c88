//! `json_path` finds an error's place from the text; `serde_path_to_error` tracks it on the way
//! down. Every single mutation (a key added, removed or misspelt, a value of another type) of
//! real descriptions, and of the values the wasm layer parses from JS (a session's config, a
//! task, a tool's result, an escalation's decision), that is refused must get the same place
//! from both, written compact and pretty.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use shr_core::graph::GraphSpec;
use shr_core::json_path::{path_of, pointer};
use shr_core::{Decision, SessionConfig, Task, ToolGraph, ToolResult};

/// The place serde_path_to_error names, as a JSON pointer.
fn tracked_as<T: DeserializeOwned>(text: &str) -> Option<String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let e = serde_path_to_error::deserialize::<_, T>(de).err()?;
    let mut out = String::new();
    for segment in e.path().iter() {
        out.push('/');
        match segment {
            serde_path_to_error::Segment::Seq { index } => out.push_str(&index.to_string()),
            serde_path_to_error::Segment::Map { key } => {
                out.push_str(&key.replace('~', "~0").replace('/', "~1"))
            }
            serde_path_to_error::Segment::Enum { variant } => out.push_str(variant),
            serde_path_to_error::Segment::Unknown => out.push('?'),
        }
    }
    Some(out)
}

/// The place `json_path` names from serde_json's position.
fn found_as<T: DeserializeOwned>(text: &str) -> Option<String> {
    let e = T::deserialize(&mut serde_json::Deserializer::from_str(text)).err()?;
    Some(pointer(&path_of(text, &e)))
}

fn found(text: &str) -> Option<String> {
    found_as::<GraphSpec>(text)
}

fn rich() -> Value {
    json!({
        "$schema": "graph.schema.json", "version": 1, "name": "rich",
        "start": "in", "goal": "out", "stages": ["payment"],
        "risk_rules": [{ "key": "amount", "max": 100, "stage": "payment", "priority": 0.95 }],
        "intents": [{ "keyword": "refund", "priority": 0.9 }],
        "nodes": [
            { "id": "in", "tool": false, "x": 1, "y": 2 },
            { "id": "stripe", "label": "Stripe", "description": "pays", "stage": "payment",
              "base_cost": 1.5, "side_effect": true, "compensate": "undo", "quota": 100,
              "retry": { "attempts": 2, "backoff_ms": 100, "max_backoff_ms": 1000, "jitter": false },
              "rate_limit": { "calls": 100, "per_ms": 1000 }, "max_concurrent": 4,
              "probe": { "interval_ms": 500, "input": { "ping": [1, "two", null] } },
              "baseline_latency_ms": 20,
              "validators": [
                  { "field": "refund_id", "required": true, "type": "string", "non_empty": true },
                  { "field": "amount", "min": 0, "max": 10, "equals": "context.amount" },
                  { "field": "lines", "min_items": 1, "length_equals": "context.n", "max_age_ms": 5 },
                  { "field": "kind", "one_of": ["a", "b"] }
              ] },
            { "id": "undo" },
            { "id": "out", "tool": false, "join": { "quorum": 1 } }
        ],
        "edges": [
            { "from": "in", "to": "stripe", "cost": 2 },
            { "from": "stripe", "to": "out", "guard": { "field": "ok", "equals": true, "negate": false } },
            { "from": "in", "to": "undo" }, { "from": "undo", "to": "out" }
        ]
    })
}

/// Every description with one change somewhere: per object a key added and each key removed
/// or misspelt; per value a replacement of each other type.
fn mutations(v: &Value) -> Vec<Value> {
    let others =
        [json!(null), json!(true), json!(7), json!(-1.5), json!("x"), json!([]), json!([1]), json!({})];
    let mut out = Vec::new();
    for other in &others {
        if other != v {
            out.push(other.clone());
        }
    }
    match v {
        Value::Object(map) => {
            let mut added = map.clone();
            added.insert("zzz".into(), json!(1));
            out.push(Value::Object(added));
            for (k, x) in map {
                let mut removed = map.clone();
                removed.remove(k);
                out.push(Value::Object(removed.clone()));
                let mut misspelt = removed;
                misspelt.insert(format!("{k}s"), x.clone());
                out.push(Value::Object(misspelt));
                for m in mutations(x) {
                    let mut changed = map.clone();
                    changed.insert(k.clone(), m);
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                for m in mutations(x) {
                    let mut changed = items.clone();
                    changed[i] = m;
                    out.push(Value::Array(changed));
                }
            }
        }
        _ => {}
    }
    out
}

fn descriptions() -> Vec<Value> {
    let mut all = vec![rich()];
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../eval/scenarios");
    for name in ["customer_support.json", "travel_booking.json", "cyclic_search_verify.json"] {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).expect("a scenario file");
        let file: Value = serde_json::from_str(&text).expect("JSON");
        // A scenario holds its graph; a cyclic one is a graph.
        all.push(if file.get("graph").is_some() { file["graph"].clone() } else { file });
    }
    all
}

#[test]
fn names_the_same_place_as_a_tracking_deserializer() {
    let (mut refused, mut compared) = (0, 0);
    for description in descriptions() {
        let (c, r) = compare_as::<GraphSpec>(&description);
        compared += c;
        refused += r;
    }
    // Most single changes are refused; each refusal was compared.
    assert!(refused * 2 > compared, "{refused} of {compared} refused");
}

/// Every mutation of `value` (which `T` reads), compact and pretty, gets the same place from
/// both: (compared, refused).
fn compare_as<T: DeserializeOwned>(value: &Value) -> (usize, usize) {
    assert_eq!(tracked_as::<T>(&value.to_string()), None, "the value itself is read: {value}");
    let (mut compared, mut refused) = (0, 0);
    for changed in mutations(value) {
        for text in [changed.to_string(), serde_json::to_string_pretty(&changed).expect("JSON")] {
            compared += 1;
            let want = tracked_as::<T>(&text);
            assert_eq!(found_as::<T>(&text), want, "{text}");
            refused += usize::from(want.is_some());
        }
    }
    (compared, refused)
}

#[test]
fn names_the_same_place_in_what_the_js_layer_parses() {
    let config = serde_json::to_value(SessionConfig::default()).expect("JSON");
    let task =
        json!({ "goal": "done", "start": "in", "context": { "amount": 5, "lines": [1, { "a": null }] } });
    let results = [
        json!({ "result": "ok", "output": { "refund_id": "r1", "items": [1, 2] }, "latency_ms": 3.5 }),
        json!({ "result": "err", "category": "service", "transient": true, "message": "down",
                "agent_action": "retry", "latency_ms": 1 }),
    ];
    let decisions = [
        json!({ "decision": "demote", "goal": "manual" }),
        json!({ "decision": "approve" }),
        json!({ "decision": "abort", "message": "no" }),
        json!({ "decision": "hand_off", "to": "support" }),
    ];
    let mut refused = compare_as::<SessionConfig>(&config).1 + compare_as::<Task>(&task).1;
    for r in &results {
        refused += compare_as::<ToolResult>(r).1;
    }
    for d in &decisions {
        refused += compare_as::<Decision>(d).1;
    }
    assert!(refused > 100, "{refused} refusals compared");
}

#[test]
fn a_graph_error_names_the_place() {
    let text = serde_json::to_string_pretty(&json!({
        "start": "a", "goal": "b", "edges": [],
        "nodes": [{ "id": "a" }, { "id": "b", "retry": { "attemps": 2 } }]
    }))
    .expect("JSON");
    let Err(e) = ToolGraph::from_json(&text) else { panic!("a misspelt field is refused") };
    assert_eq!(e.problems[0].path, "/nodes/1/retry/attemps");
}

/// Where the text stops being JSON, the tracking deserializer can name no key (`/retry/?`) or
/// an element already read; the place here is the container the text went wrong in.
#[test]
fn text_that_is_not_json_gets_the_place_it_reached() {
    for (text, want) in [
        (r#"{"nodes": [{"id": "a"}, {"id": "#, "/nodes/1/id"),
        (r#"{"nodes": [{"id": "a"} {"id": "b"}]}"#, "/nodes"),
        (r#"{"nodes": [{"id": "a", "retry": {"attempts": 2,,}}]}"#, "/nodes/0/retry"),
        ("", ""),
    ] {
        assert_eq!(found(text).as_deref(), Some(want), "{text}");
    }
}
