//! The three executors on the same graph: SHR's run (the timeline), the ReAct agent's
//! Thought / Action / Observation steps (one LLM call each) and the static workflow's moves
//! (its coded fallback edges, and the step it skips while still reporting success). Each is
//! replayed on the page's one clock; a baseline's position is drawn as a [`Moment`] built
//! from its own trace, never from SHR's run.

use std::collections::BTreeSet;

use shr_core::{BreakerState, NodeIx, ToolGraph};
use shr_eval::scenario::react::ReactAction;
use shr_eval::scenario::{ReactStep, WorkflowMove};

use crate::model::View;
use crate::timeline::{edge_ix, Moment};

/// Which executor's run the replay shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lane {
    #[default]
    Shr,
    React,
    Static,
}

impl Lane {
    pub const ALL: [Lane; 3] = [Lane::Shr, Lane::React, Lane::Static];

    pub fn key(self) -> &'static str {
        match self {
            Lane::Shr => "shr",
            Lane::React => "react",
            Lane::Static => "static",
        }
    }
}

/// One replay step of a baseline, as the page draws and tells it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneStep {
    /// The tool called, and whether it answered.
    pub call: Option<(NodeIx, bool)>,
    /// A coded fallback edge taken: from the failed primary to this step's tool.
    pub fallback_from: Option<NodeIx>,
    /// A step skipped with no coded edge for its failure.
    pub skipped: Vec<NodeIx>,
    /// The goal claimed, and whether the claim hides a missing step (silent failure).
    pub claim: Option<(NodeIx, bool)>,
    /// LLM calls and tool calls so far, this step included.
    pub llm_calls: u32,
    pub tool_calls: u32,
    /// The step in words: (heading, text) lines.
    pub lines: Vec<(&'static str, String)>,
    /// Marked on the graph and in the trace: a skipped step, a silent success.
    pub marked: bool,
}

fn label(g: &ToolGraph, id: &str) -> String {
    g.index(id).map_or_else(|| id.to_string(), |v| g.node(v).label().to_string())
}

/// ReAct's steps: each is one LLM call, so the counter ticks at every one.
pub fn react_steps(g: &ToolGraph, steps: &[ReactStep]) -> Vec<LaneStep> {
    let mut tools = 0;
    steps
        .iter()
        .map(|s| {
            let mut out = LaneStep { llm_calls: s.llm_call, ..Default::default() };
            out.lines.push(("Thought", s.thought.clone()));
            match &s.action {
                ReactAction::Call { tool, capability } => {
                    tools += 1;
                    let ok =
                        s.observation.as_deref().is_some_and(|o| !o.starts_with(&format!("`{tool}` failed")));
                    out.call = g.index(tool).map(|v| (v, ok));
                    out.lines.push(("Action", format!("call {} (for {capability})", label(g, tool))));
                }
                ReactAction::Finish { goal, status, message } => {
                    out.claim = g.index(goal).map(|v| (v, false));
                    let note = message.as_deref().map(|m| format!(": {m}")).unwrap_or_default();
                    out.lines.push(("Action", format!("finish, {status:?} at {}{note}", label(g, goal))));
                }
            }
            if let Some(o) = &s.observation {
                out.lines.push(("Observation", o.clone()));
            }
            if let Some(e) = s.error {
                out.lines.push(("Mistake", format!("{e:?}")));
                out.marked = true;
            }
            out.tool_calls = tools;
            out
        })
        .collect()
}

/// The static workflow's moves; it never calls an LLM.
pub fn static_steps(g: &ToolGraph, moves: &[WorkflowMove]) -> Vec<LaneStep> {
    let mut tools = 0;
    let labels = |ids: &[String]| ids.iter().map(|t| label(g, t)).collect::<Vec<_>>().join(", ");
    moves
        .iter()
        .map(|m| {
            let mut out = LaneStep::default();
            match m {
                WorkflowMove::Call { tool, ok, fallback_from } => {
                    tools += 1;
                    out.call = g.index(tool).map(|v| (v, *ok));
                    out.fallback_from = fallback_from.as_deref().and_then(|f| g.index(f));
                    let verdict = if *ok { "✓ answered" } else { "✗ failed" };
                    let text = match fallback_from {
                        Some(f) => format!(
                            "coded fallback edge {} → {}: call {} … {verdict}",
                            label(g, f),
                            label(g, tool),
                            label(g, tool)
                        ),
                        None => format!("call {} … {verdict}", label(g, tool)),
                    };
                    out.lines.push(("Step", text));
                }
                WorkflowMove::Guard { key, goal, .. } => out.lines.push((
                    "Coded rule",
                    format!("`{key}` is over its coded limit: detour to {}", label(g, goal)),
                )),
                WorkflowMove::Detour { goal, .. } => out.lines.push((
                    "Coded detour",
                    format!("every coded edge of the step failed: detour to {}", label(g, goal)),
                )),
                WorkflowMove::Skip { tools: skipped, .. } => {
                    out.skipped = skipped.iter().filter_map(|t| g.index(t)).collect();
                    out.marked = true;
                    out.lines.push((
                        "⚠ Skipped",
                        format!(
                            "no coded edge for this failure: the workflow moves on without the step ({})",
                            labels(skipped)
                        ),
                    ));
                }
                WorkflowMove::Report { goal, silent } => {
                    out.claim = g.index(goal).map(|v| (v, *silent));
                    out.marked = *silent;
                    out.lines.push(("Report", format!("reports success: {}", label(g, goal))));
                    if *silent {
                        out.lines.push((
                            "⚠ Silent failure",
                            "a required step never ran, yet the run reports success".to_string(),
                        ));
                    }
                }
            }
            out.tool_calls = tools;
            out
        })
        .collect()
}

/// The baseline's steps of a lane (none for SHR's, whose steps are the timeline's).
pub fn steps(v: &View, lane: Lane) -> Vec<LaneStep> {
    match lane {
        Lane::Shr => Vec::new(),
        Lane::React => react_steps(&v.graph, &v.react_steps),
        Lane::Static => static_steps(&v.graph, &v.workflow_moves),
    }
}

/// The nodes a baseline completed in its first `k` steps, in order: the start, each tool that
/// answered, the goal it claimed. A success claimed with a step missing (silent) is not a
/// completion: the route ends where the work ended, and the overlay marks the claim.
pub fn path(g: &ToolGraph, steps: &[LaneStep], k: usize) -> Vec<NodeIx> {
    let mut path = vec![g.start()];
    for s in &steps[..k.min(steps.len())] {
        if let Some((v, true)) = s.call {
            reach(g, &mut path, v);
        }
        if let Some((v, false)) = s.claim {
            reach(g, &mut path, v);
        }
    }
    path
}

/// Adds `v` to a baseline's path: once for a retry of the same tool, and after the waypoints
/// (nodes that are no tool, the joins of branches) that lead to it from the work so far when
/// no edge does: a baseline calls tools, the graph's waypoints are passed on the way.
fn reach(g: &ToolGraph, path: &mut Vec<NodeIx>, v: NodeIx) {
    if path.last() == Some(&v) {
        return;
    }
    if !path.iter().any(|&a| edge_ix(g, a, v).is_some()) {
        let ways: Vec<NodeIx> = g
            .in_edges(v)
            .iter()
            .map(|&e| g.edge(e as usize).from)
            .filter(|&w| !g.node(w).tool && !path.contains(&w))
            .filter(|&w| path.iter().any(|&a| edge_ix(g, a, w).is_some()))
            .collect();
        path.extend(ways);
    }
    path.push(v);
}

/// What the graph draws after the first `k` steps of a baseline: the tools it completed and
/// the edges between them, the tools it saw fail, the tool of the step just taken.
pub fn moment(g: &ToolGraph, steps: &[LaneStep], k: usize) -> Moment {
    let k = k.min(steps.len());
    let mut m = Moment { position: k, finished: k == steps.len(), ..Moment::default() };
    for s in &steps[..k] {
        if let Some((v, false)) = s.call {
            m.breakers.insert(v, BreakerState::Open);
            m.seen_failed.insert(v);
        }
    }
    let path = path(g, steps, k);
    m.focus = k.checked_sub(1).and_then(|i| steps[i].call.map(|c| c.0).or(steps[i].claim.map(|c| c.0)));
    // Each tool is reached from the latest one before it with an edge into it: a fallback
    // follows the step before the primary that failed, not the primary.
    m.ran_edges = (1..path.len())
        .filter_map(|i| path[..i].iter().rev().find_map(|&a| edge_ix(g, a, path[i])))
        .collect();
    m.ran_nodes = path.iter().copied().collect::<BTreeSet<_>>();
    m.route_nodes = m.ran_nodes.clone();
    m.route_edges = m.ran_edges.clone();
    m
}

/// The replay length of a lane.
pub fn len(v: &View, lane: Lane) -> usize {
    match lane {
        Lane::Shr => v.timeline.len(),
        Lane::React => v.react_steps.len(),
        Lane::Static => v.workflow_moves.len(),
    }
}

/// What the step just taken did, in words.
pub fn describe(v: &View, lane: Lane, k: usize) -> String {
    let steps = steps(v, lane);
    match k.checked_sub(1).and_then(|i| steps.get(i)) {
        None => match lane {
            Lane::React => "The ReAct agent starts: every step below is one call to its LLM.".into(),
            _ => "The static workflow starts: coded steps, one fallback edge each.".into(),
        },
        Some(s) => s.lines.iter().map(|(h, t)| format!("{h}: {t}")).collect::<Vec<_>>().join(" · "),
    }
}

/// Whether a lane has a run of its own to replay here.
pub fn available(v: &View, lane: Lane) -> bool {
    match lane {
        Lane::Shr => true,
        Lane::React => !v.react_steps.is_empty(),
        Lane::Static => !v.workflow_moves.is_empty(),
    }
}
