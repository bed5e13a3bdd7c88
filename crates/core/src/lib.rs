//! SHR core: fault-tolerant tool routing for LLM agents, as routing rather than reasoning.
//! Tools are nodes of a cost-weighted graph; Dijkstra finds the cheapest healthy plan; a failed
//! tool's weight becomes infinite and the plan is recomputed from where execution stands.
//!
//! `#![no_std]` + `alloc`, sans-IO: a [`Router`] holds the graph and one live health; each
//! task is a [`Run`] the router drives ([`Session`]: a router with one run). The router decides,
//! the host performs the calls and passes the clock in. The LLM is asked only when no path
//! exists ([`Action::Escalate`]).
//!
//! Modules, lowest first (each uses only those above it): `limits`, `json_path`, `sort`,
//! `error`, `rng`, `graph`, `validate`, `algo`, `health`, `progress`, `monitor`, `vocab`,
//! `event`, `audit`, `metrics`, `session`, `router`, `standalone`, `drive`, `builder`.
//!
//! [`Router`], [`Session`] and [`Run`] are `Send` and `Sync`: one router can sit in an
//! `Arc<Mutex<Router>>` shared by the tasks of a multi-thread runtime (see
//! `examples/tokio_shared.rs`). A graph is read from JSON ([`ToolGraph::from_json`]) or built
//! in Rust ([`GraphBuilder`]).
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod algo;
pub mod audit;
mod builder;
pub mod drive;
pub mod error;
pub mod event;
pub mod graph;
pub mod health;
pub mod json_path;
pub mod limits;
pub mod metrics;
pub mod monitor;
pub mod progress;
pub mod rng;
pub mod router;
pub mod session;
mod sort;
mod standalone;
pub mod validate;
pub mod vocab;

/// Clock values, in milliseconds. Always passed in; the core never reads a clock.
pub type Millis = u64;

pub use algo::{Dijkstra, Plan, Trace};
pub use audit::{audit_completion, check_observability, Breach};
pub use builder::GraphBuilder;
pub use drive::{drive, Host, Performed};
pub use error::{AuditError, ConfigError, GraphError, Problem, ProblemKind, SessionError};
pub use event::{Event, EventKind, PlanView};
pub use graph::{EdgeSpec, GraphSpec, Guard, NodeIx, NodeSpec, RetryPolicy, ToolGraph};
pub use health::Observation;
pub use health::{BreakerConfig, BreakerState, HealthBook, HealthDelta};
pub use monitor::{Context, Monitor, MonitorKind, Monitors, Signal, SignalKind};
pub use progress::NodeState;
pub use router::Router;
pub use session::Run;
pub use standalone::Session;
pub use validate::Validator;
pub use vocab::{
    Action, Call, Category, Decision, EscalationReason, EscalationRequest, Outcome, ReplanFrom,
    SessionConfig, Status, Task, ToolFailure, ToolResult,
};
