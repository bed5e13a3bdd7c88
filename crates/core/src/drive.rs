//! The host loop, written once: ask the router what to do, perform the calls, report them,
//! answer escalations, until the run finishes. Every simulator of the lab, the CLI and the
//! tests drive runs with it; a real host with synchronous tools can too. (An asynchronous host,
//! such as shr-wasm's `Router.run`, keeps the same order of steps with its own awaits.)
//!
//! **Concurrent calls** follow one rule: the calls of a batch ([`Action::CallTools`]) start
//! together when the batch is handed out, each after its `delay_ms` (a retry's backoff), and take
//! the latency the host says; they are reported in the order given, each at the later of its own
//! finish and the previous report (the clock never goes back).
//!
//! ```
//! use shr_core::{drive, Host, Performed, Session, Task, ToolGraph, ToolResult, Call, Decision,
//!     EscalationRequest, Status};
//! struct AllWell;
//! impl Host for AllWell {
//!     fn call(&mut self, _: &ToolGraph, _: &Call, _: u64) -> Performed {
//!         Performed { result: ToolResult::ok(serde_json::json!({}), 5.0), latency_ms: 5 }
//!     }
//!     fn escalate(&mut self, _: &ToolGraph, _: &EscalationRequest, _: u64) -> Decision {
//!         Decision::Abort { message: "stop".into() }
//!     }
//! }
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"s","tool":false},{"id":"a"},{"id":"g","tool":false}],
//!   "edges":[{"from":"s","to":"a"},{"from":"a","to":"g"}],"start":"s","goal":"g"}"#).unwrap();
//! let mut s = Session::new(g, Task::default(), 0).unwrap();
//! let end = s.drive(&mut AllWell, 0);
//! assert_eq!(s.outcome().unwrap().status, Status::Completed);
//! assert_eq!(end, 5);
//! ```

use alloc::string::String;

use crate::event::Event;
use crate::graph::ToolGraph;
use crate::router::Router;
use crate::session::Run;
use crate::vocab::{Action, Call, Decision, EscalationRequest, ToolResult};
use crate::Millis;

/// Host steps after which [`drive`] gives up on a run that does not finish (a run finishes
/// within its tool and escalation budgets, far sooner).
pub const MAX_HOST_STEPS: u32 = 10_000;

/// What performing a call gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Performed {
    /// What the call gave, as the router takes it.
    pub result: ToolResult,
    /// How long the call took, on the host's clock.
    pub latency_ms: Millis,
}

/// A host's side of [`drive`]: its tools, its LLM (or person), and optional fault injection.
pub trait Host {
    /// Performs one call, started at `at`.
    fn call(&mut self, graph: &ToolGraph, call: &Call, at: Millis) -> Performed;

    /// Answers an escalation.
    fn escalate(&mut self, graph: &ToolGraph, request: &EscalationRequest, now: Millis) -> Decision;

    /// Control-flow fault injection (seed 004): a tool to run instead of `call`. The redirected
    /// call replaces the rest of its batch. None by default.
    fn redirect(&mut self, _graph: &ToolGraph, _call: &Call, _now: Millis) -> Option<String> {
        None
    }

    /// Sees the events one report produced (to tell an accepted result from a refused one).
    fn reported(&mut self, _call: &Call, _events: &[Event]) {}
}

/// A [`Host`] made of two closures: how a call goes (its result and latency) and how an
/// escalation is answered. For tests and small synchronous hosts.
///
/// ```
/// use shr_core::{drive::FnHost, Performed, Session, Task, ToolGraph, ToolResult, Decision, Status};
/// let g = ToolGraph::from_json(r#"{"nodes":[{"id":"s","tool":false},{"id":"a"},{"id":"g","tool":false}],
///   "edges":[{"from":"s","to":"a"},{"from":"a","to":"g"}],"start":"s","goal":"g"}"#).unwrap();
/// let mut s = Session::new(g, Task::default(), 0).unwrap();
/// let mut host = FnHost::new(
///     |_call| Performed { result: ToolResult::outage("down"), latency_ms: 3 },
///     |_request| Decision::Abort { message: "no way".into() },
/// );
/// s.drive(&mut host, 0);
/// assert_eq!(s.outcome().unwrap().status, Status::Escalated);
/// ```
#[derive(Debug)]
pub struct FnHost<C, E> {
    call: C,
    escalate: E,
}

impl<C, E> FnHost<C, E>
where
    C: FnMut(&Call) -> Performed,
    E: FnMut(&EscalationRequest) -> Decision,
{
    /// A host of two closures: one performs a call, the other answers an escalation.
    pub fn new(call: C, escalate: E) -> Self {
        FnHost { call, escalate }
    }
}

impl<C, E> Host for FnHost<C, E>
where
    C: FnMut(&Call) -> Performed,
    E: FnMut(&EscalationRequest) -> Decision,
{
    fn call(&mut self, _: &ToolGraph, call: &Call, _: Millis) -> Performed {
        (self.call)(call)
    }

    fn escalate(&mut self, _: &ToolGraph, request: &EscalationRequest, _: Millis) -> Decision {
        (self.escalate)(request)
    }
}

/// Drives `run` on `router` with `host` from clock `now` until it finishes (or, on a host or
/// router bug, stops making progress); returns the clock at the end.
pub fn drive(router: &mut Router, run: &mut Run, host: &mut impl Host, mut now: Millis) -> Millis {
    for _ in 0..MAX_HOST_STEPS {
        let Ok(action) = router.next(run, now) else { break };
        match action {
            Action::CallTools { calls } => {
                let start = now;
                for call in calls {
                    let (call, redirected) = match host.redirect(router.graph(), &call, now) {
                        None => (call, false),
                        Some(to) => match router.redirect(run, &to, now) {
                            Ok(c) => (c, true),
                            Err(_) => return now,
                        },
                    };
                    let at = start.saturating_add(call.delay_ms);
                    let performed = host.call(router.graph(), &call, at);
                    now = now.max(at.saturating_add(performed.latency_ms));
                    let before = run.events().len();
                    if router.report(run, &call.tool, performed.result, now).is_err() {
                        return now;
                    }
                    host.reported(&call, run.events().get(before..).unwrap_or(&[]));
                    if redirected {
                        break;
                    }
                }
            }
            Action::Escalate { request } => {
                let decision = host.escalate(router.graph(), &request, now);
                if router.resolve_escalation(run, decision, now).is_err() {
                    break;
                }
            }
            // What this run needs is held by other runs for now; a sync host lets time pass.
            Action::Pause { until } => now = now.max(until),
            // Every call is reported before the next question, so a sync host never waits.
            Action::Wait | Action::Finished { .. } => break,
        }
    }
    now
}
