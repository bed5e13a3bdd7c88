//! What a run resolves with: `{outcome, events}`, the events as JSON text parsed when first read
//! (issue 48: most runs' events are never read, and JS builds them from text faster than Rust
//! can one property at a time). `events` is an own enumerable accessor, as an object literal's
//! `get events()`/`set events()` would be, but one pair serves every result: it finds its text
//! through a private field (`Stamp`), not a closure per result.

use shr_core::{Outcome, Status, ToolGraph};
use wasm_bindgen::prelude::*;

use crate::convert::{outcome_to_json_camel, strings_to_json};

#[wasm_bindgen(module = "/src/driver/driver.js")]
extern "C" {
    /// What a run resolves with, from the JSON texts of its outcome and its events: the events
    /// (most of the text) are parsed when first read, a data property from then on.
    fn run_result(outcome: &str, events: &str) -> JsValue;
    /// [`run_result`] for the common outcome, from its fields (only the path as JSON text, the
    /// goals as indices into the ids of `ids`, [`crate::route::RouteJs`]'s state).
    #[allow(clippy::too_many_arguments)]
    fn run_result_plain(
        status: u32,
        ids: &JsValue,
        goal: u32,
        original_goal: u32,
        path: &str,
        cost: f64,
        tool_calls: u32,
        llm_calls: u32,
        reroutes: u32,
        retries: u32,
        failures: u32,
        revisits: u32,
        events: &str,
    ) -> JsValue;
}

/// What a run resolves with: its outcome and its events' JSON text, parsed when first read. An
/// outcome with no abandoned work, sunk cost or message and a finite cost (most) is built from
/// its fields, not parsed from JSON text; the object is the same (`outcome_to_json_camel`'s keys,
/// in its order).
pub(super) fn run_result_of(o: &Outcome, events: &str, graph: Option<&ToolGraph>, ids: &JsValue) -> JsValue {
    let Outcome {
        status,
        goal,
        original_goal,
        path,
        cost,
        abandoned,
        sunk_cost,
        tool_calls,
        llm_calls,
        reroutes,
        retries,
        failures,
        revisits,
        message,
    } = o;
    let goals = graph.and_then(|g| g.index(goal).zip(g.index(original_goal)));
    let Some((goal, original_goal)) =
        goals.filter(|_| abandoned.is_empty() && *sunk_cost == 0.0 && message.is_none() && cost.is_finite())
    else {
        return run_result(&outcome_to_json_camel(o), events);
    };
    // An index into the JS half's `STATUS`: serde's `rename_all = "snake_case"` names.
    let status = match status {
        Status::Completed => 0,
        Status::Demoted => 1,
        Status::Escalated => 2,
    };
    run_result_plain(
        status,
        ids,
        goal as u32,
        original_goal as u32,
        &strings_to_json(path),
        *cost,
        *tool_calls,
        *llm_calls,
        *reroutes,
        *retries,
        *failures,
        *revisits,
        events,
    )
}
