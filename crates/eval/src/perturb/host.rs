//! The tools of a perturbed task (the victim's fault, by mode and family) and the host that
//! runs them for the session, with the judge when the arm has one.

use alloc::string::String;
use alloc::vec::Vec;

use super::judge::{self, Judge};
use super::world::Record;
use super::{corrupt, Duration, Family, FaultProfile, GeneratedTask, Mode};
use shr_core::event::{Event, EventKind};
use shr_core::graph::{NodeIx, ToolGraph};
use shr_core::Millis;
use shr_core::{Call, Category, Decision, EscalationRequest, Host, Performed, ToolFailure, ToolResult};

/// Tools of a generated task under a fault profile.
#[derive(Clone, Debug)]
pub struct PerturbedTools {
    victim: Option<NodeIx>,
    mode: Mode,
    family: Family,
    duration: Duration,
    record: Record,
    /// Each node's contract, by index.
    contracts: Vec<String>,
    seed: u64,
    victim_calls: u32,
    first_at: Millis,
    /// Calls the fault actually hit (a family with nothing to break hits nothing).
    hits: u32,
    /// Wrong data the host handed over and the session accepted.
    pub corrupted_accepted: bool,
}

impl PerturbedTools {
    pub fn new(graph: &ToolGraph, task: &GeneratedTask, fault: &FaultProfile, family: Family) -> Self {
        PerturbedTools {
            victim: graph.index(&fault.target),
            mode: fault.mode,
            family,
            duration: task.duration,
            record: task.record.clone(),
            contracts: graph.nodes().iter().map(|n| String::from(task.contract_of(n.id()))).collect(),
            seed: task.seed,
            victim_calls: 0,
            first_at: 0,
            hits: 0,
            corrupted_accepted: false,
        }
    }

    /// Performs a call at `at`; returns the result and whether it carries wrong data.
    pub fn call(&mut self, tool: NodeIx, at: Millis) -> (ToolResult, bool) {
        let contract = self.contracts.get(tool).map_or("", String::as_str);
        let answer = self.record.answer(contract, tool, at);
        let clean = ToolResult::ok(answer.clone(), 50.0);
        if Some(tool) != self.victim || self.mode == Mode::NP {
            return (clean, false);
        }
        self.victim_calls += 1;
        if self.victim_calls == 1 {
            self.first_at = at;
        }
        let hit = self.mode.permanent() || self.duration.holds(self.victim_calls, at, self.first_at);
        if !hit {
            return (clean, false);
        }
        self.hits += 1;
        match self.mode {
            Mode::P1 => (ToolResult::transient("InternalServerError"), false),
            Mode::P2 => (
                ToolResult::Err(ToolFailure {
                    category: Category::Service,
                    transient: false,
                    message: "AccountQuotaExhausted".into(),
                    agent_action: None,
                    latency_ms: 20.0,
                }),
                false,
            ),
            _ => {
                let (wrong, broken) =
                    corrupt::corrupt(&answer, self.family, self.seed ^ u64::from(self.victim_calls) << 32);
                if !broken {
                    self.hits -= 1;
                }
                (ToolResult::ok(wrong, 50.0), broken)
            }
        }
    }

    /// Whether the fault hit at least one call.
    pub fn perturbed(&self) -> bool {
        self.hits > 0
    }
}

/// The host of a perturbed run: its tools, the judge when the arm has one, and a mock LLM that
/// stops gracefully when asked (no clean path remains).
pub(super) struct PerturbHost {
    pub(super) tools: PerturbedTools,
    pub(super) judge: Option<Judge>,
    /// The last call handed over wrong data.
    pub(super) wrong: bool,
    pub(super) escalations: Vec<crate::scenario::EscalationRecord>,
}

impl Host for PerturbHost {
    fn call(&mut self, graph: &ToolGraph, call: &Call, at: Millis) -> Performed {
        let (mut result, mut wrong) = match graph.index(&call.tool) {
            Some(v) => self.tools.call(v, at),
            None => (ToolResult::outage("no such tool"), false),
        };
        let mut latency_ms = 50;
        if let (Some(judge), ToolResult::Ok { .. }) = (self.judge.as_mut(), &result) {
            latency_ms += judge::LATENCY_MS;
            if judge.rejects(wrong.then_some(self.tools.family)) {
                result = ToolResult::transient("LLM judge: the output looks wrong");
                wrong = false;
            }
        }
        self.wrong = wrong;
        Performed { result, latency_ms }
    }

    fn escalate(&mut self, _: &ToolGraph, request: &EscalationRequest, _: Millis) -> Decision {
        let stop = Decision::Abort { message: "no clean path: stopping".into() };
        self.escalations
            .push(crate::scenario::EscalationRecord { request: request.clone(), decision: stop.clone() });
        stop
    }

    fn reported(&mut self, _: &Call, events: &[Event]) {
        let accepted = events.iter().any(|e| matches!(e.kind, EventKind::ToolSucceeded { .. }));
        self.tools.corrupted_accepted |= self.wrong && accepted;
    }
}
