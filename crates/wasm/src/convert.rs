//! Crossing the boundary. Out: core types -> `serde_json::Value` -> JS with
//! serde-wasm-bindgen's JSON-compatible serializer, so a JS host sees exactly the JSON the core
//! writes (an infinite weight is `null`, as in the event log). In: `JSON.stringify` then
//! serde_json, so a hostile value (a cycle, a BigInt, a throwing getter) becomes an error with a
//! message, never a trap, and nesting is bounded by serde_json's recursion limit.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::error::{message_of, ShrError};

/// A core value as a plain JS value.
pub fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, ShrError> {
    let value = serde_json::to_value(v).map_err(|e| ShrError::new("internal", e.to_string()))?;
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| ShrError::new("internal", e.to_string()))
}

/// `JSON.stringify(v)`: `Ok(None)` when JS gives `undefined` (for `undefined`, a function, a
/// symbol); `Err` with the reason when it throws (cycle, BigInt, throwing getter or `toJSON`).
pub fn stringify(v: &JsValue) -> Result<Option<String>, String> {
    match js_sys::JSON::stringify(v) {
        Ok(s) => Ok(JsValue::from(s).as_string()),
        Err(e) => Err(message_of(&e)),
    }
}

/// A JS value parsed as a core type. `what` names the argument or field for the message.
pub fn from_js<T: DeserializeOwned>(v: &JsValue, what: &str, code: &'static str) -> Result<T, ShrError> {
    let text = match stringify(v) {
        Ok(Some(text)) => text,
        Ok(None) => "null".to_string(),
        Err(m) => return Err(ShrError::new(code, format!("{what}: not serializable as JSON: {m}"))),
    };
    serde_json::from_str(&text).map_err(|e| ShrError::new(code, format!("{what}: {e}")))
}

/// A clock reading in milliseconds as the core's `Millis`.
pub fn millis(x: f64, what: &str) -> Result<u64, ShrError> {
    if x.is_finite() && x >= 0.0 {
        // `as` saturates; clock values are far below u64::MAX.
        Ok(x as u64)
    } else {
        Err(ShrError::new(
            "bad_clock",
            format!("{what} must be a finite number of milliseconds >= 0, got {x}"),
        ))
    }
}

/// `obj[key]`, reporting a throwing getter or proxy as an error naming the field.
pub fn get(obj: &JsValue, key: &str, code: &'static str, what: &str) -> Result<JsValue, ShrError> {
    js_sys::Reflect::get(obj, &JsValue::from_str(key))
        .map_err(|e| ShrError::new(code, format!("{what}.{key}: reading it threw: {}", message_of(&e))))
}

/// Rejects an own string key of `obj` that is not in `known`, naming it: a misspelt option
/// (`timeout` for `timeoutMs`) would otherwise be ignored without a word.
pub fn only_keys(obj: &JsValue, known: &[&str], code: &'static str, what: &str) -> Result<(), ShrError> {
    let keys = js_sys::Reflect::own_keys(obj)
        .map_err(|e| ShrError::new(code, format!("{what}: listing its keys threw: {}", message_of(&e))))?;
    // Symbol keys are not options: a host may tag its objects with them.
    match keys.iter().filter_map(|k| k.as_string()).find(|k| !known.contains(&k.as_str())) {
        Some(key) => {
            Err(ShrError::new(code, format!("{what}.{key}: unknown option (known: {})", known.join(", "))))
        }
        None => Ok(()),
    }
}

/// An optional function field: `undefined`/`null` -> `None`; anything else but a function is an
/// error naming the field.
pub fn opt_fn(
    obj: &JsValue,
    key: &str,
    code: &'static str,
    what: &str,
) -> Result<Option<js_sys::Function>, ShrError> {
    let v = get(obj, key, code, what)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    if v.is_function() {
        return Ok(Some(js_sys::Function::from(v)));
    }
    Err(ShrError::new(code, format!("{what}.{key} must be a function")))
}

/// Whether the value is `undefined` or `null`.
pub fn is_nullish(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}
