//! What the ReAct agent's prompt holds, as the domain files write it: the tool catalogue (name,
//! description, capability; no costs, no graph), the plans of each goal, and the task's business
//! policies. Checked against the graph when a scenario loads.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::super::{err, LlmRule, ScenarioError};
use shr_core::graph::ToolGraph;

/// One tool as the agent's prompt lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueEntry {
    pub tool: String,
    pub description: String,
    pub capability: String,
}

/// A capability a plan needs, from `count` distinct tools.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "NeedSpec", into = "NeedSpec")]
pub struct Need {
    pub capability: String,
    pub count: u32,
}

/// `"payment"`, or `{"capability": "classify", "count": 3}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
enum NeedSpec {
    One(String),
    Counted { capability: String, count: u32 },
}

impl From<NeedSpec> for Need {
    fn from(s: NeedSpec) -> Need {
        match s {
            NeedSpec::One(capability) => Need { capability, count: 1 },
            NeedSpec::Counted { capability, count } => Need { capability, count },
        }
    }
}

impl From<Need> for NeedSpec {
    fn from(n: Need) -> NeedSpec {
        if n.count == 1 {
            NeedSpec::One(n.capability)
        } else {
            NeedSpec::Counted { capability: n.capability, count: n.count }
        }
    }
}

/// A goal the agent may pursue, and the plans that reach it, preferred first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoalSpec {
    pub goal: String,
    #[serde(default)]
    pub description: String,
    pub plans: Vec<Vec<Need>>,
}

/// A business rule of the task's prompt: before using `before`, `context[key] > max` needs the
/// LLM's judgement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyRule {
    pub key: String,
    pub max: f64,
    pub before: String,
    #[serde(default)]
    pub text: String,
}

/// What the ReAct agent is told: the domain file's `react` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReactSpec {
    pub task: String,
    /// The goal of the task as given (its id names a node of the domain, for judging).
    pub goal: String,
    pub tools: Vec<CatalogueEntry>,
    pub goals: Vec<GoalSpec>,
    #[serde(default)]
    pub policies: Vec<PolicyRule>,
}

impl ReactSpec {
    /// Checks the catalogue against the domain: every tool a tool of the domain, named once;
    /// every goal a node; every capability a plan or a policy names provided by some tool; every
    /// `completed_stage` of the decision table a capability (it is read as one).
    pub fn check(&self, graph: &ToolGraph, rules: &[LlmRule], file: &str) -> Result<(), ScenarioError> {
        let at = |f: String| format!("react.{f}");
        for (i, t) in self.tools.iter().enumerate() {
            match graph.index(&t.tool) {
                Some(v) if graph.node(v).tool => {}
                Some(_) => return Err(err(file, &at(format!("tools[{i}].tool")), "a waypoint, not a tool")),
                None => {
                    return Err(err(
                        file,
                        &at(format!("tools[{i}].tool")),
                        format!("unknown tool `{}`", t.tool),
                    ))
                }
            }
            if self.tools[..i].iter().any(|o| o.tool == t.tool) {
                return Err(err(file, &at(format!("tools[{i}].tool")), format!("`{}` listed twice", t.tool)));
            }
        }
        let provided = |c: &str| self.tools.iter().any(|t| t.capability == c);
        if !self.goals.iter().any(|g| g.goal == self.goal) {
            return Err(err(file, &at("goal".into()), format!("`{}` has no entry in `goals`", self.goal)));
        }
        for (i, g) in self.goals.iter().enumerate() {
            if graph.index(&g.goal).is_none() {
                return Err(err(file, &at(format!("goals[{i}].goal")), format!("unknown node `{}`", g.goal)));
            }
            for (j, plan) in g.plans.iter().enumerate() {
                for (k, need) in plan.iter().enumerate() {
                    let f = at(format!("goals[{i}].plans[{j}][{k}]"));
                    if !provided(&need.capability) {
                        return Err(err(file, &f, format!("no tool provides `{}`", need.capability)));
                    }
                    if need.count == 0 {
                        return Err(err(file, &f, "count must be at least 1"));
                    }
                }
            }
        }
        for (i, p) in self.policies.iter().enumerate() {
            if !provided(&p.before) {
                let f = at(format!("policies[{i}].before"));
                return Err(err(file, &f, format!("no tool provides `{}`", p.before)));
            }
        }
        for (i, r) in rules.iter().enumerate() {
            if let Some(stage) = &r.completed_stage {
                if !provided(stage) {
                    let f = format!("mock_llm[{i}].completed_stage");
                    return Err(err(file, &f, format!("`{stage}` is no capability of the react catalogue")));
                }
            }
        }
        Ok(())
    }

    /// The catalogue a graph without one implies, when it declares its `stages`: every tool
    /// provides its stage (or, without one, a capability named after it), described by its label,
    /// and the task is the graph's goal through the declared stages in order. `None` without
    /// stages: there is no task to tell the agent.
    pub fn from_graph(graph: &ToolGraph) -> Option<ReactSpec> {
        if graph.stages().is_empty() {
            return None;
        }
        let tools = (0..graph.node_count())
            .filter(|&v| graph.node(v).tool)
            .map(|v| {
                let n = graph.node(v);
                CatalogueEntry {
                    tool: n.id().into(),
                    description: n.label().into(),
                    capability: n.stage().unwrap_or(n.id()).into(),
                }
            })
            .collect();
        let goal = graph.id(graph.goal()).to_string();
        let plan = graph.stages().iter().map(|s| Need { capability: s.clone(), count: 1 }).collect();
        Some(ReactSpec {
            task: graph.name().unwrap_or("Reach the goal.").to_string(),
            goal: goal.clone(),
            tools,
            goals: alloc::vec![GoalSpec { goal, description: String::new(), plans: alloc::vec![plan] }],
            policies: Vec::new(),
        })
    }

    pub(super) fn goal_spec(&self, goal: &str) -> Option<&GoalSpec> {
        self.goals.iter().find(|g| g.goal == goal)
    }
}
