//! What the page draws at one position of a replay: the [`Moment`] (the plan in force, the
//! breakers, the work done, the route) and the [`Frame`] of a search under way. The SHR run's
//! moments are built by [`crate::timeline::Timeline::moment`], a baseline's by
//! [`crate::lanes::moment`]. Pure data and functions, no DOM.

use std::collections::{BTreeMap, BTreeSet};

use shr_core::algo::{Trace, TraceStep};
use shr_core::event::{EventKind, PlanView};
use shr_core::{BreakerState, EscalationReason, NodeIx, ToolGraph};

/// The index of the edge `a -> b`.
pub fn edge_ix(graph: &ToolGraph, a: NodeIx, b: NodeIx) -> Option<usize> {
    graph.out_edges(a).iter().map(|&e| e as usize).find(|&e| graph.edge(e).to == b)
}

/// A plan the run logged, as graph indices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanIx {
    pub nodes: Vec<NodeIx>,
    pub edges: Vec<usize>,
    /// From where execution stood when it was made.
    pub cost: f64,
}

impl PlanIx {
    pub(crate) fn new(graph: &ToolGraph, plan: &PlanView) -> PlanIx {
        PlanIx {
            nodes: plan.nodes.iter().filter_map(|id| graph.index(id)).collect(),
            edges: plan
                .edges
                .iter()
                .filter_map(|(a, b)| edge_ix(graph, graph.index(a)?, graph.index(b)?))
                .collect(),
            cost: plan.cost,
        }
    }

    /// Where the plan starts: its nodes no plan edge leads into.
    pub(crate) fn sources(&self, graph: &ToolGraph) -> Vec<NodeIx> {
        self.nodes.iter().copied().filter(|&v| !self.edges.iter().any(|&e| graph.edge(e).to == v)).collect()
    }

    pub(crate) fn same_as(&self, other: &PlanIx) -> bool {
        let set = |v: &[usize]| v.iter().copied().collect::<BTreeSet<_>>();
        set(&self.nodes) == set(&other.nodes) && set(&self.edges) == set(&other.edges)
    }
}

/// What the run had and what the page draws after some of its steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Moment {
    /// Steps taken.
    pub position: usize,
    /// Events of the run that have happened.
    pub events: usize,
    pub finished: bool,
    /// The plan from where execution stands, while one is in force.
    pub plan: Option<PlanIx>,
    /// The plan a failure just broke, until the router replans.
    pub broken: BTreeSet<usize>,
    /// An escalation waiting for its answer (no plan since).
    pub escalated: Option<EscalationReason>,
    /// The tool whose failure broke the plan.
    pub broke: Option<NodeIx>,
    /// Completions so far: the outcome path's first `completed` entries.
    pub completed: usize,
    pub ran_nodes: BTreeSet<NodeIx>,
    pub ran_edges: BTreeSet<usize>,
    /// The route now: the edges taken and the plan from where execution stands.
    pub route_nodes: BTreeSet<NodeIx>,
    pub route_edges: BTreeSet<usize>,
    /// Completions per node so far.
    pub visits: Vec<u32>,
    /// Edges taken back into an already completed node, with how many times.
    pub revisits: BTreeMap<usize, u32>,
    /// The last breaker state the run reported per tool (open for a tool failed for good).
    pub breakers: BTreeMap<NodeIx, BreakerState>,
    /// Tools the run saw fail so far: a tool down in the world is news to the router until
    /// one of its calls fails.
    pub seen_failed: BTreeSet<NodeIx>,
    /// The event of the latest monitor decision.
    pub decision: Option<usize>,
    /// The tool the current step is about.
    pub focus: Option<NodeIx>,
    /// The search under way, when the step is one of its steps or the next step starts it.
    pub frame: Option<Frame>,
    /// Which entry of the weights is in force.
    pub(crate) weights: usize,
}

impl Moment {
    /// What event `i` changes: the plan in force, breakers, the decision, an escalation.
    pub(crate) fn apply(&mut self, graph: &ToolGraph, i: usize, e: &EventKind, plan: Option<&PlanIx>) {
        if let Some(plan) = plan {
            self.plan = Some(plan.clone());
            self.broken.clear();
            self.broke = None;
            self.escalated = None;
        }
        if let Some(v) = failed_for_good(graph, e) {
            self.breakers.insert(v, BreakerState::Open);
            if self.plan.as_ref().is_some_and(|p| p.nodes.contains(&v)) {
                self.drop_plan();
                self.broke = Some(v);
            }
        }
        match e {
            EventKind::ToolFailed { tool, .. } => {
                self.seen_failed.extend(graph.index(tool));
            }
            EventKind::BreakerChanged { tool, to, .. } => {
                if let Some(v) = graph.index(tool) {
                    self.breakers.insert(v, *to);
                }
            }
            EventKind::SignalWon { .. } => self.decision = Some(i),
            EventKind::Escalated { reason, .. } => {
                self.escalated = Some(*reason);
                self.drop_plan();
            }
            EventKind::Finished { .. } => self.close(),
            _ => {}
        }
    }

    /// The plan is void (a tool on it failed, or the run escalated): it fades until the next.
    fn drop_plan(&mut self) {
        if let Some(p) = self.plan.take() {
            self.broken = p.edges.into_iter().collect();
        }
    }

    /// The run is over: no plan, nothing pending.
    pub(crate) fn close(&mut self) {
        self.finished = true;
        self.plan = None;
        self.broken.clear();
        self.broke = None;
        self.escalated = None;
    }
}

/// One moment of a search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub settled: BTreeSet<NodeIx>,
    /// Reached but not settled.
    pub frontier: BTreeSet<NodeIx>,
    /// The edge this step looked at, and whether it was skipped (infinite weight).
    pub edge: Option<(usize, bool)>,
    /// Best known cost of each node reached.
    pub dist: Vec<Option<f64>>,
}

/// The tool an event is about.
pub(crate) fn tool_of(graph: &ToolGraph, e: &EventKind) -> Option<NodeIx> {
    match e {
        EventKind::ToolCalled { tool, .. }
        | EventKind::ToolSucceeded { tool, .. }
        | EventKind::ToolFailed { tool, .. }
        | EventKind::Reweighted { tool, .. }
        | EventKind::Retried { tool, .. }
        | EventKind::BreakerChanged { tool, .. }
        | EventKind::Revisited { tool, .. }
        | EventKind::Compensated { tool, .. }
        | EventKind::Shed { tool, .. } => graph.index(tool),
        EventKind::Redirected { to, .. } => graph.index(to),
        _ => None,
    }
}

/// A tool the run will not call again for now: its breaker opened, or it failed for good.
pub(crate) fn failed_for_good(graph: &ToolGraph, e: &EventKind) -> Option<NodeIx> {
    match e {
        EventKind::BreakerChanged { tool, to: BreakerState::Open, .. }
        | EventKind::ToolFailed { tool, transient: false, .. } => graph.index(tool),
        _ => None,
    }
}

/// The state after the first `k` steps of a trace.
pub fn frame(trace: &Trace, nodes: usize, sources: &[NodeIx], k: usize) -> Frame {
    let mut f = Frame { dist: vec![None; nodes], ..Frame::default() };
    for &s in sources {
        if let Some(d) = f.dist.get_mut(s) {
            *d = Some(0.0);
        }
        f.frontier.insert(s);
    }
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
            TraceStep::Skipped { edge, .. } => f.edge = Some((edge, true)),
        }
    }
    f
}
