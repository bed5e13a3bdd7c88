//! The probe scheduler: a down tool with a `probe` recovers with no run and no host code; probes
//! keep their interval; probes and runs together never exceed `half_open_probes`; and in a fleet
//! one member probes while every member learns.

use shr_core::health::{BreakerConfig, BreakerState, HealthBook, Observation, Probe, Rejection};
use shr_core::rng::SplitMix64;
use shr_core::{Monitors, Router, SessionConfig, ToolGraph};

const COOLDOWN: u64 = 1_000;
const INTERVAL: u64 = 300;

fn graph(interval: u64) -> ToolGraph {
    let spec = format!(
        r#"{{"nodes":[{{"id":"start","tool":false}},{{"id":"stripe","probe":{{"interval_ms":{interval},"input":{{"ping":true}}}}}},
           {{"id":"razorpay"}},{{"id":"done","tool":false}}],
           "edges":[{{"from":"start","to":"stripe"}},{{"from":"start","to":"razorpay","cost":2}},
                    {{"from":"stripe","to":"done"}},{{"from":"razorpay","to":"done"}}],
           "start":"start","goal":"done"}}"#
    );
    ToolGraph::from_json(&spec).unwrap()
}

fn breaker(probes: u32) -> BreakerConfig {
    BreakerConfig { cooldown_ms: COOLDOWN, half_open_probes: probes, ..BreakerConfig::default() }
}

fn router(g: ToolGraph) -> Router {
    let config = SessionConfig { breaker: breaker(1), ..SessionConfig::default() };
    Router::with_parts(g, config, Monitors::default()).unwrap()
}

fn ok() -> Observation {
    Observation::Success { latency_ms: 5.0 }
}

#[test]
fn a_down_tool_recovers_through_its_probe_with_no_run() {
    let g = graph(INTERVAL);
    let stripe = g.index("stripe").unwrap();
    let mut r = router(g);
    assert_eq!(r.next_probe_at(0), None, "nothing down: nothing to probe");
    r.mark_down(stripe, 100);
    assert!(r.due_probes(500).is_empty(), "still cooling down");
    assert_eq!(r.next_probe_at(500), Some(100 + COOLDOWN));
    let due = r.due_probes(1_100);
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].tool, stripe);
    // One out: no second one, and no time to wake for until it settles.
    assert!(r.due_probes(1_100).is_empty());
    assert_eq!(r.next_probe_at(1_100), None);
    r.settle_probe(due[0], ok(), 1_110);
    assert_eq!(r.health().state(stripe), BreakerState::Closed);
    // Back in use at once: the probe is the evidence, so no recovery ramp keeps routes on the
    // dearer alternative.
    assert_eq!(
        r.route(r.graph().start(), r.graph().goal(), 1_110).map(|p| p.nodes.clone()),
        Some(vec![0, 1, 3])
    );
}

#[test]
fn a_failed_probe_waits_for_the_cooldown_and_the_interval() {
    // An interval longer than the cooldown: the interval governs.
    let g = graph(2_500);
    let stripe = g.index("stripe").unwrap();
    let mut r = router(g);
    r.mark_down(stripe, 0);
    let p = r.due_probes(1_000);
    assert_eq!(p.len(), 1);
    r.settle_probe(p[0], Observation::Failure, 1_050);
    assert_eq!(r.health().state(stripe), BreakerState::Open, "a failed probe opens the breaker again");
    assert_eq!(r.next_probe_at(1_100), Some(3_500), "1 000 + 2 500, later than the cooldown's end at 2 050");
    assert!(r.due_probes(3_000).is_empty());
    assert_eq!(r.due_probes(3_500).len(), 1);
}

#[test]
fn a_released_probe_gives_its_slot_back() {
    let g = graph(INTERVAL);
    let stripe = g.index("stripe").unwrap();
    let mut r = router(g);
    r.mark_down(stripe, 0);
    let p = r.due_probes(1_000);
    r.release_probe(p[0]);
    assert_eq!(r.health().state(stripe), BreakerState::HalfOpen);
    // The interval still counts from the probe handed out.
    assert!(r.due_probes(1_100).is_empty());
    assert_eq!(r.due_probes(1_000 + INTERVAL).len(), 1);
}

#[test]
fn a_probe_on_a_waypoint_or_with_no_interval_is_refused() {
    let bad = r#"{"nodes":[{"id":"s","tool":false,"probe":{"interval_ms":10}},{"id":"a","probe":{"interval_ms":0}},
        {"id":"b","probe":{"interval":5}}],"edges":[],"start":"s","goal":"a"}"#;
    let err = ToolGraph::from_json(bad).unwrap_err().to_string();
    assert!(err.contains("interval") || err.contains("unknown field"), "{err}");
    let bad = r#"{"nodes":[{"id":"s","tool":false,"probe":{"interval_ms":10}},{"id":"a","probe":{"interval_ms":0}}],
        "edges":[],"start":"s","goal":"a"}"#;
    let err = ToolGraph::from_json(bad).unwrap_err().to_string();
    assert!(err.contains("waypoint"), "{err}");
    assert!(err.contains("probe.interval_ms must be at least 1"), "{err}");
}

/// Random interleavings of runs' calls and probes on one router: the calls let through while
/// the tool is HALF_OPEN (probes of the scheduler and runs' calls alike) and not yet settled
/// never exceed `half_open_probes`.
#[test]
fn runs_and_probes_together_never_exceed_the_half_open_probes() {
    for seed in 0..200u64 {
        let mut rng = SplitMix64::new(seed);
        let probes_allowed = 1 + rng.below(3) as u32;
        let g = graph(1 + rng.below(400));
        let stripe = g.index("stripe").unwrap();
        let mut h = HealthBook::new(&g, breaker(probes_allowed));
        h.trip(stripe, 0);
        // Each permit out, with the half-open spell it was let through in (None: not half-open).
        let mut out_probes: Vec<(Probe, Option<u32>)> = Vec::new();
        let mut out_calls = Vec::new();
        let (mut spell, mut was_half_open) = (0u32, false);
        let mut now = 0;
        for _ in 0..300 {
            now += rng.below(200);
            let mut fresh = Vec::new();
            match rng.below(4) {
                0 => h.due_probes(&g, now, &mut fresh),
                1 => {
                    let before = h.state(stripe);
                    if let Ok(p) = h.admit(stripe, now, false) {
                        let half = (before == BreakerState::HalfOpen
                            || h.state(stripe) == BreakerState::HalfOpen)
                            .then_some(spell + u32::from(!was_half_open));
                        out_calls.push((p, half));
                    }
                }
                2 if !out_probes.is_empty() => {
                    let (p, _) = out_probes.swap_remove(rng.below(out_probes.len() as u64) as usize);
                    let o = if rng.below(2) == 0 { ok() } else { Observation::Failure };
                    h.settle_probe(p, o, now);
                }
                _ if !out_calls.is_empty() => {
                    let (p, _) = out_calls.swap_remove(rng.below(out_calls.len() as u64) as usize);
                    let o = if rng.below(2) == 0 { ok() } else { Observation::Outage };
                    h.settle(p, o, now);
                }
                _ => {}
            }
            let half_open = h.state(stripe) == BreakerState::HalfOpen;
            if half_open && !was_half_open {
                spell += 1;
            }
            was_half_open = half_open;
            out_probes.extend(fresh.into_iter().map(|p| (p, Some(spell))));
            if half_open {
                let this_spell = |x: &Option<u32>| *x == Some(spell);
                let n = out_probes.iter().filter(|(_, s)| this_spell(s)).count()
                    + out_calls.iter().filter(|(_, s)| this_spell(s)).count();
                assert!(
                    n <= probes_allowed as usize,
                    "seed {seed}: {n} out in this half-open spell, {probes_allowed} allowed"
                );
            }
            assert!(out_probes.len() <= 1, "seed {seed}: one probe of a tool out at a time");
        }
    }
}

/// Sixteen members: one trips the tool; each polls its scheduler on its own clock; deltas are
/// delivered after a random delay. Only the owner probes; when the tool is back, every member
/// routes through it again within one probe interval plus the delivery delay.
#[test]
fn in_a_fleet_one_member_probes_and_all_learn() {
    for seed in 0..50u64 {
        let mut rng = SplitMix64::new(seed);
        let g = graph(INTERVAL);
        let stripe = g.index("stripe").unwrap();
        let n = 16;
        let mut books: Vec<HealthBook> = (0..n)
            .map(|i| {
                let mut h = HealthBook::new(&g, breaker(1));
                h.set_origin(&format!("agent-{i:02}"));
                h
            })
            .collect();
        let owner = rng.below(n as u64) as usize;
        books[owner].trip(stripe, 0);
        let delay = 1 + rng.below(50);
        // (deliver at, delta)
        let mut wire = Vec::new();
        let mut probes_sent = 0;
        let mut back_at = None;
        let mut now = 0;
        while now < 10_000 {
            now += 1 + rng.below(20);
            for b in books.iter_mut() {
                for d in b.drain(&g) {
                    wire.push((now + delay, d));
                }
            }
            let (ready, later): (Vec<_>, Vec<_>) = wire.drain(..).partition(|(at, _)| *at <= now);
            wire = later;
            for (_, d) in ready {
                for b in books.iter_mut().filter(|b| b.origin() != d.origin) {
                    match b.apply_delta(&g, &d, now) {
                        Ok(_) | Err(Rejection::StaleVersion) => {}
                        Err(e) => panic!("seed {seed}: {e:?}"),
                    }
                }
            }
            let i = rng.below(n as u64) as usize;
            let mut due = Vec::new();
            books[i].due_probes(&g, now, &mut due);
            for p in due {
                assert_eq!(i, owner, "seed {seed}: member {i} probed, the owner is {owner}");
                probes_sent += 1;
                // The tool is back from t = 2 500: earlier probes fail.
                let o = if now >= 2_500 { ok() } else { Observation::Failure };
                if now >= 2_500 && back_at.is_none() {
                    back_at = Some(now);
                }
                books[i].settle_probe(p, o, now + 5);
            }
            if let Some(t) = back_at {
                if books.iter().all(|b| b.weight(stripe, now).is_finite()) {
                    assert!(
                        now <= t + 5 + delay + 40,
                        "seed {seed}: back at {t}, delay {delay}: every member routes through it by {now}"
                    );
                    break;
                }
            }
        }
        let t = back_at.unwrap_or_else(|| panic!("seed {seed}: never probed back"));
        assert!(
            books.iter().all(|b| b.weight(stripe, now).is_finite()),
            "seed {seed}: recovered at {t}, not all know"
        );
        // The owner probes at most once per interval or cooldown while the tool is down.
        assert!(probes_sent <= 2_500 / INTERVAL.min(COOLDOWN) + 2, "seed {seed}: {probes_sent} probes");
    }
}

/// Two hundred runs on one router, started over 8 s and interleaved at random with its probe
/// scheduler; `stripe` is down until t = 3 s. While stripe is HALF_OPEN, probes and runs' calls
/// in flight to it never exceed `half_open_probes`; every run completes (through the backup while
/// stripe is down); probes while down stay within one per cooldown; once it is back, a probe
/// closes the breaker and later runs go through stripe again.
#[test]
fn two_hundred_concurrent_runs_and_the_probe_scheduler_share_the_half_open_slot() {
    use shr_core::{Action, Run, Status, Task, ToolResult};
    const BACK_AT: u64 = 3_000;
    for seed in 0..20u64 {
        let mut rng = SplitMix64::new(seed);
        let mut r = router(graph(INTERVAL));
        let stripe = r.graph().index("stripe").unwrap();
        r.mark_down(stripe, 0);
        let starts: Vec<u64> = (0..200).map(|_| rng.below(8_000)).collect();
        let mut runs: Vec<Option<Run>> = (0..200).map(|_| None).collect();
        let mut probes: Vec<Probe> = Vec::new();
        let (mut sent, mut sent_while_down, mut worst) = (0u64, 0u64, 0u32);
        let mut now = 0;
        while now < 20_000
            && !(now > 8_000 && runs.iter().flatten().all(Run::is_finished) && probes.is_empty())
        {
            now += 1 + rng.below(15);
            for (i, slot) in runs.iter_mut().enumerate() {
                if slot.is_none() && starts[i] <= now {
                    *slot = Some(r.start(Task::default(), now).unwrap());
                }
            }
            let outcome = |tool: &str, at: u64| {
                if tool == "stripe" && at < BACK_AT {
                    ToolResult::outage("503")
                } else {
                    ToolResult::ok(serde_json::json!({}), 5.0)
                }
            };
            // A few turns: a run reports what it has in flight (sometimes) and asks what next,
            // or the scheduler hands out its probes, or a probe comes back.
            for _ in 0..1 + rng.below(8) {
                match rng.below(6) {
                    0 => {
                        let due = r.due_probes(now);
                        sent += due.len() as u64;
                        sent_while_down += due.iter().filter(|_| now < BACK_AT).count() as u64;
                        probes.extend(due);
                    }
                    1 if !probes.is_empty() => {
                        let p = probes.swap_remove(rng.below(probes.len() as u64) as usize);
                        let o = if now < BACK_AT { Observation::Failure } else { ok() };
                        r.settle_probe(p, o, now);
                    }
                    _ => {
                        let live: Vec<usize> = (0..runs.len())
                            .filter(|&i| runs[i].as_ref().is_some_and(|x| !x.is_finished()))
                            .collect();
                        if live.is_empty() {
                            continue;
                        }
                        let run = runs[live[rng.below(live.len() as u64) as usize]].as_mut().unwrap();
                        if rng.below(2) == 0 {
                            let flying: Vec<String> =
                                run.in_flight().map(|v| r.graph().id(v).to_string()).collect();
                            for tool in flying {
                                r.report(run, &tool, outcome(&tool, now), now).unwrap();
                            }
                        }
                        if let Action::Escalate { request } = r.next(run, now).unwrap() {
                            panic!("seed {seed}: escalated at {now}: {request:?}");
                        }
                    }
                }
                if r.health().state(stripe) == BreakerState::HalfOpen {
                    worst = worst.max(r.health().tool(stripe).unwrap().in_flight());
                }
            }
        }
        assert!(worst <= 1, "seed {seed}: {worst} calls in flight to a half-open tool, 1 allowed");
        assert!(
            runs.iter()
                .all(|x| x.as_ref().and_then(Run::outcome).is_some_and(|o| o.status == Status::Completed)),
            "seed {seed}: a run did not complete"
        );
        assert!(
            sent_while_down <= BACK_AT / COOLDOWN + 1,
            "seed {seed}: {sent_while_down} probes while down"
        );
        assert_eq!(
            r.health().state(stripe),
            BreakerState::Closed,
            "seed {seed}: stripe is back but its breaker is not closed"
        );
        let late = runs.iter().flatten().filter(|x| x.events().iter().any(|e| matches!(&e.kind, shr_core::EventKind::ToolSucceeded { tool, .. } if tool == "stripe"))).count();
        if seed == 0 {
            println!("200 concurrent runs with the probe scheduler: {sent} probes ({sent_while_down} while down), at most {worst} in flight while half-open, {late} runs through stripe once it was back");
        }
        assert!(late > 0, "seed {seed}: no run went through stripe after it came back");
    }
}
