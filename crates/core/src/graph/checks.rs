//! The checks of a description's parts that need nothing else: a node's attributes (limits,
//! probes, validators, position) and the risk and intent rules. Each problem names its place.

use alloc::format;
use alloc::string::String;

use super::{GraphSpec, NodeSpec};
use crate::error::ProblemKind;
use crate::limits;

/// A node's attributes past its id, cost and label; `at` gives the pointer of a field.
pub(super) fn node_attrs(
    n: &NodeSpec,
    push: &mut impl FnMut(ProblemKind, &str, String, String),
    at: &impl Fn(&str) -> String,
) {
    if n.reason.as_deref().is_some_and(|r| r.chars().count() > limits::MAX_REASON) {
        let msg = format!("reason is longer than {} characters", limits::MAX_REASON);
        push(ProblemKind::BadValue, &n.id, at("reason"), msg);
    }
    if let Some(r) = n.retry {
        if r.attempts > limits::MAX_RETRY_ATTEMPTS {
            let msg =
                format!("retry.attempts is {}, the limit is {}", r.attempts, limits::MAX_RETRY_ATTEMPTS);
            push(ProblemKind::BadValue, &n.id, at("retry/attempts"), msg);
        }
    }
    if n.max_concurrent == Some(0) {
        let msg = "max_concurrent must be at least 1".into();
        push(ProblemKind::BadValue, &n.id, at("max_concurrent"), msg);
    }
    if n.timeout_ms.is_some_and(|t| t == 0 || t > limits::MAX_TIMEOUT_MS) {
        let msg = format!("timeout_ms must be 1..={} (a day)", limits::MAX_TIMEOUT_MS);
        push(ProblemKind::BadValue, &n.id, at("timeout_ms"), msg);
    }
    if n.rate_limit.is_some_and(|r| r.calls == 0 || r.per_ms == 0) {
        let msg = "rate_limit needs calls and per_ms of at least 1";
        push(ProblemKind::BadValue, &n.id, at("rate_limit"), msg.into());
    }
    if let Some(p) = &n.probe {
        if p.interval_ms == 0 {
            let msg = "probe.interval_ms must be at least 1";
            push(ProblemKind::BadValue, &n.id, at("probe/interval_ms"), msg.into());
        }
        if !n.tool {
            let msg = "a waypoint (tool: false) is never called, so it cannot be probed";
            push(ProblemKind::BadValue, &n.id, at("probe"), msg.into());
        }
    }
    if n.quota == Some(0) {
        push(ProblemKind::BadValue, &n.id, at("quota"), "quota must be at least 1".into());
    }
    if n.baseline_latency_ms.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
        let msg = "baseline_latency_ms must be a positive number".into();
        push(ProblemKind::BadValue, &n.id, at("baseline_latency_ms"), msg);
    }
    for (k, v) in n.validators.iter().enumerate() {
        if let Err(msg) = v.check_spec() {
            let msg = format!("validators[{k}]: {msg}");
            push(ProblemKind::BadValue, &n.id, at(&format!("validators/{k}")), msg);
        }
    }
    for (name, v) in [("x", n.x), ("y", n.y)] {
        if v.is_some_and(|v| !v.is_finite()) {
            push(ProblemKind::BadValue, &n.id, at(name), format!("{name} must be a finite number"));
        }
    }
}

/// The risk rules and intents of a description.
pub(super) fn rules(spec: &GraphSpec, push: &mut impl FnMut(ProblemKind, &str, String, String)) {
    for (k, r) in spec.risk_rules.iter().enumerate() {
        if !r.max.is_finite() || !(0.0..=1.0).contains(&r.priority) {
            push(
                ProblemKind::BadValue,
                &format!("risk_rules[{k}]"),
                format!("/risk_rules/{k}"),
                "max must be finite and priority within 0..1".into(),
            );
        }
    }
    for (k, r) in spec.intents.iter().enumerate() {
        if !(0.0..=1.0).contains(&r.priority) {
            let msg = "priority must be within 0..1".into();
            push(ProblemKind::BadValue, &format!("intents[{k}]"), format!("/intents/{k}/priority"), msg);
        }
    }
}
