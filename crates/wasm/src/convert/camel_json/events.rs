//! A run's events as one JSON array, the events every run has written straight (issue 48: a
//! call's `ToolCalled` and `ToolSucceeded` and a decision point's intent signals are most of a
//! run's events, and serde's tagged and flattened enums cost several calls a field at the
//! module's opt-level "s"). Every other event goes through the serde writer; the text is the
//! same either way (tests/native.rs compares it with serde_json's on every scenario).

use serde::Serialize;
use shr_core::{Event, EventKind, Signal, SignalKind};

use super::text::{float, string};
use super::Writer;
use crate::error::ShrError;

/// `events` as a JSON array, keys in camelCase: what [`super::to_json_camel`] writes for them.
pub fn events_to_json_camel(events: &[Event]) -> Result<String, ShrError> {
    let mut out = String::with_capacity(96 * events.len() + 2);
    out.push('[');
    for (i, e) in events.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if !plain(&mut out, e) {
            e.serialize(&mut Writer { out: &mut out }).map_err(|e| ShrError::new("internal", e.0))?;
        }
    }
    out.push(']');
    Ok(out)
}

/// Writes `e` when it is of the kinds every run has; false (nothing written) otherwise.
fn plain(out: &mut String, e: &Event) -> bool {
    match &e.kind {
        EventKind::ToolCalled { tool, attempt, call_id } => {
            head(out, e, "ToolCalled");
            out.push_str(",\"tool\":");
            string(out, tool);
            out.push_str(",\"attempt\":");
            out.push_str(itoa::Buffer::new().format(*attempt));
            if !call_id.is_empty() {
                out.push_str(",\"callId\":");
                string(out, call_id);
            }
        }
        EventKind::ToolSucceeded { tool, latency_ms } => {
            head(out, e, "ToolSucceeded");
            out.push_str(",\"tool\":");
            string(out, tool);
            out.push_str(",\"latencyMs\":");
            float(out, *latency_ms, latency_ms.is_finite());
        }
        EventKind::SignalRaised { signal } if is_intent(signal) => {
            head(out, e, "SignalRaised");
            intent(out, signal);
        }
        EventKind::SignalWon { signal } if is_intent(signal) => {
            head(out, e, "SignalWon");
            intent(out, signal);
        }
        _ => return false,
    }
    out.push('}');
    true
}

/// `{"seq":..,"at":..,"event":"<name>"`, the fields every event starts with.
fn head(out: &mut String, e: &Event, name: &str) {
    out.push_str("{\"seq\":");
    out.push_str(itoa::Buffer::new().format(e.seq));
    out.push_str(",\"at\":");
    out.push_str(itoa::Buffer::new().format(e.at));
    out.push_str(",\"event\":\"");
    out.push_str(name);
    out.push('"');
}

fn is_intent(signal: &Signal) -> bool {
    matches!(signal.kind, SignalKind::Intent { .. })
}

/// `,"signal":{...}` for an intent signal.
fn intent(out: &mut String, signal: &Signal) {
    let SignalKind::Intent { intent } = &signal.kind else { return };
    out.push_str(",\"signal\":{\"source\":");
    // A unit variant: one string, as the serde writer writes it.
    let _ = signal.source.serialize(&mut Writer { out: &mut *out });
    out.push_str(",\"priority\":");
    float(out, signal.priority, signal.priority.is_finite());
    out.push_str(",\"type\":\"intent\",\"intent\":");
    string(out, intent);
    out.push('}');
}
