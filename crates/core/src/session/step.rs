//! The decision loop: what the host should do now, and what a completed node sets in motion.

use alloc::string::ToString;
use alloc::vec::Vec;

use super::{Env, Run};
use crate::algo::Plan;
use crate::event::EventKind;
use crate::graph::NodeIx;
use crate::monitor::budget_signal;
use crate::vocab::{Action, Call, EscalationReason, Status};

/// What the winner of a decision point asks for.
pub(super) enum Verdict {
    Proceed,
    Changed,
}

impl Run {
    /// What the host should do now.
    pub(crate) fn next(&mut self, env: &mut Env<'_>, now: crate::Millis) -> Action {
        self.tick(now);
        // A pause lasts until the host asks again: other runs may have freed what this one
        // waits for (a report, not the clock, is what usually frees it).
        self.paused_until = None;
        // Every round completes a node, replans, escalates or returns, so this bound is never
        // reached on a well-formed run; it keeps a bug from becoming an endless loop in a host.
        for _ in 0..(4 * env.graph.node_count() + 16) {
            if let Some(outcome) = &self.outcome {
                return Action::Finished { outcome: outcome.clone() };
            }
            if let Some(request) = &self.escalation {
                return Action::Escalate { request: request.clone() };
            }
            if let Some(until) = self.paused_until {
                if self.now < until {
                    return if self.in_flight.is_empty() { Action::Pause { until } } else { Action::Wait };
                }
                self.paused_until = None;
            }
            if !self.pending.failed.is_empty() {
                // K failures reported together cost one recomputation: wait for the batch.
                if !self.in_flight.is_empty() {
                    return Action::Wait;
                }
                let failed = self.pending.failed.clone();
                if let Verdict::Changed = self.decide(env, &[], &failed) {
                    if self.escalation.is_some() || self.outcome.is_some() {
                        continue;
                    }
                }
                self.replan(env);
                continue;
            }
            // A side effect's outcome is unknown: nothing else acts, and the task does not end,
            // until its `verify` answers or an escalation does.
            if let Some(u) = &self.unknown {
                if !self.in_flight.is_empty() {
                    return Action::Wait;
                }
                if !u.verifying {
                    if let Some(calls) = self.dispatch_verify(env) {
                        return Action::CallTools { calls };
                    }
                    continue;
                }
            }
            if self.nodes[self.goal].completed {
                // The goal was reached while failures of its batch (or an unknown outcome) were
                // still to be answered (see `complete`); they have been, so the task is done.
                self.finish_at_goal(env);
                continue;
            }
            if self.plan.is_none() || self.needs_replan {
                self.replan(env);
                continue;
            }
            self.poll_breakers(env);
            if self.plan_guard_broken(env) {
                self.needs_replan = true;
                continue;
            }
            if self.complete_ready_waypoints(env) {
                continue;
            }
            // Side effects branched back past are undone before the plan goes on, one at a time.
            if let Some(&(_, by)) = self.compensations.front() {
                if self.in_flight.contains_key(&by) {
                    return Action::Wait;
                }
                let calls = self.dispatch(env, &[by]);
                if calls.is_empty() {
                    // Refused for now (its breaker, bulkhead or rate limit): look again shortly.
                    self.needs_replan = false;
                    self.paused_until = Some(self.now.saturating_add(super::replan::PAUSE_MS));
                    continue;
                }
                return Action::CallTools { calls };
            }
            let ready = self.ready_tools(env);
            if ready.is_empty() {
                if !self.in_flight.is_empty() {
                    return Action::Wait;
                }
                self.needs_replan = true;
                continue;
            }
            match self.decide(env, &ready, &[]) {
                Verdict::Proceed => {
                    // The tool budget is a limit, not a preference: a routine signal that outbids
                    // the budget signal (an intent rule above its priority, found by fuzzing)
                    // must not spend past it.
                    if let Some(signal) =
                        budget_signal(self.counts.tool_calls, ready.len(), env.config.tool_budget)
                    {
                        self.escalate(env, EscalationReason::Budget, None, Some(signal));
                        continue;
                    }
                    let calls = self.dispatch(env, &ready);
                    if calls.is_empty() {
                        // Every ready tool refused for now: plan around them.
                        continue;
                    }
                    return Action::CallTools { calls };
                }
                Verdict::Changed => continue,
            }
        }
        self.finish(env, Status::Escalated, Some("session made no progress".to_string()));
        match &self.outcome {
            Some(outcome) => Action::Finished { outcome: outcome.clone() },
            None => Action::Wait,
        }
    }

    /// Whether a plan edge leaving a completed tool has a guard its result now fails.
    fn plan_guard_broken(&self, env: &Env<'_>) -> bool {
        let Some(plan) = &self.plan else { return false };
        plan.edges.iter().filter(|e| !plan.seeds.contains(e)).any(|&e| {
            let edge = env.graph.edge(e);
            self.nodes[edge.from].completed
                && !self.nodes[edge.to].completed
                && env
                    .graph
                    .guard(e)
                    .zip(self.nodes[edge.from].output.as_ref())
                    .is_some_and(|(g, out)| !g.holds(out))
        })
    }

    pub(super) fn plan_preds_done(&self, env: &Env<'_>, plan: &Plan, v: NodeIx) -> bool {
        plan.preds(env.graph, v).all(|u| self.nodes[u].completed)
    }

    fn complete_ready_waypoints(&mut self, env: &mut Env<'_>) -> bool {
        let Some(plan) = &self.plan else { return false };
        let ready: Vec<NodeIx> = plan
            .nodes
            .iter()
            .copied()
            .filter(|&v| {
                !self.nodes[v].completed && !env.graph.node(v).tool && self.plan_preds_done(env, plan, v)
            })
            .collect();
        for &v in &ready {
            self.complete(env, v);
        }
        !ready.is_empty()
    }

    fn ready_tools(&self, env: &Env<'_>) -> Vec<NodeIx> {
        let Some(plan) = &self.plan else { return Vec::new() };
        plan.nodes
            .iter()
            .copied()
            .filter(|&v| {
                let n = &self.nodes[v];
                env.graph.node(v).tool
                    && !n.completed
                    && !n.avoided
                    && !self.in_flight.contains_key(&v)
                    && self.plan_preds_done(env, plan, v)
            })
            .collect()
    }

    /// Starts the calls of `ready` that the tools' health lets through (every run of the router
    /// shares its probes, bulkheads and rate limits). A tool that refuses is said so with a
    /// `Shed` event and planned around at the next decision.
    pub(super) fn dispatch(&mut self, env: &mut Env<'_>, ready: &[NodeIx]) -> Vec<Call> {
        let mut calls = Vec::with_capacity(ready.len());
        for &v in ready {
            let (attempt, not_before) = self.retry_at.get(&v).copied().unwrap_or((1, self.now));
            let tool = env.graph.id(v).to_string();
            let timeout_ms =
                env.graph.node(v).timeout_ms().or(self.call_timeout).unwrap_or(env.health.call_timeout_ms(v));
            let permit = match env.health.admit_for(v, self.now, attempt > 1, Some(timeout_ms)) {
                Ok(p) => p,
                Err(reason) => {
                    self.emit(EventKind::Shed { tool, reason });
                    self.needs_replan = true;
                    continue;
                }
            };
            self.retry_at.remove(&v);
            let verifies = self.unknown.as_ref().filter(|u| env.graph.node(u.tool).verify() == Some(v));
            let call_id = match verifies {
                // A verify call asks about the unknown call: it carries that call's key.
                Some(u) => u.call_id.clone(),
                None => {
                    // A retry is the same step, under the same key.
                    if attempt == 1 || self.steps[v] == 0 {
                        self.steps[v] += 1;
                    }
                    self.call_id(v, &tool)
                }
            };
            self.emit(EventKind::ToolCalled { tool: tool.clone(), attempt, call_id: call_id.clone() });
            self.in_flight.insert(v, (attempt, permit));
            self.counts.tool_calls += 1;
            self.nodes[v].visits += 1;
            env.health.on_call(v, self.now);
            let delay_ms = not_before.saturating_sub(self.now);
            calls.push(Call { tool, attempt, not_before, delay_ms, call_id, timeout_ms });
        }
        calls
    }

    /// Starts the `verify` call of the side effect whose outcome is unknown, carrying that
    /// call's key; `None` when it cannot start (no `verify`, or refused now): the outcome stays
    /// unknown and the run escalates, naming the key.
    fn dispatch_verify(&mut self, env: &mut Env<'_>) -> Option<Vec<Call>> {
        let u = self.unknown.as_mut()?;
        u.verifying = true;
        let Some(w) = env.graph.node(u.tool).verify() else {
            self.escalate_unknown(env);
            return None;
        };
        let calls = self.dispatch(env, &[w]);
        self.needs_replan = false;
        if calls.is_empty() {
            self.escalate_unknown(env);
            return None;
        }
        Some(calls)
    }

    pub(super) fn complete(&mut self, env: &mut Env<'_>, v: NodeIx) {
        if self.nodes[v].completed {
            return;
        }
        self.nodes[v].completed = true;
        // Completed again (a revisit): fresh work, whatever a plan abandoned before.
        self.nodes[v].abandoned = false;
        self.completion.push(v);
        if env.graph.node(v).tool {
            self.history.push(v);
        }
        let base = env.graph.node(v).base_cost;
        if let Some(plan) = &self.plan {
            for &e in &plan.edges {
                let edge = env.graph.edge(e);
                if edge.to == v && (self.nodes[edge.from].completed || plan.seeds.contains(&e)) {
                    self.cost += edge.cost * base;
                    self.nodes[edge.from].left = true;
                    self.traversed.push(e);
                }
            }
        }
        // Failures still waiting for their batch (calls of a plan abandoned by a demotion, say)
        // did not stop the goal, but they are routed around at the next decision before the task
        // finishes, or they would have no answer (DESIGN section 7; found by the soak).
        if v == self.goal && self.pending.failed.is_empty() && self.unknown.is_none() {
            self.finish_at_goal(env);
        }
    }

    /// The goal is reached: completed, or demoted when it is not the original one.
    pub(super) fn finish_at_goal(&mut self, env: &mut Env<'_>) {
        let status = if self.goal == self.original_goal { Status::Completed } else { Status::Demoted };
        self.finish(env, status, None);
    }
}
