//! The visualizer replays the one-sided search (it records the steps) while sessions and
//! `Router.route` take the two-sided one: on every scenario of the pack, with each single tool
//! down, both must draw the same route, or the page would highlight a path the run does not take.

use shr_core::algo::{Dijkstra, Trace};
use shr_core::health::{BreakerConfig, HealthBook};
use shr_eval::scenario;

#[test]
fn the_replayed_route_is_the_route_taken_on_every_scenario() {
    let mut checked = 0;
    for sc in scenario::pack().unwrap() {
        let g = &sc.graph;
        for down in core::iter::once(None).chain((0..g.node_count()).map(Some)) {
            let mut health = HealthBook::new(g, BreakerConfig::default());
            if let Some(v) = down {
                health.trip(v, 0);
            }
            let weights: Vec<f64> = g.edges().iter().map(|e| e.cost * health.weight(e.to, 0)).collect();
            let w = |e: usize| weights[e];
            let taken = Dijkstra::new().route(g, &[g.start()], g.goal(), &w, &mut ());
            let replayed = Dijkstra::new().route(g, &[g.start()], g.goal(), &w, &mut Trace::default());
            assert_eq!(
                taken.as_ref().map(|p| p.ids(g)),
                replayed.as_ref().map(|p| p.ids(g)),
                "{} with {:?} down",
                sc.id,
                down.map(|v| g.id(v))
            );
            checked += 1;
        }
    }
    let n = scenario::PAPER_SCENARIOS.len();
    assert!(checked > n * 8, "every scenario, each tool down: {checked}");
}
