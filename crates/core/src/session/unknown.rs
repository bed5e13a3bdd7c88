//! Side effects whose outcome is unknown: a call of a `side_effect` tool that timed out may have
//! acted (a refund sent, its answer lost). Retrying it or routing to another side effect could
//! act twice, so the run does neither until the outcome is known: the node's `verify` tool is
//! asked with the call's idempotency key, and when there is none, or it cannot tell, the run
//! escalates with reason `outcome_unknown`, naming the key.

use alloc::format;

use super::{Env, Run};
use crate::event::EventKind;
use crate::health::{Observation, Permit};
use crate::vocab::{EscalationReason, ToolResult};

impl Run {
    /// The `verify` call of the unknown side effect reported: `{"done": true}` completes the
    /// side effect with that answer as its result, `{"done": false}` routes around it (it did
    /// not act, so another tool may), anything else leaves it unknown: an escalation.
    pub(super) fn verify_reported(&mut self, env: &mut Env<'_>, permit: Permit, result: ToolResult) {
        let Some(u) = self.unknown.clone() else { return };
        let w = permit.tool;
        let verifier = env.graph.id(w);
        let done = match &result {
            ToolResult::Ok { output, latency_ms } => {
                self.emit(EventKind::ToolSucceeded { tool: verifier.into(), latency_ms: *latency_ms });
                let t = env.health.settle(permit, Observation::Success { latency_ms: *latency_ms }, self.now);
                self.breaker_event(env, w, t);
                output.get("done").and_then(serde_json::Value::as_bool)
            }
            ToolResult::Err(f) => {
                let observed = if f.category == crate::Category::Service {
                    Observation::Failure
                } else {
                    Observation::Success { latency_ms: f.latency_ms }
                };
                let t = env.health.settle(permit, observed, self.now);
                self.breaker_event(env, w, t);
                None
            }
            ToolResult::Unknown { .. } => {
                let t = env.health.settle(permit, Observation::Failure, self.now);
                self.breaker_event(env, w, t);
                None
            }
        };
        match (done, result) {
            (Some(true), ToolResult::Ok { output, .. }) => {
                self.unknown = None;
                self.nodes[u.tool].output = Some(output);
                self.complete(env, u.tool);
            }
            (Some(false), _) => {
                self.unknown = None;
                let tool = env.graph.id(u.tool);
                let why = format!("`{verifier}` says call {} of `{tool}` did not act", u.call_id);
                self.route_around(env, u.tool, false, Some(why));
            }
            _ => self.escalate_unknown(env),
        }
    }

    /// Asks whether the unknown side effect acted: an escalation of reason `outcome_unknown`
    /// naming the tool and the call's key.
    pub(super) fn escalate_unknown(&mut self, env: &mut Env<'_>) {
        let Some(u) = self.unknown.clone() else { return };
        let tool = env.graph.id(u.tool);
        let why = format!(
            "The outcome of `{tool}` (call {}) is unknown: it timed out and may have acted. Check \
             it with that key before anything acts again; approve if it did not act.",
            u.call_id
        );
        self.escalate_naming(env, u.tool, EscalationReason::OutcomeUnknown, Some(why));
        if let Some(request) = &mut self.escalation {
            request.call_id = Some(u.call_id);
        }
    }

    /// The escalation about an unknown outcome was answered: `approve` says the call did not
    /// act, so the run routes around the tool; any other decision ends or redirects the task as
    /// usual, and the unknown is settled by it.
    pub(super) fn unknown_answered(&mut self, env: &mut Env<'_>, approved: bool) {
        let Some(u) = self.unknown.take() else { return };
        if approved {
            self.route_around(env, u.tool, false, None);
        } else {
            self.nodes[u.tool].avoided = true;
        }
    }
}
