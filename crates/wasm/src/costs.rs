//! Costs learned from traffic for JS hosts (issue 47): `new CostLearner(router, config?)` over
//! `shr_core::health::costs`. `observe(tool, {ok, latencyMs?, price?})` feeds it (or
//! `observeEvents(events)`, a run's events); `suggestedCosts()` is the report; the opt-in part is
//! `setBounds(tool, {min, max})` and `adjust(now?)`, which applies the changes to the router and
//! returns them as `CostAdjusted` events. Nothing here decides: the core does.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use shr_core::event::Event;
use shr_core::health::costs::{CostBounds, CostConfig, CostLearner as CoreLearner};
use shr_core::NodeIx;
use wasm_bindgen::prelude::*;

use crate::convert::{from_js_camel, get, is_nullish, number_arg, to_js};
use crate::error::ShrError;
use crate::{read_clock, Inner, Router};

#[wasm_bindgen(typescript_custom_section)]
const COSTS_TS: &'static str = r#"
/** How a CostLearner averages and adjusts (every key optional). */
export interface CostConfig {
  /** Calls after which a sample weighs half as much (default 10, 1 to 10000). */
  halfLife?: number;
  /** Calls before a tool gets a suggestion (default 10). */
  minSamples?: number;
  /** The relative change a suggestion must exceed to be applied (default 0.2). */
  hysteresis?: number;
  /** Calls of a tool between two changes of its cost (default 10). */
  dwell?: number;
}

/** One call of a tool: its outcome, latency and the price the host declares. */
export interface CostOutcome {
  ok: boolean;
  latencyMs?: number;
  price?: number;
}

/** The range a tool's cost may move in (absolute costs). */
export interface CostBounds {
  min: number;
  max: number;
}

/** A tool's learned figures and suggested cost (`null` until it has minSamples calls). */
export interface SuggestedCost {
  tool: string;
  current: number;
  suggested: number | null;
  latencyEwmaMs: number | null;
  referenceMs: number | null;
  successEwma: number | null;
  price: number;
  samples: number;
}

/** A change the opt-in adjustment made. */
export interface CostAdjustedEvent {
  seq: number;
  at: number;
  event: "CostAdjusted";
  tool: string;
  from: number;
  to: number;
  reason: string;
}
"#;

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Outcome {
    ok: bool,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default)]
    price: Option<f64>,
}

/// Learns a router's tool costs from its telemetry; the opt-in adjustment applies to that router.
#[wasm_bindgen]
pub struct CostLearner {
    router: Rc<RefCell<Inner>>,
    learner: CoreLearner,
}

impl CostLearner {
    fn tool(&self, tool: &JsValue) -> Result<NodeIx, ShrError> {
        let id =
            tool.as_string().ok_or_else(|| ShrError::new("unknown_tool", "a tool is named by a string"))?;
        let inner = self.router.borrow();
        let graph = inner.router.graph();
        match graph.index(&id) {
            Some(v) if graph.node(v).tool => Ok(v),
            _ => Err(ShrError::new("unknown_tool", format!("unknown tool `{id}`"))
                .with("tool", JsValue::from_str(&id))),
        }
    }
}

#[wasm_bindgen]
impl CostLearner {
    /// A learner for `router`'s tools. Throws `bad_options` for a setting out of range.
    #[wasm_bindgen(constructor)]
    pub fn new(
        router: &Router,
        #[wasm_bindgen(unchecked_optional_param_type = "CostConfig")] config: JsValue,
    ) -> Result<CostLearner, JsValue> {
        let config: CostConfig = if is_nullish(&config) {
            CostConfig::default()
        } else {
            from_js_camel(&config, "config", "bad_options", &[])?
        };
        let shared = router.shared();
        let learner = CoreLearner::new(shared.borrow().router.graph(), config)
            .map_err(|e| ShrError::new("bad_options", e.message))?;
        Ok(CostLearner { router: shared, learner })
    }

    /// One call of `tool`. Throws `unknown_tool`, or `bad_record` for a malformed outcome.
    pub fn observe(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CostOutcome")] outcome: JsValue,
    ) -> Result<(), JsValue> {
        let v = self.tool(&tool)?;
        let o: Outcome = from_js_camel(&outcome, "outcome", "bad_record", &[])?;
        // NaN and Infinity would read as "not given" (JSON has neither): refused, not dropped.
        let raw = |key: &str| get(&outcome, key, "bad_record", "outcome").map(|v| v.as_f64());
        let bad = |x: Option<f64>| x.is_some_and(|x| !(x.is_finite() && x >= 0.0));
        if bad(o.latency_ms.or(raw("latencyMs")?)) || bad(o.price.or(raw("price")?)) {
            return Err(ShrError::new(
                "bad_record",
                "outcome.latencyMs and outcome.price must be finite numbers >= 0",
            )
            .into());
        }
        self.learner.observe(v, o.latency_ms.unwrap_or(f64::NAN), o.ok, o.price);
        Ok(())
    }

    /// Every tool's figures and suggested cost.
    #[wasm_bindgen(js_name = suggestedCosts, unchecked_return_type = "SuggestedCost[]")]
    pub fn suggested_costs(&self) -> Result<JsValue, JsValue> {
        let inner = self.router.borrow();
        Ok(to_js(&self.learner.suggested_costs(inner.router.graph()))?)
    }

    /// Lets `tool`'s cost move within `bounds` (opt-in; without bounds it never moves).
    #[wasm_bindgen(js_name = setBounds)]
    pub fn set_bounds(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CostBounds")] bounds: JsValue,
    ) -> Result<(), JsValue> {
        let v = self.tool(&tool)?;
        let b: CostBounds = from_js_camel(&bounds, "bounds", "bad_options", &[])?;
        self.learner.set_bounds(v, b).map_err(|e| ShrError::new("bad_options", e.message))?;
        Ok(())
    }

    /// The opt-in step: applies the changes the hysteresis lets through to the router and
    /// returns them as `CostAdjusted` events. `now` defaults to the router's clock.
    #[wasm_bindgen(unchecked_return_type = "CostAdjustedEvent[]")]
    pub fn adjust(
        &mut self,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = match number_arg(now, "now", "bad_clock")? {
            Some(x) => crate::convert::millis(x, "now")?,
            None => {
                let clock = self.router.borrow().clock.clone();
                read_clock(clock.as_ref())?
            }
        };
        let events: Vec<Event> = self.router.borrow_mut().router.adjust_costs(&mut self.learner, now);
        Ok(to_js(&events)?)
    }
}
