//! A run's events as one JSON array and its outcome, the events every run has written straight (issue 48: a
//! call's `ToolCalled` and `ToolSucceeded` and a decision point's intent signals are most of a
//! run's events, and serde's tagged and flattened enums cost several calls a field at the
//! module's opt-level "s"). Every other event goes through the serde writer; the text is the
//! same either way (tests/native.rs compares it with serde_json's on every scenario).

use serde::Serialize;
use shr_core::{Event, EventKind, Outcome, PlanView, Signal, SignalKind};

use super::text::{float, string};
use super::Writer;
use crate::error::ShrError;

/// `events` as a JSON array, keys in camelCase: what [`super::to_json_camel`] writes for them.
pub fn events_to_json_camel(events: &[Event]) -> Result<String, ShrError> {
    let mut out = String::with_capacity(128 * events.len() + 2);
    out.push('[');
    let mut repeats = Repeats::default();
    for (i, e) in events.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if !plain(&mut out, e, &mut repeats) {
            e.serialize(&mut Writer { out: &mut out }).map_err(|e| ShrError::new("internal", e.0))?;
        }
    }
    out.push(']');
    Ok(out)
}

/// What a run's events repeat, written once: the clock value of a step's events and the intent
/// signal of every decision point.
#[derive(Default)]
struct Repeats<'a> {
    at: Option<u64>,
    at_text: String,
    signal: Option<&'a Signal>,
    signal_text: String,
}

/// Writes `e` when it is of the kinds every run has; false (nothing written) otherwise.
fn plain<'a>(out: &mut String, e: &'a Event, repeats: &mut Repeats<'a>) -> bool {
    match &e.kind {
        EventKind::ToolCalled { tool, attempt, call_id } => {
            head(out, e, repeats, "ToolCalled");
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
            head(out, e, repeats, "ToolSucceeded");
            out.push_str(",\"tool\":");
            string(out, tool);
            out.push_str(",\"latencyMs\":");
            float(out, *latency_ms, latency_ms.is_finite());
        }
        EventKind::SignalRaised { signal } if is_intent(signal) => {
            head(out, e, repeats, "SignalRaised");
            intent(out, signal, repeats);
        }
        EventKind::SignalWon { signal } if is_intent(signal) => {
            head(out, e, repeats, "SignalWon");
            intent(out, signal, repeats);
        }
        EventKind::PathPlanned { plan } => {
            head(out, e, repeats, "PathPlanned");
            out.push_str(",\"plan\":");
            plan_view(out, plan);
        }
        EventKind::Finished { status, goal, path, cost, message } => {
            head(out, e, repeats, "Finished");
            out.push_str(",\"status\":");
            unit(out, status);
            out.push_str(",\"goal\":");
            string(out, goal);
            out.push_str(",\"path\":");
            strings(out, path);
            out.push_str(",\"cost\":");
            float(out, *cost, cost.is_finite());
            if let Some(m) = message {
                out.push_str(",\"message\":");
                string(out, m);
            }
        }
        _ => return false,
    }
    out.push('}');
    true
}

/// A run's outcome as JSON, keys in camelCase: what [`super::to_json_camel`] writes for it.
pub fn outcome_to_json_camel(o: &Outcome) -> String {
    // Every field by name: a field added to `Outcome` does not compile here until written.
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
    let mut out = String::with_capacity(256);
    out.push_str("{\"status\":");
    unit(&mut out, status);
    out.push_str(",\"goal\":");
    string(&mut out, goal);
    out.push_str(",\"originalGoal\":");
    string(&mut out, original_goal);
    out.push_str(",\"path\":");
    strings(&mut out, path);
    out.push_str(",\"cost\":");
    float(&mut out, *cost, cost.is_finite());
    if !abandoned.is_empty() {
        out.push_str(",\"abandoned\":");
        strings(&mut out, abandoned);
    }
    // As the core's `skip_serializing_if`: a sunk cost of 0 is left out.
    if *sunk_cost != 0.0 {
        out.push_str(",\"sunkCost\":");
        float(&mut out, *sunk_cost, sunk_cost.is_finite());
    }
    for (k, n) in [
        (",\"toolCalls\":", tool_calls),
        (",\"llmCalls\":", llm_calls),
        (",\"reroutes\":", reroutes),
        (",\"retries\":", retries),
        (",\"failures\":", failures),
        (",\"revisits\":", revisits),
    ] {
        out.push_str(k);
        out.push_str(itoa::Buffer::new().format(*n));
    }
    if let Some(m) = message {
        out.push_str(",\"message\":");
        string(&mut out, m);
    }
    out.push('}');
    out
}

/// A unit enum variant (a status, a monitor kind): one string, as the serde writer writes it.
fn unit<T: Serialize>(out: &mut String, v: &T) {
    let _ = v.serialize(&mut Writer { out });
}

/// `items` as a JSON array of strings.
pub fn strings_to_json(items: &[String]) -> String {
    let mut out = String::with_capacity(items.iter().map(|s| s.len() + 3).sum::<usize>() + 2);
    strings(&mut out, items);
    out
}

fn strings(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, s);
    }
    out.push(']');
}

fn plan_view(out: &mut String, plan: &PlanView) {
    let PlanView { nodes, edges, cost } = plan;
    out.push_str("{\"nodes\":");
    strings(out, nodes);
    out.push_str(",\"edges\":[");
    for (i, (from, to)) in edges.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        string(out, from);
        out.push(',');
        string(out, to);
        out.push(']');
    }
    out.push_str("],\"cost\":");
    float(out, *cost, cost.is_finite());
    out.push('}');
}

/// `{"seq":..,"at":..,"event":"<name>"`, the fields every event starts with.
fn head(out: &mut String, e: &Event, repeats: &mut Repeats<'_>, name: &str) {
    out.push_str("{\"seq\":");
    out.push_str(itoa::Buffer::new().format(e.seq));
    out.push_str(",\"at\":");
    if repeats.at != Some(e.at) {
        repeats.at = Some(e.at);
        repeats.at_text.clear();
        repeats.at_text.push_str(itoa::Buffer::new().format(e.at));
    }
    out.push_str(&repeats.at_text);
    out.push_str(",\"event\":\"");
    out.push_str(name);
    out.push('"');
}

fn is_intent(signal: &Signal) -> bool {
    matches!(signal.kind, SignalKind::Intent { .. })
}

/// `,"signal":{...}` for an intent signal.
fn intent<'a>(out: &mut String, signal: &'a Signal, repeats: &mut Repeats<'a>) {
    let SignalKind::Intent { intent } = &signal.kind else { return };
    // The same signal written before (its priority to the bit: -0.0 is written apart from 0.0).
    let same = repeats.signal.is_some_and(|s| {
        s.source == signal.source
            && s.priority.to_bits() == signal.priority.to_bits()
            && s.kind == signal.kind
    });
    if !same {
        let text = &mut repeats.signal_text;
        text.clear();
        text.push_str(",\"signal\":{\"source\":");
        unit(text, &signal.source);
        text.push_str(",\"priority\":");
        float(text, signal.priority, signal.priority.is_finite());
        text.push_str(",\"type\":\"intent\",\"intent\":");
        string(text, intent);
        text.push('}');
        repeats.signal = Some(signal);
    }
    out.push_str(&repeats.signal_text);
}
