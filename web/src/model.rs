//! What the page shows, computed from what the user chose: the scenario (or an imported graph),
//! the tools they failed or set probing. Pure functions over shr-core; no DOM here.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use shr_core::algo::{Dijkstra, Plan, Trace, TraceStep};
use shr_core::event::{Event, EventKind};
use shr_core::health::{edge_weight, BreakerState};
use shr_core::{BreakerConfig, HealthBook, NodeIx, ToolGraph};
use shr_core::{Outcome, Status};
use shr_eval::cyclic::{self, CyclicExample};
use shr_eval::perturb::{self, FaultProfile, GeneratedTask, Mode};
use shr_eval::scenario::{self, EscalationRecord, Executor, FailureSpec, RunReport, Scenario};

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
            Source::Imported(s) => format!("{} (imported)", s.title),
            Source::Cyclic { example, p, seed } => format!(
                "{}: the mock world decides each result, so verification can send the task back. \
                 Control-flow faults redirect a step with probability {p} (seed {seed}).",
                example.graph.spec().name.clone().unwrap_or_else(|| example.id.to_string())
            ),
            Source::Perturb { task, target, mode, validators, .. } => format!(
                "ToolMaze task {} ({} tools): {target} is perturbed {mode:?} ({}), validators {}. \
                 Click another tool to perturb it instead.",
                task.id,
                task.spec.nodes.iter().filter(|n| n.tool).count(),
                mode.describe(),
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
    /// Down (breaker open): every edge into it is infinitely expensive.
    Failed,
    /// Breaker half-open: a probe may go through, at a high but finite weight.
    Probing,
    /// The target of a ToolMaze perturbation (it fails or lies, per its mode).
    Perturbed,
}

/// Everything derived from a [`Setup`].
pub struct View {
    pub graph: ToolGraph,
    /// Per node.
    pub states: Vec<ToolState>,
    /// Per node: the call count after which a scenario's failure strikes (0 = from the start).
    pub fails_after: Vec<Option<u32>>,
    /// Per edge: the weight routing uses (`cost x weight(target)`), infinite into failed tools.
    pub weights: Vec<f64>,
    /// The cheapest healthy route from start to goal, knowing the failed tools.
    pub route: Option<Plan>,
    /// The search that found (or failed to find) it, step by step.
    pub trace: Trace,
    /// The runs of the three executors (the static workflow only on the paper's scenarios).
    pub shr: RunReport,
    pub react: RunReport,
    pub workflow: Option<RunReport>,
    /// Per node: how many times the SHR run completed it (revisits count).
    pub visits: Vec<u32>,
    /// Edges the run took into an already visited node, with how many times.
    pub revisits: BTreeMap<usize, u32>,
}

impl View {
    pub fn new(setup: &Setup) -> View {
        let graph = setup.source.graph().clone();
        let n = graph.node_count();
        let failures = setup.source.failures();
        let down: Vec<String> = match &setup.down {
            Some(d) => d.clone(),
            None => failures.iter().map(|f| f.tool.clone()).collect(),
        };
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
        let is_down = |v: NodeIx| down.iter().any(|t| graph.index(t) == Some(v));
        let is_probing = |v: NodeIx| !is_down(v) && setup.probing.iter().any(|t| graph.index(t) == Some(v));
        let states: Vec<ToolState> = (0..n)
            .map(|v| {
                if !graph.node(v).tool {
                    ToolState::Waypoint
                } else if matches!(&setup.source, Source::Perturb { target, .. } if graph.index(target) == Some(v)) {
                    ToolState::Perturbed
                } else if is_down(v) {
                    ToolState::Failed
                } else if is_probing(v) {
                    ToolState::Probing
                } else {
                    ToolState::Healthy
                }
            })
            .collect();

        // The breakers as the user set them: probing tools opened one cooldown ago (so they are
        // half-open now), failed tools opened just now.
        let config = BreakerConfig::default();
        let now = config.cooldown_ms;
        let mut health = HealthBook::new(&graph, config);
        for v in (0..n).filter(|&v| states[v] == ToolState::Probing) {
            health.trip(v, 0);
        }
        health.poll(now, &mut Vec::new());
        for v in (0..n).filter(|&v| states[v] == ToolState::Failed) {
            health.trip(v, now);
        }
        debug_assert!(
            (0..n).all(|v| states[v] != ToolState::Probing || health.state(v) == BreakerState::HalfOpen)
        );
        let weights: Vec<f64> =
            graph.edges().iter().map(|e| edge_weight(e, health.weight(e.to, now))).collect();
        let mut trace = Trace::default();
        let route =
            Dijkstra::new().route(&graph, &[graph.start()], graph.goal(), &|e: usize| weights[e], &mut trace);

        let (shr, react, workflow) = match &setup.source {
            Source::Pack(sc) | Source::Imported(sc) => {
                let run_sc = match &setup.down {
                    None => (**sc).clone(),
                    Some(d) => sc.with_down(d),
                };
                let workflow = setup.source.is_pack().then(|| scenario::run(&run_sc, Executor::Static));
                // Tools set probing start the run half-open, as they are drawn.
                let shr = scenario::run_probing(&run_sc, &setup.probing);
                (shr, scenario::run(&run_sc, Executor::React), workflow)
            }
            Source::Cyclic { example, p, seed } => {
                let run = cyclic::run(example, *p, *seed);
                let shr = session_report(
                    example.id,
                    run.outcome.as_ref(),
                    (&run.events, &run.edges),
                    &run.escalations,
                    run.tool_calls,
                    run.success,
                );
                let react = scenario::as_react(shr.clone());
                (shr, react, None)
            }
            Source::Perturb { task, target, mode, validators, .. } => {
                let fault = FaultProfile { target: target.clone(), mode: *mode };
                let run = perturb::run_fault(task, &fault, *validators);
                let mut shr = session_report(
                    &task.id,
                    run.outcome.as_ref(),
                    (&run.events, &run.edges),
                    &run.escalations,
                    run.flags.tool_calls,
                    run.flags.recovered,
                );
                // Claiming the goal on data the validators let through wrong is a silent failure,
                // judged as for every executor: success claimed, work not done right.
                shr.silent_failure = shr.status == Status::Completed && !run.flags.success;
                let react = scenario::as_react(shr.clone());
                (shr, react, None)
            }
        };
        let (visits, revisits) = visits(&graph, &shr.events);
        View { graph, states, fails_after, weights, route, trace, shr, react, workflow, visits, revisits }
    }

    /// Nodes the SHR run completed.
    pub fn run_nodes(&self) -> BTreeSet<NodeIx> {
        self.shr.path.iter().filter_map(|id| self.graph.index(id)).collect()
    }

    /// Edges the SHR run traversed, as the core recorded them.
    pub fn run_edges(&self) -> BTreeSet<usize> {
        let g = &self.graph;
        let index = |id: &str| g.index(id);
        self.shr
            .edges
            .iter()
            .filter_map(|(a, b)| {
                let (a, b) = (index(a)?, index(b)?);
                g.out_edges(a).iter().map(|&e| e as usize).find(|&e| g.edge(e).to == b)
            })
            .collect()
    }
}

/// A run outside the scenario pack as a report, so the panels show it like any other run.
/// There is no expected outcome: `correct` is the run's own verdict (goal reached for a cyclic
/// workflow; recovered, in seed 002's sense, for a perturbation).
fn session_report(
    id: &str,
    outcome: Option<&Outcome>,
    (events, edges): (&[Event], &[(String, String)]),
    escalations: &[EscalationRecord],
    tool_calls: u32,
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
        silent_failure: false,
        correct,
        problems: Vec::new(),
        escalations: escalations.to_vec(),
        events: events.to_vec(),
        edges: edges.to_vec(),
    }
}

/// Completions per node, and the edges taken back into already visited nodes: from the order
/// in which tools succeeded (a completion), starting at the start node.
fn visits(graph: &ToolGraph, events: &[Event]) -> (Vec<u32>, BTreeMap<usize, u32>) {
    let mut counts = vec![0u32; graph.node_count()];
    let mut revisits = BTreeMap::new();
    let mut seen = BTreeSet::from([graph.start()]);
    let mut prev = Some(graph.start());
    for e in events {
        let EventKind::ToolSucceeded { tool, .. } = &e.kind else { continue };
        let Some(v) = graph.index(tool) else { continue };
        counts[v] += 1;
        let edge = prev
            .and_then(|u| graph.out_edges(u).iter().map(|&e| e as usize).find(|&e| graph.edge(e).to == v));
        if let Some(e) = edge {
            if seen.contains(&v) {
                *revisits.entry(e).or_insert(0) += 1;
            }
        }
        seen.insert(v);
        prev = Some(v);
    }
    (counts, revisits)
}

/// One moment of the search replay.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub settled: BTreeSet<NodeIx>,
    /// Reached but not settled.
    pub frontier: BTreeSet<NodeIx>,
    /// The edge this step looked at, and whether it was skipped (infinite weight).
    pub edge: Option<(usize, bool)>,
    /// Edges skipped so far because they lead into a failed tool.
    pub skipped: BTreeSet<usize>,
    /// Best known cost of each node reached.
    pub dist: Vec<Option<f64>>,
}

/// The state after the first `k` steps of a trace. O(k): a replay recomputes frames on demand
/// instead of storing one per step, so a 5,000-node trace costs no memory up front.
pub fn frame(trace: &Trace, nodes: usize, start: NodeIx, k: usize) -> Frame {
    let mut f = Frame { dist: vec![None; nodes], ..Frame::default() };
    if let Some(d) = f.dist.get_mut(start) {
        *d = Some(0.0);
    }
    f.frontier.insert(start);
    for step in trace.steps.iter().take(k) {
        match *step {
            TraceStep::Settled { node, dist } => {
                f.frontier.remove(&node);
                f.settled.insert(node);
                if let Some(d) = f.dist.get_mut(node) {
                    *d = Some(dist);
                }
                f.edge = None;
            }
            TraceStep::Relaxed { edge, to, dist, improved, .. } => {
                if improved {
                    if !f.settled.contains(&to) {
                        f.frontier.insert(to);
                    }
                    if let Some(d) = f.dist.get_mut(to) {
                        *d = Some(dist);
                    }
                }
                f.edge = Some((edge, false));
            }
            TraceStep::Skipped { edge, .. } => {
                f.skipped.insert(edge);
                f.edge = Some((edge, true));
            }
        }
    }
    f
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
            match (node.x, node.y) {
                (Some(x), Some(y)) => (x, y),
                _ => (40.0 + 150.0 * d as f64, 40.0 + 70.0 * r as f64),
            }
        })
        .collect()
}

/// A number for people: integers without decimals, infinity as ∞.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        "∞".into()
    } else if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.1}")
    }
}
