//! Mock tools and a deterministic mock LLM, the scenario's host for the core's one host loop
//! ([`shr_core::drive()`]).

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;
use serde_json::json;

use super::{EscalationRecord, Executor, LlmRule, RunReport, Scenario};
use shr_core::graph::{NodeIx, ToolGraph};
use shr_core::Millis;
use shr_core::{
    Call, Decision, EscalationReason, EscalationRequest, Host, Performed, Router, Run, Status, ToolResult,
};

/// Mock tools: every tool succeeds unless the scenario injects a failure for it.
#[derive(Clone, Debug)]
pub struct MockTools {
    /// (tool, fails once this many calls have been made; 0 = from the start)
    failures: Vec<(NodeIx, u32)>,
    calls: u32,
}

impl MockTools {
    pub fn new(graph: &ToolGraph, scenario: &Scenario) -> Self {
        MockTools {
            failures: scenario
                .failures
                .iter()
                .filter_map(|f| graph.index(&f.tool).map(|v| (v, f.after_calls.unwrap_or(0))))
                .collect(),
            calls: 0,
        }
    }

    /// Whether the tool is down for the next call.
    pub fn is_down(&self, tool: NodeIx) -> bool {
        self.failures.iter().any(|&(t, after)| t == tool && self.calls >= after)
    }

    /// Performs one call: an outage if the tool is down, a small JSON result otherwise.
    pub fn call(&mut self, graph: &ToolGraph, tool: NodeIx) -> ToolResult {
        let down = self.is_down(tool);
        self.calls += 1;
        if down {
            ToolResult::outage(format!("{} is unavailable (connection refused)", graph.id(tool)))
        } else {
            ToolResult::ok(json!({ "tool": graph.id(tool), "ok": true }), Self::latency(tool))
        }
    }

    /// A fixed, per-tool latency so runs are reproducible.
    pub fn latency(tool: NodeIx) -> f64 {
        100.0 + 10.0 * (tool % 7) as f64
    }

    pub fn calls(&self) -> u32 {
        self.calls
    }
}

/// A deterministic stand-in for the LLM: answers an escalation from a decision table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MockLlm {
    rules: Vec<LlmRule>,
}

impl MockLlm {
    pub fn new(rules: Vec<LlmRule>) -> Self {
        MockLlm { rules }
    }

    /// The first rule matching the request's reason, goal and completed stages; abort when none.
    pub fn decide(&self, graph: &ToolGraph, request: &EscalationRequest) -> Decision {
        let stage_done = |stage: &str| {
            request
                .completed
                .iter()
                .filter_map(|id| graph.index(id))
                .any(|v| graph.node(v).stage() == Some(stage))
        };
        self.decide_with(request.reason, &request.goal, &stage_done)
    }

    /// The same table for an asker that knows what it has done but has no graph (the ReAct
    /// agent, whose capabilities are named like the stages).
    pub fn decide_with(
        &self,
        reason: EscalationReason,
        goal: &str,
        stage_done: &dyn Fn(&str) -> bool,
    ) -> Decision {
        self.rules
            .iter()
            .find(|r| {
                r.reason == reason && r.goal == goal && r.completed_stage.as_deref().is_none_or(stage_done)
            })
            .map(|r| r.decision.clone())
            .unwrap_or_else(|| Decision::Abort {
                message: format!("no way forward for {reason:?} on `{goal}`"),
            })
    }

    pub fn rules(&self) -> &[LlmRule] {
        &self.rules
    }
}

/// The scenario's host: its mock tools and its mock LLM, keeping every escalation it answers.
#[derive(Debug)]
pub struct ScenarioHost<'a> {
    scenario: &'a Scenario,
    tools: MockTools,
    pub escalations: Vec<EscalationRecord>,
}

impl<'a> ScenarioHost<'a> {
    pub fn new(scenario: &'a Scenario) -> Self {
        ScenarioHost { scenario, tools: MockTools::new(&scenario.graph, scenario), escalations: Vec::new() }
    }
}

impl Host for ScenarioHost<'_> {
    fn call(&mut self, graph: &ToolGraph, call: &Call, _at: Millis) -> Performed {
        let Some(v) = graph.index(&call.tool) else {
            return Performed { result: ToolResult::outage("no such tool"), latency_ms: 0 };
        };
        Performed { result: self.tools.call(graph, v), latency_ms: MockTools::latency(v) as Millis }
    }

    fn escalate(&mut self, graph: &ToolGraph, request: &EscalationRequest, _now: Millis) -> Decision {
        let decision = self.scenario.llm.decide(graph, request);
        self.escalations.push(EscalationRecord { request: request.clone(), decision: decision.clone() });
        decision
    }
}

pub(super) fn run_shr(scenario: &Scenario) -> RunReport {
    run_shr_probing(scenario, &[])
}

/// SHR's run with `probing` tools half-open when the task starts: the router tripped them one
/// cooldown earlier (the page's "probe" clicks), so a probe may go through at a high weight.
pub(super) fn run_shr_probing(scenario: &Scenario, probing: &[String]) -> RunReport {
    let mut router = Router::new(scenario.graph.clone());
    for v in probing.iter().filter_map(|t| scenario.graph.index(t)) {
        router.mark_down(v, 0);
    }
    let at = if probing.is_empty() { 0 } else { router.config().breaker.cooldown_ms };
    let mut run = match router.start(scenario.task.clone(), at) {
        Ok(r) => r,
        Err(e) => return RunReport::failed(scenario, Executor::Shr, e.to_string()),
    };
    let mut host = ScenarioHost::new(scenario);
    shr_core::drive(&mut router, &mut run, &mut host, at);
    report_from(scenario, Executor::Shr, &run, host.escalations)
}

/// A report from a finished run.
pub(super) fn report_from(
    scenario: &Scenario,
    executor: Executor,
    session: &Run,
    escalations: Vec<EscalationRecord>,
) -> RunReport {
    let Some(o) = session.outcome() else {
        return RunReport::failed(scenario, executor, "the session did not finish".to_string());
    };
    let completed: Vec<NodeIx> = session.completion().to_vec();
    let goal = scenario.graph.index(&o.goal).unwrap_or(0);
    let silent = o.status != Status::Escalated
        && shr_core::audit_completion(&scenario.graph, scenario.graph.start(), &completed, goal).is_err();
    RunReport {
        scenario: scenario.id.clone(),
        executor,
        status: o.status,
        goal: o.goal.clone(),
        path: o.path.clone(),
        llm_calls: o.llm_calls,
        tool_calls: o.tool_calls,
        recoveries: o.reroutes,
        classifiers_lost: lost_in_fan_out(scenario, session),
        silent_failure: silent,
        correct: false,
        problems: Vec::new(),
        escalations,
        events: session.events().to_vec(),
        edges: super::traversed_ids(&scenario.graph, session),
    }
}

fn lost_in_fan_out(scenario: &Scenario, session: &Run) -> u32 {
    let fan_out = scenario.workflow.fan_out_tools();
    session
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, shr_core::event::EventKind::ToolFailed { tool, .. } if fan_out.contains(&tool.as_str())))
        .count() as u32
}

impl RunReport {
    pub(super) fn failed(scenario: &Scenario, executor: Executor, why: alloc::string::String) -> RunReport {
        RunReport {
            scenario: scenario.id.clone(),
            executor,
            status: Status::Escalated,
            goal: alloc::string::String::new(),
            path: Vec::new(),
            llm_calls: 0,
            tool_calls: 0,
            recoveries: 0,
            classifiers_lost: 0,
            silent_failure: false,
            correct: false,
            problems: alloc::vec![why],
            escalations: Vec::new(),
            events: Vec::new(),
            edges: Vec::new(),
        }
    }
}
