//! What a task has done to each node of its graph, as its run and its monitors see it.

use serde_json::Value;

/// One node's state in a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeState {
    pub(crate) completed: bool,
    /// Failed (service), refused (policy) or known bad in this task: never routed through again
    /// in this task, whatever its breaker says later.
    pub(crate) avoided: bool,
    /// An edge of the run has left it (so it is not the tip of a branch).
    pub(crate) left: bool,
    pub(crate) retries_used: u32,
    pub(crate) visits: u32,
    /// Its last result, for edge guards.
    pub(crate) output: Option<Value>,
    /// The run has said (a `Shed` event) that it plans around this tool because of its health.
    pub(crate) told: bool,
    /// Its side effect was undone (it was branched back past).
    pub(crate) compensated: bool,
    /// A plan abandoned it (built nothing on it); a later plan may keep it again.
    pub(crate) abandoned: bool,
}

impl NodeState {
    /// Whether the node has completed in this task.
    pub fn is_completed(&self) -> bool {
        self.completed
    }
    /// Whether this task routes around the tool for good.
    pub fn is_avoided(&self) -> bool {
        self.avoided
    }
    /// How many times the node has completed (a cyclic workflow revisits).
    pub fn visits(&self) -> u32 {
        self.visits
    }
    /// Its last result (edge guards read it).
    pub fn output(&self) -> Option<&Value> {
        self.output.as_ref()
    }
    /// Whether its side effect was undone.
    pub fn is_compensated(&self) -> bool {
        self.compensated
    }
    /// Whether the current plan builds nothing on it (a plan branched back past it).
    pub fn is_abandoned(&self) -> bool {
        self.abandoned
    }
}
