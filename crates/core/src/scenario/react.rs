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

use alloc::string::ToString;

use super::{sim, Executor, RunReport, Scenario};
use crate::event::EventKind;
use crate::session::Session;

/// LLM calls the ReAct cost model charges for a run's events.
pub fn react_llm_calls(events: &[crate::event::Event]) -> u32 {
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

pub(super) fn run_react(scenario: &Scenario) -> RunReport {
    let mut session = match Session::new(scenario.graph.clone(), scenario.task.clone(), 0) {
        Ok(s) => s,
        Err(e) => return RunReport::failed(scenario, Executor::React, e.to_string()),
    };
    let escalations = sim::drive(scenario, &mut session);
    let mut report = sim::report_from(scenario, Executor::React, &session, escalations);
    report.llm_calls = react_llm_calls(session.events());
    report.recoveries = 0;
    report.events.clear();
    report
}
