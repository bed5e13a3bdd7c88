//! Fleet health: deltas between members merge deterministically, an open breaker holds across
//! the fleet, the fleet sends at most `half_open_probes` probes, and hostile deltas are refused.

use shr_core::health::fleet::{FleetConfig, MAX_VERSION, TICKS_PER_MS};
use shr_core::health::{
    BreakerConfig, BreakerState, Change, HealthBook, HealthDelta, Observation, Rejection,
};
use shr_core::rng::SplitMix64;
use shr_core::ToolGraph;

fn graph() -> ToolGraph {
    ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"stripe"},{"id":"razorpay"},{"id":"done","tool":false}],
           "edges":[{"from":"start","to":"stripe"},{"from":"start","to":"razorpay","cost":2},
                    {"from":"stripe","to":"done"},{"from":"razorpay","to":"done"}],
           "start":"start","goal":"done"}"#,
    )
    .unwrap()
}

const COOLDOWN: u64 = 1_000;

fn member(g: &ToolGraph, name: &str) -> HealthBook {
    let mut h = HealthBook::new(g, BreakerConfig { cooldown_ms: COOLDOWN, ..BreakerConfig::default() });
    h.set_origin(name);
    h
}

fn fleet(g: &ToolGraph, n: usize) -> Vec<HealthBook> {
    (0..n).map(|i| member(g, &format!("agent-{i:02}"))).collect()
}

/// Delivers every member's outbox to every other member; every delta must be applied.
fn gossip(g: &ToolGraph, books: &mut [HealthBook], now: u64) {
    deliver(g, books, now, &[]);
}

/// Like `gossip`, but members that opened together refuse each other's equal-version openings
/// (`stale_version`): that is the merge, not an error.
fn gossip_lenient(g: &ToolGraph, books: &mut [HealthBook], now: u64) {
    deliver(g, books, now, &[Rejection::StaleVersion]);
}

fn deliver(g: &ToolGraph, books: &mut [HealthBook], now: u64, expected: &[Rejection]) {
    let mut sent = Vec::new();
    for b in books.iter_mut() {
        sent.extend(b.drain(g));
    }
    for b in books.iter_mut() {
        for d in &sent {
            if d.origin != b.origin() {
                if let Err(e) = b.apply_delta(g, d, now) {
                    assert!(expected.contains(&e), "{e:?}");
                }
            }
        }
    }
}

#[test]
fn one_member_trips_and_the_fleet_avoids_the_tool() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let mut books = fleet(&g, 16);
    books[3].trip(stripe, 100);
    gossip(&g, &mut books, 105);
    for b in &books {
        assert_eq!(b.state(stripe), BreakerState::Open, "{}", b.origin());
        assert!(b.weight(stripe, 105).is_infinite());
    }
    // Nothing echoes: applying a remote delta writes nothing to publish.
    assert!(books.iter_mut().all(|b| b.drain(&g).is_empty()));
}

#[test]
fn the_fleet_sends_one_probe_and_all_learn_the_tool_is_back() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let mut books = fleet(&g, 16);
    books[5].trip(stripe, 100);
    gossip(&g, &mut books, 110);
    let after = 100 + COOLDOWN + 1;
    let permits: Vec<_> = books.iter_mut().map(|b| b.admit(stripe, after, false)).collect();
    let probes = permits.iter().filter(|p| p.is_ok()).count();
    assert_eq!(probes, 1, "only the member that opened the breaker probes");
    assert!(permits[5].is_ok());
    let permit = permits.into_iter().nth(5).unwrap().unwrap();
    books[5].settle(permit, Observation::Success { latency_ms: 5.0 }, after + 10);
    gossip(&g, &mut books, after + 20);
    for b in &books {
        assert_eq!(b.state(stripe), BreakerState::Closed, "{}", b.origin());
    }
}

#[test]
fn a_lease_that_runs_out_lets_each_member_probe() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let mut books = fleet(&g, 4);
    books[0].trip(stripe, 100);
    gossip(&g, &mut books, 100);
    // The owner is gone: after its lease (one more cooldown) the others probe for themselves.
    let late = 100 + 2 * COOLDOWN + 1;
    assert!(books[1..].iter_mut().all(|b| b.admit(stripe, late, false).is_ok()));
}

#[test]
fn members_hearing_deltas_in_any_order_agree() {
    let g = graph();
    let tools = [g.index("stripe").unwrap(), g.index("razorpay").unwrap()];
    for seed in 0..50 {
        let mut rng = SplitMix64::new(seed);
        let mut books = fleet(&g, 8);
        let mut sent: Vec<HealthDelta> = Vec::new();
        let mut now = 1_000;
        for _ in 0..40 {
            now += rng.below(300);
            let b = rng.below(8) as usize;
            let v = tools[rng.below(2) as usize];
            match rng.below(3) {
                0 => drop(books[b].trip(v, now)),
                1 => drop(books[b].reset(v, now)),
                _ => drop(books[b].observe(v, Observation::Failure, now)),
            }
            sent.extend(books[b].drain(&g));
        }
        // Every member hears every delta, each in its own random order, some twice; what that
        // makes them publish goes round again, until nothing new is said.
        let mut end = now + 10;
        let mut rounds = 0;
        while !sent.is_empty() {
            rounds += 1;
            assert!(rounds < 20, "seed {seed}: the fleet keeps talking");
            for b in books.iter_mut() {
                let mut order: Vec<&HealthDelta> = sent.iter().chain(sent.iter().take(5)).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.below(i as u64 + 1) as usize);
                }
                for d in order {
                    let _ = b.apply_delta(&g, d, end);
                }
            }
            sent = books.iter_mut().flat_map(|b| b.drain(&g)).collect();
            end += 10;
        }
        // Every member holds the same last delta for each tool, and the same breaker state.
        for &v in &tools {
            let id = g.id(v);
            let view = |b: &HealthBook| {
                b.snapshot(&g).into_iter().find(|d| d.tool == id).map(|d| (d.version, d.origin, d.change))
            };
            let first = view(&books[0]);
            for b in &books {
                assert_eq!(view(b), first, "seed {seed} {}", b.origin());
                assert_eq!(b.state(v), books[0].state(v), "seed {seed} {}", b.origin());
            }
        }
    }
}

#[test]
fn hostile_deltas_are_refused_with_a_code_and_change_nothing() {
    let g = graph();
    let mut b = member(&g, "me");
    let good = HealthDelta {
        tool: "stripe".into(),
        change: Change::Opened,
        cooldown: Some(1_000),
        version: 1,
        origin: "peer".into(),
    };
    let cases: Vec<(HealthDelta, Rejection)> = vec![
        (HealthDelta { tool: "stripee".into(), ..good.clone() }, Rejection::UnknownTool),
        (HealthDelta { origin: "me".into(), ..good.clone() }, Rejection::BadOrigin),
        (HealthDelta { origin: String::new(), ..good.clone() }, Rejection::BadOrigin),
        (HealthDelta { origin: "x".repeat(129), ..good.clone() }, Rejection::BadOrigin),
        (HealthDelta { version: 0, ..good.clone() }, Rejection::BadVersion),
        (HealthDelta { version: 1 << 60, ..good.clone() }, Rejection::BadVersion),
        (HealthDelta { cooldown: None, ..good.clone() }, Rejection::BadChange),
        (HealthDelta { version: MAX_VERSION, ..good.clone() }, Rejection::Ahead),
        (HealthDelta { change: Change::Closed, ..good.clone() }, Rejection::BadChange),
    ];
    for (d, why) in cases {
        assert_eq!(b.apply_delta(&g, &d, 1_000), Err(why), "{d:?}");
    }
    assert_eq!(b.state(1), BreakerState::Closed);
    assert!(b.apply_delta(&g, &good, 1_000).is_ok());
    assert_eq!(b.apply_delta(&g, &good, 1_000), Err(Rejection::StaleVersion));
    assert_eq!(b.fleet_stats().rejected, 10);
    assert_eq!(b.fleet_stats().applied, 1);
}

#[test]
fn a_cooldown_longer_than_ours_is_cut_to_one_cooldown() {
    let g = graph();
    let mut b = member(&g, "me");
    let d = HealthDelta {
        tool: "stripe".into(),
        change: Change::Opened,
        cooldown: Some(u64::MAX / 2),
        version: 1,
        origin: "peer".into(),
    };
    b.apply_delta(&g, &d, 5_000).unwrap();
    assert_eq!(b.tool(1).unwrap().breaker.reopens_at(), Some(5_000 + COOLDOWN));
}

/// Failures seen by different members add up: three members failing once each open the
/// breaker everywhere, and exactly one of them owns the probe.
#[test]
fn the_fleets_failures_open_the_breaker_and_one_member_probes() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let mut books = fleet(&g, 8);
    for b in books.iter_mut().take(3) {
        b.observe(stripe, Observation::Failure, 100);
    }
    // Two rounds: the failures, then the openings they caused.
    gossip_lenient(&g, &mut books, 101);
    gossip_lenient(&g, &mut books, 102);
    for b in &books {
        assert_eq!(b.state(stripe), BreakerState::Open, "{}", b.origin());
    }
    let after = 100 + COOLDOWN + 1;
    let probes = books.iter_mut().filter_map(|b| b.admit(stripe, after, false).ok()).count();
    assert_eq!(probes, 1);
}

const NOW: u64 = 1_700_000_000_000;

fn opened(origin: &str, version: u64, cooldown: u64) -> HealthDelta {
    HealthDelta {
        tool: "stripe".into(),
        change: Change::Opened,
        cooldown: Some(cooldown),
        version,
        origin: origin.into(),
    }
}

fn failed(origin: &str, version: u64) -> HealthDelta {
    HealthDelta {
        tool: "stripe".into(),
        change: Change::Failed,
        cooldown: None,
        version,
        origin: origin.into(),
    }
}

fn with_quorum(mut b: HealthBook, quorum: u32) -> HealthBook {
    b.set_fleet_config(FleetConfig { quorum, ..FleetConfig::default() });
    b
}

/// An `opened` at 2^53 - 1 (or anywhere past the allowed skew) is refused; one just inside the
/// skew is taken, and the receiver's own later `closed` outranks it: nothing is pinned.
#[test]
fn a_version_far_ahead_is_refused_and_one_inside_the_skew_pins_nothing() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let skew = FleetConfig::default().max_skew_ms;
    let mut a = member(&g, "a");
    let mut b = member(&g, "b");
    for version in [MAX_VERSION, (NOW + skew + 1) * TICKS_PER_MS] {
        assert_eq!(a.apply_delta(&g, &opened("mallory", version, COOLDOWN), NOW), Err(Rejection::Ahead));
    }
    assert_eq!(a.state(stripe), BreakerState::Closed);
    // Inside the skew: a key holder's clock may be that far ahead.
    let edge = (NOW + skew) * TICKS_PER_MS;
    a.apply_delta(&g, &opened("mallory", edge, COOLDOWN), NOW).unwrap();
    assert_eq!(a.state(stripe), BreakerState::Open);
    // a's own recovery comes after everything it heard: b takes it, the tool is back.
    b.apply_delta(&g, &opened("mallory", edge, COOLDOWN), NOW).unwrap();
    a.reset(stripe, NOW + 5);
    let closed = a.drain(&g);
    assert!(closed[0].version > edge, "{closed:?}");
    b.apply_delta(&g, &closed[0], NOW + 5).unwrap();
    assert_eq!(b.state(stripe), BreakerState::Closed);
}

/// The same captured `failed` applied ten times counts once; ten different failures from one
/// member within a window count once too.
#[test]
fn replayed_failures_are_refused_and_one_member_counts_once_per_window() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let mut b = member(&g, "me");
    let d = failed("peer", NOW * TICKS_PER_MS);
    assert!(b.apply_delta(&g, &d, NOW).is_ok());
    for _ in 0..9 {
        assert_eq!(b.apply_delta(&g, &d, NOW), Err(Rejection::Replayed));
    }
    // An older one from the same member is a replay too.
    assert_eq!(b.apply_delta(&g, &failed("peer", NOW * TICKS_PER_MS - 7), NOW), Err(Rejection::Replayed));
    for i in 1..10 {
        b.apply_delta(&g, &failed("peer", NOW * TICKS_PER_MS + i), NOW + i).unwrap();
    }
    assert_eq!(b.state(stripe), BreakerState::Closed, "one member's failures counted once");
    assert_eq!(b.fleet_stats().applied, 10);
    assert_eq!(b.fleet_stats().rejected, 10);
    // An `opened` kept as evidence only (a quorum of 2, one member) is heard: its replay too.
    let mut q = with_quorum(member(&g, "q"), 2);
    let sick = opened("sick", NOW * TICKS_PER_MS, COOLDOWN);
    assert_eq!(q.apply_delta(&g, &sick, NOW), Ok(None));
    assert_eq!(q.apply_delta(&g, &sick, NOW + 5 * COOLDOWN), Err(Rejection::Replayed));
    assert_eq!(q.state(stripe), BreakerState::Closed);
    // Three members, once each: the default breaker's three consecutive failures.
    for peer in ["p1", "p2"] {
        b.apply_delta(&g, &failed(peer, NOW * TICKS_PER_MS + 20), NOW + 20).unwrap();
    }
    assert_eq!(b.state(stripe), BreakerState::Open);
}

/// One member whose own network refuses stripe opens its own breaker, again and again; with a
/// quorum of 2 the three healthy members keep stripe. A second member seeing it fail opens it
/// for everyone, and the fleet still probes once.
#[test]
fn with_a_quorum_one_members_fault_stays_its_own() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let mut books: Vec<HealthBook> = fleet(&g, 4).into_iter().map(|b| with_quorum(b, 2)).collect();
    let mut now = NOW;
    for _ in 0..5 {
        books[0].observe(stripe, Observation::Failure, now);
        books[0].observe(stripe, Observation::Outage, now + 1);
        gossip(&g, &mut books, now + 2);
        assert_eq!(books[0].state(stripe), BreakerState::Open);
        for b in &mut books[1..] {
            assert_eq!(b.state(stripe), BreakerState::Closed, "{}", b.origin());
            let call = b.admit(stripe, now + 3, false).expect("a healthy member calls stripe");
            b.settle(call, Observation::Success { latency_ms: 5.0 }, now + 4);
        }
        now += 2 * COOLDOWN + 10;
    }
    assert!(books[1].fleet_stats().evidence > 0);
    // A second member sees it fail once: evidence from two members opens it everywhere.
    books[0].observe(stripe, Observation::Outage, now);
    gossip(&g, &mut books, now + 1);
    // Its own one failure, with member 0's evidence, is a quorum: it opens at once.
    books[2].observe(stripe, Observation::Failure, now + 2);
    assert_eq!(books[2].state(stripe), BreakerState::Open);
    gossip_lenient(&g, &mut books, now + 3);
    gossip_lenient(&g, &mut books, now + 4);
    for b in &books {
        assert_eq!(b.state(stripe), BreakerState::Open, "{}", b.origin());
    }
    let mut after = now + 4 + COOLDOWN + 1;
    // The tool stays down: each cooldown the owner's probe fails and reopens it, long after the
    // evidence that opened it ran out; the others keep out of its way, one probe a cooldown.
    for _ in 0..4 {
        let mut probes = Vec::new();
        for (i, b) in books.iter_mut().enumerate() {
            if let Ok(p) = b.admit(stripe, after, false) {
                probes.push((i, p));
            }
        }
        assert_eq!(probes.len(), 1, "one probe for the fleet at {after}");
        for (i, p) in probes {
            books[i].settle(p, Observation::Failure, after + 1);
        }
        gossip_lenient(&g, &mut books, after + 2);
        after += COOLDOWN + 3;
    }
}

/// Cooldowns travel as durations: a member whose clock is an hour behind opens the tool for a
/// whole cooldown elsewhere, not for none; what the others send it runs an hour ahead of its
/// clock and is refused as `ahead` (counted, so the bad clock shows).
#[test]
fn skewed_clocks_neither_lose_nor_stretch_news() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let hour = 3_600_000;
    let mut slow = member(&g, "slow");
    let mut fast = member(&g, "fast");
    slow.trip(stripe, NOW - hour);
    let d = slow.drain(&g);
    assert_eq!(d[0].cooldown, Some(COOLDOWN));
    fast.apply_delta(&g, &d[0], NOW).unwrap();
    assert_eq!(fast.tool(stripe).unwrap().breaker.reopens_at(), Some(NOW + COOLDOWN));
    // Within the skew both ways: a clock 30 s ahead is heard, and its cooldown is not stretched.
    let mut ahead = member(&g, "ahead");
    ahead.trip(g.index("razorpay").unwrap(), NOW + 30_000);
    let d = ahead.drain(&g);
    let mut b = member(&g, "b");
    b.apply_delta(&g, &d[0], NOW).unwrap();
    assert_eq!(b.tool(g.index("razorpay").unwrap()).unwrap().breaker.reopens_at(), Some(NOW + COOLDOWN));
    assert_eq!(slow.apply_delta(&g, &d[0], NOW - hour), Err(Rejection::Ahead));
}

/// What a late member reads from a peer: the cooldown left now, and the evidence that counts.
#[test]
fn a_snapshot_says_the_cooldown_left_and_the_evidence_that_counts() {
    let g = graph();
    let stripe = g.index("stripe").unwrap();
    let mut a = with_quorum(member(&g, "a"), 2);
    a.apply_delta(&g, &failed("p1", NOW * TICKS_PER_MS), NOW).unwrap();
    a.apply_delta(&g, &opened("p2", NOW * TICKS_PER_MS + 1, COOLDOWN), NOW).unwrap();
    assert_eq!(a.state(stripe), BreakerState::Open);
    let snap = a.snapshot_at(&g, NOW + 400);
    let open = snap.iter().find(|d| d.change == Change::Opened).unwrap();
    assert_eq!(open.cooldown, Some(COOLDOWN - 400));
    let mut late = with_quorum(member(&g, "late"), 2);
    for d in &snap {
        late.apply_delta(&g, d, NOW + 400).unwrap();
    }
    assert_eq!(late.state(stripe), BreakerState::Open);
    assert_eq!(late.tool(stripe).unwrap().breaker.reopens_at(), Some(NOW + COOLDOWN));
}
