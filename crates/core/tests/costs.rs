//! Costs learned from traffic (issue 47): EWMAs with a half-life in calls, suggested costs, and
//! the opt-in adjustment within bounds, past a hysteresis, each change a `CostAdjusted` event.

use shr_core::event::EventKind;
use shr_core::health::costs::{CostBounds, CostConfig, CostLearner};
use shr_core::{Router, ToolGraph};

const GRAPH: &str = r#"{"nodes":[{"id":"s","tool":false},{"id":"fast"},{"id":"slow","base_cost":1.5},{"id":"g","tool":false}],
  "edges":[{"from":"s","to":"fast"},{"from":"s","to":"slow"},{"from":"fast","to":"g","cost":0},{"from":"slow","to":"g","cost":0}],
  "start":"s","goal":"g"}"#;

fn graph() -> ToolGraph {
    ToolGraph::from_json(GRAPH).expect("graph")
}

fn ids(router: &mut Router, g: &ToolGraph, now: u64) -> Vec<String> {
    router.route(g.start(), g.goal(), now).expect("a path").ids(g).iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_half_life_is_counted_in_calls() {
    let g = graph();
    let fast = g.index("fast").unwrap();
    let mut l = CostLearner::new(&g, CostConfig { half_life: 20, ..CostConfig::default() }).unwrap();
    assert!((l.alpha() - (1.0 - 0.5f64.powf(1.0 / 20.0))).abs() < 1e-12);
    let d = CostLearner::new(&g, CostConfig::default()).unwrap();
    assert!((d.alpha() - (1.0 - 0.5f64.powf(1.0 / 10.0))).abs() < 1e-12, "the default half-life: 10 calls");
    for _ in 0..10 {
        l.observe(fast, 100.0, true, None);
    }
    for _ in 0..20 {
        l.observe(fast, 200.0, true, None);
    }
    // Twenty calls after the step the average is half way: 150 ms.
    let s = &l.suggested_costs(&g)[0];
    assert_eq!(s.tool, "fast");
    assert!((s.latency_ewma_ms.unwrap() - 150.0).abs() < 1e-6, "{s:?}");
    assert_eq!(s.reference_ms, Some(100.0));
    assert_eq!(s.suggested, Some(1.5));
}

#[test]
fn suggestions_weigh_price_latency_and_failures() {
    let g = graph();
    let (fast, slow) = (g.index("fast").unwrap(), g.index("slow").unwrap());
    let mut l =
        CostLearner::new(&g, CostConfig { half_life: 1, min_samples: 2, ..CostConfig::default() }).unwrap();
    assert_eq!(l.suggested_costs(&g)[1].suggested, None, "no suggestion before min_samples");
    l.observe(fast, 100.0, true, Some(2.0));
    l.observe(fast, 100.0, true, None);
    l.observe(slow, 300.0, true, None);
    l.observe(slow, 300.0, true, None);
    l.observe(slow, f64::NAN, false, None);
    let s = l.suggested_costs(&g);
    assert_eq!(s[0].suggested, Some(2.0), "the declared price, latency as at the start");
    // slow: its base cost 1.5, latency as its reference, success EWMA 0.5 (half-life 1 call).
    assert_eq!(s[1].success_ewma, Some(0.5));
    assert_eq!(s[1].suggested, Some(3.0));
}

#[test]
fn without_bounds_nothing_moves_and_bad_settings_are_refused() {
    let g = graph();
    let fast = g.index("fast").unwrap();
    let mut l =
        CostLearner::new(&g, CostConfig { min_samples: 1, dwell: 0, ..CostConfig::default() }).unwrap();
    for _ in 0..50 {
        l.observe(fast, 100.0 + 50.0 * f64::from(l.suggested_costs(&g)[0].samples), true, None);
    }
    assert!(l.adjust(&g).is_empty(), "opt-in: no bounds, no change");
    assert_eq!(l.set_bounds(fast, CostBounds { min: 2.0, max: 1.0 }).unwrap_err().code, "bad_bounds");
    assert_eq!(
        l.set_bounds(fast, CostBounds { min: 0.0, max: f64::INFINITY }).unwrap_err().code,
        "bad_bounds"
    );
    assert_eq!(l.set_bounds(99, CostBounds { min: 0.0, max: 1.0 }).unwrap_err().code, "unknown_tool");
    assert_eq!(
        CostLearner::new(&g, CostConfig { half_life: 0, ..CostConfig::default() }).unwrap_err().code,
        "bad_config"
    );
    assert_eq!(
        CostLearner::new(&g, CostConfig { hysteresis: f64::NAN, ..CostConfig::default() }).unwrap_err().code,
        "bad_config"
    );
    l.observe(99, 1.0, true, None); // an unknown tool is ignored, not a panic
    l.observe(fast, -5.0, true, Some(f64::NAN));
}

#[test]
fn a_drifting_tool_is_routed_around_once_within_bounds_with_an_event() {
    let g = graph();
    let (fast, slow) = (g.index("fast").unwrap(), g.index("slow").unwrap());
    let mut router = Router::new(g.clone());
    let mut l = CostLearner::new(&g, CostConfig::default()).unwrap();
    l.set_bounds(fast, CostBounds { min: 0.5, max: 4.0 }).unwrap();
    l.set_bounds(slow, CostBounds { min: 0.5, max: 4.0 }).unwrap();
    assert_eq!(ids(&mut router, &g, 0), ["s", "fast", "g"]);
    let mut events = Vec::new();
    for i in 0..400u32 {
        // fast drifts from 100 to 500 ms; slow stays at 150 ms.
        let ms = 100.0 + f64::from(i.min(200)) * 2.0;
        l.observe(fast, ms, true, None);
        l.observe(slow, 150.0, true, None);
        events.extend(router.adjust_costs(&mut l, u64::from(i)));
    }
    assert_eq!(ids(&mut router, &g, 400), ["s", "slow", "g"]);
    assert!(!events.is_empty());
    for e in &events {
        let EventKind::CostAdjusted { tool, from, to, reason } = &e.kind else { panic!("{e:?}") };
        assert_eq!(tool, "fast");
        assert!((to - from).abs() / from > 0.2, "{reason}");
        assert!(*to <= 4.0);
        assert_eq!(e.kind.name(), "CostAdjusted");
    }
    assert_eq!(router.health().base_cost(fast), l.current(fast));
    assert_eq!(router.health().factors(fast, 400).latency, 1.0);
    // The suggestion ends at 5 (500 ms against 100): the cost stops within the bounds, and
    // within the hysteresis of them. The live latency factor is 1 for a learned tool.
    let now = l.current(fast).unwrap();
    assert!((3.0..=4.0).contains(&now), "{now} after {events:?}");
    assert!(events.len() <= 10, "{} changes for one drift", events.len());
}

#[test]
fn noise_around_a_cost_within_the_hysteresis_changes_nothing() {
    let g = graph();
    let fast = g.index("fast").unwrap();
    let mut l = CostLearner::new(&g, CostConfig { half_life: 2, ..CostConfig::default() }).unwrap();
    l.set_bounds(fast, CostBounds { min: 0.1, max: 10.0 }).unwrap();
    for i in 0..1000 {
        l.observe(fast, if i % 2 == 0 { 85.0 } else { 115.0 }, true, None);
        assert!(l.adjust(&g).is_empty(), "call {i}: {:?}", l.suggested_costs(&g)[0]);
    }
}

#[test]
fn the_router_feeds_its_own_events_to_the_learner() {
    use shr_core::event::Event;
    let g = graph();
    let router = Router::new(g.clone());
    let mut l = CostLearner::new(&g, CostConfig { min_samples: 2, ..CostConfig::default() }).unwrap();
    let ok = |ms: f64| EventKind::ToolSucceeded { tool: "fast".into(), latency_ms: ms };
    let events: Vec<Event> = [ok(100.0), ok(100.0)]
        .into_iter()
        .enumerate()
        .map(|(i, kind)| Event { seq: i as u32, at: 0, kind })
        .collect();
    router.observe_costs(&mut l, &events);
    let s = &l.suggested_costs(&g)[0];
    assert_eq!((s.samples, s.latency_ewma_ms, s.suggested), (2, Some(100.0), Some(1.0)));
}
