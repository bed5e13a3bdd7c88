//! SHR core: fault-tolerant tool routing for LLM agents, as routing rather than reasoning.
//! Tools are nodes of a cost-weighted graph; Dijkstra finds the cheapest healthy plan; a failed
//! tool's weight becomes infinite and the plan is recomputed from where execution stands.
//!
//! `#![no_std]` + `alloc`, sans-IO: the [`Session`] decides, the host performs the calls and
//! passes the clock in. The LLM is asked only when no path exists ([`Action::Escalate`]).
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]
#![allow(missing_debug_implementations)]

extern crate alloc;

pub mod algo;
pub mod cyclic;
pub mod error;
pub mod event;
pub mod graph;
pub mod health;
pub mod limits;
pub mod monitor;
pub mod perturb;
pub mod rng;
pub mod scenario;
pub mod session;
pub mod validate;

/// Clock values, in milliseconds. Always passed in; the core never reads a clock.
pub type Millis = u64;

pub use algo::{Dijkstra, Plan, Trace};
pub use error::{GraphError, Problem, ProblemKind, SessionError};
pub use event::{Event, EventKind, PlanView};
pub use graph::{GraphSpec, NodeIx, ToolGraph};
pub use health::{BreakerConfig, BreakerState, HealthBook};
pub use monitor::{Context, Monitors, Signal, SignalKind};
pub use session::{
    Action, Call, Category, Decision, EscalationReason, EscalationRequest, Outcome, Session, SessionConfig,
    Status, Task, ToolFailure, ToolResult,
};
