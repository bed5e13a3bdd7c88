//! ReAct's cost model applied to a run it did not make: one LLM call per tool call, per failed
//! observation, per escalation, plus the final answer, charged on an SHR run's events.
//!
//! This is not the ReAct baseline of the tables (that is [`super::react`], an agent with its own
//! loop). It prices runs for which no catalogue exists (the visualizer's cyclic and perturbation
//! views, the ToolMaze matrix), and says so wherever it is shown: the actions are SHR's.

use super::{Executor, RunReport};
use shr_core::event::EventKind;

/// LLM calls the cost model charges for a run's events.
pub fn react_llm_calls(events: &[shr_core::event::Event]) -> u32 {
    let steps = events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::ToolCalled { .. } | EventKind::ToolFailed { .. } | EventKind::Escalated { .. }
            )
        })
        .count() as u32;
    // The final answer.
    steps + 1
}

/// An SHR run's report priced as if a ReAct agent had taken the same actions: one LLM call per
/// decision, no recovery without the LLM.
pub fn as_react(mut report: RunReport) -> RunReport {
    report.executor = Executor::React;
    // A run that never started (a task naming unknown nodes) made no decision and costs nothing.
    report.llm_calls = if report.events.is_empty() { 0 } else { react_llm_calls(&report.events) };
    report.recoveries = 0;
    report.events.clear();
    report
}
