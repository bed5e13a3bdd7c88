//! Fleet health on the JS `Router`: the deltas a router publishes, the deltas it applies from
//! other members, and a snapshot for a member that joins late (see `shr_core::health::fleet`).
//! A delta comes from the network: anything wrong with it is a verdict with a code, never a
//! throw or a trap.

use serde::Serialize;
use shr_core::health::fleet::FleetConfig;
use shr_core::health::{FleetStats, HealthDelta, Transition, MAX_ORIGIN};
use wasm_bindgen::prelude::*;

use crate::convert::{from_js_camel, get, is_nullish, number_arg, stringify, to_js};
use crate::error::ShrError;
use crate::Router;

/// The largest delta accepted, as JSON text: a real one is under 300 bytes.
const MAX_DELTA_BYTES: usize = 4096;

/// `options.origin`: a non-empty string of at most 128 bytes, or nothing.
pub(crate) fn origin_option(options: &JsValue) -> Result<Option<String>, ShrError> {
    if is_nullish(options) || !options.is_object() {
        return Ok(None);
    }
    let v = get(options, "origin", "bad_options", "options")?;
    if is_nullish(&v) {
        return Ok(None);
    }
    match v.as_string() {
        Some(s) if !s.is_empty() && s.len() <= MAX_ORIGIN => Ok(Some(s)),
        _ => Err(ShrError::new(
            "bad_options",
            format!("options.origin must be a string of 1 to {MAX_ORIGIN} bytes"),
        )),
    }
}

#[derive(Serialize)]
struct Verdict<'a> {
    applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transition: Option<Transition>,
}

fn refused(code: &str, message: String) -> Verdict<'_> {
    Verdict { applied: false, code: Some(code), message: Some(message), transition: None }
}

/// The delta as text: a string as received, or an object as `JSON.stringify` writes it.
fn delta_text(delta: &JsValue) -> Result<String, (&'static str, String)> {
    let text = match delta.as_string() {
        Some(s) => s,
        None => match stringify(delta) {
            Ok(Some(s)) => s,
            Ok(None) => return Err(("bad_delta", "a delta is an object or JSON text".into())),
            Err(why) => return Err(("bad_delta", why)),
        },
    };
    if text.len() > MAX_DELTA_BYTES {
        return Err(("too_large", format!("{} bytes, more than {MAX_DELTA_BYTES}", text.len())));
    }
    Ok(text)
}

#[wasm_bindgen]
impl Router {
    /// The health changes this router made on its own evidence since the last call (a breaker
    /// opened, with when its cooldown ends; a breaker closed), oldest first: publish them to
    /// the fleet. Changes applied from other members are never included.
    #[wasm_bindgen(js_name = drainHealthDeltas, unchecked_return_type = "HealthDelta[]")]
    pub fn drain_health_deltas(&self) -> Result<JsValue, JsValue> {
        let deltas = self.inner.borrow_mut().router.drain_health_deltas();
        Ok(to_js(&deltas)?)
    }

    /// Applies another member's delta (an object or the JSON text received) at `now`. Never
    /// throws for the delta's content: a delta that is malformed, oversized, for an unknown
    /// tool, from this router's own origin, or not newer than the last one known is refused
    /// with a code and changes nothing.
    #[wasm_bindgen(js_name = applyHealthDelta, unchecked_return_type = "DeltaVerdict")]
    pub fn apply_health_delta(
        &self,
        #[wasm_bindgen(unchecked_param_type = "HealthDelta | string")] delta: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        let verdict = match delta_text(&delta) {
            Err((code, why)) => refused(code, why),
            Ok(text) => match serde_json::from_str::<HealthDelta>(&text) {
                Err(e) => refused("bad_delta", e.to_string()),
                Ok(d) => match self.inner.borrow_mut().router.apply_health_delta(&d, now) {
                    Ok(transition) => Verdict { applied: true, code: None, message: None, transition },
                    Err(why) => {
                        refused(why.code(), format!("delta for `{}` from `{}` refused", d.tool, d.origin))
                    }
                },
            },
        };
        Ok(to_js(&verdict)?)
    }

    /// What a member joining late applies first, as of `now`: the last breaker change known for
    /// each tool (an `opened` with the cooldown left now) and the evidence that still counts.
    #[wasm_bindgen(js_name = healthSnapshot, unchecked_return_type = "HealthDelta[]")]
    pub fn health_snapshot(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        let inner = self.inner.borrow();
        Ok(to_js(&inner.router.health().snapshot_at(inner.router.graph(), now))?)
    }

    /// How this router weighs its fleet's news: `quorum` (distinct members whose evidence opens
    /// a tool here; 1, the default, trusts every member alone), `windowMs` (how long a member's
    /// evidence counts, once; 0: the breaker's cooldown), `maxSkewMs` (how far ahead of this
    /// router's clock a version may run; default 60000). Returns the settings now in force.
    #[wasm_bindgen(js_name = configureFleet, unchecked_return_type = "FleetConfig")]
    pub fn configure_fleet(
        &self,
        #[wasm_bindgen(unchecked_param_type = "FleetSettings")] config: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let config: FleetConfig = from_js_camel(config, "config", "bad_options", &[])?;
        if config.quorum == 0 {
            return Err(ShrError::new("bad_options", "config.quorum must be at least 1").into());
        }
        let mut inner = self.inner.borrow_mut();
        inner.router.set_fleet_config(config);
        Ok(to_js(&inner.router.health().fleet_config())?)
    }

    /// Counts of deltas published, applied, refused and dropped.
    #[wasm_bindgen(js_name = fleetStats, unchecked_return_type = "FleetStats")]
    pub fn fleet_stats(&self) -> Result<JsValue, JsValue> {
        let stats: FleetStats = self.inner.borrow().router.health().fleet_stats();
        Ok(to_js(&stats)?)
    }

    /// This router's name in its fleet.
    #[wasm_bindgen(getter)]
    pub fn origin(&self) -> String {
        self.inner.borrow().router.health().origin().to_string()
    }
}
