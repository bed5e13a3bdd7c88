//! Cancellation: every tool call gets an `AbortSignal` of its own, aborted when its timeout
//! passes, the run's deadline passes or the run ends with the call still out (a finished run
//! does not wait for it). A tool that passes the signal on (`fetch(url, {signal})`, an MCP
//! client's request options) stops its work; one that ignores it is at least told.

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// A call's `AbortController`; absent where the host has none (a very old runtime).
pub(super) struct Abort {
    controller: JsValue,
}

impl Abort {
    pub(super) fn new() -> Option<Abort> {
        let ctor = Reflect::get(&js_sys::global(), &JsValue::from_str("AbortController")).ok()?;
        let ctor: Function = ctor.dyn_into().ok()?;
        let controller = Reflect::construct(&ctor, &Array::new()).ok()?;
        Some(Abort { controller })
    }

    /// The signal the tool receives.
    pub(super) fn signal(&self) -> JsValue {
        Reflect::get(&self.controller, &JsValue::from_str("signal")).unwrap_or(JsValue::UNDEFINED)
    }

    /// Aborts the call with an `Error` named `name` (`TimeoutError`, `AbortError`): the
    /// signal's `reason`. A listener that throws cannot change the run.
    pub(super) fn abort(&self, name: &str, message: &str) {
        let reason = js_sys::Error::new(message);
        reason.set_name(name);
        if let Ok(f) = Reflect::get(&self.controller, &JsValue::from_str("abort")) {
            if let Ok(f) = f.dyn_into::<Function>() {
                let _ = f.call1(&self.controller, &reason);
            }
        }
    }
}
