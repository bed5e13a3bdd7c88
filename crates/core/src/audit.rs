//! The two guarantees a run is checked against, after the fact and from the outside:
//! - [`audit_completion`]: a run that claims success has a valid derivation of its goal (no
//!   required step silently skipped);
//! - [`check_observability`]: every failure ends as a logged reroute, retry or escalation
//!   (DESIGN section 7).
//!
//! Both read only the graph and what the run reported, so they judge any executor: SHR, the
//! lab's baselines, or a host's own.

use alloc::string::{String, ToString};

use crate::error::AuditError;
use crate::event::{Event, EventKind};
use crate::graph::{Join, NodeIx, ToolGraph};

/// Checks that a set of completed nodes is a valid derivation of `goal` in the graph: every
/// completed node other than `start` has a completed predecessor (or `k` for a quorum join).
/// A run that claims success without this has silently skipped a required step.
///
/// O(V + E) over the completed nodes' in-edges.
pub fn audit_completion(
    graph: &ToolGraph,
    start: NodeIx,
    completed: &[NodeIx],
    goal: NodeIx,
) -> Result<(), AuditError> {
    let mut done = alloc::vec![false; graph.node_count()];
    for &v in completed {
        if let Some(d) = done.get_mut(v) {
            *d = true;
        }
    }
    if !done.get(goal).copied().unwrap_or(false) {
        return Err(AuditError::GoalNotReached { goal: graph.id(goal).to_string() });
    }
    for &v in completed {
        if v == start || v >= graph.node_count() {
            continue;
        }
        let have = graph.in_edges(v).iter().filter(|&&e| done[graph.edge(e as usize).from]).count();
        let need = match graph.node(v).join {
            Join::Any => 1,
            Join::Quorum(k) => k as usize,
        };
        if have < need {
            return Err(AuditError::MissingInputs { node: graph.id(v).to_string(), have, need });
        }
    }
    Ok(())
}

/// A breach of the observability guarantee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breach {
    /// `seq` of the `ToolFailed` event that nothing answered.
    pub seq: u32,
    /// The tool that failed.
    pub tool: String,
}

/// Checks that every `ToolFailed` is answered later in the stream by a `Retried` of the same
/// tool, a `Rerouted` whose `around` names it, or an `Escalated` whose `failed` names it. Any
/// other reroute or escalation does not count: it answers a different failure.
///
/// O(F x N) for F failures in N events.
pub fn check_observability(events: &[Event]) -> Result<(), Breach> {
    for (i, e) in events.iter().enumerate() {
        if let EventKind::ToolFailed { tool, .. } = &e.kind {
            let answered = events[i + 1..].iter().any(|later| match &later.kind {
                EventKind::Retried { tool: t, .. } => t == tool,
                EventKind::Rerouted { around, .. } => around.contains(tool),
                EventKind::Escalated { failed, .. } => failed.contains(tool),
                _ => false,
            });
            if !answered {
                return Err(Breach { seq: e.seq, tool: tool.clone() });
            }
        }
    }
    Ok(())
}
