//! The page's one clock: the SHR run replayed step by step. Every event the run logged is a
//! step (raised signals fold into the decision they feed), and each plan the run made comes
//! after the Dijkstra search that finds it. Every panel reads the [`Moment`] at the replay's
//! position, so nothing on the page is ahead of, or behind, the rest.
//!
//! The core does not keep a run's searches, so each is searched again with shr-core's Dijkstra,
//! over the weights the core's `Router` gives once it has seen what the run had seen by then
//! (breakers opened, tools failed for good). A search is shown only when it finds the very plan
//! the run logged; otherwise the step is the plan alone. Pure functions, no DOM.

use std::collections::{BTreeMap, BTreeSet};

use shr_core::algo::{Dijkstra, Trace};
use shr_core::event::{Event, EventKind};
use shr_core::health::edge_weight;
use shr_core::monitor::SignalKind;
use shr_core::{BreakerState, NodeIx, Router, ToolGraph};

pub use crate::moment::{edge_ix, Moment};
use crate::moment::{failed_for_good, frame, tool_of, Frame, PlanIx};

/// The search behind one of the run's plans.
#[derive(Clone, Debug)]
pub struct Search {
    pub sources: Vec<NodeIx>,
    pub trace: Trace,
    pub cost: f64,
}

/// One step of the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Step `step` of search `search`.
    Search { search: usize, step: usize },
    /// The run's event at this index.
    Event(usize),
}

/// The whole run as steps, with what the panels need to show any position of it.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    pub steps: Vec<Step>,
    pub searches: Vec<Search>,
    /// Per event: the plan it made (`PathPlanned`, `Rerouted`).
    plans: Vec<Option<PlanIx>>,
    /// Edge weights as the router had them: (from how many events on, weight per edge).
    weights: Vec<(usize, Vec<f64>)>,
    /// The run's completions in order: (events after which it had happened, node).
    completions: Vec<(usize, NodeIx)>,
    /// The edges the run traversed in order: (events after which, edge, completion index).
    traversed: Vec<(usize, usize, usize)>,
    /// The executed path (the outcome's): what the finished route is; the rest ran, abandoned.
    kept: BTreeSet<NodeIx>,
    /// Per event: the step that shows it.
    event_steps: Vec<Option<usize>>,
    /// The position the page opens at: just after the run's key decision, or the end.
    pub key: usize,
    /// The position a replay after a click starts from: before the call whose failure led to
    /// the key decision, or the start.
    pub approach: usize,
}

/// The router's edge weights through the run: replays the breakers the run reported into a
/// `Router` of the same graph. `probing` tools start half-open, as the run did.
fn weights(graph: &ToolGraph, events: &[Event], probing: &[NodeIx]) -> Vec<(usize, Vec<f64>)> {
    let mut router = Router::new(graph.clone());
    for &v in probing {
        router.mark_down(v, 0);
    }
    let snapshot = |router: &mut Router, at: shr_core::Millis| {
        router.advance(at);
        let health = router.health();
        graph.edges().iter().map(|e| edge_weight(e, health.weight(e.to, at))).collect::<Vec<f64>>()
    };
    let first = events.first().map_or(router.config().breaker.cooldown_ms, |e| e.at);
    let mut out = vec![(0, snapshot(&mut router, first))];
    for (i, e) in events.iter().enumerate() {
        let changed = match &e.kind {
            EventKind::BreakerChanged { tool, to: BreakerState::Closed, .. } => {
                graph.index(tool).map(|v| router.mark_up(v, e.at)).is_some()
            }
            EventKind::BreakerChanged { to: BreakerState::HalfOpen, .. } => true,
            kind => failed_for_good(graph, kind).map(|v| router.mark_down(v, e.at)).is_some(),
        };
        if changed {
            out.push((i + 1, snapshot(&mut router, e.at)));
        }
    }
    out
}

/// Whether event `e` makes a plan through node `v`.
fn plans_through(graph: &ToolGraph, e: &EventKind, v: NodeIx) -> bool {
    match e {
        EventKind::PathPlanned { plan } | EventKind::Rerouted { to_plan: plan, .. } => {
            plan.nodes.iter().any(|id| graph.index(id) == Some(v))
        }
        _ => false,
    }
}

/// Every completion of a run in order, abandoned work included: the start, then the head of
/// each edge the run traversed, once per completion (the edges into a join are recorded
/// together).
pub fn completed(graph: &ToolGraph, edges: &[(String, String)]) -> Vec<String> {
    let mut out = vec![graph.id(graph.start()).to_string()];
    let mut last: Option<&str> = None;
    for (_, to) in edges {
        if last != Some(to.as_str()) {
            out.push(to.clone());
        }
        last = Some(to);
    }
    out
}

/// When each completion happened: a tool at its `ToolSucceeded`; a waypoint once the completion
/// before it happened *and* a plan through it is in force (the run completes a waypoint at its
/// next decision, only when its plan leads there: a demoted goal waits for the demotion's plan,
/// not for the tool before it). The start is complete from the first step.
fn completions(graph: &ToolGraph, events: &[Event], path: &[String]) -> Vec<(usize, NodeIx)> {
    let mut out = Vec::with_capacity(path.len());
    let (mut at, mut cursor) = (0, 0);
    for id in path {
        let Some(v) = graph.index(id) else { continue };
        if !graph.node(v).tool && v != graph.start() {
            // The plan in force once the completion before happened, else the first plan after it.
            let in_force = events[..at.min(events.len())]
                .iter()
                .rposition(|e| matches!(e.kind, EventKind::PathPlanned { .. } | EventKind::Rerouted { .. }))
                .is_some_and(|j| plans_through(graph, &events[j].kind, v));
            if !in_force {
                let later = events
                    .get(at..)
                    .and_then(|rest| rest.iter().position(|e| plans_through(graph, &e.kind, v)));
                at = later.map_or(events.len(), |j| at + j + 1);
                cursor = cursor.max(at);
            }
        } else if graph.node(v).tool {
            let found = events.get(cursor..).and_then(|rest| {
                rest.iter()
                    .position(|e| matches!(&e.kind, EventKind::ToolSucceeded { tool, .. } if tool == id))
            });
            if let Some(j) = found {
                at = cursor + j + 1;
                cursor = at;
            }
        }
        out.push((at, v));
    }
    out
}

/// The traversed edges, each with the completion it fed (the core records an edge when its
/// target completes, so they come in completion order; a join's edges share one completion).
fn traversed(
    graph: &ToolGraph,
    edges: &[(String, String)],
    completions: &[(usize, NodeIx)],
) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::with_capacity(edges.len());
    let mut c = 0;
    for (a, b) in edges {
        let Some(e) = graph.index(a).zip(graph.index(b)).and_then(|(a, b)| edge_ix(graph, a, b)) else {
            continue;
        };
        let to = graph.edge(e).to;
        if let Some(j) = completions.get(c..).and_then(|rest| rest.iter().position(|&(_, v)| v == to)) {
            c += j;
            out.push((completions[c].0, e, c));
        }
    }
    out
}

impl Timeline {
    /// The timeline of a run: its events, the plans in them, the order it completed its work
    /// (every completion, abandoned work too, read from the `traversed` edges, the core's
    /// record) and `path`, the outcome's executed path.
    pub fn new(
        graph: &ToolGraph,
        events: &[Event],
        path: &[String],
        traversed_ids: &[(String, String)],
        probing: &[NodeIx],
    ) -> Timeline {
        let weights = weights(graph, events, probing);
        let plans: Vec<Option<PlanIx>> = events
            .iter()
            .map(|e| match &e.kind {
                EventKind::PathPlanned { plan } | EventKind::Rerouted { to_plan: plan, .. } => {
                    Some(PlanIx::new(graph, plan))
                }
                _ => None,
            })
            .collect();
        let mut t = Timeline { plans, weights, ..Timeline::default() };
        t.completions = completions(graph, events, &completed(graph, traversed_ids));
        t.kept = path.iter().filter_map(|id| graph.index(id)).collect();
        t.traversed = traversed(graph, traversed_ids, &t.completions);
        t.event_steps = vec![None; events.len()];
        let mut goal = graph.goal();
        for (i, e) in events.iter().enumerate() {
            match &e.kind {
                EventKind::SignalRaised { .. } => continue,
                EventKind::GoalDemoted { to, .. } => goal = graph.index(to).unwrap_or(goal),
                _ => {}
            }
            if let Some(plan) = &t.plans[i] {
                if let Some(search) = t.search(graph, i, plan, goal) {
                    let s = t.searches.len();
                    t.steps
                        .extend((0..search.trace.steps.len()).map(|step| Step::Search { search: s, step }));
                    t.searches.push(search);
                }
            }
            t.event_steps[i] = Some(t.steps.len());
            t.steps.push(Step::Event(i));
        }
        (t.key, t.approach) = t.key_moment(events);
        t
    }

    /// The search that finds `plan` over the weights before event `i`, if it does.
    fn search(&self, graph: &ToolGraph, i: usize, plan: &PlanIx, goal: NodeIx) -> Option<Search> {
        let w = self.weights_at(i);
        let sources = plan.sources(graph);
        let mut trace = Trace::default();
        let weight = |e: usize| w.get(e).copied().unwrap_or(f64::INFINITY);
        let found = Dijkstra::new().route(graph, &sources, goal, &weight, &mut trace)?;
        let found = PlanIx { nodes: found.nodes, edges: found.edges, cost: found.cost };
        found.same_as(plan).then_some(Search { sources, trace, cost: found.cost })
    }

    /// The key decision: the answer (reroute, retry, escalation) to the run's first failure or
    /// first decision a monitor other than intent won. (open at, replay a click from).
    fn key_moment(&self, events: &[Event]) -> (usize, usize) {
        let end = self.steps.len();
        let trigger = events.iter().position(|e| match &e.kind {
            EventKind::ToolFailed { .. } => true,
            EventKind::SignalWon { signal } => !matches!(signal.kind, SignalKind::Intent { .. }),
            _ => false,
        });
        let Some(t) = trigger else { return (end, 0) };
        let answer = events[t..]
            .iter()
            .position(|e| {
                matches!(
                    e.kind,
                    EventKind::Rerouted { .. } | EventKind::Escalated { .. } | EventKind::Retried { .. }
                )
            })
            .map_or(t, |j| t + j);
        let key = self.position_of(answer).unwrap_or(end);
        let call = events[..=t].iter().rposition(|e| matches!(e.kind, EventKind::ToolCalled { .. }));
        let approach = call.and_then(|c| self.event_steps[c]).unwrap_or(0);
        (key, approach)
    }

    /// The position just after event `i` happened.
    pub fn position_of(&self, i: usize) -> Option<usize> {
        self.event_steps.get(i).copied().flatten().map(|s| s + 1)
    }

    /// The position just after the next event from position `k` (search steps skipped), or the end.
    pub fn next_event(&self, k: usize) -> usize {
        self.steps
            .iter()
            .enumerate()
            .skip(k)
            .find(|(_, s)| matches!(s, Step::Event(_)))
            .map_or(self.steps.len(), |(i, _)| i + 1)
    }

    /// The position just after the event before the one shown at `k`, or the start.
    pub fn previous_event(&self, k: usize) -> usize {
        let before = k.saturating_sub(1).min(self.steps.len());
        self.steps[..before].iter().rposition(|s| matches!(s, Step::Event(_))).map_or(0, |i| i + 1)
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    fn weights_at(&self, events: usize) -> &[f64] {
        let i = self.weights.iter().rposition(|(from, _)| *from <= events).unwrap_or(0);
        self.weights.get(i).map_or(&[], |(_, w)| w)
    }

    /// The edge weights in force at a moment.
    pub fn weights(&self, m: &Moment) -> &[f64] {
        self.weights.get(m.weights).map_or(&[], |(_, w)| w)
    }

    /// The state after the first `k` steps. O(k + events): a replay recomputes moments on
    /// demand instead of storing one per step.
    pub fn moment(&self, graph: &ToolGraph, events: &[Event], k: usize) -> Moment {
        let k = k.min(self.steps.len());
        let n = self.steps[..k]
            .iter()
            .rev()
            .find_map(|s| match *s {
                Step::Event(i) => Some(i + 1),
                Step::Search { .. } => None,
            })
            .unwrap_or(0);
        let mut m =
            Moment { position: k, events: n, visits: vec![0; graph.node_count()], ..Moment::default() };
        for (i, e) in events.iter().take(n).enumerate() {
            m.apply(graph, i, &e.kind, self.plans.get(i).and_then(Option::as_ref));
        }
        if k == self.steps.len() {
            // The replay is over: what the run ended with, even if it never said `Finished`.
            m.close();
        }
        self.progress(graph, &mut m);
        m.route_nodes = m.ran_nodes.clone();
        m.route_edges = m.ran_edges.clone();
        if let Some(p) = &m.plan {
            m.route_nodes.extend(p.nodes.iter().copied());
            m.route_edges.extend(p.edges.iter().copied());
        }
        if m.finished && !self.kept.is_empty() {
            // The route a finished run took is its executed path; work it branched back past
            // stays drawn as run, off the route.
            m.route_nodes.retain(|v| self.kept.contains(v));
            let kept = &self.kept;
            m.route_edges.retain(|&e| kept.contains(&graph.edge(e).from) && kept.contains(&graph.edge(e).to));
        }
        m.weights = self.weights.iter().rposition(|(from, _)| *from <= n).unwrap_or(0);
        m.focus = match k.checked_sub(1).map(|s| self.steps[s]) {
            Some(Step::Event(i)) => events.get(i).and_then(|e| tool_of(graph, &e.kind)),
            _ => None,
        };
        m.frame = self.frame_at(graph, k);
        m
    }

    /// The completions and traversed edges of the run by the moment's events.
    fn progress(&self, graph: &ToolGraph, m: &mut Moment) {
        let mut first = BTreeMap::new();
        // Completions come in order, each no earlier than the one before.
        for (c, &(_, v)) in self.completions.iter().enumerate().take_while(|(_, &(at, _))| at <= m.events) {
            m.completed = c + 1;
            if let Some(n) = m.visits.get_mut(v) {
                *n += 1;
            }
            m.ran_nodes.insert(v);
            first.entry(v).or_insert(c);
        }
        for &(at, e, c) in &self.traversed {
            if at > m.events {
                continue;
            }
            m.ran_edges.insert(e);
            let to = graph.edge(e).to;
            if to == graph.start() || first.get(&to).is_some_and(|&f| f < c) {
                *m.revisits.entry(e).or_insert(0) += 1;
            }
        }
    }

    /// The search at position `k`: under way, or about to start.
    fn frame_at(&self, graph: &ToolGraph, k: usize) -> Option<Frame> {
        let (search, steps) = match (k.checked_sub(1).map(|s| self.steps[s]), self.steps.get(k)) {
            (Some(Step::Search { search, step }), _) => (search, step + 1),
            (_, Some(Step::Search { search, step: 0 })) => (*search, 0),
            _ => return None,
        };
        let s = self.searches.get(search)?;
        Some(frame(&s.trace, graph.node_count(), &s.sources, steps))
    }
}
