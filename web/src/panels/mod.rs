//! The panels beside the graph, each following the replay's position: the route in words, the
//! three executors' counters, the escalations the LLM got, the monitors' competition at the
//! current decision, and the SHR run's event log.

mod counters;
mod escalations;
mod log;
mod monitors;
mod route;

pub use counters::Counters;
pub use escalations::Escalations;
pub use log::EventLog;
pub use monitors::MonitorPanel;
pub use route::RouteSummary;

use leptos::prelude::*;
use shr_core::event::{Event, EventKind};

use crate::lanes::Lane;
use crate::state::Page;

/// What a panel that follows only SHR's run says while another executor is replayed: that it
/// is SHR's, then `what` says what the replayed executor has instead.
fn shr_only(page: Page, what: fn(Lane) -> &'static str) -> impl IntoView {
    move || {
        let lane = page.replay.lane.get();
        (lane != Lane::Shr).then(|| {
            view! { <p class="small shr-only" data-testid="shr-only">{format!("Self-Healing Router only. {}", what(lane))}</p> }
        })
    }
}

/// The run's events that have happened at a moment of `n` events.
fn happened(events: &[Event], n: usize) -> &[Event] {
    events.get(..n).unwrap_or(events)
}

/// LLM calls so far: each escalation the LLM was asked (`llm_call` counts from 1).
fn llm_calls(events: &[Event]) -> u32 {
    events.iter().filter(|e| matches!(e.kind, EventKind::Escalated { llm_call, .. } if llm_call > 0)).count()
        as u32
}
