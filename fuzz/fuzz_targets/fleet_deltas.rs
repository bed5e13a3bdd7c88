//! A fleet of routers exchanging deltas through a hostile network: some messages are arbitrary
//! bytes parsed as deltas, some are real deltas delivered out of order, twice, or not at all,
//! and the members move the clock and record outcomes in between. No member may panic; a
//! refused delta changes nothing that routing sees; every member's outbox holds only its own
//! changes.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use shr_core::health::HealthDelta;
use shr_core::{Observation, Router, ToolGraph};

#[derive(Arbitrary, Debug)]
enum Op {
    /// Member, tool, outcome (0 ok, 1 failure, 2 outage, 3 mark up).
    Record(u8, u8, u8),
    /// Deliver the pending delta at this index to this member (again, maybe).
    Deliver(u8, u16),
    /// Raw JSON bytes as a delta to a member.
    Raw(u8, Vec<u8>),
    Advance(u16),
}

const GRAPH: &str = r#"{"nodes":[{"id":"start","tool":false},{"id":"a"},{"id":"b"},{"id":"c"},{"id":"done","tool":false}],
  "edges":[{"from":"start","to":"a"},{"from":"start","to":"b","cost":2},{"from":"a","to":"c"},{"from":"b","to":"c"},
           {"from":"c","to":"done"}],"start":"start","goal":"done"}"#;

fuzz_target!(|ops: Vec<Op>| {
    let Ok(graph) = ToolGraph::from_json(GRAPH) else { return };
    let mut members: Vec<Router> = (0..4)
        .map(|i| {
            let mut r = Router::new(graph.clone());
            r.set_origin(&format!("m{i}"));
            r
        })
        .collect();
    let mut pending: Vec<HealthDelta> = Vec::new();
    let mut now: u64 = 1_000;
    for op in ops.into_iter().take(400) {
        match op {
            Op::Record(m, t, o) => {
                let r = &mut members[m as usize % 4];
                let tool = 1 + t as usize % 3;
                match o % 4 {
                    0 => drop(r.record(tool, Observation::Success { latency_ms: 5.0 }, now)),
                    1 => drop(r.record(tool, Observation::Failure, now)),
                    2 => drop(r.record(tool, Observation::Outage, now)),
                    _ => drop(r.mark_up(tool, now)),
                }
            }
            Op::Deliver(m, i) => {
                if let Some(d) = pending.get(i as usize % pending.len().max(1)).cloned() {
                    let _ = members[m as usize % 4].apply_health_delta(&d, now);
                }
            }
            Op::Raw(m, bytes) => {
                if let Ok(d) = serde_json::from_slice::<HealthDelta>(&bytes) {
                    let r = &mut members[m as usize % 4];
                    let before = r.health_snapshot();
                    if r.apply_health_delta(&d, now).is_err() {
                        assert_eq!(r.health_snapshot(), before, "a refused delta changed the book");
                    }
                }
            }
            Op::Advance(ms) => now = now.saturating_add(u64::from(ms)),
        }
        for (i, r) in members.iter_mut().enumerate() {
            for d in r.drain_health_deltas() {
                assert_eq!(d.origin, format!("m{i}"), "a member published another's change");
                pending.push(d);
            }
            let _ = r.route(0, 4, now);
        }
    }
});
