//! A scenario's story: 3 to 6 narrated steps for a reader who has not read the paper, each
//! told when SHR's run reaches an event (`at`), naming the graph elements it is about
//! (`highlight`: node ids and `from->to` edges). The page tells a step from the replay position
//! of its event on, so the narration follows the one clock.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{err, ScenarioError};
use shr_core::graph::ToolGraph;

/// One narrated step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoryStep {
    /// When it is told: see [`Anchor::parse`].
    pub at: String,
    pub text: String,
    /// Node ids and `from->to` edges the step is about.
    #[serde(default)]
    pub highlight: Vec<String>,
    /// Another executor's run this step invites the reader to watch: `react` or `static`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show: Option<String>,
}

/// The event of SHR's run a story step is told at: the first such event after the previous
/// step's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Before the run starts.
    Start,
    /// The first plan.
    Planned,
    Called(String),
    Succeeded(String),
    Failed(String),
    /// A reroute around a failed tool.
    Rerouted,
    /// A monitor's signal won a decision.
    SignalWon,
    Escalated,
    Demoted,
    Finished,
}

impl Anchor {
    /// `start`, `planned`, `called:<tool>`, `succeeded:<tool>`, `failed:<tool>`, `rerouted`,
    /// `signal_won`, `escalated`, `demoted`, `finished`.
    pub fn parse(at: &str) -> Option<Anchor> {
        let tool = |t: &str| (!t.is_empty()).then(|| String::from(t));
        Some(match at.split_once(':') {
            Some(("called", t)) => Anchor::Called(tool(t)?),
            Some(("succeeded", t)) => Anchor::Succeeded(tool(t)?),
            Some(("failed", t)) => Anchor::Failed(tool(t)?),
            Some(_) => return None,
            None => match at {
                "start" => Anchor::Start,
                "planned" => Anchor::Planned,
                "rerouted" => Anchor::Rerouted,
                "signal_won" => Anchor::SignalWon,
                "escalated" => Anchor::Escalated,
                "demoted" => Anchor::Demoted,
                "finished" => Anchor::Finished,
                _ => return None,
            },
        })
    }

    /// The tool it names, if any.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Anchor::Called(t) | Anchor::Succeeded(t) | Anchor::Failed(t) => Some(t),
            _ => None,
        }
    }
}

/// Checks a story against its graph: 3 to 6 steps, each `at` well formed and naming a tool of
/// the graph, each highlight a node or an edge of it, some text.
pub fn check(story: &[StoryStep], graph: &ToolGraph, file: &str) -> Result<(), ScenarioError> {
    if !(3..=6).contains(&story.len()) {
        return Err(err(file, "story", format!("{} steps; a story has 3 to 6", story.len())));
    }
    for (i, s) in story.iter().enumerate() {
        let anchor = Anchor::parse(&s.at)
            .ok_or_else(|| err(file, &format!("story[{i}].at"), format!("unknown moment `{}`", s.at)))?;
        if let Some(t) = anchor.tool() {
            if graph.index(t).is_none_or(|v| !graph.node(v).tool) {
                return Err(err(file, &format!("story[{i}].at"), format!("unknown tool `{t}`")));
            }
        }
        if s.show.as_deref().is_some_and(|x| x != "react" && x != "static") {
            return Err(err(file, &format!("story[{i}].show"), "`react` or `static`"));
        }
        if s.text.trim().is_empty() {
            return Err(err(file, &format!("story[{i}].text"), "empty"));
        }
        for (j, h) in s.highlight.iter().enumerate() {
            let known = match h.split_once("->") {
                Some((a, b)) => match (graph.index(a), graph.index(b)) {
                    (Some(a), Some(b)) => graph.out_edges(a).iter().any(|&e| graph.edge(e as usize).to == b),
                    _ => false,
                },
                None => graph.index(h).is_some(),
            };
            if !known {
                return Err(err(
                    file,
                    &format!("story[{i}].highlight[{j}]"),
                    format!("unknown node or edge `{h}`"),
                ));
            }
        }
    }
    Ok(())
}

impl Anchor {
    fn matches(&self, e: &shr_core::event::EventKind) -> bool {
        use shr_core::event::EventKind as K;
        match (self, e) {
            (Anchor::Planned, K::PathPlanned { .. }) => true,
            (Anchor::Called(t), K::ToolCalled { tool, .. }) => t == tool,
            (Anchor::Succeeded(t), K::ToolSucceeded { tool, .. }) => t == tool,
            (Anchor::Failed(t), K::ToolFailed { tool, .. }) => t == tool,
            (Anchor::Rerouted, K::Rerouted { around, .. }) => !around.is_empty(),
            (Anchor::SignalWon, K::SignalWon { .. }) => true,
            (Anchor::Escalated, K::Escalated { .. }) => true,
            (Anchor::Demoted, K::GoalDemoted { .. }) => true,
            (Anchor::Finished, K::Finished { .. }) => true,
            _ => false,
        }
    }
}

/// Where each step is told in a run's events: `Some(None)` before the first event (`start`),
/// `Some(Some(i))` at event `i`, the first match after the previous step's; `None` when the run
/// has no such event (a story tells the scenario's own failures, not another run).
pub fn anchors(story: &[StoryStep], events: &[shr_core::event::Event]) -> Vec<Option<Option<usize>>> {
    let mut from = 0;
    story
        .iter()
        .map(|s| match Anchor::parse(&s.at)? {
            Anchor::Start => Some(None),
            a => {
                let i = from + events.get(from..)?.iter().position(|e| a.matches(&e.kind))?;
                from = i + 1;
                Some(Some(i))
            }
        })
        .collect()
}
