//! The static-workflow baseline: a well-engineered LangGraph-style state machine with the
//! fallback edges a careful team codes (one alternative per step, coded handlers for the
//! business cases it anticipates) and nothing else. A failure it has no edge for makes it skip
//! the step and still report success; that silent failure is detected afterwards by auditing
//! the completed steps against the graph ([`shr_core::audit_completion`]), never by a
//! flag in the scenario.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Executor, MockTools, RunReport, Scenario};
use shr_core::graph::{NodeIx, ToolGraph};
use shr_core::{audit_completion, Status, ToolResult};

/// A coded detour: call these tools, then claim this goal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Detour {
    pub via: Vec<String>,
    pub goal: String,
}

/// A coded business rule checked before a step: `context[key] > max` takes the detour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guard {
    pub key: String,
    pub max: f64,
    pub via: Vec<String>,
    pub goal: String,
}

/// One step: a tool (or several run as a fan-out), its single fallback edge, its handlers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// For a fan-out: successes needed to go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ok: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<Guard>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<Detour>,
}

/// The whole coded workflow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workflow {
    pub goal: String,
    pub steps: Vec<Step>,
}

/// One move of the static workflow, recorded so its run can be replayed step by step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "move", rename_all = "snake_case")]
pub enum WorkflowMove {
    /// Called a tool; `fallback_from`: the coded fallback edge it took from a failed primary.
    Call { tool: String, ok: bool, fallback_from: Option<String> },
    /// A coded business rule fired before step `step`: the detour's tools are called next.
    Guard { step: usize, key: String, goal: String },
    /// Every coded edge of step `step` failed: its coded detour is taken.
    Detour { step: usize, goal: String },
    /// A failure of step `step` that no coded edge handles: the state machine moves on without
    /// the step. The audit of the completed steps finds it missing afterwards, the run does not.
    Skip { step: usize, tools: Vec<String> },
    /// The workflow reports its goal. `silent`: with a required step missing (by the audit).
    Report { goal: String, silent: bool },
}

impl Workflow {
    /// Checks that every tool and goal named exists; the error names the first that does not,
    /// with its field path in `file` (`workflow.steps[2].fallback`).
    pub fn check(&self, graph: &ToolGraph, file: &str) -> Result<(), super::ScenarioError> {
        use alloc::format;
        let known = |at: String, id: &str| {
            if graph.index(id).is_some() {
                Ok(())
            } else {
                Err(super::err(file, &format!("workflow.{at}"), format!("unknown node `{id}`")))
            }
        };
        known("goal".into(), &self.goal)?;
        for (i, s) in self.steps.iter().enumerate() {
            for (j, t) in s.tools.iter().enumerate() {
                known(format!("steps[{i}].tools[{j}]"), t)?;
            }
            if let Some(f) = &s.fallback {
                known(format!("steps[{i}].fallback"), f)?;
            }
            let detours = s
                .guard
                .iter()
                .map(|g| (&g.via, &g.goal, "guard"))
                .chain(s.on_exhausted.iter().map(|d| (&d.via, &d.goal, "on_exhausted")));
            for (via, goal, name) in detours {
                known(format!("steps[{i}].{name}.goal"), goal)?;
                for (k, t) in via.iter().enumerate() {
                    known(format!("steps[{i}].{name}.via[{k}]"), t)?;
                }
            }
        }
        Ok(())
    }

    /// Tools of fan-out steps (the moderation classifiers).
    pub fn fan_out_tools(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter(|s| s.tools.len() > 1)
            .flat_map(|s| s.tools.iter().map(String::as_str))
            .collect()
    }
}

struct Run<'a> {
    graph: &'a ToolGraph,
    tools: MockTools,
    completed: Vec<NodeIx>,
    tool_calls: u32,
    lost: u32,
    moves: Vec<WorkflowMove>,
}

impl Run<'_> {
    fn call(&mut self, id: &str) -> bool {
        self.call_from(id, None)
    }

    fn call_from(&mut self, id: &str, fallback_from: Option<&str>) -> bool {
        let Some(v) = self.graph.index(id) else { return false };
        self.tool_calls += 1;
        let ok = matches!(self.tools.call(self.graph, v), ToolResult::Ok { .. });
        if ok {
            self.completed.push(v);
        }
        self.moves.push(WorkflowMove::Call {
            tool: id.into(),
            ok,
            fallback_from: fallback_from.map(Into::into),
        });
        ok
    }

    /// Calls the detour's tools; returns its goal.
    fn detour(&mut self, via: &[String], goal: &str) -> String {
        for t in via {
            // A detour tool that fails is skipped like any step without an edge.
            self.call(t);
        }
        goal.into()
    }
}

pub(super) fn run_static(scenario: &Scenario) -> RunReport {
    trace_static(scenario).0
}

/// The static workflow's run with its moves, in order.
pub(super) fn trace_static(scenario: &Scenario) -> (RunReport, Vec<WorkflowMove>) {
    let graph = &scenario.graph;
    let wf = &scenario.workflow;
    let mut run = Run {
        graph,
        tools: MockTools::new(graph, scenario),
        completed: alloc::vec![graph.start()],
        tool_calls: 0,
        lost: 0,
        moves: Vec::new(),
    };
    let mut recoveries = 0;
    let mut goal: String = wf.goal.clone();
    for (i, step) in wf.steps.iter().enumerate() {
        if let Some(g) = &step.guard {
            let value = scenario.task.context.get(&g.key).and_then(Value::as_f64);
            if value.is_some_and(|v| v > g.max) {
                run.moves.push(WorkflowMove::Guard { step: i, key: g.key.clone(), goal: g.goal.clone() });
                goal = run.detour(&g.via, &g.goal);
                break;
            }
        }
        if step.tools.len() > 1 {
            let ok = step.tools.iter().filter(|t| run.call(t)).count() as u32;
            run.lost += step.tools.len() as u32 - ok;
            if ok < step.min_ok.unwrap_or(1) {
                if let Some(d) = &step.on_exhausted {
                    recoveries += 1;
                    run.moves.push(WorkflowMove::Detour { step: i, goal: d.goal.clone() });
                    goal = run.detour(&d.via, &d.goal);
                    break;
                }
                run.moves.push(WorkflowMove::Skip { step: i, tools: step.tools.clone() });
            }
            continue;
        }
        let Some(primary) = step.tools.first() else { continue };
        if run.call(primary) {
            continue;
        }
        if let Some(fb) = &step.fallback {
            recoveries += 1;
            if run.call_from(fb, Some(primary)) {
                continue;
            }
        }
        if let Some(d) = &step.on_exhausted {
            recoveries += 1;
            run.moves.push(WorkflowMove::Detour { step: i, goal: d.goal.clone() });
            goal = run.detour(&d.via, &d.goal);
            break;
        }
        // No edge for this failure: the state machine moves on without the step.
        let mut tools = step.tools.clone();
        tools.extend(step.fallback.iter().cloned());
        run.moves.push(WorkflowMove::Skip { step: i, tools });
    }
    let goal_ix = graph.index(&goal).unwrap_or(0);
    run.completed.push(goal_ix);
    let silent = audit_completion(graph, graph.start(), &run.completed, goal_ix).is_err();
    run.moves.push(WorkflowMove::Report { goal: goal.clone(), silent });
    let report = RunReport {
        scenario: scenario.id.clone(),
        executor: Executor::Static,
        status: if goal == wf.goal { Status::Completed } else { Status::Demoted },
        path: run.completed.iter().map(|&v| graph.id(v).into()).collect(),
        goal,
        llm_calls: 0,
        tool_calls: run.tool_calls,
        recoveries,
        classifiers_lost: run.lost,
        silent_failure: silent,
        correct: false,
        problems: Vec::new(),
        escalations: Vec::new(),
        events: Vec::new(),
        edges: Vec::new(),
    };
    (report, run.moves)
}
