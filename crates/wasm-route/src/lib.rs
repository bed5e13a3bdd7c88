//! The lean entry of the npm package (`shr-wasm/route`): a router over a graph description,
//! routes and health changes across the boundary with numbers only. No sessions, driver, fleet,
//! probes or metrics, and no JSON parser: the JS half (`js/lean.js`) reads the description with
//! the engine's `JSON.parse`, checks its shape (every problem named with its JSON pointer) and
//! hands over what routing reads (ids, tool flags, base costs, quorum joins, edges, start and
//! goal) through a [`LeanBuilder`]; the core checks each as it comes (an `Assembly`), as it does
//! for any description. The JS half also looks ids up, checks arguments, reads routes out of memory
//! and words every error from a code, so this module links neither `js-sys` nor `serde_json`.
//! Built by `scripts/build-wasm-pkg` (profile `wasm-route`) into `crates/wasm/pkg/route`.

use shr_core::algo::{Dijkstra, Plan};
use shr_core::graph::{Assembly, GraphSpec};
use shr_core::health::memo::WeightMemo;
use shr_core::BreakerConfig;
use shr_core::{HealthBook, NodeIx, Observation, Problem, ToolGraph};
use wasm_bindgen::prelude::*;

/// What [`LeanRouter::route_ix`] answers when no healthy route exists.
const NO_ROUTE: f64 = -1.0;
/// What [`LeanRouter::route_ix`] answers for an index past the graph or a clock value that is
/// not a time (the JS half checks both first; this is for callers of the raw export).
const REFUSED: f64 = -2.0;

/// `health_ix` operations: mark down, mark up, the weight alone.
const MARK_DOWN: u32 = 0;
const MARK_UP: u32 = 1;
const WEIGHT: u32 = 2;

/// A description on its way in, node by node and edge by edge, in description order (so the
/// core's problems point at the description's own places), each checked as it comes.
#[wasm_bindgen]
#[derive(Default)]
pub struct LeanBuilder {
    assembly: Assembly,
}

#[wasm_bindgen]
impl LeanBuilder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> LeanBuilder {
        LeanBuilder::default()
    }

    /// Adds a node; `quorum` below 0 is none (any one input, OR).
    pub fn node(&mut self, id: String, tool: bool, base_cost: f64, quorum: f64) {
        let quorum = (quorum >= 0.0).then_some(quorum as u32);
        self.assembly.plain_node(id, tool, base_cost, quorum);
    }

    /// Adds an edge between the nodes added at `from` and `to` (the JS half resolved the ids).
    pub fn edge(&mut self, from: u32, to: u32, cost: f64) {
        self.assembly.index();
        self.assembly.edge_ix(from, to, cost);
    }

    /// Adds an edge by ids (one naming no node, for the core to report).
    #[wasm_bindgen(js_name = edgeNamed)]
    pub fn edge_named(&mut self, from: String, to: String, cost: f64) {
        self.assembly.index();
        self.assembly.plain_edge(from, to, cost);
    }

    /// Validates the description (format `version`, 0 for the current); the router, or the
    /// problems as `problems_text` writes them (a negative cost's message holds
    /// [`shr_core::graph::NUMBER`] where the JS half writes the cost).
    pub fn finish(
        self,
        start: Option<String>,
        goal: Option<String>,
        version: u32,
    ) -> Result<LeanRouter, String> {
        let mut rest = GraphSpec { start, goal, ..GraphSpec::default() };
        if version != 0 {
            rest.version = version;
        }
        let graph = self.assembly.finish(rest).map_err(|e| problems_text(&e.problems))?;
        let out = vec![0; 2 + graph.node_count() + 2 * graph.edge_count()];
        // The health a `Router` starts with: default breakers and admission.
        let health = HealthBook::new(&graph, BreakerConfig::default());
        let (memo, search, plan) = (WeightMemo::default(), Dijkstra::new(), Plan::default());
        Ok(LeanRouter { graph, health, memo, search, plan, out })
    }
}

/// A router over one graph, with the buffer its routes are written into: a `Router`'s routing
/// and health alone (no monitors, metrics or runs).
#[wasm_bindgen]
pub struct LeanRouter {
    graph: ToolGraph,
    health: HealthBook,
    memo: WeightMemo,
    search: Dijkstra,
    plan: Plan,
    /// `[nodes, edges, node indices.., (from, to) per edge..]` of the last route; sized for the
    /// largest route once, so its address never changes and the JS half reads it in place.
    out: Vec<u32>,
}

/// The problems of a refused description as one text: a record per problem (separated by
/// U+001E), its fields kind, JSON pointer, id and message (separated by U+001F). The JS half
/// turns it into `ShrError { code: "invalid_graph", problems }`.
fn problems_text(problems: &[Problem]) -> String {
    let mut text = String::new();
    for (i, p) in problems.iter().enumerate() {
        if i > 0 {
            text.push('\u{1e}');
        }
        snake_case(&format!("{:?}", p.kind), &mut text);
        for field in [&p.path, &p.at, &p.message] {
            text.push('\u{1f}');
            text.push_str(field);
        }
    }
    text
}

/// `MalformedJson` -> `malformed_json`: the kind as the graph format's JSON writes it (serde's
/// `rename_all = "snake_case"`), without linking a serializer.
fn snake_case(name: &str, out: &mut String) {
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
}

#[wasm_bindgen]
impl LeanRouter {
    /// The graph's own start and goal.
    pub fn start(&self) -> u32 {
        self.graph.start() as u32
    }
    pub fn goal(&self) -> u32 {
        self.graph.goal() as u32
    }

    /// The word address of the route buffer (fixed for the router's life).
    #[wasm_bindgen(js_name = outAddress)]
    pub fn out_address(&self) -> u32 {
        (self.out.as_ptr() as usize / core::mem::size_of::<u32>()) as u32
    }

    /// The cheapest route over live weights from node `from` to node `to` at `now`, written
    /// into the route buffer; its cost, -1 when no healthy route exists, -2 when refused.
    #[wasm_bindgen(js_name = routeIx)]
    pub fn route_ix(&mut self, from: u32, to: u32, now: f64) -> f64 {
        let n = self.graph.node_count();
        let (from, to) = (from as NodeIx, to as NodeIx);
        if from >= n || to >= n || !(now.is_finite() && now >= 0.0) {
            return REFUSED;
        }
        if !self.route(from, to, now as u64) {
            return NO_ROUTE;
        }
        let (graph, plan) = (&self.graph, &self.plan);
        let (nodes, edges) = (plan.nodes.len(), plan.edges.len());
        if 2 + nodes + 2 * edges > self.out.len() {
            // A route holds each node and edge at most once; never taken.
            return REFUSED;
        }
        self.out[0] = nodes as u32;
        self.out[1] = edges as u32;
        for (slot, &v) in self.out[2..].iter_mut().zip(&plan.nodes) {
            *slot = v as u32;
        }
        for (k, &e) in plan.edges.iter().enumerate() {
            let edge = graph.edge(e);
            self.out[2 + nodes + 2 * k] = edge.from as u32;
            self.out[3 + nodes + 2 * k] = edge.to as u32;
        }
        plan.cost
    }

    /// Marks tool `v` down (`op` 0) or up (1), or reads its weight (2), at `now`; the tool's
    /// weight after it (`Infinity`: routed around), NaN when refused (not a tool, a bad clock).
    #[wasm_bindgen(js_name = healthIx)]
    pub fn health_ix(&mut self, v: u32, op: u32, now: f64) -> f64 {
        let v = v as NodeIx;
        let graph = &self.graph;
        if v >= graph.node_count() || !graph.node(v).tool || !(now.is_finite() && now >= 0.0) {
            return f64::NAN;
        }
        let now = now as u64;
        match op {
            MARK_DOWN => {
                self.memo.forget();
                self.health.observe(v, Observation::Outage, now);
            }
            MARK_UP => {
                self.memo.forget();
                self.health.reset(v, now);
            }
            WEIGHT => self.advance(now),
            _ => return f64::NAN,
        }
        self.health.weight(v, now)
    }
}

impl LeanRouter {
    /// `Router::advance`: breakers brought up to `now`.
    fn advance(&mut self, now: u64) {
        let mut changed = Vec::new();
        if self.health.poll(now, &mut changed) > 0 || !changed.is_empty() {
            self.memo.forget();
        }
    }

    /// `Router::route`: the cheapest route over live weights into `plan`; whether one exists.
    fn route(&mut self, from: NodeIx, to: NodeIx, now: u64) -> bool {
        self.advance(now);
        // A start that is a tool and down is no place to start from.
        if self.graph.node(from).tool && !self.health.weight(from, now).is_finite() {
            return false;
        }
        self.memo.refresh(&self.graph, &mut self.health, now);
        let weights = self.memo.weights(&self.graph, &self.health, now);
        self.search.route_into(&self.graph, &[from], to, &weights, &mut (), &mut self.plan)
    }
}

/// The module's memory, which the JS half reads routes from.
#[wasm_bindgen(js_name = routeMemory)]
pub fn route_memory() -> JsValue {
    wasm_bindgen::memory()
}

#[cfg(test)]
mod tests;
