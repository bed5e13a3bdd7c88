//! The failure-combination sweep: every subset of a domain's tools down from the start, each
//! executor run on the domain's happy-path task, and each run judged by one rule for all:
//! - when the original goal can still be derived from the tools left up (an oracle of its own,
//!   [`reachable`], not the router's search), a correct run completes it;
//! - when it cannot, a correct run does not claim it: it demotes to a goal it really reached, or
//!   stops with an escalation;
//! - a run that claims a goal it has no valid derivation of ([`shr_core::audit_completion`]) is a
//!   silent failure, never correct; an SHR run must also keep the observability guarantee.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Serialize;

use crate::scenario::{self, Executor, ReactConfig, RunReport, Scenario};
use shr_core::event::EventKind;
use shr_core::graph::{Join, NodeIx, ToolGraph};
use shr_core::{EscalationReason, Status};

/// Domains with more tools than this are not swept (2^n runs per executor).
pub const MAX_TOOLS: usize = 16;

/// One executor's run on one failure set, reduced to what the sweep counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRecord {
    pub executor: Executor,
    pub correct: bool,
    pub silent: bool,
    pub status: Status,
    pub goal: String,
    pub llm_calls: u32,
    pub tool_calls: u32,
    /// Tool calls that failed.
    pub failed_calls: u32,
    /// Route searches (SHR: the first plan, each reroute, each search that found no path; 0 for
    /// the baselines, which do not search).
    pub searches: u32,
    /// Why the run is not correct (empty when it is).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub problem: String,
}

/// One failure set and the three executors' runs on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepSet {
    pub down: Vec<String>,
    /// The original goal can still be derived from the tools left up.
    pub reachable: bool,
    /// In [`Executor::ALL`] order.
    pub runs: Vec<SweepRecord>,
}

/// A domain's sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DomainSweep {
    pub domain: String,
    /// The scenario whose task every set runs (the domain's happy path).
    pub task: String,
    pub tools: Vec<String>,
    pub sets: Vec<SweepSet>,
}

/// Whether `goal` can be derived with the `down` tools failed: a fixpoint over the graph where a
/// node is derivable when it is not down and enough of its predecessors are (one, or `k` for a
/// quorum join). Independent of the router: no costs, no search order.
pub fn reachable(graph: &ToolGraph, down: &[NodeIx], goal: NodeIx) -> bool {
    let n = graph.node_count();
    let mut ok = alloc::vec![false; n];
    let start = graph.start();
    if down.contains(&start) {
        return false;
    }
    ok[start] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..n {
            if ok[v] || down.contains(&v) {
                continue;
            }
            let have = graph.in_edges(v).iter().filter(|&&e| ok[graph.edge(e as usize).from]).count();
            let need = match graph.node(v).join {
                Join::Any => 1,
                Join::Quorum(k) => k as usize,
            };
            if have >= need && have > 0 {
                ok[v] = true;
                changed = true;
            }
        }
    }
    ok.get(goal).copied().unwrap_or(false)
}

fn searches(report: &RunReport) -> u32 {
    report
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::PathPlanned { .. }
                    | EventKind::Rerouted { .. }
                    | EventKind::Escalated { reason: EscalationReason::NoPath, .. }
            )
        })
        .count() as u32
}

fn failed_calls(graph: &ToolGraph, report: &RunReport) -> u32 {
    if report.executor == Executor::Shr {
        return report.events.iter().filter(|e| matches!(e.kind, EventKind::ToolFailed { .. })).count()
            as u32;
    }
    let succeeded =
        report.path.iter().filter(|id| graph.index(id).is_some_and(|v| graph.node(v).tool)).count();
    report.tool_calls.saturating_sub(succeeded as u32)
}

/// The sweep's rule (module docs).
pub(crate) fn judge(report: &RunReport, main_goal: &str, reachable: bool) -> String {
    if report.silent_failure {
        return format!("claimed `{}` with a required step missing", report.goal);
    }
    if report.executor == Executor::Shr {
        if let Err(b) = shr_core::check_observability(&report.events) {
            return format!("failure of `{}` with no reroute or escalation", b.tool);
        }
    }
    let claimed_main = report.status == Status::Completed && report.goal == main_goal;
    match (reachable, claimed_main) {
        (true, true) | (false, false) => String::new(),
        (true, false) => {
            format!("`{main_goal}` was reachable; ended {:?} at `{}`", report.status, report.goal)
        }
        (false, true) => format!("claimed `{main_goal}`, which was out of reach"),
    }
}

fn record(graph: &ToolGraph, report: &RunReport, main_goal: &str, reachable: bool) -> SweepRecord {
    let problem = judge(report, main_goal, reachable);
    SweepRecord {
        executor: report.executor,
        correct: problem.is_empty(),
        silent: report.silent_failure,
        status: report.status,
        goal: report.goal.clone(),
        llm_calls: report.llm_calls,
        tool_calls: report.tool_calls,
        failed_calls: failed_calls(graph, report),
        searches: searches(report),
        problem,
    }
}

/// The domain's happy-path task: its first scenario with no failure that completes its goal.
fn task_of<'a>(pack: &'a [Scenario], domain: &str) -> Option<&'a Scenario> {
    pack.iter()
        .find(|s| s.domain == domain && s.failures.is_empty() && s.expected.status == Status::Completed)
}

/// Sweeps every domain of the pack (in the order they first appear). The ReAct agent runs with
/// `react`.
pub fn sweep(pack: &[Scenario], react: &ReactConfig) -> Result<Vec<DomainSweep>, String> {
    let mut domains: Vec<&str> = Vec::new();
    for s in pack {
        if !domains.contains(&s.domain.as_str()) {
            domains.push(&s.domain);
        }
    }
    let mut out = Vec::new();
    for d in domains {
        let Some(task) = task_of(pack, d) else { continue };
        out.push(sweep_domain(task, react)?);
    }
    Ok(out)
}

/// Every subset of the task's tools down from the start, in order of the bit mask over the
/// graph's tools (tool i down when bit i is set).
pub fn sweep_domain(task: &Scenario, react: &ReactConfig) -> Result<DomainSweep, String> {
    let graph = &task.graph;
    let tools: Vec<NodeIx> = (0..graph.node_count()).filter(|&v| graph.node(v).tool).collect();
    if tools.len() > MAX_TOOLS {
        return Err(format!(
            "{}: {} tools, more than the {MAX_TOOLS} a sweep of every subset allows",
            task.domain,
            tools.len()
        ));
    }
    let main_goal = graph.id(graph.goal()).to_string();
    let mut sets = Vec::with_capacity(1 << tools.len());
    for mask in 0u32..(1u32 << tools.len()) {
        let down: Vec<NodeIx> =
            tools.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &v)| v).collect();
        let ids: Vec<String> = down.iter().map(|&v| graph.id(v).to_string()).collect();
        let s = task.with_down(&ids);
        let ok = reachable(graph, &down, graph.goal());
        let runs = Executor::ALL
            .iter()
            .map(|&ex| {
                let report = match ex {
                    Executor::React => scenario::run_react(&s, react).report,
                    _ => scenario::run(&s, ex),
                };
                record(graph, &report, &main_goal, ok)
            })
            .collect();
        sets.push(SweepSet { down: ids, reachable: ok, runs });
    }
    Ok(DomainSweep {
        domain: task.domain.clone(),
        task: task.id.clone(),
        tools: tools.iter().map(|&v| graph.id(v).to_string()).collect(),
        sets,
    })
}
