//! The circuit breaker with a hand-driven clock: every transition, the thresholds, flapping,
//! the trial budget, and healing back with no penalty left over.

use shr_core::health::{Breaker, BreakerConfig, BreakerState::*, HealthBook, Transition};
use shr_core::ToolGraph;

fn cfg() -> BreakerConfig {
    BreakerConfig {
        failure_rate: 0.5,
        consecutive_failures: 3,
        window_ms: 10_000,
        window_calls: 10,
        min_calls: 4,
        cooldown_ms: 1_000,
        half_open_probes: 1,
    }
}

#[test]
fn consecutive_failures_open_the_breaker() {
    let mut b = Breaker::new(cfg());
    assert_eq!(b.on_failure(0), None);
    assert_eq!(b.on_failure(1), None);
    assert_eq!(b.on_failure(2), Some(Transition { from: Closed, to: Open }));
    assert_eq!(b.availability(), f64::INFINITY);
}

#[test]
fn failure_rate_opens_only_after_the_minimum_calls() {
    let mut b = Breaker::new(cfg());
    // fail, ok, fail: rate 2/3 but only 3 calls (< min 4), and never 3 in a row.
    b.on_failure(0);
    b.on_success(1);
    assert_eq!(b.on_failure(2), None);
    assert_eq!(b.state(), Closed);
    // ok, then fail: 5 calls, 3 failures = 60% >= 50%.
    b.on_success(3);
    assert_eq!(b.on_failure(4), Some(Transition { from: Closed, to: Open }));
}

#[test]
fn old_outcomes_leave_the_window() {
    let mut b = Breaker::new(cfg());
    b.on_failure(0);
    b.on_failure(1);
    b.on_success(2);
    // Long after: the early failures are forgotten, so the rate is low.
    for t in 0..3 {
        b.on_success(20_000 + t);
    }
    assert_eq!(b.on_failure(20_010), None);
    assert!(b.error_rate(20_010) < 0.5);
}

#[test]
fn hard_failure_trips_at_once() {
    let mut b = Breaker::new(cfg());
    assert_eq!(b.trip(5), Some(Transition { from: Closed, to: Open }));
}

#[test]
fn open_becomes_half_open_after_the_cooldown_and_a_probe_success_closes() {
    let mut b = Breaker::new(cfg());
    b.trip(0);
    assert_eq!(b.poll(999), None);
    assert!(!b.try_acquire(999));
    assert_eq!(b.poll(1_000), Some(Transition { from: Open, to: HalfOpen }));
    assert_eq!(b.availability(), 1.0, "a free trial slot weighs what a healthy tool does");
    assert!(b.try_acquire(1_000), "one trial call is allowed");
    assert_eq!(b.availability(), f64::INFINITY, "the trial slot is out");
    assert!(!b.try_acquire(1_001), "the trial budget is spent");
    assert_eq!(b.on_success(1_100), Some(Transition { from: HalfOpen, to: Closed }));
}

#[test]
fn a_half_open_breaker_that_fails_its_probe_reopens() {
    let mut b = Breaker::new(cfg());
    b.trip(0);
    b.poll(1_000);
    assert!(b.try_acquire(1_000));
    assert_eq!(b.on_failure(1_050), Some(Transition { from: HalfOpen, to: Open }));
    // The cooldown starts again from the failed probe.
    assert_eq!(b.poll(1_900), None);
    assert_eq!(b.poll(2_050), Some(Transition { from: Open, to: HalfOpen }));
}

#[test]
fn a_trial_success_closes_with_no_penalty_left() {
    let mut b = Breaker::new(cfg());
    for t in 0..3 {
        b.on_failure(t);
    }
    assert_eq!(b.state(), Open);
    b.poll(1_002);
    assert!(b.try_acquire(1_002));
    b.on_success(1_010);
    assert_eq!(b.availability(), 1.0, "closed means healthy at once: no ramp for a run to avoid");
    assert_eq!(b.error_rate(1_010), 0.0, "the failures that opened it are forgotten");
}

#[test]
fn flapping_tool_is_held_open_for_each_cooldown() {
    let mut b = Breaker::new(cfg());
    let mut t = 0;
    let mut transitions = Vec::new();
    // Down, probe ok, down again, probe fails, probe ok...
    for probe_ok in [true, false, true] {
        transitions.extend(b.trip(t));
        // During the cooldown nothing gets through however often the caller asks.
        for dt in (0..1_000).step_by(100) {
            assert!(!b.try_acquire(t + dt));
        }
        t += 1_000;
        transitions.extend(b.poll(t));
        assert!(b.try_acquire(t));
        if probe_ok {
            transitions.extend(b.on_success(t + 10));
        } else {
            transitions.extend(b.on_failure(t + 10));
            t += 10;
            transitions.extend(b.poll(t + 1_000));
            assert!(b.try_acquire(t + 1_000));
            transitions.extend(b.on_success(t + 1_010));
            t += 1_000;
        }
        t += 100;
    }
    let states: Vec<_> = transitions.iter().map(|t| t.to).collect();
    assert_eq!(
        states,
        [Open, HalfOpen, Closed, Open, HalfOpen, Open, HalfOpen, Closed, Open, HalfOpen, Closed]
    );
}

#[test]
fn reset_closes_at_healthy_weight() {
    let mut b = Breaker::new(cfg());
    b.trip(0);
    assert_eq!(b.reset(), Some(Transition { from: Open, to: Closed }));
    assert_eq!(b.availability(), 1.0);
}

#[test]
fn composite_weight_factors_stay_in_the_papers_ranges() {
    use shr_core::health::weight::*;
    assert_eq!(latency_factor(None, 100.0), 1.0);
    assert_eq!(latency_factor(Some(400.0), 100.0), 4.0);
    assert_eq!(latency_factor(Some(10.0), 100.0), 0.5);
    assert_eq!(latency_factor(Some(1e9), 100.0), 10.0);
    assert_eq!(reliability_factor(0.0), 1.0);
    assert_eq!(reliability_factor(1.0), 50.0);
    assert_eq!(rate_limit_factor(0, None), 1.0);
    assert_eq!(rate_limit_factor(50, Some(100)), 1.0);
    assert!((rate_limit_factor(95, Some(100)) - 2.0).abs() < 1e-9, "doubles at 95%");
    assert_eq!(rate_limit_factor(100, Some(100)), f64::INFINITY);
}

#[test]
fn health_book_weight_rises_with_latency_errors_and_quota() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"a","tool":false},{"id":"t","base_cost":2,"quota":10,"baseline_latency_ms":100}],
            "edges":[{"from":"a","to":"t"}],"start":"a","goal":"t"}"#,
    )
    .unwrap();
    let t = g.index("t").unwrap();
    let mut h = HealthBook::new(&g, BreakerConfig::default());
    assert_eq!(h.weight(t, 0), 2.0);
    for _ in 0..4 {
        h.on_success(t, 300.0, 0);
    }
    assert_eq!(h.weight(t, 0), 2.0, "slowness weighs over min_calls samples, not fewer");
    h.on_success(t, 300.0, 0);
    assert_eq!(h.weight(t, 0), 6.0, "latency x3");
    for i in 0..9 {
        h.on_call(t, i);
    }
    assert!(h.weight(t, 10) > 6.0, "near the quota the weight rises");
    h.on_call(t, 10);
    assert_eq!(h.weight(t, 11), f64::INFINITY, "quota exhausted");
    assert!(h.weight(t, 11 + 60 * 60 * 1000) < f64::INFINITY, "the quota window rolls over");
}

#[test]
fn health_book_poll_turns_each_breaker_half_open_exactly_when_its_cooldown_ends() {
    // `poll` skips its walk over every tool until the earliest cooldown is due: the skip must
    // never hide a transition.
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a"},{"id":"b"},{"id":"c"}],
            "edges":[{"from":"s","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"c"}],
            "start":"s","goal":"c"}"#,
    )
    .unwrap();
    let [a, b, c] = ["a", "b", "c"].map(|id| g.index(id).unwrap());
    let mut h = HealthBook::new(&g, cfg());
    let mut out = Vec::new();
    h.poll(5_000, &mut out);
    assert!(out.is_empty(), "nothing open, nothing to do");
    h.trip(b, 500);
    h.trip(a, 0);
    // `c` is opened, closed by hand, and opened again: its cooldown runs from 300.
    h.trip(c, 200);
    h.reset(c, 0);
    h.trip(c, 300);
    let half_open = Transition { from: Open, to: HalfOpen };
    for (now, want) in
        [(999, vec![]), (1_000, vec![(a, half_open)]), (1_299, vec![]), (1_300, vec![(c, half_open)])]
    {
        out.clear();
        h.poll(now, &mut out);
        assert_eq!(out, want, "poll at {now}");
    }
    // `b` is still open; a failed probe reopens `a` at 1,400.
    assert!(h.try_acquire(a, 1_400));
    h.on_failure(a, 1_400);
    for (now, want) in
        [(1_499, vec![]), (1_500, vec![(b, half_open)]), (2_399, vec![]), (2_400, vec![(a, half_open)])]
    {
        out.clear();
        h.poll(now, &mut out);
        assert_eq!(out, want, "poll at {now}");
    }
}

#[test]
fn health_book_weights_hold_still_until_steady_until() {
    // A router remembers weights between routes until `steady_until`: no weight may change
    // before it, and the one it names must be a real change.
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"a"},{"id":"q","quota":1}],
            "edges":[{"from":"s","to":"a"},{"from":"a","to":"q"}],"start":"s","goal":"q"}"#,
    )
    .unwrap();
    let [a, q] = ["a", "q"].map(|id| g.index(id).unwrap());
    let mut h = HealthBook::new(&g, cfg());
    assert_eq!(h.steady_until(0), u64::MAX, "nothing recorded: weights never change alone");
    h.on_failure(a, 100);
    h.on_success(a, 5.0, 400);
    assert_eq!(h.steady_until(500), 1_100, "the failure at 100 weighs for a cooldown (1 s)");
    let w = h.weight(a, 500);
    assert_eq!(h.weight(a, 1_099), w);
    assert!(h.weight(a, 1_100) < w, "a cooldown with no new failure: the error rate stops weighing");
    // Early, never late: the latency sample at 400 stops weighing a cooldown later (it weighed
    // 1, being the baseline), and the failure leaving the 10 s window changes no weight now.
    assert_eq!(h.steady_until(1_100), 1_400, "the latency sample at 400 stops weighing");
    assert_eq!(h.steady_until(1_400), 10_100, "the failure at 100 leaves the 10 s window");
    assert_eq!(h.steady_until(10_100), 10_400, "then the success at 400 leaves");
    assert_eq!(h.steady_until(10_400), u64::MAX);
    h.on_call(q, 20_000);
    let hour = 60 * 60 * 1000;
    assert_eq!(h.steady_until(20_001), 20_000 + hour);
    let wq = h.weight(q, 20_001);
    assert_eq!(h.weight(q, 20_000 + hour - 1), wq);
    assert_eq!(h.weight(q, 20_000 + hour), 1.0, "the quota call leaves its window");
    assert_eq!(wq, f64::INFINITY, "quota used up");
}

#[test]
fn settings_that_would_misbehave_are_named() {
    assert_eq!(BreakerConfig::default().check(), Ok(()));
    assert_eq!(cfg().check(), Ok(()));
    let named = |c: BreakerConfig| c.check().unwrap_err().to_string();
    assert!(named(BreakerConfig { failure_rate: 1.5, ..cfg() }).starts_with("failure_rate must be"));
    assert!(named(BreakerConfig { failure_rate: f64::NAN, ..cfg() }).starts_with("failure_rate must be"));
    assert!(named(BreakerConfig { failure_rate: -0.1, ..cfg() }).starts_with("failure_rate must be"));
    assert!(named(BreakerConfig { half_open_probes: 0, ..cfg() }).starts_with("half_open_probes must be"));
    // The edges of the ranges are settings, not mistakes: open on any failure, no extra weight.
    assert_eq!(BreakerConfig { failure_rate: 0.0, ..cfg() }.check(), Ok(()));
    assert_eq!(BreakerConfig { failure_rate: 1.0, ..cfg() }.check(), Ok(()));
    let session = shr_core::SessionConfig {
        breaker: BreakerConfig { half_open_probes: 0, ..cfg() },
        ..Default::default()
    };
    assert_eq!(session.check().unwrap_err().field, "breaker.half_open_probes");
}

#[test]
fn unknown_settings_are_rejected_by_name() {
    let err =
        serde_json::from_str::<shr_core::SessionConfig>(r#"{"toolBudget": 3}"#).unwrap_err().to_string();
    assert!(err.contains("unknown field `toolBudget`"), "{err}");
    let err = serde_json::from_str::<shr_core::SessionConfig>(r#"{"breaker": {"cooldown": 5}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `cooldown`"), "{err}");
    let err = serde_json::from_str::<shr_core::Task>(r#"{"target": "done"}"#).unwrap_err().to_string();
    assert!(err.contains("unknown field `target`"), "{err}");
    let partial: shr_core::SessionConfig = serde_json::from_str(r#"{"tool_budget": 3}"#).unwrap();
    assert_eq!((partial.tool_budget, partial.breaker), (3, BreakerConfig::default()));
}
