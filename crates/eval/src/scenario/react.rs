//! The ReAct baseline (Yao et al., 2023): every control decision is an LLM inference.
//!
//! The simulated agent is granted the paper's assumption that ReAct reasons correctly (19/19),
//! so it takes the same actions the router would, one thought at a time; what differs is what
//! each decision costs. Cost model, one LLM call for:
//! - each Thought -> Action step, i.e. each tool call (first calls and retries alike);
//! - each failed Observation: diagnosing the error and choosing an alternative;
//! - each situation the router escalates (no path, risk, budget, policy, input): reasoning about
//!   goal demotion or the risk;
//! - the final answer.
//!
//! Recoveries without the LLM are zero by construction: every recovery is reasoned.

use super::{sim, Executor, RunReport, Scenario};
use shr_core::event::EventKind;

/// LLM calls the ReAct cost model charges for a run's events.
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

/// ReAct takes the actions SHR takes (the paper grants it correct reasoning), so its run is
/// SHR's run, charged by the cost model above.
pub(super) fn run_react(scenario: &Scenario) -> RunReport {
    as_react(sim::run_shr(scenario))
}

/// An SHR run's report as the ReAct agent's: same actions and outcome, one LLM call per
/// decision, no recovery without the LLM. Hosts with runs of their own (the visualizer's cyclic
/// and perturbation runs) price them with it too.
pub fn as_react(mut report: RunReport) -> RunReport {
    report.executor = Executor::React;
    // A run that never started (a task naming unknown nodes) made no decision and costs nothing.
    report.llm_calls = if report.events.is_empty() { 0 } else { react_llm_calls(&report.events) };
    report.recoveries = 0;
    report.events.clear();
    report
}
