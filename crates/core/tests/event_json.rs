//! Events read back from the JSON they are written as (a log, a trace), equal to what was
//! written: infinite weights and costs are written `null` and read back infinite (issue 46).

use serde_json::json;
use shr_core::drive::FnHost;
use shr_core::event::{Event, EventKind};
use shr_core::{Call, Decision, EscalationRequest, Performed, Session, Task, ToolGraph, ToolResult};

#[test]
fn every_event_of_a_rerouted_run_reads_back_equal() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"stripe"},{"id":"paypal"},{"id":"g","tool":false}],
            "edges":[{"from":"s","to":"stripe","cost":1},{"from":"s","to":"paypal","cost":2},
                     {"from":"stripe","to":"g","cost":1},{"from":"paypal","to":"g","cost":1}],
            "start":"s","goal":"g"}"#,
    )
    .unwrap();
    let mut s = Session::new(g, Task::default(), 0).unwrap();
    let call = |c: &Call| Performed {
        result: if c.tool == "stripe" {
            ToolResult::outage("down")
        } else {
            ToolResult::ok(json!({"id": 1}), 3.0)
        },
        latency_ms: 3,
    };
    s.drive(&mut FnHost::new(call, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }), 0);
    let events = s.events().to_vec();
    assert!(events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Reweighted { weight, .. } if weight.is_infinite())));
    for e in &events {
        let text = serde_json::to_string(e).unwrap();
        let back: Event = serde_json::from_str(&text).unwrap_or_else(|err| panic!("{text}: {err}"));
        assert_eq!(&back, e, "{text}");
    }
    let bad: Result<Event, _> = serde_json::from_str(r#"{"seq":0,"at":0,"event":"NoSuchEvent"}"#);
    assert!(bad.is_err());
}
