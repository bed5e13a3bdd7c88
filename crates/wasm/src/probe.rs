//! Probes on the JS `Router`: the core says which tools to probe and when
//! (`shr_core::health::probe`); JS makes the calls. A probe handed out is held here under a
//! number until JS settles or releases it, so that a probe slot is never lost to a forgotten
//! token: settling an unknown number is `unknown_probe`, never a trap.

use std::collections::BTreeMap;

use serde::Serialize;
use shr_core::health::Probe;
use wasm_bindgen::prelude::*;

use crate::convert::{number_arg, to_js_as_is};
use crate::error::ShrError;
use crate::Router;

/// Probes handed out and not yet settled.
#[derive(Default)]
pub(crate) struct Outstanding {
    next: u32,
    held: BTreeMap<u32, Probe>,
}

#[derive(Serialize)]
struct ProbeCall<'a> {
    probe: u32,
    tool: &'a str,
    input: &'a serde_json::Value,
}

const NULL: serde_json::Value = serde_json::Value::Null;

/// A probe number from JS: a whole number of 32 bits, else `unknown_probe`.
fn probe_number(probe: &JsValue) -> Result<u32, ShrError> {
    probe
        .as_f64()
        .filter(|x| x.fract() == 0.0 && *x >= 0.0 && *x <= f64::from(u32::MAX))
        .map(|x| x as u32)
        .ok_or_else(|| ShrError::new("unknown_probe", "a probe is the number `dueProbes` gave"))
}

impl Router {
    /// The probe held under `probe`, taken out.
    fn take_probe(&self, probe: &JsValue) -> Result<Probe, ShrError> {
        let n = probe_number(probe)?;
        self.shared().borrow_mut().probes.held.remove(&n).ok_or_else(|| {
            ShrError::new("unknown_probe", format!("no probe {n} is out (settled already, or never given)"))
        })
    }
}

#[wasm_bindgen]
impl Router {
    /// The probe calls due now: tools whose node declares `probe`, down, whose cooldown lets a
    /// probe through and whose last probe is `probe.interval_ms` old (in a fleet, only the
    /// member that owns the probe gets it). Call each tool with `input`, then `settleProbe`
    /// (or `releaseProbe`) it exactly once.
    #[wasm_bindgen(js_name = dueProbes, unchecked_return_type = "ProbeCall[]")]
    pub fn due_probes(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        let inner = self.shared();
        let mut inner = inner.borrow_mut();
        let due = inner.router.due_probes(now);
        let mut numbered = Vec::with_capacity(due.len());
        for p in due {
            let n = inner.probes.next;
            inner.probes.next = n.wrapping_add(1);
            inner.probes.held.insert(n, p);
            numbered.push((n, p.tool));
        }
        let graph = inner.router.graph();
        let calls: Vec<ProbeCall<'_>> = numbered
            .iter()
            .map(|&(n, v)| ProbeCall {
                probe: n,
                tool: graph.id(v),
                input: graph.node(v).probe().and_then(|p| p.input.as_ref()).unwrap_or(&NULL),
            })
            .collect();
        Ok(to_js_as_is(&calls)?)
    }

    /// When to ask `dueProbes` again (a clock value), or `null` while no tool with a `probe` is
    /// down. A breaker that opens meanwhile brings it forward: poll at least every few seconds.
    #[wasm_bindgen(js_name = nextProbeAt, unchecked_return_type = "number | null")]
    pub fn next_probe_at(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        let at = self.shared().borrow_mut().router.next_probe_at(now);
        Ok(at.map_or(JsValue::NULL, |t| JsValue::from_f64(t as f64)))
    }

    /// A probe's outcome, as `record` takes it: `{ok: true, latencyMs}` closes the breaker,
    /// `{ok: false}` opens it for another cooldown. Returns the tool's health.
    #[wasm_bindgen(js_name = settleProbe, unchecked_return_type = "ToolHealth")]
    pub fn settle_probe(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] probe: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RecordOutcome")] outcome: JsValue,
    ) -> Result<JsValue, JsValue> {
        // The outcome is checked before the probe is taken: a bad outcome leaves it out.
        let (observed, now) = self.observation(&outcome)?;
        let p = self.take_probe(&probe)?;
        self.shared().borrow_mut().router.settle_probe(p, observed, now);
        Ok(self.health_view(p.tool, now)?)
    }

    /// A probe not made (or whose outcome is unknown): its slot is given back.
    #[wasm_bindgen(js_name = releaseProbe)]
    pub fn release_probe(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] probe: JsValue,
    ) -> Result<(), JsValue> {
        let p = self.take_probe(&probe)?;
        self.shared().borrow_mut().router.release_probe(p);
        Ok(())
    }
}
