//! What a tool call did, as the core reads it: a settled promise becomes a `ToolResult` (see
//! the driver's docs for the rules), a decision from JS a `Decision`.

use js_sys::{Array, Object, Promise};
use serde_json::Value;
use shr_core::{Category, Decision, ToolFailure, ToolResult};
use wasm_bindgen::prelude::*;

use super::{promise_reject, promise_resolve};
use crate::convert::{from_js_camel, stringify, tool_failure};
use crate::error::{message_of, ShrError};

/// What a settled call gave.
pub(super) enum Settled {
    Value(JsValue),
    /// A value that is plainly an output, as JSON text (its copy kept in JS: `call_keep`).
    Output(String),
    /// A value that is plainly an output the core does not read: its text stayed in JS (which
    /// kept its copy too), and the core is given `null`.
    Unread,
    Threw(JsValue),
    /// Timed out, and nobody knows what it did: the message says how.
    Unknown(String),
}

/// What a later tool gets of a call's output.
pub(super) enum Kept {
    Nothing,
    /// This copy.
    Copy(JsValue),
    /// The copy the call's JS half made (`call_keep`).
    InCall,
}

/// A settled call as the core's `ToolResult`, and the output to keep for later tools.
pub(super) fn result_of(tool: &str, settled: Settled, latency_ms: f64) -> (ToolResult, Kept) {
    let fail = |category, transient, message: String, agent_action| ToolFailure {
        category,
        transient,
        message,
        agent_action,
        latency_ms,
    };
    let failure = match settled {
        Settled::Unknown(message) => return (ToolResult::Unknown { message, latency_ms }, Kept::Nothing),
        Settled::Unread => return (ToolResult::Ok { output: Value::Null, latency_ms }, Kept::InCall),
        Settled::Output(text) => match serde_json::from_str(&text) {
            Ok(output) => return (ToolResult::Ok { output, latency_ms }, Kept::InCall),
            Err(e) => fail(Category::Service, false, format!("`{tool}` returned malformed data: {e}"), None),
        },
        Settled::Threw(e) => fail(Category::Service, true, message_of(&e), None),
        Settled::Value(v) => match tool_failure(&v) {
            Ok(Some(f)) => ToolFailure { latency_ms, ..f },
            Err(m) => fail(Category::Service, false, format!("`{tool}` returned malformed data: {m}"), None),
            Ok(None) => match output_of(&v) {
                // Later tools get the value that was validated, a copy: not the live object,
                // which a getter or a later change could make differ from what was checked.
                Ok((output, snapshot)) => {
                    return (ToolResult::Ok { output, latency_ms }, Kept::Copy(snapshot))
                }
                Err(m) => {
                    fail(Category::Service, false, format!("`{tool}` returned malformed data: {m}"), None)
                }
            },
        },
    };
    (ToolResult::Err(failure), Kept::Nothing)
}

/// A permanent service failure as a tool would return it (seed 003): a tool the host did not
/// give is no transient fault, and retrying it would only fail again.
pub(super) fn permanent(message: &str) -> Promise {
    let failure = Object::new();
    for (k, v) in
        [("success", JsValue::FALSE), ("error", JsValue::from_str(message)), ("transient", JsValue::FALSE)]
    {
        let _ = js_sys::Reflect::set(&failure, &JsValue::from_str(k), &v);
    }
    promise_resolve(&failure).unwrap_or_else(|e| promise_reject(&e))
}

/// A tool's return value as JSON output (`undefined` is `null`), and the same value as a fresh
/// JS copy of that JSON (what later tools receive).
fn output_of(v: &JsValue) -> Result<(Value, JsValue), String> {
    if v.is_undefined() {
        return Ok((Value::Null, JsValue::NULL));
    }
    match stringify(v)? {
        None => Err("a function or symbol is not data".into()),
        Some(text) => {
            let output = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let copy = js_sys::JSON::parse(&text).map_err(|e| message_of(&e))?;
            Ok((output, copy))
        }
    }
}

/// A decision from JS: `{decision: 'demote', goal} | {decision: 'approve'} |
/// {decision: 'abort', message} | {decision: 'hand_off', to}`.
pub(crate) fn parse_decision(v: &JsValue) -> Result<Decision, ShrError> {
    if !v.is_object() || Array::is_array(v) {
        return Err(ShrError::new(
            "bad_decision",
            "decision must be an object {decision: 'demote'|'approve'|'abort'|'hand_off', ...}",
        ));
    }
    from_js_camel(v, "decision", "bad_decision", &[])
}
