//! Decision points: every monitor runs, the highest-priority signal wins and says what happens
//! next (proceed, reweight and reroute, or escalate); escalations and the end of a task.

use alloc::string::{String, ToString};

use super::step::Verdict;
use super::{Env, Run};
use crate::event::EventKind;
use crate::graph::NodeIx;
use crate::health::Transition;
use crate::monitor::{compete, DecisionView, Signal, SignalKind};
use crate::vocab::{EscalationReason, EscalationRequest, Outcome, Status};

impl Run {
    /// Runs every monitor at a decision point and acts on the winner.
    pub(super) fn decide(&mut self, env: &mut Env<'_>, next: &[NodeIx], just_failed: &[NodeIx]) -> Verdict {
        let mut signals = core::mem::take(&mut self.signals);
        signals.clear();
        let view = DecisionView {
            graph: env.graph,
            context: &self.context,
            health: env.health,
            now: self.now,
            next_tools: next,
            just_failed,
            tools: &self.nodes,
            tool_calls: self.counts.tool_calls,
            tool_budget: env.config.tool_budget,
            answered: &self.answered,
            history: self.answered.history(&self.history),
        };
        env.monitors.run(&view, &mut signals);
        // The signals go into their events (the buffer stays, empty, for the next decision);
        // only the winner is copied, for its own event.
        let winner = compete(&signals).and_then(|w| signals.get(w)).cloned();
        for signal in signals.drain(..) {
            self.emit(EventKind::SignalRaised { signal });
        }
        let verdict = match winner {
            None => Verdict::Proceed,
            Some(winner) => {
                self.emit(EventKind::SignalWon { signal: winner.clone() });
                self.act_on(env, winner, just_failed)
            }
        };
        self.signals = signals;
        verdict
    }

    fn act_on(&mut self, env: &mut Env<'_>, winner: Signal, just_failed: &[NodeIx]) -> Verdict {
        match &winner.kind {
            SignalKind::Intent { .. } => Verdict::Proceed,
            SignalKind::ToolDown { tools } => {
                for id in tools {
                    if let Some(v) = env.graph.index(id) {
                        let weight = if just_failed.contains(&v) || self.nodes[v].avoided {
                            f64::INFINITY
                        } else {
                            env.health.weight(v, self.now)
                        };
                        self.emit(EventKind::Reweighted { tool: id.clone(), weight });
                    }
                }
                self.needs_replan = true;
                Verdict::Changed
            }
            SignalKind::KnownBad { tool } => {
                if let Some(v) = env.graph.index(tool) {
                    self.nodes[v].avoided = true;
                    self.emit(EventKind::Reweighted { tool: tool.clone(), weight: f64::INFINITY });
                }
                self.needs_replan = true;
                Verdict::Changed
            }
            SignalKind::Risk { .. } => {
                self.escalate(env, EscalationReason::Risk, None, Some(winner));
                Verdict::Changed
            }
            SignalKind::Budget { .. } => {
                self.escalate(env, EscalationReason::Budget, None, Some(winner));
                Verdict::Changed
            }
            SignalKind::Thrash { .. } => {
                self.escalate(env, EscalationReason::Budget, None, Some(winner));
                Verdict::Changed
            }
        }
    }

    pub(super) fn escalate(
        &mut self,
        env: &mut Env<'_>,
        reason: EscalationReason,
        agent_action: Option<String>,
        signal: Option<Signal>,
    ) {
        let exhausted = self.counts.llm_calls >= env.config.escalation_budget;
        // With the escalation budget spent nobody is asked and the task ends, but the event is
        // still emitted (reason `budget`, `llm_call` 0): a failure that led here must be answered
        // by an `Escalated` event (DESIGN section 7; found by fuzzing).
        let (reason, llm_call) =
            if exhausted { (EscalationReason::Budget, 0) } else { (reason, self.counts.llm_calls + 1) };
        self.counts.llm_calls += u32::from(!exhausted);
        let request = EscalationRequest {
            reason,
            goal: env.graph.id(self.goal).to_string(),
            failed: self.failed_ids.clone(),
            completed: self.completion.iter().map(|&v| env.graph.id(v).to_string()).collect(),
            agent_action,
            signal,
            call_id: None,
        };
        self.emit(EventKind::Escalated {
            reason,
            goal: request.goal.clone(),
            failed: request.failed.clone(),
            completed: request.completed.clone(),
            agent_action: request.agent_action.clone(),
            llm_call,
        });
        if exhausted {
            self.finish(env, Status::Escalated, Some("escalation budget exhausted".to_string()));
        } else {
            self.escalated_at = self.history.len();
            self.escalation = Some(request);
        }
    }

    pub(super) fn finish(&mut self, env: &Env<'_>, status: Status, message: Option<String>) {
        if self.outcome.is_some() {
            return;
        }
        let (path, cost, sunk_cost, abandoned) = self.executed(env);
        let c = self.counts;
        let outcome = Outcome {
            status,
            goal: env.graph.id(self.goal).to_string(),
            original_goal: env.graph.id(self.original_goal).to_string(),
            path: path.clone(),
            cost,
            abandoned,
            sunk_cost,
            tool_calls: c.tool_calls,
            llm_calls: c.llm_calls,
            reroutes: c.reroutes,
            retries: c.retries,
            failures: c.failures,
            revisits: c.revisits,
            message: message.clone(),
        };
        self.emit(EventKind::Finished { status, goal: outcome.goal.clone(), path, cost, message });
        self.escalation = None;
        self.outcome = Some(outcome);
    }

    /// The host ends the run (see [`crate::Router::abandon`]).
    pub(crate) fn abandon(&mut self, env: &mut Env<'_>, why: &str, now: crate::Millis) {
        if self.outcome.is_some() {
            return;
        }
        self.tick(now);
        self.release_calls(env.health);
        self.retry_at.clear();
        self.paused_until = None;
        self.escalation = None;
        let mut failed = self.failed_ids.clone();
        // A side effect whose outcome nobody learned is named too: a person must know.
        if let Some(u) = self.unknown.take() {
            let id = env.graph.id(u.tool);
            if !failed.iter().any(|f| f == id) {
                failed.push(id.to_string());
            }
        }
        self.emit(EventKind::Escalated {
            reason: EscalationReason::Deadline,
            goal: env.graph.id(self.goal).to_string(),
            failed,
            completed: self.completion.iter().map(|&v| env.graph.id(v).to_string()).collect(),
            agent_action: None,
            llm_call: 0,
        });
        self.finish(env, Status::Escalated, Some(why.to_string()));
    }

    /// Gives back the places of the calls in flight (they will never be reported).
    pub(crate) fn release_calls(&mut self, health: &mut crate::health::HealthBook) {
        for (_, (_, permit)) in core::mem::take(&mut self.in_flight) {
            health.release(permit);
        }
    }

    pub(super) fn breaker_event(&mut self, env: &Env<'_>, v: NodeIx, t: Option<Transition>) {
        if let Some(t) = t {
            self.emit(EventKind::BreakerChanged {
                tool: env.graph.id(v).to_string(),
                from: t.from,
                to: t.to,
            });
        }
    }

    pub(super) fn poll_breakers(&mut self, env: &mut Env<'_>) {
        let mut changed = alloc::vec::Vec::new();
        env.health.poll(self.now, &mut changed);
        for (v, t) in changed {
            self.breaker_event(env, v, Some(t));
        }
    }
}
