//! Deterministic fault injection after ToolMaze (seed 002): generated DAG tasks at complexity
//! C1-C4 with substitutable tool groups, one victim tool per task perturbed in one of four
//! modes, and the metrics TSR, PRR and RC.
//!
//! - P1 explicit-transient: the first call raises an error, later calls succeed.
//! - P2 explicit-permanent: every call raises a permanent error.
//! - P3 implicit-transient: the first call returns well-formed but wrong data.
//! - P4 implicit-permanent: every call returns well-formed but wrong data.
//!
//! Every generated tool declares validators (`status == "ok"`, `value >= 0`); wrong data fails
//! them and becomes an implicit failure. The ablation builds the same tasks without validators.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use shr_core::event::{Event, EventKind};
use shr_core::graph::{NodeIx, ToolGraph};
use shr_core::rng::SplitMix64;
use shr_core::Millis;
use shr_core::{
    Call, Category, Decision, EscalationRequest, Host, Performed, Session, Status, Task, ToolFailure,
    ToolResult,
};

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

/// Task complexity: the DAG template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Complexity {
    /// One chain of three stages.
    C1,
    /// One chain of four stages ending in a single action.
    C2,
    /// Two parallel branches of two stages, each with its own action, joined.
    C3,
    /// Three parallel branches of three stages, joined.
    C4,
}

impl Complexity {
    pub const ALL: [Complexity; 4] = [Complexity::C1, Complexity::C2, Complexity::C3, Complexity::C4];

    /// (branches, stages per branch, largest substitute group)
    fn shape(self) -> (usize, usize, u64) {
        match self {
            Complexity::C1 => (1, 3, 2),
            Complexity::C2 => (1, 4, 3),
            Complexity::C3 => (2, 2, 2),
            Complexity::C4 => (3, 3, 3),
        }
    }
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
}

fn validators() -> Value {
    json!([{ "field": "status", "one_of": ["ok"] }, { "field": "value", "min": 0 }])
}

/// Generates a task. Same complexity and seed, same task.
pub fn generate(complexity: Complexity, seed: u64) -> GeneratedTask {
    let mut rng = SplitMix64::new(seed ^ (complexity as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let (branches, stages, max_group) = complexity.shape();
    let mut nodes = alloc::vec![json!({ "id": "start", "tool": false })];
    let mut edges = Vec::new();
    let mut groups: Vec<Vec<String>> = Vec::new();
    for b in 0..branches {
        let mut prev: Vec<String> = alloc::vec!["start".into()];
        for s in 0..stages {
            // C2's last stage is its single action node.
            let single_action = complexity == Complexity::C2 && s + 1 == stages;
            let size = if single_action { 1 } else { 1 + rng.below(max_group) as usize };
            let group: Vec<String> = (0..size).map(|k| format!("b{b}s{s}t{k}")).collect();
            for (k, id) in group.iter().enumerate() {
                nodes.push(json!({
                    "id": id,
                    "stage": format!("b{b}s{s}"),
                    "retry": { "attempts": 1 },
                    "validators": validators(),
                }));
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
        optimal_calls: (branches * stages) as u32,
        spec,
    }
}

/// Tools of a generated task under a fault profile.
#[derive(Clone, Debug)]
pub struct PerturbedTools {
    victim: Option<NodeIx>,
    mode: Mode,
    victim_calls: u32,
    /// Wrong data the host handed over and the session accepted.
    pub corrupted_accepted: bool,
}

impl PerturbedTools {
    pub fn new(graph: &ToolGraph, fault: &FaultProfile) -> Self {
        PerturbedTools {
            victim: graph.index(&fault.target),
            mode: fault.mode,
            victim_calls: 0,
            corrupted_accepted: false,
        }
    }

    /// Performs a call; returns the result and whether it carries wrong data.
    pub fn call(&mut self, tool: NodeIx) -> (ToolResult, bool) {
        let clean = ToolResult::ok(json!({ "status": "ok", "value": 42 }), 50.0);
        if Some(tool) != self.victim || self.mode == Mode::NP {
            return (clean, false);
        }
        self.victim_calls += 1;
        let hit = self.mode.permanent() || self.victim_calls == 1;
        if !hit {
            return (clean, false);
        }
        match self.mode {
            Mode::P1 => (ToolResult::transient("InternalServerError"), false),
            Mode::P2 => (
                ToolResult::Err(ToolFailure {
                    category: Category::Service,
                    transient: false,
                    message: "AccountQuotaExhausted".into(),
                    agent_action: None,
                    latency_ms: 20.0,
                }),
                false,
            ),
            _ => (ToolResult::ok(json!({ "status": "ok", "value": -1 }), 50.0), true),
        }
    }

    pub fn perturbed(&self) -> bool {
        self.victim_calls > 0 && self.mode != Mode::NP
    }
}

/// The host of a perturbed run: its tools, and a mock LLM that stops gracefully when asked
/// (no clean path remains).
struct PerturbHost {
    tools: PerturbedTools,
    /// The last call handed over wrong data.
    wrong: bool,
    escalations: Vec<crate::scenario::EscalationRecord>,
}

impl Host for PerturbHost {
    fn call(&mut self, graph: &ToolGraph, call: &Call, _at: Millis) -> Performed {
        let (result, wrong) = match graph.index(&call.tool) {
            Some(v) => self.tools.call(v),
            None => (ToolResult::outage("no such tool"), false),
        };
        self.wrong = wrong;
        Performed { result, latency_ms: 50 }
    }

    fn escalate(&mut self, _: &ToolGraph, request: &EscalationRequest, _: Millis) -> Decision {
        let stop = Decision::Abort { message: "no clean path: stopping".into() };
        self.escalations
            .push(crate::scenario::EscalationRecord { request: request.clone(), decision: stop.clone() });
        stop
    }

    fn reported(&mut self, _: &Call, events: &[Event]) {
        let accepted = events.iter().any(|e| matches!(e.kind, EventKind::ToolSucceeded { .. }));
        self.tools.corrupted_accepted |= self.wrong && accepted;
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
    pub optimal_calls: u32,
    pub llm_calls: u32,
    pub react_llm_calls: u32,
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
/// choose it). Whether a clean path remains is judged for that target: its stage has another tool.
pub fn run_fault(task: &GeneratedTask, fault: &FaultProfile, validators: bool) -> PerturbedRun {
    let failed = |flags| PerturbedRun {
        flags,
        outcome: None,
        events: Vec::new(),
        escalations: Vec::new(),
        edges: Vec::new(),
    };
    let mode = fault.mode;
    let mut spec = task.spec.clone();
    if !validators {
        for n in &mut spec.nodes {
            n.validators.clear();
        }
    }
    let Ok(graph) = ToolGraph::from_spec(spec) else {
        return failed(run_flags_failed(task));
    };
    let has_alternative = graph.index(&fault.target).is_some_and(|t| {
        let stage = &graph.node(t).stage;
        graph.nodes().iter().filter(|n| n.tool && n.stage == *stage).count() > 1
    });
    let Ok(mut session) = Session::new(graph.clone(), Task::default(), 0) else {
        return failed(run_flags_failed(task));
    };
    let mut host =
        PerturbHost { tools: PerturbedTools::new(&graph, fault), wrong: false, escalations: Vec::new() };
    session.drive(&mut host, 0);
    let PerturbHost { tools, escalations, .. } = host;
    let escalated = !escalations.is_empty();
    let outcome = session.outcome();
    let completed = outcome.is_some_and(|o| o.status == Status::Completed);
    let success = completed && !tools.corrupted_accepted;
    let no_clean_path = mode.permanent() && !has_alternative;
    let recovered = success || (escalated && no_clean_path && !tools.corrupted_accepted);
    let extra = match mode {
        Mode::NP => 0,
        _ if no_clean_path => 0,
        _ => 1,
    };
    let flags = RunFlags {
        success,
        perturbed: tools.perturbed(),
        recovered,
        escalated,
        tool_calls: session.tool_calls(),
        optimal_calls: task.optimal_calls + extra,
        llm_calls: session.llm_calls(),
        react_llm_calls: crate::scenario::react_llm_calls(session.events()),
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
        react_llm_calls: 0,
    }
}

/// TSR, PRR and RC over a set of runs (seed 002's definitions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub runs: u32,
    /// Task success rate: runs that reached the goal on clean data.
    pub tsr: f64,
    /// Perturbation recovery rate: perturbed runs that recovered (finished clean, or stopped
    /// explicitly when no clean path existed). `None` when no run was perturbed.
    pub prr: Option<f64>,
    /// Recovery cost: mean extra tool calls over the optimal, as a share of the optimal
    /// (runs that finished only).
    pub rc: f64,
    pub llm_calls: u32,
    pub react_llm_calls: u32,
    /// Runs that escalated.
    pub escalations: u32,
}

impl Metrics {
    pub fn of(runs: &[RunFlags]) -> Metrics {
        let n = runs.len() as u32;
        if n == 0 {
            return Metrics::default();
        }
        let perturbed: Vec<&RunFlags> = runs.iter().filter(|r| r.perturbed).collect();
        let finished: Vec<&RunFlags> = runs.iter().filter(|r| r.success).collect();
        let rc = if finished.is_empty() {
            0.0
        } else {
            finished
                .iter()
                .map(|r| (r.tool_calls as f64 - r.optimal_calls as f64) / r.optimal_calls.max(1) as f64)
                .sum::<f64>()
                / finished.len() as f64
        };
        Metrics {
            runs: n,
            tsr: runs.iter().filter(|r| r.success).count() as f64 / n as f64,
            prr: if perturbed.is_empty() {
                None
            } else {
                Some(perturbed.iter().filter(|r| r.recovered).count() as f64 / perturbed.len() as f64)
            },
            rc,
            llm_calls: runs.iter().map(|r| r.llm_calls).sum(),
            react_llm_calls: runs.iter().map(|r| r.react_llm_calls).sum(),
            escalations: runs.iter().filter(|r| r.escalated).count() as u32,
        }
    }
}

/// The NP + P1-P4 by C1-C4 matrix for one configuration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Matrix {
    pub label: String,
    /// `cells[mode][complexity]`
    pub cells: Vec<Vec<Metrics>>,
}

/// Runs `tasks` generated tasks per complexity (seeds `seed..seed + tasks`) under every mode.
pub fn matrix(label: &str, tasks: u32, seed: u64, validators: bool) -> Matrix {
    let generated: Vec<Vec<GeneratedTask>> =
        Complexity::ALL.iter().map(|&c| (0..tasks as u64).map(|i| generate(c, seed + i)).collect()).collect();
    let cells = Mode::ALL
        .iter()
        .map(|&m| {
            generated
                .iter()
                .map(|ts| Metrics::of(&ts.iter().map(|t| run_task(t, m, validators)).collect::<Vec<_>>()))
                .collect()
        })
        .collect();
    Matrix { label: label.to_string(), cells }
}
