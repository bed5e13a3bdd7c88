//! The ReAct baseline (Yao et al., 2023): an agent with a loop of its own, never the router.
//!
//! The agent sees what a ReAct prompt holds: the task, a catalogue of tools (name, description,
//! the capability each provides, written in the domain file: no costs, no graph), the business
//! policies of the task, and its observations so far. Each step is one call to the (mock) LLM,
//! which answers with a Thought and an Action: call a tool, or finish. A tool's result comes back
//! as the step's Observation. Its counts, path and outcome come out of that loop; the run is then
//! judged like every other executor's (the scenario's expected outcome, and
//! [`shr_core::audit_completion`] for a claimed success).
//!
//! The mock LLM is deterministic, a rule fixed before any result was seen and the same for every
//! scenario. At each step:
//! 1. The goal being pursued has plans (lists of capabilities, some needed `count` times by
//!    distinct tools). The first plan that can still be completed is followed: one whose every
//!    missing capability still has enough providers the agent has not seen fail.
//! 2. No plan can be completed: the LLM reasons about the dead end (reason `no_path`) with the
//!    domain's decision table, the same one SHR's escalations are answered from (its
//!    `completed_stage` read as a capability the agent has done): demote to another goal, or stop.
//! 3. Every step of the plan is done: finish, claiming the goal.
//! 4. A policy of the task applies before the next capability (`context[key] > max`): the LLM
//!    reasons about it (reason `risk`) with the same table.
//! 5. Otherwise call the first provider of the next capability in catalogue order that it has not
//!    seen fail and has not used for that capability. After a failure this is the alternative with
//!    the same capability: the failure is diagnosed in the next step's Thought.
//!
//! Cost model: one LLM call per step, i.e. per tool call plus the final answer. Reasoning about a
//! failure, a policy or a dead end happens in the Thought of the step that acts on it, as in a
//! ReAct loop where every iteration is one completion. Recoveries without the LLM are zero: every
//! recovery is reasoned.
//!
//! The error model ([`ReactConfig::error_rate`], seeded): with probability p a step errs, in one
//! of the ways that apply to it, drawn uniformly: it calls a tool that lacks the capability it
//! needs and takes the step as done ([`PolicyError::WrongTool`]); it declares the goal met while
//! steps remain ([`PolicyError::EarlyDone`]); right after a failure it forgets that the step
//! failed and takes it as done ([`PolicyError::ForgetFailure`]).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{EscalationRecord, Executor, MockLlm, MockTools, RunReport, Scenario};
use shr_core::graph::NodeIx;
use shr_core::rng::SplitMix64;
use shr_core::{
    audit_completion, Context, Decision, EscalationReason, EscalationRequest, Status, ToolResult,
};

mod memory;
mod spec;

use memory::Memory;

pub use spec::{CatalogueEntry, GoalSpec, Need, PolicyRule, ReactSpec};

/// How the mock LLM picks among the providers of a capability.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Catalogue order: the documented policy of every table.
    #[default]
    Catalogue,
    /// Reverse catalogue order: another policy, to show the counts are the agent's own.
    Reversed,
}

/// The agent's settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReactConfig {
    /// Probability that a step errs (0 in every table but the error-rate curve).
    pub error_rate: f64,
    /// Seed of the error draws (mixed with the scenario id).
    pub seed: u64,
    pub order: Order,
}

/// An injected mistake of the LLM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyError {
    /// Called a tool that lacks the capability needed, and took the step as done.
    WrongTool,
    /// Declared the goal met with steps still missing.
    EarlyDone,
    /// Forgot that the last step failed, and took it as done.
    ForgetFailure,
}

/// A step's Action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ReactAction {
    Call {
        tool: String,
        capability: String,
    },
    Finish {
        goal: String,
        status: Status,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
}

/// One Thought / Action / Observation record: one LLM call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReactStep {
    /// The LLM call this step is, counted from 1.
    pub llm_call: u32,
    pub thought: String,
    pub action: ReactAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<PolicyError>,
}

/// A ReAct run: the judged report and the agent's trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReactRun {
    pub report: RunReport,
    pub steps: Vec<ReactStep>,
}

enum Choice {
    Call { tool: String, capability: String },
    Finish { goal: String, status: Status, message: Option<String> },
}

struct Reasoned {
    thought: Vec<String>,
    choice: Choice,
    consulted: Vec<EscalationRecord>,
}

/// The mock LLM's rule (module docs, steps 1-5).
struct Policy<'a> {
    spec: &'a ReactSpec,
    llm: &'a MockLlm,
    context: &'a Context,
    order: Order,
}

impl Policy<'_> {
    fn providers(&self, capability: &str) -> Vec<&str> {
        let mut p: Vec<&str> =
            self.spec.tools.iter().filter(|t| t.capability == capability).map(|t| t.tool.as_str()).collect();
        if self.order == Order::Reversed {
            p.reverse();
        }
        p
    }

    /// Providers not seen failing and not yet used for this capability.
    fn available(&self, mem: &Memory, capability: &str) -> Vec<String> {
        self.providers(capability)
            .into_iter()
            .filter(|t| !mem.failed.iter().any(|f| f == t))
            .filter(|t| !mem.done.iter().any(|(c, d)| c == capability && d == t))
            .map(String::from)
            .collect()
    }

    fn can_complete(&self, mem: &Memory, plan: &[Need]) -> bool {
        plan.iter()
            .all(|n| mem.count(&n.capability) + self.available(mem, &n.capability).len() as u32 >= n.count)
    }

    fn status_of(&self, goal: &str) -> Status {
        if goal == self.spec.goal {
            Status::Completed
        } else {
            Status::Demoted
        }
    }

    fn ask(&self, reason: EscalationReason, mem: &Memory, consulted: &mut Vec<EscalationRecord>) -> Decision {
        let decision = self.llm.decide_with(reason, &mem.goal, &|stage: &str| mem.capability_done(stage));
        let request = EscalationRequest {
            reason,
            goal: mem.goal.clone(),
            failed: mem.failed.clone(),
            completed: mem.done.iter().map(|(_, t)| t.clone()).collect(),
            agent_action: None,
            signal: None,
            call_id: None,
        };
        consulted.push(EscalationRecord { request, decision: decision.clone() });
        decision
    }

    /// Follows a decision: `None` to go on reasoning (a new goal, or an approval), or the finish
    /// it leads to.
    fn follow(&self, decision: Decision, mem: &mut Memory, thought: &mut Vec<String>) -> Option<Choice> {
        match decision {
            Decision::Demote { goal } if !mem.pursued.contains(&goal) => {
                thought.push(format!("I settle for `{goal}` instead of `{}`.", mem.goal));
                mem.pursued.push(goal.clone());
                mem.goal = goal;
                None
            }
            Decision::Demote { goal } => {
                let message = format!("`{goal}` was already out of reach");
                thought.push(format!("`{goal}` was already out of reach: I stop."));
                Some(Choice::Finish {
                    goal: mem.goal.clone(),
                    status: Status::Escalated,
                    message: Some(message),
                })
            }
            Decision::Approve => {
                thought.push("It is acceptable here: I go on.".to_string());
                None
            }
            Decision::Abort { message } => {
                thought.push(format!("I stop: {message}."));
                Some(Choice::Finish {
                    goal: mem.goal.clone(),
                    status: Status::Escalated,
                    message: Some(message),
                })
            }
            Decision::HandOff { to } => {
                thought.push(format!("I hand the task to {to}."));
                let message = Some(format!("handed off to {to}"));
                Some(Choice::Finish { goal: mem.goal.clone(), status: Status::Escalated, message })
            }
        }
    }

    fn next(&self, mem: &mut Memory) -> Reasoned {
        let mut thought = Vec::new();
        let mut consulted = Vec::new();
        if let Some((tool, capability)) = &mem.last_failure {
            thought.push(format!("`{tool}` failed, so `{capability}` is not done."));
        }
        // Each pass either finishes, acts, or moves to a goal or a policy not seen before.
        for _ in 0..=self.spec.goals.len() + self.spec.policies.len() {
            let Some(goal) = self.spec.goal_spec(&mem.goal) else {
                let message = format!("no plan for `{}`", mem.goal);
                let choice = Choice::Finish {
                    goal: mem.goal.clone(),
                    status: Status::Escalated,
                    message: Some(message),
                };
                return Reasoned { thought, choice, consulted };
            };
            let Some((k, plan)) = goal.plans.iter().enumerate().find(|(_, p)| self.can_complete(mem, p))
            else {
                thought.push(format!("No tool I have not seen fail can complete `{}`.", mem.goal));
                let decision = self.ask(EscalationReason::NoPath, mem, &mut consulted);
                match self.follow(decision, mem, &mut thought) {
                    None => continue,
                    Some(choice) => return Reasoned { thought, choice, consulted },
                }
            };
            if k > 0 {
                thought.push(format!(
                    "`{}` can no longer be reached as first planned: I follow plan {}.",
                    mem.goal,
                    k + 1
                ));
            }
            let Some(need) = plan.iter().find(|n| mem.count(&n.capability) < n.count) else {
                thought.push(format!("Every step of `{}` is done.", mem.goal));
                let choice = Choice::Finish {
                    goal: mem.goal.clone(),
                    status: self.status_of(&mem.goal),
                    message: None,
                };
                return Reasoned { thought, choice, consulted };
            };
            let rule = self.spec.policies.iter().enumerate().find(|(i, r)| {
                r.before == need.capability
                    && !mem.reviewed.contains(i)
                    && self.context.get(&r.key).and_then(Value::as_f64).is_some_and(|v| v > r.max)
            });
            if let Some((i, r)) = rule {
                mem.reviewed.push(i);
                thought
                    .push(format!("Before `{}`: {} ({} is over {}).", need.capability, r.text, r.key, r.max));
                let decision = self.ask(EscalationReason::Risk, mem, &mut consulted);
                match self.follow(decision, mem, &mut thought) {
                    None => continue,
                    Some(choice) => return Reasoned { thought, choice, consulted },
                }
            }
            let available = self.available(mem, &need.capability);
            let Some(tool) = available.into_iter().next() else {
                // can_complete held, so a provider is left; kept total rather than assumed.
                continue;
            };
            thought.push(format!("`{}` needs `{}` next: `{tool}` provides it.", mem.goal, need.capability));
            let choice = Choice::Call { tool, capability: need.capability.clone() };
            return Reasoned { thought, choice, consulted };
        }
        let message = "could not settle on an action".to_string();
        let choice =
            Choice::Finish { goal: mem.goal.clone(), status: Status::Escalated, message: Some(message) };
        Reasoned { thought, choice, consulted }
    }

    /// The mistakes that can happen at a step whose right choice is `choice`.
    fn possible_errors(&self, choice: &Choice, mem: &Memory) -> Vec<PolicyError> {
        let Choice::Call { capability, .. } = choice else { return Vec::new() };
        let mut kinds = Vec::new();
        if self.spec.tools.iter().any(|t| &t.capability != capability) {
            kinds.push(PolicyError::WrongTool);
        }
        kinds.push(PolicyError::EarlyDone);
        if mem.last_failure.is_some() {
            kinds.push(PolicyError::ForgetFailure);
        }
        kinds
    }

    fn err(&self, kind: PolicyError, right: Reasoned, mem: &mut Memory, rng: &mut SplitMix64) -> Reasoned {
        let Reasoned { mut thought, choice, mut consulted } = right;
        match kind {
            PolicyError::WrongTool => {
                let Choice::Call { capability, .. } = choice else {
                    return Reasoned { thought, choice, consulted };
                };
                let others: Vec<&CatalogueEntry> =
                    self.spec.tools.iter().filter(|t| t.capability != capability).collect();
                let pick = others.get(rng.below(others.len() as u64) as usize).map(|t| t.tool.clone());
                match pick {
                    Some(tool) => {
                        thought.push(format!("(I take `{tool}` for `{capability}`.)"));
                        Reasoned { thought, choice: Choice::Call { tool, capability }, consulted }
                    }
                    None => Reasoned {
                        thought,
                        choice: Choice::Call { tool: String::new(), capability },
                        consulted,
                    },
                }
            }
            PolicyError::EarlyDone => {
                thought.push(format!("(I take `{}` as reached.)", mem.goal));
                let choice = Choice::Finish {
                    goal: mem.goal.clone(),
                    status: self.status_of(&mem.goal),
                    message: None,
                };
                Reasoned { thought, choice, consulted }
            }
            PolicyError::ForgetFailure => {
                let Some((tool, capability)) = mem.last_failure.take() else {
                    return Reasoned { thought, choice, consulted };
                };
                mem.failed.retain(|f| f != &tool);
                mem.done.push((capability.clone(), tool.clone()));
                let mut again = self.next(mem);
                let mut t = alloc::vec![format!("(I take `{capability}` as done by `{tool}`.)")];
                t.append(&mut again.thought);
                consulted.append(&mut again.consulted);
                thought = t;
                Reasoned { thought, choice: again.choice, consulted }
            }
        }
    }
}

/// Steps before the agent gives up, like an agent framework's iteration limit: far more than a
/// run without mistakes needs (one per tool, plus the answer).
fn step_limit(spec: &ReactSpec) -> usize {
    4 * spec.tools.len() + 4
}

/// FNV-1a, so each scenario draws its own errors whatever order the scenarios run in.
fn mix(seed: u64, id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325_u64 ^ seed, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Runs the agent on the scenario's mock tools. The report is not judged yet.
pub(super) fn execute(scenario: &Scenario, cfg: &ReactConfig) -> ReactRun {
    let Some(spec) = &scenario.react else {
        let why = "no tool catalogue for a ReAct agent (the graph declares no stages)".to_string();
        return ReactRun { report: RunReport::failed(scenario, Executor::React, why), steps: Vec::new() };
    };
    let graph = &scenario.graph;
    let mut world = MockTools::new(graph, scenario);
    let policy = Policy { spec, llm: &scenario.llm, context: &scenario.task.context, order: cfg.order };
    let mut mem =
        Memory { goal: spec.goal.clone(), pursued: alloc::vec![spec.goal.clone()], ..Memory::default() };
    let mut rng = SplitMix64::new(mix(cfg.seed, &scenario.id));
    let fan_out = scenario.workflow.fan_out_tools();
    let mut steps: Vec<ReactStep> = Vec::new();
    let mut succeeded: Vec<NodeIx> = Vec::new();
    let (mut tool_calls, mut lost) = (0u32, 0u32);
    // Counted where the mock LLM is asked for a step, not from the trace: the report's LLM
    // calls, which the page checks against the steps it replays.
    let mut llm_asked = 0u32;
    let mut escalations = Vec::new();
    let (status, goal) = loop {
        let llm_call = steps.len() as u32 + 1;
        if steps.len() >= step_limit(spec) {
            break (Status::Escalated, mem.goal.clone());
        }
        let draw = rng.unit();
        llm_asked += 1;
        let mut step = policy.next(&mut mem);
        let mut error = None;
        if draw < cfg.error_rate {
            let kinds = policy.possible_errors(&step.choice, &mem);
            if let Some(&kind) = kinds.get(rng.below(kinds.len() as u64) as usize) {
                error = Some(kind);
                step = policy.err(kind, step, &mut mem, &mut rng);
            }
        }
        escalations.append(&mut step.consulted);
        let thought = step.thought.join(" ");
        match step.choice {
            Choice::Call { tool, capability } => {
                tool_calls += 1;
                let node = graph.index(&tool).filter(|&v| graph.node(v).tool);
                let result = match node {
                    Some(v) => world.call(graph, v),
                    None => ToolResult::outage(format!("no tool `{tool}`")),
                };
                let observation = match result.into_known() {
                    ToolResult::Ok { output, .. } => {
                        succeeded.extend(node);
                        mem.done.push((capability.clone(), tool.clone()));
                        mem.last_failure = None;
                        format!("`{tool}` returned {output}")
                    }
                    ToolResult::Err(f) => {
                        if fan_out.contains(&tool.as_str()) {
                            lost += 1;
                        }
                        mem.failed.push(tool.clone());
                        mem.last_failure = Some((tool.clone(), capability.clone()));
                        format!("`{tool}` failed: {}", f.message)
                    }
                    ToolResult::Unknown { message, .. } => format!("`{tool}`: {message}"),
                };
                let action = ReactAction::Call { tool, capability };
                steps.push(ReactStep { llm_call, thought, action, observation: Some(observation), error });
            }
            Choice::Finish { goal, status, message } => {
                let action = ReactAction::Finish { goal: goal.clone(), status, message };
                steps.push(ReactStep { llm_call, thought, action, observation: None, error });
                break (status, goal);
            }
        }
    };
    let start = graph.start();
    let mut completed: Vec<NodeIx> = core::iter::once(start).chain(succeeded).collect();
    let goal_ix = graph.index(&goal);
    if status != Status::Escalated {
        completed.extend(goal_ix);
    }
    // A claimed goal with no valid derivation from what actually succeeded: success claimed with
    // a required step missing.
    let silent = status != Status::Escalated
        && goal_ix.is_none_or(|g| audit_completion(graph, start, &completed, g).is_err());
    let report = RunReport {
        scenario: scenario.id.clone(),
        executor: Executor::React,
        status,
        goal,
        path: completed.iter().map(|&v| graph.id(v).to_string()).collect(),
        llm_calls: llm_asked,
        tool_calls,
        recoveries: 0,
        classifiers_lost: lost,
        silent_failure: silent,
        correct: false,
        problems: Vec::new(),
        escalations,
        events: Vec::new(),
        edges: Vec::new(),
    };
    ReactRun { report, steps }
}
