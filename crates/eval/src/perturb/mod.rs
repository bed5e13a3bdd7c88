//! Deterministic fault injection after ToolMaze (seed 002): generated DAG tasks at complexity
//! C1-C4 with substitutable tool groups, one victim tool per task perturbed in one of four
//! modes, and the metrics TSR, PRR and RC.
//!
//! - P1 explicit-transient: calls fail with an error while the fault lasts ([`transient`]: k
//!   calls or t ms, drawn per task), then succeed.
//! - P2 explicit-permanent: every call raises a permanent error.
//! - P3 implicit-transient: calls return a well-formed but wrong result while the fault lasts.
//! - P4 implicit-permanent: every call returns a well-formed but wrong result.
//!
//! Wrong results come from the injector's families ([`corrupt`]), written without the
//! validators; the validators come from each tool's output contract ([`contract`], one data
//! file per kind of tool), assigned per stage by the task templates ([`template`], a data file).
//! Three arms read the outputs: the contracts' validators, none (the ablation), and a mock LLM
//! judge asked about every output ([`judge`]).

pub mod contract;
pub mod corrupt;
mod host;
pub mod judge;
mod metrics;
pub mod react;
pub mod template;
pub mod transient;
pub mod world;

pub use corrupt::Family;
use host::PerturbHost;
pub use host::PerturbedTools;
pub use metrics::{
    detection, matrix, policies, tasks, Detection, DetectionTable, Matrix, Metrics, PolicyRow, Row,
};
pub use transient::{Duration, Policy};

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::json;

use self::judge::Judge;
use self::world::{Record, EPOCH_MS};

use shr_core::graph::ToolGraph;
use shr_core::rng::SplitMix64;
use shr_core::Millis;
use shr_core::{Session, Status, Task};

/// Perturbation mode. `None` is the unperturbed baseline (NP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mode {
    NP,
    P1,
    P2,
    P3,
    P4,
}

impl Mode {
    pub const ALL: [Mode; 5] = [Mode::NP, Mode::P1, Mode::P2, Mode::P3, Mode::P4];

    pub fn permanent(self) -> bool {
        matches!(self, Mode::P2 | Mode::P4)
    }

    pub fn implicit(self) -> bool {
        matches!(self, Mode::P3 | Mode::P4)
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::NP => "NP",
            Mode::P1 => "P1",
            Mode::P2 => "P2",
            Mode::P3 => "P3",
            Mode::P4 => "P4",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Mode::NP => "no perturbation",
            Mode::P1 => "explicit-transient",
            Mode::P2 => "explicit-permanent",
            Mode::P3 => "implicit-transient",
            Mode::P4 => "implicit-permanent",
        }
    }
}

/// Task complexity: the DAG template (`tasks/perturb.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Complexity {
    /// One chain of three stages.
    C1,
    /// One chain of four stages ending in a single action.
    C2,
    /// Two parallel branches of two stages, joined.
    C3,
    /// Three parallel branches of three stages, joined.
    C4,
}

impl Complexity {
    pub const ALL: [Complexity; 4] = [Complexity::C1, Complexity::C2, Complexity::C3, Complexity::C4];
}

/// A fault profile: which tool, which mode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultProfile {
    pub target: String,
    pub mode: Mode,
}

/// A generated task.
#[derive(Clone, Debug)]
pub struct GeneratedTask {
    pub id: String,
    pub complexity: Complexity,
    /// The graph as a description (validators included), so the ablation can strip them.
    pub spec: shr_core::graph::GraphSpec,
    /// The victim: a tool on the unperturbed plan.
    pub victim: String,
    /// Whether the victim's stage has a substitute.
    pub has_alternative: bool,
    /// Tool calls of the unperturbed optimal plan.
    pub optimal_calls: u32,
    /// The record the task acts on (its context, and what clean tools answer).
    pub record: Record,
    /// Each tool's contract (tool id -> contract name): its validators and its answers' shape.
    pub contracts: BTreeMap<String, String>,
    /// How long a transient fault on the victim holds.
    pub duration: Duration,
    /// The task's own seed (the generation seed mixed with its complexity); corruptions, fault
    /// durations and the judge draw from it.
    pub seed: u64,
}

/// Generates a task. Same complexity and seed, same task.
pub fn generate(complexity: Complexity, seed: u64) -> GeneratedTask {
    let task_seed = seed ^ (complexity as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut rng = SplitMix64::new(task_seed);
    // The templates are part of the crate and a test reads each: a missing one is a build
    // mistake, answered with a one-stage task rather than a panic in library code.
    let template = template::of(complexity).unwrap_or_else(|| template::Template {
        max_group: 1,
        single_action: false,
        branches: alloc::vec![alloc::vec![String::from(contract::NAMES[0])]],
    });
    let branches = template.branches.len();
    let mut nodes = alloc::vec![json!({ "id": "start", "tool": false })];
    let mut edges = Vec::new();
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut contracts = BTreeMap::new();
    for (b, stages) in template.branches.iter().enumerate() {
        let mut prev: Vec<String> = alloc::vec!["start".into()];
        for (s, kind) in stages.iter().enumerate() {
            let single_action = template.single_action && s + 1 == stages.len();
            let size = if single_action { 1 } else { 1 + rng.below(template.max_group) as usize };
            let group: Vec<String> = (0..size).map(|k| format!("b{b}s{s}t{k}")).collect();
            for (k, id) in group.iter().enumerate() {
                nodes.push(json!({
                    "id": id,
                    "stage": format!("b{b}s{s}"),
                    "description": format!("answers by the {kind} contract"),
                    "validators": contract::validators(kind),
                }));
                contracts.insert(id.clone(), kind.clone());
                for p in &prev {
                    edges.push(json!({ "from": p, "to": id, "cost": 1 + k }));
                }
            }
            groups.push(group.clone());
            prev = group;
        }
        let done = format!("b{b}_done");
        nodes.push(json!({ "id": done, "tool": false }));
        for p in &prev {
            edges.push(json!({ "from": p, "to": done, "cost": 1 }));
        }
        edges.push(json!({ "from": done, "to": "goal", "cost": 1 }));
    }
    let mut goal = json!({ "id": "goal", "tool": false });
    if branches > 1 {
        goal["join"] = json!({ "quorum": branches });
    }
    nodes.push(goal);
    let spec_json = json!({ "nodes": nodes, "edges": edges, "start": "start", "goal": "goal" });
    let spec: shr_core::graph::GraphSpec = serde_json::from_value(spec_json).unwrap_or_default();
    // The primary of every stage is on the optimal plan; pick one stage's as the victim.
    let victim_group = &groups[rng.below(groups.len() as u64) as usize];
    GeneratedTask {
        id: format!("{complexity:?}-{seed}"),
        complexity,
        victim: victim_group[0].clone(),
        has_alternative: victim_group.len() > 1,
        optimal_calls: groups.len() as u32,
        spec,
        record: Record::draw(task_seed),
        contracts,
        duration: Duration::draw(task_seed),
        seed: task_seed,
    }
}

impl GeneratedTask {
    /// The contract tool `id` answers by (empty for a node that is not a tool).
    pub fn contract_of(&self, id: &str) -> &str {
        self.contracts.get(id).map_or("", String::as_str)
    }

    /// The clean answer of tool `id` at `now`.
    pub fn answer(&self, graph: &ToolGraph, id: &str, now: Millis) -> serde_json::Value {
        self.record.answer(self.contract_of(id), graph.index(id).unwrap_or(0), now)
    }
}

/// Who reads the tools' outputs before the run goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arm {
    /// The validators of the tools' output contract (deterministic, free).
    Validators,
    /// Nobody: the ablation.
    NoValidators,
    /// A mock LLM judge, one LLM call per output, with stated miss and false-alarm rates.
    LlmJudge,
    /// No router: a ReAct agent with a loop of its own ([`react`]).
    React,
}

impl Arm {
    pub const ALL: [Arm; 4] = [Arm::Validators, Arm::NoValidators, Arm::LlmJudge, Arm::React];

    pub fn describe(self) -> &'static str {
        match self {
            Arm::Validators => "SHR with contract validators",
            Arm::NoValidators => "SHR without validators (ablation)",
            Arm::LlmJudge => "SHR with an LLM judge instead of validators",
            Arm::React => "ReAct agent (its own loop, no router)",
        }
    }
}

/// How a perturbed run is set up besides its fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    pub arm: Arm,
    /// The retry policy every tool of the task declares.
    pub policy: Policy,
    /// The wrong results of implicit modes (P3, P4).
    pub family: Family,
}

impl Default for Setup {
    fn default() -> Self {
        Setup { arm: Arm::Validators, policy: Policy::OneRetry, family: Family::WrongSign }
    }
}

/// One run's flags, as seed 002 records them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFlags {
    pub success: bool,
    pub perturbed: bool,
    pub recovered: bool,
    pub escalated: bool,
    pub tool_calls: u32,
    /// Tool calls of the unperturbed optimal plan (seed 002's s*).
    pub optimal_calls: u32,
    /// The router's LLM calls plus the judge's (the ReAct agent: one per step).
    pub llm_calls: u32,
    /// From the first call to the end of the run, on the simulated clock.
    pub elapsed_ms: Millis,
}

/// Runs a generated task under a fault with SHR. `validators` = false is the ablation.
pub fn run_task(task: &GeneratedTask, mode: Mode, validators: bool) -> RunFlags {
    run_fault(task, &FaultProfile { target: task.victim.clone(), mode }, validators).flags
}

/// A perturbed run with everything the session recorded, for replay.
#[derive(Clone, Debug)]
pub struct PerturbedRun {
    pub flags: RunFlags,
    pub outcome: Option<shr_core::Outcome>,
    pub events: Vec<shr_core::event::Event>,
    pub escalations: Vec<crate::scenario::EscalationRecord>,
    /// The edges the run traversed, in order.
    pub edges: Vec<(String, String)>,
}

/// Runs a generated task with any tool as the fault's target (the visualizer lets a person
/// choose it), with the default setup: validators or none, one retry, wrong signs.
pub fn run_fault(task: &GeneratedTask, fault: &FaultProfile, validators: bool) -> PerturbedRun {
    let arm = if validators { Arm::Validators } else { Arm::NoValidators };
    run_with(task, fault, &Setup { arm, ..Setup::default() })
}

/// Runs a generated task under a fault and a setup. Whether a clean path remains is judged for
/// the fault's target: its stage has another tool.
pub fn run_with(task: &GeneratedTask, fault: &FaultProfile, setup: &Setup) -> PerturbedRun {
    if setup.arm == Arm::React {
        let flags = react::run(task, fault, setup).flags;
        return PerturbedRun {
            flags,
            outcome: None,
            events: Vec::new(),
            escalations: Vec::new(),
            edges: Vec::new(),
        };
    }
    let failed = |flags| PerturbedRun {
        flags,
        outcome: None,
        events: Vec::new(),
        escalations: Vec::new(),
        edges: Vec::new(),
    };
    let mode = fault.mode;
    let mut spec = task.spec.clone();
    for n in spec.nodes.iter_mut().filter(|n| n.tool) {
        n.retry = Some(setup.policy.retry());
        if setup.arm != Arm::Validators {
            n.validators.clear();
        }
    }
    let Ok(graph) = ToolGraph::from_spec(spec) else {
        return failed(run_flags_failed(task));
    };
    let has_alternative = graph.index(&fault.target).is_some_and(|t| {
        let stage = graph.node(t).stage();
        graph.nodes().iter().filter(|n| n.tool && n.stage() == stage).count() > 1
    });
    let context = task.record.context().into_iter().collect();
    let Ok(mut session) = Session::new(graph.clone(), Task { context, ..Task::default() }, EPOCH_MS) else {
        return failed(run_flags_failed(task));
    };
    let mut host = PerturbHost {
        tools: PerturbedTools::new(&graph, task, fault, setup.family),
        judge: (setup.arm == Arm::LlmJudge).then(|| Judge::new(task.seed)),
        wrong: false,
        escalations: Vec::new(),
    };
    let end = session.drive(&mut host, EPOCH_MS);
    let PerturbHost { tools, escalations, judge, .. } = host;
    let escalated = !escalations.is_empty();
    let outcome = session.outcome();
    let completed = outcome.is_some_and(|o| o.status == Status::Completed);
    let success = completed && !tools.corrupted_accepted;
    let no_clean_path = mode.permanent() && !has_alternative;
    let recovered = success || (escalated && no_clean_path && !tools.corrupted_accepted);
    let flags = RunFlags {
        success,
        perturbed: tools.perturbed(),
        recovered,
        escalated,
        tool_calls: session.tool_calls(),
        optimal_calls: task.optimal_calls,
        llm_calls: session.llm_calls() + judge.map_or(0, |j| j.calls),
        elapsed_ms: end.saturating_sub(EPOCH_MS),
    };
    PerturbedRun {
        flags,
        outcome: session.outcome().cloned(),
        events: session.events().to_vec(),
        escalations,
        edges: crate::scenario::traversed_ids(&graph, session.run()),
    }
}

fn run_flags_failed(task: &GeneratedTask) -> RunFlags {
    RunFlags {
        success: false,
        perturbed: false,
        recovered: false,
        escalated: false,
        tool_calls: 0,
        optimal_calls: task.optimal_calls,
        llm_calls: 0,
        elapsed_ms: 0,
    }
}
