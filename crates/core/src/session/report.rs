//! What the host tells a run: a call's outcome, an escalation's answer, a redirect.

use alloc::string::ToString;
use alloc::vec::Vec;

use super::{Env, Run};
use crate::error::SessionError;
use crate::event::EventKind;
use crate::graph::NodeIx;
use crate::health::BreakerState;
use crate::monitor::{Signal, SignalKind};
use crate::validate;
use crate::vocab::{Call, Category, Decision, EscalationReason, Status, ToolFailure, ToolResult};
use crate::Millis;

impl Run {
    /// Reports the outcome of a call made on the run's behalf.
    pub(crate) fn report(
        &mut self,
        env: &mut Env<'_>,
        tool: &str,
        result: ToolResult,
        now: Millis,
    ) -> Result<(), SessionError> {
        if self.outcome.is_some() {
            return Err(SessionError::Finished);
        }
        let v = env.graph.index(tool).ok_or_else(|| SessionError::UnknownNode { id: tool.to_string() })?;
        let attempt =
            self.in_flight.remove(&v).ok_or_else(|| SessionError::NotInFlight { tool: tool.to_string() })?;
        self.tick(now);
        let (failure, implicit) = match result {
            ToolResult::Ok { output, latency_ms } => {
                match validate::check_all(&env.graph.node(v).validators, &output) {
                    Ok(()) => {
                        self.emit(EventKind::ToolSucceeded { tool: tool.to_string(), latency_ms });
                        // A waypoint keeps no result (a host can only report one by redirecting
                        // to it): revisiting it makes no new one, so a stale result failing a
                        // guard would trap every plan through it (found by fuzzing).
                        if env.graph.node(v).tool {
                            self.nodes[v].output = Some(output);
                        }
                        let t = env.health.on_success(v, latency_ms, self.now);
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
                self.escalate_input(env, v, failure.agent_action);
            }
            Category::Service => {
                let policy = env.graph.node(v).retry;
                if failure.transient && self.nodes[v].retries_used < policy.attempts {
                    let t = env.health.on_failure(v, self.now);
                    self.breaker_event(env, v, t);
                    if env.health.state(v) != BreakerState::Open {
                        self.retry(v, tool, attempt, policy.backoff_ms);
                        return Ok(());
                    }
                } else {
                    let t = env.health.trip(v, self.now);
                    self.breaker_event(env, v, t);
                }
                self.route_around(env, v, false, None);
            }
            Category::Policy => self.route_around(env, v, true, failure.agent_action),
        }
        Ok(())
    }

    /// Schedules the next attempt of `v` after its backoff.
    fn retry(&mut self, v: NodeIx, tool: &str, attempt: u32, backoff_ms: Millis) {
        let node = &mut self.nodes[v];
        node.retries_used += 1;
        self.counts.retries += 1;
        // Saturating: a description may declare any u64 backoff (found by fuzzing; it overflowed).
        let not_before = self.now.saturating_add(backoff_ms.saturating_mul(node.retries_used as u64));
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
        if let Some(Signal { kind: SignalKind::Risk { rule, .. }, .. }) = &request.signal {
            if let Some(a) = self.acknowledged.get_mut(*rule) {
                *a = true;
            }
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
        let cancelled: Vec<NodeIx> = core::mem::take(&mut self.in_flight).into_keys().collect();
        for &c in &cancelled {
            // Those calls were never made.
            self.counts.tool_calls = self.counts.tool_calls.saturating_sub(1);
            self.nodes[c].visits = self.nodes[c].visits.saturating_sub(1);
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
    fn route_around(
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
    /// among the failed ones, for this request only (the tool itself is not unhealthy).
    fn escalate_input(&mut self, env: &mut Env<'_>, v: NodeIx, agent_action: Option<alloc::string::String>) {
        let id = env.graph.id(v).to_string();
        let named = self.failed_ids.contains(&id);
        if !named {
            self.failed_ids.push(id);
        }
        self.escalate(env, EscalationReason::Input, agent_action, None);
        if !named {
            self.failed_ids.pop();
        }
    }
}
