//! One live health for every run of a router (issue 20): many runs interleaved on one router
//! share breakers, probes, bulkheads, rate limits and retry budgets. Each test prints its figure.

use proptest::prelude::*;
use serde_json::json;
use shr_core::algo::{entered_weight, Dijkstra, Plan};
use shr_core::event::EventKind;
use shr_core::health::{BreakerConfig, Observation, Refusal};
use shr_core::{
    check_observability, Action, BreakerState, Router, Run, SessionConfig, Status, Task, ToolGraph,
    ToolResult,
};

#[path = "support/pay_runs.rs"]
mod pay_runs;
use pay_runs::{calls_to, finish_all, only_pay, pay_graph, start_all};

#[test]
fn a_thousand_concurrent_runs_spare_a_dead_tool() {
    let mut router = Router::new(pay_graph(""));
    let (mut runs, _) = start_all(&mut router, 1_000, 0);
    finish_all(&mut router, &mut runs, 1, |tool| {
        if tool == "pay" {
            ToolResult::outage("503")
        } else {
            ToolResult::ok(json!({}), 5.0)
        }
    });
    let config = BreakerConfig::default();
    let dead = calls_to(&runs, "pay");
    println!("1,000 concurrent runs, `pay` down: {dead} calls to it (was 1,000 with a health copy per run)");
    assert!(
        dead as u32 <= config.consecutive_failures + config.half_open_probes,
        "{dead} calls to a dead tool"
    );
    for run in &runs {
        assert_eq!(run.outcome().map(|o| o.status), Some(Status::Completed), "{:#?}", run.events());
        check_observability(run.events()).unwrap();
    }
}

#[test]
fn a_half_open_tool_gets_exactly_its_probes_from_a_hundred_runs() {
    let mut router = Router::new(pay_graph(""));
    let pay = router.graph().index("pay").unwrap();
    router.mark_down(pay, 0);
    let later = BreakerConfig::default().cooldown_ms + 1;
    let (mut runs, calls) = start_all(&mut router, 100, later);
    let probes = calls.iter().flatten().filter(|t| *t == "pay").count();
    println!("100 concurrent runs while `pay` is half-open (1 probe): {probes} probe(s)");
    assert_eq!(probes, 1);
    assert_eq!(router.health().state(pay), BreakerState::HalfOpen);
    finish_all(&mut router, &mut runs, later + 1, |_| ToolResult::ok(json!({}), 5.0));
    assert_eq!(router.health().state(pay), BreakerState::Closed, "the probe's success closed it");
}

#[test]
fn a_rate_limit_holds_across_fifty_runs() {
    let mut router = Router::new(pay_graph(r#","rate_limit":{"calls":2,"per_ms":3600000}"#));
    let (mut runs, _) = start_all(&mut router, 50, 0);
    finish_all(&mut router, &mut runs, 1, |_| ToolResult::ok(json!({}), 5.0));
    let paid = calls_to(&runs, "pay");
    let told = runs
        .iter()
        .filter(|r| {
            r.events().iter().any(
                |e| matches!(&e.kind, EventKind::Shed { tool, reason: Refusal::RateLimited } if tool == "pay"),
            )
        })
        .count();
    println!(
        "rate_limit 2 per hour, 50 concurrent runs: {paid} calls; {told} runs said why they went around"
    );
    assert_eq!(paid, 2);
    assert_eq!(told, 48, "every other run names the rate limit it routed around");
    assert_eq!(calls_to(&runs, "backup"), 48);
}

#[test]
fn a_bulkhead_bounds_calls_in_flight_over_a_hundred_runs() {
    let mut router = Router::new(only_pay(r#","max_concurrent":4"#));
    let pay = router.graph().index("pay").unwrap();
    let mut runs: Vec<Run> = (0..100).map(|_| router.start(Task::default(), 0).unwrap()).collect();
    let mut now = 0;
    let mut most = 0;
    let mut paused = 0;
    // Runs take turns in a seeded random order; a run reports its call on one turn in three.
    let mut rng = shr_core::rng::SplitMix64::new(20);
    for _ in 0..100_000 {
        if runs.iter().all(Run::is_finished) {
            break;
        }
        let i = rng.below(runs.len() as u64) as usize;
        if runs[i].is_finished() {
            continue;
        }
        let flying: Vec<String> = runs[i].in_flight().map(|v| router.graph().id(v).to_string()).collect();
        if rng.below(3) == 0 {
            for tool in flying {
                router.report(&mut runs[i], &tool, ToolResult::ok(json!({}), 5.0), now).unwrap();
            }
        }
        match router.next(&mut runs[i], now).unwrap() {
            Action::Pause { until } => {
                paused += 1;
                assert!(until > now);
            }
            Action::Escalate { request } => panic!("escalated: {request:?}"),
            _ => {}
        }
        most = most.max(router.health().tool(pay).unwrap().in_flight());
        now += 1;
    }
    println!("max_concurrent 4, 100 concurrent runs: at most {most} calls in flight; {paused} pauses");
    assert!(most <= 4);
    assert!(runs.iter().all(|r| r.outcome().is_some_and(|o| o.status == Status::Completed)));
}

#[test]
fn a_run_waits_at_most_max_wait_then_escalates() {
    let mut router = Router::new(only_pay(r#","max_concurrent":1"#));
    let mut holder = router.start(Task::default(), 0).unwrap();
    assert!(matches!(router.next(&mut holder, 0).unwrap(), Action::CallTools { .. }));
    let mut waiter = router.start(Task::default(), 0).unwrap();
    let max_wait = router.config().admission.max_wait_ms;
    let mut now = 0;
    loop {
        match router.next(&mut waiter, now).unwrap() {
            Action::Pause { until } => now = until,
            Action::Escalate { request } => {
                assert_eq!(request.reason, shr_core::EscalationReason::NoPath);
                break;
            }
            other => panic!("{other:?}"),
        }
        assert!(now <= max_wait + 100, "waited past max_wait");
    }
    println!("a run waiting on a full tool escalated after {now} ms (max_wait {max_wait} ms)");
    assert!(now >= max_wait);
    // The holder gives up on its call: its place is given back.
    router.abandon(&mut holder, "deadline passed", now).unwrap();
    assert_eq!(router.health().tool(1).unwrap().in_flight(), 0);
    let o = holder.outcome().unwrap();
    assert_eq!((o.status, o.message.as_deref()), (Status::Escalated, Some("deadline passed")));
    check_observability(holder.events()).unwrap();
}

#[test]
fn a_clock_stepping_back_an_hour_changes_no_backoff() {
    let g = only_pay(r#","retry":{"attempts":1,"backoff_ms":10,"jitter":false}"#);
    let mut router = Router::new(g);
    let mut run = router.start(Task::default(), 0).unwrap();
    let t = 3_600_000 + 5_000;
    assert!(matches!(router.next(&mut run, t).unwrap(), Action::CallTools { .. }));
    router.report(&mut run, "pay", ToolResult::transient("timeout"), t + 5).unwrap();
    // The host's wall clock steps back an hour.
    let stepped_back = t + 5 - 3_600_000;
    let Action::CallTools { calls } = router.next(&mut run, stepped_back).unwrap() else { panic!() };
    assert_eq!((calls[0].attempt, calls[0].delay_ms), (2, 10), "sleep 10 ms, not an hour and 10 ms");
}

#[test]
fn retries_of_many_runs_stay_within_the_retry_budget() {
    let g = only_pay(r#","retry":{"attempts":3,"backoff_ms":0}"#);
    let config = SessionConfig {
        breaker: BreakerConfig { consecutive_failures: 1_000, min_calls: 1_000, ..BreakerConfig::default() },
        admission: shr_core::health::AdmissionConfig { initial_concurrency: 0, ..Default::default() },
        ..SessionConfig::default()
    };
    let mut router = Router::with_parts(g, config, shr_core::Monitors::default()).unwrap();
    let (mut runs, _) = start_all(&mut router, 100, 0);
    // Every call fails transiently, reported in one sweep: retries are granted while the
    // budget holds (20% of calls in flight, at least 3), the rest go without.
    let mut retried = 0;
    let mut shed = 0;
    for run in runs.iter_mut() {
        router.report(run, "pay", ToolResult::transient("503"), 1).unwrap();
        let kinds: Vec<&EventKind> = run.events().iter().map(|e| &e.kind).collect();
        if kinds.iter().any(|k| matches!(k, EventKind::Retried { .. })) {
            retried += 1;
            assert!(matches!(router.next(run, 1).unwrap(), Action::CallTools { .. }));
        } else {
            assert!(kinds.iter().any(|k| matches!(k, EventKind::Shed { reason: Refusal::RetryBudget, .. })));
            shed += 1;
        }
    }
    println!("100 runs failing at once: {retried} retried, {shed} not (retry budget)");
    assert!((3..100).contains(&retried));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// However the reports of many runs interleave, a breaker moves only on the outcome of a
    /// call let through in its current generation: a slow call that left before the breaker
    /// opened cannot close it, nor stand in for the probe of a half-open one.
    #[test]
    fn a_stale_outcome_never_moves_a_breaker(ops in prop::collection::vec((0usize..8, 0u8..4, 0u64..40_000), 1..120)) {
        let mut router = Router::new(pay_graph(""));
        let pay = router.graph().index("pay").unwrap();
        let mut runs: Vec<Run> = (0..8).map(|_| router.start(Task::default(), 0).unwrap()).collect();
        // The breaker generation each run's call to `pay` was let through in.
        let mut admitted: Vec<Option<u64>> = vec![None; 8];
        let mut now = 0;
        for (i, op, dt) in ops {
            now += dt;
            // Cooldowns first, so that what moves the breaker below is the report alone.
            router.advance(now);
            let gen_now = router.health().tool(pay).unwrap().breaker.generation();
            if runs[i].is_finished() {
                runs[i] = router.start(Task::default(), now).unwrap();
                admitted[i] = None;
            }
            if admitted[i].is_none() || op == 0 {
                if let Ok(Action::CallTools { calls }) = router.next(&mut runs[i], now) {
                    if calls.iter().any(|c| c.tool == "pay") {
                        admitted[i] = Some(router.health().tool(pay).unwrap().breaker.generation());
                    }
                }
                continue;
            }
            let Some(generation) = admitted[i].take() else { continue };
            let before = router.health().state(pay);
            let result = match op {
                1 => ToolResult::ok(json!({}), 5.0),
                2 => ToolResult::outage("503"),
                _ => ToolResult::transient("timeout"),
            };
            let _ = router.report(&mut runs[i], "pay", result, now);
            let after = router.health().state(pay);
            if after != before {
                prop_assert_eq!(generation, gen_now,
                    "a call let through in generation {} moved the breaker from {:?} to {:?} in generation {}",
                    generation, before, after, gen_now);
            }
        }
    }
}

/// A run that plans around a tool because an earlier run found it down says so: a `Shed` event
/// naming the tool and why, right after its plan (binary observability across runs).
#[test]
fn a_run_says_which_tools_it_avoids_because_another_run_found_them_down() {
    let mut router = Router::new(pay_graph(""));
    let mut first = router.start(Task::default(), 0).unwrap();
    assert!(matches!(router.next(&mut first, 0).unwrap(), Action::CallTools { .. }));
    router.report(&mut first, "pay", ToolResult::outage("503"), 1).unwrap();
    let mut second = router.start(Task::default(), 2).unwrap();
    let Action::CallTools { calls } = router.next(&mut second, 2).unwrap() else { panic!("no call") };
    assert_eq!(calls[0].tool, "backup");
    let names: Vec<&str> = second.events().iter().map(|e| e.kind.name()).collect();
    let shed = second
        .events()
        .iter()
        .position(|e| matches!(&e.kind, EventKind::Shed { tool, reason: Refusal::Open } if tool == "pay"));
    assert!(shed.is_some_and(|i| i > names.iter().position(|n| *n == "PathPlanned").unwrap()), "{names:?}");
}

/// A fleet: 8 routers, 125 runs each, every step a random run of a random router, health deltas
/// delivered to the other members after random delays and in random order. `pay` fails (a
/// transient error, one retry, then an outage). Every run finishes and keeps the observability
/// guarantee, every member ends with `pay` open, and sharing spares calls. Returns the calls to
/// `pay` across the fleet.
fn fleet_run(seed: u64, share: bool) -> usize {
    use shr_core::health::HealthDelta;
    use shr_core::rng::SplitMix64;
    let mut rng = SplitMix64::new(seed);
    let mut routers: Vec<Router> = (0..8)
        .map(|i| {
            let mut r = Router::new(pay_graph(""));
            r.set_origin(&format!("m{i}"));
            r
        })
        .collect();
    let mut runs: Vec<Vec<Run>> = routers
        .iter_mut()
        .map(|r| (0..125).map(|_| r.start(Task::default(), 0).unwrap()).collect())
        .collect();
    // (deliver at step, to member, delta)
    let mut network: Vec<(u64, usize, HealthDelta)> = Vec::new();
    let mut now = 0;
    for step in 0..200_000u64 {
        if runs.iter().flatten().all(Run::is_finished) {
            break;
        }
        now += rng.below(3);
        let m = rng.below(8) as usize;
        let i = rng.below(125) as usize;
        let (router, run) = (&mut routers[m], &mut runs[m][i]);
        if !run.is_finished() {
            let flying: Vec<String> = run.in_flight().map(|v| router.graph().id(v).to_string()).collect();
            if let Some(tool) = flying.first() {
                let result =
                    if tool == "pay" { ToolResult::transient("503") } else { ToolResult::ok(json!({}), 5.0) };
                router.report(run, tool, result, now).unwrap();
            } else {
                match router.next(run, now).unwrap() {
                    Action::Escalate { .. } => router
                        .resolve_escalation(run, shr_core::Decision::Abort { message: "stop".into() }, now)
                        .unwrap(),
                    Action::Pause { until } => now = now.max(until),
                    _ => {}
                }
            }
        }
        if share {
            for d in routers[m].drain_health_deltas() {
                for to in (0..8).filter(|&to| to != m) {
                    network.push((step + rng.below(50), to, d.clone()));
                }
            }
            // Deliver what is due, in random order.
            let (mut due, rest): (Vec<_>, Vec<_>) = network.drain(..).partition(|(at, _, _)| *at <= step);
            network = rest;
            for k in (1..due.len()).rev() {
                due.swap(k, rng.below(k as u64 + 1) as usize);
            }
            for (_, to, d) in due {
                // Equal-version openings from members that opened together refuse each other.
                let _ = routers[to].apply_health_delta(&d, now);
            }
        }
    }
    for (m, rs) in runs.iter().enumerate() {
        for run in rs {
            assert!(run.is_finished(), "seed {seed}: member {m} has a run that never finished");
            check_observability(run.events()).unwrap();
        }
    }
    let pay = routers[0].graph().index("pay").unwrap();
    for (m, r) in routers.iter().enumerate() {
        assert_ne!(r.health().state(pay), BreakerState::Closed, "seed {seed}: member {m} still trusts pay");
    }
    runs.iter().map(|rs| calls_to(rs, "pay")).sum()
}

#[test]
fn a_fleet_of_routers_interleaved_at_random_shares_what_it_learns() {
    let (mut alone, mut shared) = (0, 0);
    for seed in 0..20 {
        alone += fleet_run(seed, false);
        shared += fleet_run(seed, true);
    }
    println!("1,000 runs on 8 routers, 20 random interleavings: calls to the failing tool {alone} alone, {shared} shared");
    assert!(shared < alone, "sharing spares calls: {shared} vs {alone}");
}

/// Three layers of alternatives between `s` and `done`, every tool of a layer leading to every
/// tool of the next, at costs that differ.
fn layered_pay_graph() -> ToolGraph {
    let layers: [&[&str]; 3] = [&["crm", "crm2"], &["pay", "backup", "wallet"], &["email", "sms"]];
    let mut nodes = vec![json!({"id": "s", "tool": false})];
    let mut edges = Vec::new();
    let mut prev = vec!["s"];
    for (l, layer) in layers.iter().enumerate() {
        for (k, id) in layer.iter().enumerate() {
            nodes.push(json!({"id": id}));
            for p in &prev {
                edges.push(json!({"from": p, "to": id, "cost": 1 + l + 2 * k}));
            }
        }
        prev = layer.to_vec();
    }
    nodes.push(json!({"id": "done", "tool": false}));
    for p in &prev {
        edges.push(json!({"from": p, "to": "done", "cost": 1}));
    }
    ToolGraph::from_json(&json!({"nodes": nodes, "edges": edges, "start": "s", "goal": "done"}).to_string())
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The weights a router remembers between routes are never stale: however the reports of
    /// eight runs, outcomes recorded by the host, tools marked down and up, and the clock
    /// interleave, `Router::route` costs what a search over weights read afresh from the health
    /// costs at that moment.
    #[test]
    fn remembered_weights_are_never_stale(ops in prop::collection::vec((0usize..8, 0u8..8, 0usize..7, 0u64..3_000), 1..150)) {
        let mut router = Router::new(layered_pay_graph());
        let (s, done) = (router.graph().index("s").unwrap(), router.graph().index("done").unwrap());
        let tools: Vec<usize> = (0..router.graph().node_count()).filter(|&v| router.graph().node(v).tool).collect();
        let mut runs: Vec<Run> = (0..8).map(|_| router.start(Task::default(), 0).unwrap()).collect();
        let mut pending: Vec<Vec<String>> = vec![Vec::new(); 8];
        let mut now = 0;
        for (i, op, t, dt) in ops {
            now += dt;
            let tool = tools[t % tools.len()];
            match op {
                0 => { router.record(tool, Observation::Success { latency_ms: 40.0 * dt as f64 / 1_000.0 }, now); }
                1 => { router.record(tool, Observation::Failure, now); }
                2 => { router.mark_down(tool, now); }
                3 => { router.mark_up(tool, now); }
                _ => {
                    // A run reports its oldest call (an outcome chosen by `op`), or asks what next.
                    if runs[i].is_finished() {
                        runs[i] = router.start(Task::default(), now).unwrap();
                        pending[i].clear();
                    }
                    if let Some(called) = pending[i].pop() {
                        let result = match op {
                            4 => ToolResult::ok(json!({}), 5.0),
                            5 => ToolResult::outage("503"),
                            _ => ToolResult::transient("timeout"),
                        };
                        let _ = router.report(&mut runs[i], &called, result, now);
                    } else if let Ok(Action::CallTools { calls }) = router.next(&mut runs[i], now) {
                        pending[i] = calls.into_iter().map(|c| c.tool).collect();
                    }
                }
            }
            let remembered = router.route(s, done, now).map(|p| p.cost);
            // Read after the route: it let the clock move the breakers first.
            let (graph, health) = (router.graph(), router.health());
            let fresh = |e: usize| {
                let edge = graph.edge(e);
                entered_weight(edge.cost, health.weight(edge.to, now))
            };
            let mut plan = Plan::default();
            let afresh = Dijkstra::new().route_into(graph, &[s], done, &fresh, &mut (), &mut plan).then_some(plan.cost);
            prop_assert_eq!(remembered, afresh, "at {} ms", now);
        }
    }
}
