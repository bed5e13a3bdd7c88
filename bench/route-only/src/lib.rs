//! What routing alone weighs as a wasm module: a graph description parsed and checked as
//! `shr-wasm` parses it (every problem named with its JSON pointer), a [`Router`] over it, and
//! `route` and `markDown` across the boundary with numbers only. No sessions, driver, fleet
//! health, probes or metrics, and no JS values parsed. Not a package: `scripts/bench` builds it
//! with the npm package's profile and `wasm-opt -O3` and prints its size next to the npm module's
//! (BENCHMARKS.md, "wasm module size"), the floor any cut of `shr-wasm` that keeps the graph
//! format and the speed can reach.

use shr_core::{Router, ToolGraph};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct RouteOnly {
    router: Router,
}

#[wasm_bindgen]
impl RouteOnly {
    /// A router over a graph description; the problems as text when it is refused.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(text: &str) -> Result<RouteOnly, String> {
        ToolGraph::from_json(text)
            .map(|graph| RouteOnly { router: Router::new(graph) })
            .map_err(|e| e.to_string())
    }

    /// The cheapest healthy path's node indices, empty when there is none.
    pub fn route(&mut self, from: usize, to: usize, now: f64) -> Vec<u32> {
        let n = self.router.graph().node_count();
        if from >= n || to >= n {
            return Vec::new();
        }
        self.router
            .route(from, to, now as u64)
            .map(|plan| plan.nodes.iter().map(|&v| v as u32).collect())
            .unwrap_or_default()
    }

    /// The tool is down until it is recorded healthy again.
    #[wasm_bindgen(js_name = markDown)]
    pub fn mark_down(&mut self, tool: usize, now: f64) {
        if tool < self.router.graph().node_count() {
            self.router.mark_down(tool, now as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RouteOnly;

    const GRAPH: &str = r#"{"nodes": [{"id": "in", "tool": false}, {"id": "stripe"},
        {"id": "razorpay", "base_cost": 2}, {"id": "out", "tool": false}],
      "edges": [{"from": "in", "to": "stripe"}, {"from": "in", "to": "razorpay"},
        {"from": "stripe", "to": "out"}, {"from": "razorpay", "to": "out"}],
      "start": "in", "goal": "out"}"#;

    #[test]
    fn routes_around_a_tool_marked_down() {
        let mut r = RouteOnly::from_json(GRAPH).expect("a valid graph");
        assert_eq!(r.route(0, 3, 0.0), [0, 1, 3]);
        r.mark_down(1, 0.0);
        assert_eq!(r.route(0, 3, 0.0), [0, 2, 3]);
        r.mark_down(2, 0.0);
        assert!(r.route(0, 3, 0.0).is_empty());
        assert!(r.route(0, 99, 0.0).is_empty(), "an index past the graph is no route, not a panic");
    }

    #[test]
    fn a_misspelt_field_is_refused_with_its_place() {
        let Err(e) = RouteOnly::from_json(r#"{"nodes": [{"id": "a", "cots": 1}]}"#) else {
            panic!("a misspelt field must be refused");
        };
        assert!(e.contains("/nodes/0/cots"), "{e}");
    }
}
