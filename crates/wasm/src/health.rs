//! Health updates from the host (`markDown`, `markUp`, `record`): what every fleet delta and
//! probe result calls, so they cost about what a route costs. Each returns the tool's weight as
//! a number (no object built through serde), and has a JS half (in `route.rs`'s inline JS) that
//! looks the tool up in the `route` state's `Map` and crosses the boundary once with numbers
//! only (`__healthIx`). Anything unusual goes to the checked Rust method, which words the error.

use shr_core::{NodeIx, Observation};
use wasm_bindgen::prelude::*;

use crate::convert::millis;
use crate::Router;

/// One health change a host makes.
pub(crate) enum Update {
    Down,
    Up,
    Record(Observation),
}

/// `__healthIx`'s operations.
const MARK_DOWN: u32 = 0;
const MARK_UP: u32 = 1;
const SUCCESS: u32 = 2;
const FAILURE: u32 = 3;
const OUTAGE: u32 = 4;

impl Router {
    /// Applies `update` to tool `v` at `now`; the tool's weight after it (`Infinity`: routed
    /// around).
    pub(crate) fn update(&self, v: NodeIx, update: Update, now: u64) -> f64 {
        let mut inner = self.inner.borrow_mut();
        match update {
            Update::Down => inner.router.mark_down(v, now),
            Update::Up => inner.router.mark_up(v, now),
            Update::Record(observed) => inner.router.record(v, observed, now),
        };
        inner.router.health().weight(v, now)
    }
}

#[wasm_bindgen]
impl Router {
    /// The JS half of `markDown`, `markUp` and `record`: the node index the `route` state's
    /// `Map` gave, the operation (0 down, 1 up, 2 success, 3 failure, 4 outage), a success's
    /// latency (NaN: none) and the clock value when `has_at`. The tool's weight, or NaN when
    /// anything is amiss (then nothing changed, and the JS half calls the checked method).
    #[wasm_bindgen(js_name = __healthIx, skip_typescript)]
    pub fn health_ix(&self, v: u32, op: u32, latency_ms: f64, has_at: bool, at: f64) -> f64 {
        let v = v as NodeIx;
        let is_tool = {
            let inner = self.inner.borrow();
            let graph = inner.router.graph();
            v < graph.node_count() && graph.node(v).tool
        };
        if !is_tool || !(latency_ms.is_nan() || (latency_ms.is_finite() && latency_ms >= 0.0)) {
            return f64::NAN;
        }
        let update = match op {
            MARK_DOWN => Update::Down,
            MARK_UP => Update::Up,
            SUCCESS => Update::Record(Observation::Success { latency_ms }),
            FAILURE => Update::Record(Observation::Failure),
            OUTAGE => Update::Record(Observation::Outage),
            _ => return f64::NAN,
        };
        let now = if has_at { millis(at, "at") } else { self.now(None) };
        match now {
            Ok(now) => self.update(v, update, now),
            Err(_) => f64::NAN,
        }
    }
}
