//! The ReAct baseline on ToolMaze tasks: an agent with a loop of its own, never the router.
//!
//! Its prompt holds the task's steps (each branch's stages, in order) and, for each step, the
//! tools that can do it (the stage's group, in catalogue order): no costs, no graph, no
//! validators. Each step is one LLM call (Thought and Action), the tool's result its
//! Observation; the final answer is one more. The mock LLM's rule, fixed before any result was
//! seen:
//! 1. Call the first tool of the current step it has not given up on.
//! 2. An error that says it is transient: call the same tool again while the task's retry policy
//!    allows (its `attempts`); any other error: give the tool up and take the next one.
//! 3. A well-formed result is read in the next Thought. Whether the agent notices a wrong one is
//!    a stated, seeded model: the LLM judge's rates ([`super::judge`]: it passes 15% of wrong
//!    results, 50% of plausible wrong values, and doubts 2% of clean ones). A doubted result is
//!    handled as a transient error; a wrong result it passes is accepted.
//! 4. A step with no tool left: the agent stops and says so (an escalation to its user).
//!
//! Each step's completion takes [`STEP_MS`] of simulated time (the judge's assumed latency), so a
//! fault lasting t ms holds for fewer of the agent's calls than of the router's.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use shr_core::graph::{NodeIx, ToolGraph};
use shr_core::{Millis, Status, ToolResult};

use super::judge::{self, Judge};
use super::world::EPOCH_MS;
use super::{FaultProfile, GeneratedTask, PerturbedTools, RunFlags, Setup};
use crate::scenario::react::{ReactAction, ReactRun, ReactStep};
use crate::scenario::{Executor, RunReport};

/// Simulated time of one LLM completion.
pub const STEP_MS: Millis = judge::LATENCY_MS;
/// Simulated time of one tool call (the mock tools' latency).
const CALL_MS: Millis = 50;

/// A ReAct run of a task: seed 002's flags, and the judged report with its steps.
#[derive(Clone, Debug)]
pub struct ReactTaskRun {
    pub flags: RunFlags,
    pub run: ReactRun,
}

/// What the agent made of an observation.
enum Read {
    Accepted,
    Retry,
    GiveUp,
}

/// The task's steps as the prompt lists them: (stage, its tools in catalogue order).
fn steps(graph: &ToolGraph) -> Vec<(String, Vec<NodeIx>)> {
    let mut out: Vec<(String, Vec<NodeIx>)> = Vec::new();
    for v in (0..graph.node_count()).filter(|&v| graph.node(v).tool) {
        let stage = graph.node(v).stage().unwrap_or(graph.id(v)).to_string();
        match out.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, tools)) => tools.push(v),
            None => out.push((stage, alloc::vec![v])),
        }
    }
    out
}

/// Runs `task` under `fault` with the ReAct agent (module docs). Same inputs, same run.
pub fn run(task: &GeneratedTask, fault: &FaultProfile, setup: &Setup) -> ReactTaskRun {
    let graph = ToolGraph::from_spec(task.spec.clone()).ok();
    let plan = graph.as_ref().map(steps).unwrap_or_default();
    let mut tools = graph.as_ref().map(|g| PerturbedTools::new(g, task, fault, setup.family));
    let mut reader = Judge::new(task.seed ^ 0x5EAC_7000);
    let retries = setup.policy.retry().attempts;
    let mut now = EPOCH_MS;
    let mut log: Vec<ReactStep> = Vec::new();
    let mut path = alloc::vec![String::from("start")];
    let (mut calls, mut corrupted, mut stuck) = (0u32, false, plan.is_empty());
    let mut thought = String::from("The task has steps in order; start with the first.");
    'steps: for (stage, providers) in &plan {
        for &t in providers {
            let id = graph.as_ref().map_or("", |g| g.id(t)).to_string();
            let mut attempt = 0;
            loop {
                now += STEP_MS;
                let Some((result, wrong)) = tools.as_mut().map(|x| x.call(t, now)) else { break 'steps };
                now += CALL_MS;
                calls += 1;
                attempt += 1;
                // A failure's observation starts "`tool` failed", as the scenario agent's do.
                let failed = |why: &str| format!("`{id}` failed: {why}");
                let (observation, read) = match result {
                    ToolResult::Err(f) if f.transient && attempt <= retries => {
                        (failed(&f.message), Read::Retry)
                    }
                    ToolResult::Err(f) => (failed(&f.message), Read::GiveUp),
                    ToolResult::Unknown { message, .. } => (failed(&message), Read::GiveUp),
                    ToolResult::Ok { output, .. } => {
                        let doubted = reader.rejects(wrong.then_some(setup.family));
                        let text = output.to_string();
                        let looks_wrong = || failed(&format!("its result looks wrong: {text}"));
                        if doubted && attempt <= retries {
                            (looks_wrong(), Read::Retry)
                        } else if doubted {
                            (looks_wrong(), Read::GiveUp)
                        } else {
                            corrupted |= wrong;
                            (text, Read::Accepted)
                        }
                    }
                };
                let action = ReactAction::Call { tool: id.clone(), capability: stage.clone() };
                let step = ReactStep {
                    llm_call: log.len() as u32 + 1,
                    thought: core::mem::take(&mut thought),
                    action,
                    observation: Some(observation),
                    error: None,
                };
                log.push(step);
                match read {
                    Read::Accepted => {
                        path.push(id.clone());
                        thought = format!("`{id}` did step {stage}; on to the next step.");
                        continue 'steps;
                    }
                    Read::Retry => {
                        thought = format!("`{id}` failed or looks wrong; it may pass: call it again.")
                    }
                    Read::GiveUp => {
                        thought = format!("`{id}` cannot do step {stage}; try the next tool that can.");
                        break;
                    }
                }
            }
        }
        stuck = true;
        thought = format!("No tool left can do step {stage}: stop and say so.");
        break;
    }
    let status = if stuck { Status::Escalated } else { Status::Completed };
    log.push(ReactStep {
        llm_call: log.len() as u32 + 1,
        thought: if stuck { thought } else { String::from("Every step is done: answer.") },
        action: ReactAction::Finish {
            goal: String::from("goal"),
            status,
            message: stuck.then(|| String::from("a step could not be done")),
        },
        observation: None,
        error: None,
    });
    let has_alternative = graph
        .as_ref()
        .and_then(|g| g.index(&fault.target))
        .is_some_and(|t| plan.iter().any(|(_, p)| p.contains(&t) && p.len() > 1));
    let success = !stuck && !corrupted;
    let no_clean_path = fault.mode.permanent() && !has_alternative;
    let recovered = success || (stuck && no_clean_path && !corrupted);
    if !stuck {
        path.push(String::from("goal"));
    }
    let flags = RunFlags {
        success,
        perturbed: tools.as_ref().is_some_and(PerturbedTools::perturbed),
        recovered,
        escalated: stuck,
        tool_calls: calls,
        optimal_calls: task.optimal_calls,
        llm_calls: log.len() as u32,
        elapsed_ms: now - EPOCH_MS,
    };
    let report = RunReport {
        scenario: task.id.clone(),
        executor: Executor::React,
        status,
        goal: if stuck { String::new() } else { String::from("goal") },
        path,
        llm_calls: flags.llm_calls,
        tool_calls: calls,
        recoveries: 0,
        classifiers_lost: 0,
        silent_failure: !stuck && corrupted,
        correct: recovered,
        problems: if corrupted { alloc::vec![String::from("accepted a wrong result")] } else { Vec::new() },
        escalations: Vec::new(),
        events: Vec::new(),
        edges: Vec::new(),
    };
    ReactTaskRun { flags, run: ReactRun { report, steps: log } }
}
