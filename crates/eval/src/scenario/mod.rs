//! The paper's 19 scenarios (seed 000, section 3, [`PAPER_SCENARIOS`]) as data, and the three executors that run
//! them on the same mock tools: SHR (the [`shr_core::Session`]), a ReAct agent, and a static
//! workflow with single-failure fallback edges.
//!
//! Scenario files live in `crates/eval/scenarios/`: one file per domain (graph, static workflow,
//! the mock LLM's decision table, the ReAct agent's tool catalogue) and one per scenario (context,
//! injected failures, expected outcome, the paper's figures). `scenarios/literal/` holds the
//! paper's literal readings of T5, T6 and the moderation topology, as variants of the 19. Every
//! count a [`RunReport`] holds is produced by running.

pub mod erring;
mod pack;
pub mod react;
mod sim;
pub mod story;
mod workflow;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use shr_core::event::Event;
use shr_core::graph::{GraphSpec, ToolGraph};
use shr_core::{Decision, EscalationReason, EscalationRequest, Status, Task};

pub use pack::{
    domain_file, domains, get, literal_readings, pack, DomainFile, Pack, Reading, DOMAINS,
    LITERAL_DOMAIN_FILES, LITERAL_FILE, PAPER_SCENARIOS, SCENARIO_FILES,
};
pub use react::{ReactConfig, ReactRun, ReactSpec, ReactStep};
pub use sim::{MockLlm, MockTools, ScenarioHost};
pub use workflow::{Workflow, WorkflowMove};

/// A scenario or domain file could not be used. Names the file and the field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioError {
    pub file: String,
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: field `{}`: {}", self.file, self.field, self.message)
    }
}

impl core::error::Error for ScenarioError {}

fn err(file: &str, field: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError { file: file.to_string(), field: field.to_string(), message: message.into() }
}

/// A tool that fails: from the start, or once the run has made `after_calls` tool calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureSpec {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_calls: Option<u32>,
}

/// An escalation the scenario expects, with the goal the LLM demotes to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedEscalation {
    pub reason: EscalationReason,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demoted_to: Option<String>,
}

/// What a correct run ends with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    pub status: Status,
    pub goal: String,
    /// Completed nodes in order (SHR's run; baselines are judged on goal and status).
    pub path: Vec<String>,
    #[serde(default)]
    pub escalations: Vec<ExpectedEscalation>,
}

/// The paper's figures for a scenario (Tables 1-3), printed beside the measured ones.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperFigures {
    pub shr_llm: Option<u32>,
    pub react_llm: Option<u32>,
    pub static_llm: Option<u32>,
    pub shr_tools: Option<u32>,
    pub react_tools: Option<u32>,
    pub shr_recoveries: Option<u32>,
    pub static_silent: Option<bool>,
    pub static_classifiers_lost: Option<u32>,
}

/// One rule of the deterministic mock LLM: how it answers an escalation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmRule {
    pub reason: EscalationReason,
    pub goal: String,
    /// Applies only when a node of this stage has completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_stage: Option<String>,
    pub decision: Decision,
}

/// A domain: its graph, the static workflow a careful team would code for it, the mock LLM's
/// decision table, and what a ReAct agent is told about its tools.
#[derive(Clone, Debug)]
pub struct Domain {
    pub name: String,
    pub graph: ToolGraph,
    pub workflow: Workflow,
    pub llm: MockLlm,
    /// The file's `react` section; without one, what the graph's stages imply
    /// ([`ReactSpec::from_graph`]), if anything.
    pub react: Option<ReactSpec>,
}

fn field<T: DeserializeOwned>(
    file: &str,
    obj: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<T, ScenarioError> {
    let v = obj.get(name).cloned().ok_or_else(|| err(file, name, "missing"))?;
    serde_json::from_value(v).map_err(|e| err(file, name, e.to_string()))
}

fn object(file: &str, text: &str) -> Result<serde_json::Map<String, Value>, ScenarioError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(err(file, "(root)", "expected a JSON object")),
        Err(e) => Err(err(file, "(json)", format!("line {} column {}: {e}", e.line(), e.column()))),
    }
}

impl Domain {
    /// Parses a domain file.
    pub fn from_json(name: &str, file: &str, text: &str) -> Result<Domain, ScenarioError> {
        let obj = object(file, text)?;
        if let Some(k) =
            obj.keys().find(|k| !["graph", "workflow", "mock_llm", "react"].contains(&k.as_str()))
        {
            return Err(err(file, k, "unknown field"));
        }
        let spec: GraphSpec = field(file, &obj, "graph")?;
        let graph = ToolGraph::from_spec(spec).map_err(|e| err(file, "graph", e.to_string()))?;
        let workflow: Workflow = field(file, &obj, "workflow")?;
        workflow.check(&graph, file)?;
        let rules: Vec<LlmRule> = field(file, &obj, "mock_llm")?;
        for (i, r) in rules.iter().enumerate() {
            let at = format!("mock_llm[{i}]");
            if graph.index(&r.goal).is_none() {
                return Err(err(file, &format!("{at}.goal"), format!("unknown node `{}`", r.goal)));
            }
            if let Decision::Demote { goal } = &r.decision {
                if graph.index(goal).is_none() {
                    return Err(err(file, &format!("{at}.decision.goal"), format!("unknown node `{goal}`")));
                }
            }
        }
        let react = match obj.get("react") {
            Some(_) => {
                let spec: ReactSpec = field(file, &obj, "react")?;
                spec.check(&graph, &rules, file)?;
                Some(spec)
            }
            None => ReactSpec::from_graph(&graph),
        };
        Ok(Domain { name: name.to_string(), graph, workflow, llm: MockLlm::new(rules), react })
    }
}

/// One scenario, with its domain resolved.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub id: String,
    pub domain: String,
    pub title: String,
    pub description: String,
    pub task: Task,
    pub failures: Vec<FailureSpec>,
    pub expected: Expected,
    pub paper: PaperFigures,
    pub graph: ToolGraph,
    pub workflow: Workflow,
    pub llm: MockLlm,
    /// What the ReAct agent is told (`None`: there is nothing to tell it, and it does not run).
    pub react: Option<ReactSpec>,
    /// The narrated steps the page tells along SHR's replay (empty: none written).
    pub story: Vec<story::StoryStep>,
    /// The paper's pack or one of our own ([`Pack::of`]).
    pub pack: Pack,
}

const SCENARIO_FIELDS: [&str; 9] =
    ["id", "domain", "title", "description", "context", "failures", "expected", "paper", "story"];

impl Scenario {
    /// Parses a scenario file against the known domains. Errors name the file and the field.
    pub fn from_json(file: &str, text: &str, domains: &[Domain]) -> Result<Scenario, ScenarioError> {
        let obj = object(file, text)?;
        if let Some(k) = obj.keys().find(|k| !SCENARIO_FIELDS.contains(&k.as_str())) {
            return Err(err(file, k, "unknown field"));
        }
        let id: String = field(file, &obj, "id")?;
        let domain_name: String = field(file, &obj, "domain")?;
        let domain = domains
            .iter()
            .find(|d| d.name == domain_name)
            .ok_or_else(|| err(file, "domain", format!("unknown domain `{domain_name}`")))?;
        let title: String = field(file, &obj, "title")?;
        let description: String = obj.get("description").and_then(Value::as_str).unwrap_or("").to_string();
        let context = field(file, &obj, "context")?;
        let failures: Vec<FailureSpec> = field(file, &obj, "failures")?;
        let expected: Expected = field(file, &obj, "expected")?;
        let paper: PaperFigures = match obj.get("paper") {
            Some(_) => field(file, &obj, "paper")?,
            None => PaperFigures::default(),
        };
        let g = &domain.graph;
        let known = |f: &str, id: &str| {
            if g.index(id).is_some() {
                Ok(())
            } else {
                Err(err(file, f, format!("unknown node `{id}`")))
            }
        };
        for (i, f) in failures.iter().enumerate() {
            known(&format!("failures[{i}].tool"), &f.tool)?;
        }
        known("expected.goal", &expected.goal)?;
        for (i, p) in expected.path.iter().enumerate() {
            known(&format!("expected.path[{i}]"), p)?;
        }
        for (i, e) in expected.escalations.iter().enumerate() {
            if let Some(d) = &e.demoted_to {
                known(&format!("expected.escalations[{i}].demoted_to"), d)?;
            }
        }
        let story: Vec<story::StoryStep> = match obj.get("story") {
            Some(_) => field(file, &obj, "story")?,
            None => Vec::new(),
        };
        if obj.contains_key("story") {
            story::check(&story, &domain.graph, file)?;
        }
        Ok(Scenario {
            pack: Pack::of(&id, &domain_name),
            id,
            domain: domain_name,
            title,
            description,
            task: Task { id: None, goal: None, start: None, context },
            failures,
            expected,
            paper,
            graph: domain.graph.clone(),
            workflow: domain.workflow.clone(),
            llm: domain.llm.clone(),
            react: domain.react.clone(),
            story,
        })
    }

    /// A scenario around any valid graph (an imported one): no injected failures, an LLM that
    /// answers every escalation by aborting, no static workflow, and as the expected outcome
    /// only "reach the goal" (the path is whatever the router finds).
    pub fn from_graph(graph: ToolGraph) -> Scenario {
        let goal = graph.id(graph.goal()).to_string();
        Scenario {
            id: "custom".to_string(),
            domain: "custom".to_string(),
            title: graph.name().unwrap_or("Imported graph").to_string(),
            description: String::new(),
            task: Task::default(),
            failures: Vec::new(),
            expected: Expected {
                status: Status::Completed,
                goal: goal.clone(),
                path: Vec::new(),
                escalations: Vec::new(),
            },
            paper: PaperFigures::default(),
            workflow: Workflow { goal, steps: Vec::new() },
            llm: MockLlm::default(),
            react: ReactSpec::from_graph(&graph),
            story: Vec::new(),
            pack: Pack::Extra,
            graph,
        }
    }

    /// This scenario with another set of failed tools (all down from the start).
    pub fn with_down(&self, down: &[String]) -> Scenario {
        let mut s = self.clone();
        s.failures = down.iter().map(|t| FailureSpec { tool: t.clone(), after_calls: None }).collect();
        s
    }
}

/// Which executor ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Executor {
    Shr,
    React,
    Static,
}

impl Executor {
    pub const ALL: [Executor; 3] = [Executor::Shr, Executor::React, Executor::Static];

    pub fn name(self) -> &'static str {
        match self {
            Executor::Shr => "Self-Healing Router",
            Executor::React => "ReAct",
            Executor::Static => "Static workflow",
        }
    }
}

/// An escalation and the mock LLM's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscalationRecord {
    pub request: EscalationRequest,
    pub decision: Decision,
}

/// What one executor did on one scenario. Every number is counted from the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    pub scenario: String,
    pub executor: Executor,
    pub status: Status,
    /// The goal the executor says it reached.
    pub goal: String,
    pub path: Vec<String>,
    pub llm_calls: u32,
    pub tool_calls: u32,
    /// Failures recovered without the LLM (graph reroutes, coded fallbacks).
    pub recoveries: u32,
    /// Tools of a fan-out stage lost to failures (for the moderation table).
    pub classifiers_lost: u32,
    /// Claimed success with a required step missing.
    pub silent_failure: bool,
    pub correct: bool,
    /// Why the run is not correct (empty when it is).
    pub problems: Vec<String>,
    pub escalations: Vec<EscalationRecord>,
    /// SHR's event stream (empty for the baselines).
    #[serde(skip)]
    pub events: Vec<Event>,
    /// The edges SHR's run traversed, in order, as the core recorded them (empty for the
    /// baselines): what the page draws as the path taken.
    #[serde(skip)]
    pub edges: Vec<(String, String)>,
}

/// A run's traversed edges as id pairs.
pub fn traversed_ids(graph: &ToolGraph, run: &shr_core::Run) -> Vec<(String, String)> {
    run.traversed()
        .iter()
        .map(|&e| {
            let edge = graph.edge(e);
            (graph.id(edge.from).to_string(), graph.id(edge.to).to_string())
        })
        .collect()
}

/// Runs a scenario with one executor.
pub fn run(scenario: &Scenario, executor: Executor) -> RunReport {
    let mut report = match executor {
        Executor::Shr => sim::run_shr(scenario),
        Executor::React => react::execute(scenario, &ReactConfig::default()).report,
        Executor::Static => workflow::run_static(scenario),
    };
    judge(scenario, &mut report);
    report
}

/// The ReAct agent's run with other settings (its error rate, its choice among providers), with
/// its Thought / Action / Observation trace; judged like [`run`].
pub fn run_react(scenario: &Scenario, cfg: &ReactConfig) -> ReactRun {
    let mut run = react::execute(scenario, cfg);
    judge(scenario, &mut run.report);
    run
}

/// The static workflow's run with its moves (calls, fallback edges, skipped steps, the report),
/// for a step-by-step replay; judged like [`run`].
pub fn run_static_traced(scenario: &Scenario) -> (RunReport, Vec<WorkflowMove>) {
    let (mut report, moves) = workflow::trace_static(scenario);
    judge(scenario, &mut report);
    (report, moves)
}

/// SHR's run of a scenario with some tools' breakers half-open at the start (probing).
pub fn run_probing(scenario: &Scenario, probing: &[String]) -> RunReport {
    let mut report = sim::run_shr_probing(scenario, probing);
    judge(scenario, &mut report);
    report
}

/// Runs a scenario with another set of failed tools (the page's clicked set).
pub fn run_with_down(scenario: &Scenario, down: &[String], executor: Executor) -> RunReport {
    run(&scenario.with_down(down), executor)
}

/// Checks a report against the scenario's expected outcome.
fn judge(scenario: &Scenario, report: &mut RunReport) {
    let want = &scenario.expected;
    // A run that could not start says why first.
    let mut problems = core::mem::take(&mut report.problems);
    if report.silent_failure {
        problems.push("claimed success with a required step missing".to_string());
    }
    if report.status != want.status {
        problems.push(format!("status {:?}, expected {:?}", report.status, want.status));
    }
    if report.goal != want.goal {
        problems.push(format!("goal `{}`, expected `{}`", report.goal, want.goal));
    }
    if report.executor == Executor::Shr {
        // An empty expected path (an imported graph, a reading with equally cheap routes) leaves
        // the route to the router.
        if !want.path.is_empty() && report.path != want.path {
            problems.push(format!("path {:?}, expected {:?}", report.path, want.path));
        }
        let got: Vec<ExpectedEscalation> = report
            .escalations
            .iter()
            .map(|r| ExpectedEscalation {
                reason: r.request.reason,
                demoted_to: match &r.decision {
                    Decision::Demote { goal } => Some(goal.clone()),
                    _ => None,
                },
            })
            .collect();
        if got != want.escalations {
            problems.push(format!("escalations {got:?}, expected {:?}", want.escalations));
        }
        if let Err(b) = shr_core::check_observability(&report.events) {
            problems.push(format!(
                "ToolFailed of `{}` (event {}) has no reroute, retry or escalation",
                b.tool, b.seq
            ));
        }
    }
    report.correct = problems.is_empty();
    report.problems = problems;
}
