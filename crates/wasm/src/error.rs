//! Errors that reach JavaScript: always a JS `Error` (name `ShrError`) with a stable `code`
//! property, a message naming the tool or field at fault, and extra properties where useful
//! (`problems` for an invalid graph, `tool` for a report, `events` for a failed run).
//!
//! A leaf of the crate: it imports nothing from the other modules (`convert` builds on it).

use serde::Serialize;
use shr_core::{GraphError, Problem, ProblemKind, SessionError};
use wasm_bindgen::JsValue;

/// An error on its way to JS.
#[derive(Debug)]
pub struct ShrError {
    pub code: &'static str,
    pub message: String,
    extra: Vec<(&'static str, JsValue)>,
}

impl ShrError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ShrError { code, message: message.into(), extra: Vec::new() }
    }

    /// Adds a property to the JS error.
    pub fn with(mut self, key: &'static str, value: JsValue) -> Self {
        self.extra.push((key, value));
        self
    }

    /// `invalid_graph`, carrying the core's problem list.
    pub fn graph(err: &GraphError) -> Self {
        // `kind`, `at`, `path`, `message`: camelCase already, so no key needs renaming. Through
        // `serde_json::Value`, as `convert::to_js` does: no serializer instantiated twice.
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        let problems = serde_json::to_value(&err.problems)
            .ok()
            .and_then(|v| v.serialize(&serializer).ok())
            .unwrap_or(JsValue::NULL);
        ShrError::new("invalid_graph", err.to_string()).with("problems", problems)
    }

    /// `invalid_graph` for a description that never reached the core (not serializable).
    pub fn graph_text(message: String) -> Self {
        ShrError::graph_problem(ProblemKind::MalformedJson, "json", "", message)
    }

    /// `invalid_graph` with one problem found before the description reached the core.
    pub fn graph_problem(kind: ProblemKind, at: &str, path: &str, message: String) -> Self {
        ShrError::graph(&GraphError {
            problems: vec![Problem { kind, at: at.into(), path: path.into(), message }],
        })
    }

    /// Maps a session error from `report` or `resolve_escalation` (a task's unknown node is
    /// mapped by the caller, which knows it came from the task).
    pub fn session(err: SessionError) -> Self {
        let message = err.to_string();
        match err {
            SessionError::UnknownNode { id } => {
                ShrError::new("unknown_tool", message).with("tool", JsValue::from_str(&id))
            }
            SessionError::NotInFlight { tool } => {
                ShrError::new("not_in_flight", message).with("tool", JsValue::from_str(&tool))
            }
            SessionError::NoEscalation => ShrError::new("no_escalation", message),
            SessionError::UnknownGoal { .. } => ShrError::new("bad_decision", message),
            SessionError::Finished => ShrError::new("finished", message),
            SessionError::BadConfig { .. } => ShrError::new("bad_options", message),
            // A session always runs on the router that made it; anything else the core adds.
            _ => ShrError::new("internal", message),
        }
    }

    /// Builds the JS `Error`.
    pub fn into_js(self) -> JsValue {
        let err = js_sys::Error::new(&self.message);
        err.set_name("ShrError");
        let obj: JsValue = err.into();
        // Setting an own property on a fresh Error cannot fail; a failure would only lose a field.
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str("code"), &JsValue::from_str(self.code));
        for (key, value) in self.extra {
            let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(key), &value);
        }
        obj
    }
}

impl From<ShrError> for JsValue {
    fn from(e: ShrError) -> JsValue {
        e.into_js()
    }
}

/// A readable message from anything a JS host threw or rejected with. Never throws: getters
/// are read through `Reflect.get`, which reports a throwing getter as an error value.
pub fn message_of(e: &JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    if e.is_object() {
        if let Ok(m) = js_sys::Reflect::get(e, &JsValue::from_str("message")) {
            if let Some(s) = m.as_string() {
                return s;
            }
        }
        if let Some(text) = js_sys::JSON::stringify(e).ok().and_then(|s| JsValue::from(s).as_string()) {
            return text;
        }
        return "a value that is not an Error".into();
    }
    if let Some(n) = e.as_f64() {
        return format!("{n}");
    }
    if let Some(b) = e.as_bool() {
        return format!("{b}");
    }
    if e.is_undefined() {
        return "undefined".into();
    }
    if e.is_null() {
        return "null".into();
    }
    "a value that is not an Error".into()
}
