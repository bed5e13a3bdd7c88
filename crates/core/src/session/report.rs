//! What the host tells a run: a call's outcome, an escalation's answer, a redirect.

use alloc::string::ToString;
use alloc::vec::Vec;

use super::{Env, Run};
use crate::error::SessionError;
use crate::event::EventKind;
use crate::graph::NodeIx;
use crate::health::{backoff, BreakerState, Observation, Refusal};
use crate::validate;
use crate::vocab::{Call, Category, Decision, EscalationReason, Status, ToolFailure, ToolResult};
use crate::Millis;

impl Run {
    /// Reports the outcome of a call made on the run's behalf. A call of a run that has finished
    /// meanwhile is refused (`Finished`), but the tool's health still learns its outcome and its
    /// place in the bulkhead is given back.
    pub(crate) fn report(
        &mut self,
        env: &mut Env<'_>,
        tool: &str,
        result: ToolResult,
        now: Millis,
    ) -> Result<(), SessionError> {
        let v = env.graph.index(tool).ok_or_else(|| SessionError::UnknownNode { id: tool.to_string() })?;
        if self.outcome.is_some() {
            if let Some((_, permit)) = self.in_flight.remove(&v) {
                let observed = match &result {
                    ToolResult::Ok { latency_ms, .. } => Observation::Success { latency_ms: *latency_ms },
                    ToolResult::Err(f) if f.category == Category::Service => Observation::Failure,
                    ToolResult::Unknown { .. } => Observation::Failure,
                    ToolResult::Err(_) => {
                        env.health.release(permit);
                        return Err(SessionError::Finished);
                    }
                };
                env.health.settle(permit, observed, now.max(self.now));
            }
            return Err(SessionError::Finished);
        }
        let (attempt, permit) =
            self.in_flight.remove(&v).ok_or_else(|| SessionError::NotInFlight { tool: tool.to_string() })?;
        self.tick(now);
        if let Some(&(undone, by)) = self.compensations.front() {
            if by == v {
                self.compensation_reported(env, undone, (attempt, permit), result);
                return Ok(());
            }
        }
        if self.unknown.as_ref().is_some_and(|u| u.verifying && env.graph.node(u.tool).verify() == Some(v)) {
            self.verify_reported(env, permit, result);
            return Ok(());
        }
        // A side effect that may have acted is neither retried nor routed around to another.
        let unknown = matches!(result, ToolResult::Unknown { .. }) && env.graph.node(v).side_effect;
        let (failure, implicit) = match result {
            ToolResult::Ok { output, latency_ms } => {
                let scope = validate::Scope { context: &self.context, now: self.now };
                match validate::check_all(env.graph.node(v).validators(), &output, &scope) {
                    Ok(()) => {
                        self.emit(EventKind::ToolSucceeded { tool: tool.to_string(), latency_ms });
                        // A waypoint keeps no result (a host can only report one by redirecting
                        // to it): revisiting it makes no new one, so a stale result failing a
                        // guard would trap every plan through it (found by fuzzing).
                        if env.graph.node(v).tool {
                            self.nodes[v].output = Some(output);
                        }
                        let t = env.health.settle(permit, Observation::Success { latency_ms }, self.now);
                        self.breaker_event(env, v, t);
                        self.complete(env, v);
                        return Ok(());
                    }
                    Err(message) => (
                        ToolFailure {
                            category: Category::Service,
                            transient: true,
                            message,
                            agent_action: None,
                            latency_ms,
                        },
                        true,
                    ),
                }
            }
            ToolResult::Err(f) => (f, false),
            ToolResult::Unknown { message, latency_ms } => (ToolFailure::unknown(message, latency_ms), false),
        };
        self.counts.failures += 1;
        self.emit(EventKind::ToolFailed {
            tool: tool.to_string(),
            category: failure.category,
            implicit,
            transient: failure.transient,
            message: failure.message.clone(),
            agent_action: failure.agent_action.clone(),
        });
        match failure.category {
            Category::Input => {
                // Bad input says nothing about the tool's health: ask for better input, naming the
                // tool that refused it.
                env.health.release(permit);
                self.escalate_input(env, v, failure.agent_action);
            }
            Category::Service if unknown => {
                let t = env.health.settle(permit, Observation::Failure, self.now);
                self.breaker_event(env, v, t);
                let call_id = self.call_id(v, tool);
                self.unknown = Some(super::Unknown { tool: v, call_id, verifying: false });
            }
            Category::Service => {
                let policy = env.graph.node(v).retry();
                let retry = failure.transient && self.nodes[v].retries_used < policy.attempts;
                let observed = if retry { Observation::Failure } else { Observation::Outage };
                let t = env.health.settle(permit, observed, self.now);
                self.breaker_event(env, v, t);
                if retry && env.health.state(v) != BreakerState::Open {
                    if env.health.retry_allowed(v) {
                        self.retry(env, v, tool, attempt);
                        return Ok(());
                    }
                    // Every run retrying a struggling tool at once would multiply its load.
                    self.emit(EventKind::Shed { tool: tool.to_string(), reason: Refusal::RetryBudget });
                }
                self.route_around(env, v, false, failure.agent_action);
            }
            Category::Policy => {
                env.health.release(permit);
                self.route_around(env, v, true, failure.agent_action);
            }
        }
        Ok(())
    }

    /// Schedules the next attempt of `v` after its backoff (exponential, capped, jittered by a
    /// draw seeded from the tool, the attempt and the clock: the same run gives the same waits).
    fn retry(&mut self, env: &Env<'_>, v: NodeIx, tool: &str, attempt: u32) {
        let node = &mut self.nodes[v];
        node.retries_used += 1;
        self.counts.retries += 1;
        let seed = (v as u64).rotate_left(32) ^ u64::from(attempt).rotate_left(16) ^ self.now;
        let wait = backoff(&env.graph.node(v).retry(), node.retries_used, seed);
        // Saturating: a description may declare any u64 backoff (found by fuzzing; it overflowed).
        let not_before = self.now.saturating_add(wait);
        self.retry_at.insert(v, (attempt + 1, not_before));
        self.emit(EventKind::Retried { tool: tool.to_string(), attempt: attempt + 1, not_before });
    }

    /// Answers the pending escalation.
    pub(crate) fn resolve_escalation(
        &mut self,
        env: &mut Env<'_>,
        decision: Decision,
        now: Millis,
    ) -> Result<(), SessionError> {
        if self.outcome.is_some() {
            return Err(SessionError::Finished);
        }
        let request = self.escalation.take().ok_or(SessionError::NoEscalation)?;
        self.tick(now);
        if let Some(signal) = &request.signal {
            self.answered.settle(signal, self.escalated_at);
        }
        if request.reason == EscalationReason::OutcomeUnknown {
            self.unknown_answered(env, decision == Decision::Approve);
        }
        match decision {
            Decision::Demote { goal } => {
                let Some(g) = env.graph.index(&goal) else {
                    self.escalation = Some(request);
                    return Err(SessionError::UnknownGoal { goal });
                };
                self.emit(EventKind::GoalDemoted { from: env.graph.id(self.goal).to_string(), to: goal });
                self.goal = g;
                self.needs_replan = true;
                // A goal already reached has nothing left to plan: without this the session
                // replanned an empty plan until its loop guard gave up (found by the soak).
                if self.nodes[g].completed && self.pending.failed.is_empty() {
                    self.finish_at_goal(env);
                }
            }
            Decision::Approve => self.needs_replan = true,
            Decision::Abort { message } => self.finish(env, Status::Escalated, Some(message)),
            Decision::HandOff { to } => {
                self.finish(env, Status::Escalated, Some(alloc::format!("handed off to {to}")))
            }
        }
        Ok(())
    }

    /// Control-flow fault injection (seed 004): the host runs `tool` instead of the calls the
    /// run just gave it. The router then plans again from wherever that leaves the task.
    /// Failures reported before the redirect are routed around first; when that ends the task
    /// (the escalation budget is spent) nothing is dispatched and the error is `Finished`.
    pub(crate) fn redirect(
        &mut self,
        env: &mut Env<'_>,
        tool: &str,
        now: Millis,
    ) -> Result<Call, SessionError> {
        if self.outcome.is_some() {
            return Err(SessionError::Finished);
        }
        let v = env.graph.index(tool).ok_or_else(|| SessionError::UnknownNode { id: tool.to_string() })?;
        self.tick(now);
        let mut cancelled = Vec::new();
        for (c, (_, permit)) in core::mem::take(&mut self.in_flight) {
            // Those calls were never made.
            env.health.release(permit);
            self.counts.tool_calls = self.counts.tool_calls.saturating_sub(1);
            self.nodes[c].visits = self.nodes[c].visits.saturating_sub(1);
            cancelled.push(c);
        }
        self.emit(EventKind::Redirected {
            from: cancelled.iter().map(|&c| env.graph.id(c).to_string()).collect(),
            to: tool.to_string(),
        });
        // The redirect ends the batch: failures reported in it are routed around (or escalated)
        // now, before the redirected call can finish the task and leave them unanswered (found by
        // fuzzing).
        if !self.pending.failed.is_empty() {
            self.replan(env);
            if self.outcome.is_some() {
                return Err(SessionError::Finished);
            }
        }
        self.nodes[v].completed = false;
        self.needs_replan = true;
        let call = self.dispatch(env, &[v]).pop();
        call.ok_or(SessionError::NotInFlight { tool: tool.to_string() })
    }

    /// Records that `v` failed for this task: it is avoided from now on, and routed around at
    /// the next decision together with the rest of its batch.
    pub(super) fn route_around(
        &mut self,
        env: &Env<'_>,
        v: NodeIx,
        policy: bool,
        agent_action: Option<alloc::string::String>,
    ) {
        self.nodes[v].avoided = true;
        self.failed_ids.push(env.graph.id(v).to_string());
        self.pending.failed.push(v);
        self.pending.policy |= policy;
        if agent_action.is_some() {
            self.pending.agent_action = agent_action;
        }
        // A failure reported while an escalation is pending (a call of another branch was in
        // flight) joins it: the request is issued again naming the failure, as the same LLM call
        // (the host answers once). Otherwise a decision that ends the task would leave the failure
        // unanswered in the events (DESIGN section 7; found by fuzzing). A decision that goes on
        // routes around it as usual.
        if let Some(request) = &mut self.escalation {
            let id = env.graph.id(v);
            if !request.failed.iter().any(|f| f == id) {
                request.failed.push(id.to_string());
            }
            let kind = EventKind::Escalated {
                reason: request.reason,
                goal: request.goal.clone(),
                failed: request.failed.clone(),
                completed: request.completed.clone(),
                agent_action: request.agent_action.clone(),
                llm_call: self.counts.llm_calls,
            };
            self.emit(kind);
        }
    }

    /// A tool refused its input: the LLM is asked for better input. The request names the tool
    /// among the failed ones (the tool itself is not unhealthy).
    fn escalate_input(&mut self, env: &mut Env<'_>, v: NodeIx, agent_action: Option<alloc::string::String>) {
        self.escalate_naming(env, v, EscalationReason::Input, agent_action);
    }

    /// Escalates with `v` named among the failed tools of this request only.
    pub(super) fn escalate_naming(
        &mut self,
        env: &mut Env<'_>,
        v: NodeIx,
        reason: EscalationReason,
        agent_action: Option<alloc::string::String>,
    ) {
        let id = env.graph.id(v).to_string();
        let named = self.failed_ids.contains(&id);
        if !named {
            self.failed_ids.push(id);
        }
        self.escalate(env, reason, agent_action, None);
        if !named {
            self.failed_ids.pop();
        }
    }

    /// The tool undoing `undone`'s side effect reported. A success lets the plan go on; a
    /// transient failure is retried as any call; otherwise the side effect stands and a person
    /// (or the LLM) must know: an escalation of reason `compensation`.
    fn compensation_reported(
        &mut self,
        env: &mut Env<'_>,
        undone: NodeIx,
        (attempt, permit): (u32, crate::health::Permit),
        result: ToolResult,
    ) {
        let v = permit.tool;
        let tool = env.graph.id(v).to_string();
        let failure = match result {
            ToolResult::Ok { latency_ms, .. } => {
                self.emit(EventKind::ToolSucceeded { tool: tool.clone(), latency_ms });
                let t = env.health.settle(permit, Observation::Success { latency_ms }, self.now);
                self.breaker_event(env, v, t);
                self.compensations.pop_front();
                self.nodes[undone].compensated = true;
                self.emit(EventKind::Compensated { tool: env.graph.id(undone).to_string(), by: tool });
                return;
            }
            ToolResult::Err(f) => f,
            ToolResult::Unknown { message, latency_ms } => ToolFailure::unknown(message, latency_ms),
        };
        self.counts.failures += 1;
        self.emit(EventKind::ToolFailed {
            tool: tool.clone(),
            category: failure.category,
            implicit: false,
            transient: failure.transient,
            message: failure.message.clone(),
            agent_action: failure.agent_action.clone(),
        });
        let policy = env.graph.node(v).retry();
        let retry = failure.category == Category::Service
            && failure.transient
            && self.nodes[v].retries_used < policy.attempts;
        let observed = if retry { Observation::Failure } else { Observation::Outage };
        let t = env.health.settle(permit, observed, self.now);
        self.breaker_event(env, v, t);
        if retry && env.health.state(v) != BreakerState::Open {
            self.retry(env, v, &tool, attempt);
            return;
        }
        self.compensations.pop_front();
        let why = alloc::format!(
            "Undoing `{}` with `{tool}` failed ({}): its side effect stands.",
            env.graph.id(undone),
            failure.message
        );
        self.escalate_naming(
            env,
            v,
            EscalationReason::Compensation,
            Some(failure.agent_action.unwrap_or(why)),
        );
    }
}
