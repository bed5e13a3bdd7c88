//! What the page shows, computed from what the user chose: the scenario (or an imported graph),
//! the tools they failed or set probing; the runs of the three executors on it, and the SHR
//! run's timeline. Pure functions over shr-core and shr-eval; no DOM here.

use std::sync::Arc;

use shr_core::event::{Event, EventKind};
use shr_core::{audit_completion, NodeIx, Outcome, Status, ToolGraph};
use shr_eval::cyclic::{self, CyclicExample};
use shr_eval::perturb::{self, Arm, Family, FaultProfile, GeneratedTask, Mode};
use shr_eval::scenario::story::{self, StoryStep};
use shr_eval::scenario::{
    self, EscalationRecord, Executor, FailureSpec, ReactStep, RunReport, Scenario, WorkflowMove,
};

pub use crate::figures::num;
use crate::figures::{fill, Facts};
use crate::timeline::{Moment, Timeline};

/// Where the graph comes from.
#[derive(Clone)]
pub enum Source {
    /// One of the paper's 19 scenarios.
    Pack(Arc<Scenario>),
    /// A graph the user imported: SHR and ReAct run on it with mock tools, no expected outcome.
    Imported(Arc<Scenario>),
    /// A cyclic workflow of seed 004 in its mock world, with control-flow faults: with
    /// probability `p` a step is redirected to a random other tool (seeded).
    Cyclic { example: Arc<CyclicExample>, p: f64, seed: u64 },
    /// A generated ToolMaze task (seed 002) with one tool perturbed in mode P1-P4; `graph` is the
    /// task's graph with its validators, or without them (the ablation).
    Perturb {
        task: Arc<GeneratedTask>,
        graph: Arc<ToolGraph>,
        target: String,
        mode: Mode,
        validators: bool,
        /// The wrong results of an implicit mode (P3, P4).
        family: Family,
        seed: u64,
    },
}

impl Source {
    pub fn graph(&self) -> &ToolGraph {
        match self {
            Source::Pack(s) | Source::Imported(s) => &s.graph,
            Source::Cyclic { example, .. } => &example.graph,
            Source::Perturb { graph, .. } => graph,
        }
    }

    /// The id the picker and the URL use.
    pub fn id(&self) -> String {
        match self {
            Source::Pack(s) => s.id.clone(),
            Source::Imported(_) => "custom".into(),
            Source::Cyclic { example, .. } => format!("cyclic:{}", example.id),
            Source::Perturb { task, .. } => format!("perturb:{:?}", task.complexity),
        }
    }

    pub fn description(&self) -> String {
        match self {
            Source::Pack(s) => s.description.clone(),
            Source::Imported(s) if s.description.is_empty() => format!("{} (imported)", s.title),
            Source::Imported(s) => format!("{} (edited)", s.description),
            Source::Cyclic { example, p, seed } => format!(
                "{}: the mock world decides each result, so verification can send the task back. \
                 Control-flow faults redirect a step with probability {p} (seed {seed}).",
                example.graph.name().unwrap_or(example.id)
            ),
            Source::Perturb { task, target, mode, validators, family, .. } => format!(
                "ToolMaze task {} ({} tools): {target} is perturbed {mode:?} ({}{}), validators {}. \
                 Click another tool to perturb it instead.",
                task.id,
                task.spec.nodes.iter().filter(|n| n.tool).count(),
                mode.describe(),
                if mode.implicit() { format!(": {}", family.describe()) } else { String::new() },
                if *validators { "on" } else { "off (the ablation)" }
            ),
        }
    }

    /// The scenario's injected failures (none for imported graphs and cyclic workflows).
    pub fn failures(&self) -> &[FailureSpec] {
        match self {
            Source::Pack(s) | Source::Imported(s) => &s.failures,
            Source::Cyclic { .. } | Source::Perturb { .. } => &[],
        }
    }

    pub fn is_pack(&self) -> bool {
        matches!(self, Source::Pack(_))
    }

    /// Whether clicking tools fails them (a cyclic workflow's mock world ignores failures; in a
    /// perturbation a click chooses the perturbed tool instead).
    pub fn takes_failures(&self) -> bool {
        matches!(self, Source::Pack(_) | Source::Imported(_))
    }
}

/// What the user chose. `down: None` means the scenario's own failures, including the ones
/// that strike mid-run; once the user clicks a tool, the set is explicit and down from the start.
#[derive(Clone)]
pub struct Setup {
    pub source: Source,
    pub down: Option<Vec<String>>,
    pub probing: Vec<String>,
}

/// How a node is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolState {
    /// A start, goal or demoted-goal node, not a tool.
    Waypoint,
    Healthy,
    /// Down: from the start of the run, or since the run saw it fail for good.
    Failed,
    /// Down in the world, but no call of the run has failed yet: the router does not know.
    Unseen,
    /// Breaker half-open: its trial slot is free, so it weighs what a healthy tool does and the
    /// next run tries it (a success closes it).
    Probing,
    /// The target of a ToolMaze perturbation (it fails or lies, per its mode).
    Perturbed,
}

/// Everything derived from a [`Setup`].
pub struct View {
    pub graph: ToolGraph,
    /// Per node, as the run starts.
    pub states: Vec<ToolState>,
    /// Per node: the call count after which a scenario's failure strikes (0 = from the start).
    pub fails_after: Vec<Option<u32>>,
    /// The runs of the three executors (the static workflow only on the paper's scenarios).
    pub shr: RunReport,
    pub react: RunReport,
    pub workflow: Option<RunReport>,
    /// The ReAct agent's Thought / Action / Observation steps.
    pub react_steps: Vec<ReactStep>,
    /// The static workflow's moves (empty without a workflow).
    pub workflow_moves: Vec<WorkflowMove>,
    /// The scenario's story with the replay position each step is told from; empty when the
    /// run is not the scenario's own (another graph, or tools the user failed).
    pub story: Vec<(StoryStep, usize)>,
    /// The SHR run, step by step: the page's one clock.
    pub timeline: Timeline,
}

impl View {
    pub fn new(setup: &Setup) -> View {
        let graph = setup.source.graph().clone();
        let n = graph.node_count();
        let failures = setup.source.failures();
        let mut fails_after = vec![None; n];
        match &setup.down {
            None => {
                for f in failures {
                    if let Some(v) = graph.index(&f.tool) {
                        fails_after[v] = Some(f.after_calls.unwrap_or(0));
                    }
                }
            }
            Some(d) => {
                for v in d.iter().filter_map(|t| graph.index(t)) {
                    fails_after[v] = Some(0);
                }
            }
        }
        let probing: Vec<NodeIx> = setup
            .probing
            .iter()
            .filter_map(|t| graph.index(t))
            .filter(|&v| fails_after[v] != Some(0))
            .collect();
        let states: Vec<ToolState> = (0..n)
            .map(|v| {
                if !graph.node(v).tool {
                    ToolState::Waypoint
                } else if matches!(&setup.source, Source::Perturb { target, .. } if graph.index(target) == Some(v)) {
                    ToolState::Perturbed
                } else if fails_after[v] == Some(0) {
                    ToolState::Failed
                } else if probing.contains(&v) {
                    ToolState::Probing
                } else {
                    ToolState::Healthy
                }
            })
            .collect();

        let react_steps;
        let mut workflow_moves = Vec::new();
        let (shr, react, workflow) = match &setup.source {
            Source::Pack(sc) | Source::Imported(sc) => {
                let run_sc = match &setup.down {
                    None => (**sc).clone(),
                    Some(d) => sc.with_down(d),
                };
                // A pack scenario's, kept by an edit where its steps still apply.
                let workflow = (!sc.workflow.steps.is_empty()).then(|| {
                    let (report, moves) = scenario::run_static_traced(&run_sc);
                    workflow_moves = moves;
                    report
                });
                // Tools set probing start the run half-open, as they are drawn.
                let shr = scenario::run_probing(&run_sc, &setup.probing);
                let react = scenario::run_react(&run_sc, &Default::default());
                react_steps = react.steps;
                (shr, react.report, workflow)
            }
            Source::Cyclic { example, p, seed } => {
                let run = cyclic::run(example, *p, *seed);
                let shr = session_report(
                    &example.graph,
                    example.id,
                    run.outcome.as_ref(),
                    (&run.events, &run.edges),
                    &run.escalations,
                    (run.tool_calls, false),
                    run.success,
                );
                let react = cyclic::react::run(example, *p, *seed).react;
                react_steps = react.steps;
                (shr, react.report, None)
            }
            Source::Perturb { task, target, mode, validators, family, .. } => {
                let fault = FaultProfile { target: target.clone(), mode: *mode };
                let arm = if *validators { Arm::Validators } else { Arm::NoValidators };
                let setup = perturb::Setup { arm, family: *family, ..perturb::Setup::default() };
                let run = perturb::run_with(task, &fault, &setup);
                let completed = run.outcome.as_ref().is_some_and(|o| o.status == Status::Completed);
                // seed 002's success is "completed on clean data": completed without it, the run
                // accepted wrong data.
                let wrong_data = completed && !run.flags.success;
                let shr = session_report(
                    &graph,
                    &task.id,
                    run.outcome.as_ref(),
                    (&run.events, &run.edges),
                    &run.escalations,
                    (run.flags.tool_calls, wrong_data),
                    run.flags.recovered,
                );
                let react = perturb::react::run(task, &fault, &setup).run;
                react_steps = react.steps;
                (shr, react.report, None)
            }
        };
        let timeline = Timeline::new(&graph, &shr.events, &shr.path, &shr.edges, &probing);
        let story = match &setup.source {
            // A pack scenario as written, or edited with its own failures (`editor::kept`).
            Source::Pack(sc) | Source::Imported(sc) if setup.down.is_none() && setup.probing.is_empty() => {
                let at = story::anchors(&sc.story, &shr.events);
                // Told only when every step has its moment in this run.
                let at: Option<Vec<usize>> = at
                    .iter()
                    .map(|a| a.map(|e| e.and_then(|i| timeline.position_of(i)).unwrap_or(0)))
                    .collect();
                let told = |(mut step, at): (StoryStep, usize)| {
                    // The figures a step states are the run's at the moment it is told.
                    let m = timeline.moment(&graph, &shr.events, at);
                    let down = fails_after.iter().filter(|f| f.is_some()).count();
                    let facts = Facts::at(&shr.events[..m.events], m.plan.map(|p| p.cost), down);
                    step.text = fill(&step.text, &facts);
                    (step, at)
                };
                at.map(|at| sc.story.iter().cloned().zip(at).map(told).collect()).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        View {
            graph,
            states,
            fails_after,
            shr,
            react,
            workflow,
            react_steps,
            workflow_moves,
            story,
            timeline,
        }
    }

    /// The moment after the first `k` steps of the replay.
    pub fn moment(&self, k: usize) -> Moment {
        self.timeline.moment(&self.graph, &self.shr.events, k)
    }

    /// The cost of the edges the SHR run traversed, as the core summed it when it finished.
    pub fn run_cost(&self) -> Option<f64> {
        self.shr.events.iter().rev().find_map(|e| match &e.kind {
            EventKind::Finished { cost, .. } => Some(*cost),
            _ => None,
        })
    }
}

/// Whether a run that claims success (its goal, or a demoted one) did the work wrong: a required
/// step missing, by the core's completion audit as the lab judges every executor, or wrong data
/// accepted. The page's runs outside the pack are judged with it; eval judges the pack's
/// executors with the same audit.
fn silent_failure(graph: &ToolGraph, outcome: &Outcome, wrong_data: bool) -> bool {
    if outcome.status == Status::Escalated {
        return false;
    }
    let completed: Vec<NodeIx> = outcome.path.iter().filter_map(|id| graph.index(id)).collect();
    let missing = graph
        .index(&outcome.goal)
        .is_none_or(|goal| audit_completion(graph, graph.start(), &completed, goal).is_err());
    missing || wrong_data
}

/// A run outside the scenario pack as a report, so the panels show it like any other run.
/// There is no expected outcome: `correct` is the run's own verdict (goal reached for a cyclic
/// workflow; recovered, in seed 002's sense, for a perturbation).
fn session_report(
    graph: &ToolGraph,
    id: &str,
    outcome: Option<&Outcome>,
    (events, edges): (&[Event], &[(String, String)]),
    escalations: &[EscalationRecord],
    (tool_calls, wrong_data): (u32, bool),
    correct: bool,
) -> RunReport {
    RunReport {
        scenario: id.to_string(),
        executor: Executor::Shr,
        status: outcome.map_or(Status::Escalated, |o| o.status),
        goal: outcome.map(|o| o.goal.clone()).unwrap_or_default(),
        path: outcome.map(|o| o.path.clone()).unwrap_or_default(),
        llm_calls: outcome.map_or(0, |o| o.llm_calls),
        tool_calls,
        recoveries: outcome.map_or(0, |o| o.reroutes),
        classifiers_lost: 0,
        silent_failure: outcome.is_some_and(|o| silent_failure(graph, o, wrong_data)),
        correct,
        problems: Vec::new(),
        escalations: escalations.to_vec(),
        events: events.to_vec(),
        edges: edges.to_vec(),
    }
}

/// A label split into at most two lines of about `width` characters, cut with an ellipsis.
pub fn label_lines(label: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in label.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    if lines.len() > 2 {
        lines.truncate(2);
        lines[1].push('…');
    }
    for l in &mut lines {
        if l.chars().count() > width + 1 {
            *l = l.chars().take(width).collect::<String>() + "…";
        }
    }
    lines
}

/// Node positions: the description's `x`/`y` hints, or a layered layout (breadth-first depth
/// from the start) for nodes without them.
pub fn layout(graph: &ToolGraph) -> Vec<(f64, f64)> {
    let n = graph.node_count();
    let mut depth = vec![usize::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    if n > 0 {
        depth[graph.start()] = 0;
        queue.push_back(graph.start());
    }
    while let Some(v) = queue.pop_front() {
        for &e in graph.out_edges(v) {
            let w = graph.edge(e as usize).to;
            if depth[w] == usize::MAX {
                depth[w] = depth[v] + 1;
                queue.push_back(w);
            }
        }
    }
    let max_depth = depth.iter().filter(|&&d| d != usize::MAX).max().copied().unwrap_or(0);
    let mut row = vec![0usize; max_depth + 2];
    (0..n)
        .map(|v| {
            let node = graph.node(v);
            let d = if depth[v] == usize::MAX { max_depth + 1 } else { depth[v] };
            let r = row[d];
            row[d] += 1;
            match (node.x(), node.y()) {
                (Some(x), Some(y)) => (x, y),
                _ => (40.0 + 150.0 * d as f64, 40.0 + 70.0 * r as f64),
            }
        })
        .collect()
}
