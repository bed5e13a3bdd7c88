//! Crossing the boundary. Out: core types -> `serde_json::Value` -> JS with
//! serde-wasm-bindgen's JSON-compatible serializer, so a JS host sees the JSON the core writes
//! (an infinite weight is `null`, as in the event log). In: `JSON.stringify` then serde_json, so
//! a hostile value (a cycle, a BigInt, a throwing getter) becomes an error with a message, never
//! a trap, and nesting is bounded by serde_json's recursion limit.
//!
//! **One convention for JS: camelCase keys**, both ways, mapped here and nowhere else: the core's
//! `latency_ms` is `latencyMs` in JS. Values (`"call_tools"`, `"half_open"`) stay as they are, and
//! so does user data (a tool's `output`, a task's `context`) and the graph description, which is
//! a file format shared with the CLI (see `docs/graph-format.md`).

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::error::{message_of, ShrError};

/// A core value as a plain JS value, its keys in camelCase.
pub fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, ShrError> {
    let value = serde_json::to_value(v).map_err(|e| ShrError::new("internal", e.to_string()))?;
    json_to_js(&camelize(value))
}

/// A core value as a plain JS value, its keys as the core writes them (the graph description).
pub fn to_js_as_is<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, ShrError> {
    let value = serde_json::to_value(v).map_err(|e| ShrError::new("internal", e.to_string()))?;
    json_to_js(&value)
}

fn json_to_js(value: &serde_json::Value) -> Result<JsValue, ShrError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| ShrError::new("internal", e.to_string()))
}

/// `latency_ms` -> `latencyMs`.
pub fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut up = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `latencyMs` -> `latency_ms`.
pub fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Every key of a core value in camelCase, at every depth (core values hold no user data on
/// their way out).
pub fn camelize(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (camel(&k), camelize(v))).collect()),
        Value::Array(items) => Value::Array(items.into_iter().map(camelize).collect()),
        other => other,
    }
}

/// The keys of a JS value in the core's snake_case, except under `user_data` keys (left as the
/// host wrote them). A snake_case key from JS is an error naming its camelCase form: one
/// convention, not two.
fn snakeize(v: serde_json::Value, user_data: &[&str], at: &str) -> Result<serde_json::Value, String> {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                if k.contains('_') {
                    return Err(format!("{at}.{k}: keys are camelCase in JS: `{}`", camel(&k)));
                }
                let v = if user_data.contains(&k.as_str()) {
                    v
                } else {
                    snakeize(v, user_data, &format!("{at}.{k}"))?
                };
                out.insert(snake(&k), v);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => {
            let items: Result<Vec<Value>, String> = items
                .into_iter()
                .enumerate()
                .map(|(i, v)| snakeize(v, user_data, &format!("{at}[{i}]")))
                .collect();
            Ok(Value::Array(items?))
        }
        other => Ok(other),
    }
}

/// A serde message with the core's field names in backticks turned back to camelCase.
fn camel_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 && part.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit()) {
            out.push_str(&camel(part));
        } else {
            out.push_str(part);
        }
    }
    out
}

/// A camelCase JS value parsed as a core type; keys under `user_data` are not touched.
pub fn from_js_camel<T: DeserializeOwned>(
    v: &JsValue,
    what: &str,
    code: &'static str,
    user_data: &[&str],
) -> Result<T, ShrError> {
    let text = match stringify(v) {
        Ok(Some(text)) => text,
        Ok(None) => "null".to_string(),
        Err(m) => return Err(ShrError::new(code, format!("{what}: not serializable as JSON: {m}"))),
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ShrError::new(code, format!("{what}: {e}")))?;
    let value = snakeize(value, user_data, what).map_err(|m| ShrError::new(code, m))?;
    serde_json::from_value(value)
        .map_err(|e| ShrError::new(code, format!("{what}: {}", camel_message(&e.to_string()))))
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
