//! Typed errors. Every error names what is wrong (the offending id or field) so that a host can
//! show it to a person; nothing in the core panics on input.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

/// What kind of problem a graph description has.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// The text is not JSON, or not of the description's shape.
    MalformedJson,
    /// Two nodes share an id.
    DuplicateId,
    /// An id is empty or too long.
    BadId,
    /// An edge or a task names a node that does not exist.
    UnknownNode,
    /// A cost is below zero.
    NegativeCost,
    /// A cost is NaN or infinite.
    NonFiniteCost,
    /// The description has no start node.
    MissingStart,
    /// The description has no goal node.
    MissingGoal,
    /// An edge leads from a node to itself.
    SelfLoop,
    /// Two edges join the same pair of nodes in the same direction.
    DuplicateEdge,
    /// A quorum join asks for zero inputs, or for more inputs than the node has.
    BadQuorum,
    /// A label is longer than [`crate::limits::MAX_LABEL`].
    LabelTooLong,
    /// The description has more nodes or edges than the limits allow.
    TooLarge,
    /// A field has a value outside its range (retry attempts, quota, validator bounds...).
    BadValue,
    /// Warning only: the goal cannot be reached even with every tool healthy.
    GoalUnreachable,
    /// Warning only: costs large enough that a path's total can overflow to infinity.
    CostOverflow,
    /// The description is of a format version this build does not read.
    UnsupportedVersion,
}

/// One problem found in a graph description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    /// What kind of problem it is.
    pub kind: ProblemKind,
    /// The offending id (node id, `from->to` for an edge, or the field name).
    pub at: String,
    /// Where in the description, as a JSON pointer into it (`/nodes/3/retry/attempts`); empty
    /// when the text is not JSON at all.
    #[serde(default)]
    pub path: String,
    /// What is wrong, for people.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.at, self.message)
        } else {
            write!(f, "{} ({}): {}", self.at, self.path, self.message)
        }
    }
}

/// A graph description was refused. Holds every problem found, not only the first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphError {
    /// Every problem found, in description order.
    pub problems: Vec<Problem>,
}

impl GraphError {
    pub(crate) fn single(kind: ProblemKind, at: impl Into<String>, message: impl Into<String>) -> Self {
        GraphError {
            problems: alloc::vec![Problem {
                kind,
                at: at.into(),
                path: String::new(),
                message: message.into()
            }],
        }
    }

    /// Whether any problem is of the given kind.
    pub fn has(&self, kind: ProblemKind) -> bool {
        self.problems.iter().any(|p| p.kind == kind)
    }
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid tool graph ({} problem", self.problems.len())?;
        if self.problems.len() != 1 {
            f.write_str("s")?;
        }
        f.write_str(")")?;
        for p in &self.problems {
            write!(f, "; {p}")?;
        }
        Ok(())
    }
}

impl core::error::Error for GraphError {}

/// A host drove a session (a [`crate::Session`], or a [`crate::Run`] through its
/// [`crate::Router`]) in a way it cannot accept. The host is at fault.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum SessionError {
    /// The task names a node the graph does not have.
    UnknownNode {
        /// The id named.
        id: String,
    },
    /// A report names a tool that has no call in flight (never called, or reported twice).
    NotInFlight {
        /// The tool named.
        tool: String,
    },
    /// `resolve_escalation` was called while no escalation was pending.
    NoEscalation,
    /// A decision demotes to a goal the graph does not have.
    UnknownGoal {
        /// The goal named.
        goal: String,
    },
    /// The session has finished; it takes no more reports.
    Finished,
    /// The run was started by another router (a graph of another shape).
    ForeignRun,
    /// A setting of the session's limits is out of range (see [`ConfigError`]).
    BadConfig {
        /// The setting's path (`breaker.failure_rate`).
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

impl SessionError {
    pub(crate) fn config(e: ConfigError) -> Self {
        SessionError::BadConfig { field: e.field, message: e.message }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::UnknownNode { id } => write!(f, "unknown node `{id}`"),
            SessionError::NotInFlight { tool } => {
                write!(f, "tool `{tool}` has no call in flight (never called, or already reported)")
            }
            SessionError::NoEscalation => f.write_str("no escalation is pending"),
            SessionError::UnknownGoal { goal } => write!(f, "decision names unknown goal `{goal}`"),
            SessionError::Finished => f.write_str("the session has finished"),
            SessionError::ForeignRun => f.write_str("the run belongs to another router"),
            SessionError::BadConfig { field, message } => write!(f, "{field} {message}"),
        }
    }
}

impl core::error::Error for SessionError {}

/// A setting is out of its range. The host (or whoever wrote the configuration) is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting's dotted path, e.g. `breaker.failure_rate`.
    pub field: String,
    /// What is wrong with it, e.g. `must be a number in 0..=1, got 2`.
    pub message: String,
}

impl ConfigError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { field: field.into(), message: message.into() }
    }

    /// The same error for a setting nested in `parent`.
    pub fn within(self, parent: &str) -> Self {
        ConfigError { field: alloc::format!("{parent}.{}", self.field), message: self.message }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.field, self.message)
    }
}

impl core::error::Error for ConfigError {}

/// A run that claims success without a valid derivation of its goal: it silently skipped a
/// required step (see [`crate::audit::audit_completion`]).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditError {
    /// The goal is not among the completed nodes.
    GoalNotReached {
        /// The goal's id.
        goal: String,
    },
    /// A node completed with fewer completed inputs than its join needs.
    MissingInputs {
        /// The node's id.
        node: String,
        /// Completed inputs it had.
        have: usize,
        /// Completed inputs its join needs.
        need: usize,
    },
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::GoalNotReached { goal } => write!(f, "goal `{goal}` was not reached"),
            AuditError::MissingInputs { node, have, need } => {
                write!(f, "`{node}` completed with {have} of the {need} inputs it needs")
            }
        }
    }
}

impl core::error::Error for AuditError {}
