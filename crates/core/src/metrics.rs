//! A router's counters, read off the events its runs emit (one source: what a run says is what
//! is counted), and rendered in the Prometheus text exposition format (version 0.0.4) together
//! with gauges read off the live health.
//!
//! ```
//! use shr_core::{Router, ToolGraph, Task, ToolResult, Action};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"s","tool":false},{"id":"pay"},{"id":"g","tool":false}],
//!   "edges":[{"from":"s","to":"pay"},{"from":"pay","to":"g"}],"start":"s","goal":"g"}"#).unwrap();
//! let mut router = Router::new(g);
//! let mut run = router.start(Task::default(), 0).unwrap();
//! router.next(&mut run, 0).unwrap();
//! router.report(&mut run, "pay", ToolResult::ok(serde_json::json!({}), 40.0), 40).unwrap();
//! router.next(&mut run, 40).unwrap();
//! let text = router.metrics(40);
//! assert!(text.contains(r#"shr_tool_calls_total{tool="pay"} 1"#));
//! assert!(text.contains(r#"shr_runs_finished_total{status="completed"} 1"#));
//! ```

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::event::{Event, EventKind};
use crate::graph::ToolGraph;
use crate::health::{BreakerState, HealthBook, Refusal};
use crate::vocab::{EscalationReason, Status};
use crate::Millis;

/// Upper bounds of the call-latency histogram, in seconds.
const BUCKETS: [f64; 11] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
const REFUSALS: [(Refusal, &str); 5] = [
    (Refusal::Open, "open"),
    (Refusal::Probing, "probing"),
    (Refusal::Full, "full"),
    (Refusal::RateLimited, "rate_limited"),
    (Refusal::RetryBudget, "retry_budget"),
];
const REASONS: [(EscalationReason, &str); 7] = [
    (EscalationReason::NoPath, "no_path"),
    (EscalationReason::Risk, "risk"),
    (EscalationReason::Budget, "budget"),
    (EscalationReason::Policy, "policy"),
    (EscalationReason::Input, "input"),
    (EscalationReason::Compensation, "compensation"),
    (EscalationReason::Deadline, "deadline"),
];
const STATUSES: [(Status, &str); 3] =
    [(Status::Completed, "completed"), (Status::Demoted, "demoted"), (Status::Escalated, "escalated")];

#[derive(Clone, Debug, Default)]
struct ToolCounters {
    calls: u64,
    successes: u64,
    failures: u64,
    retries: u64,
    shed: [u64; REFUSALS.len()],
    /// Per bucket (cumulative when rendered), then the sum of seconds.
    latency: [u64; BUCKETS.len()],
    latency_count: u64,
    latency_sum: f64,
}

/// Counters of one router, over every run it has driven.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    tools: Vec<ToolCounters>,
    runs_started: u64,
    finished: [u64; STATUSES.len()],
    reroutes: u64,
    escalations: [u64; REASONS.len()],
    llm_calls: u64,
}

impl Metrics {
    /// Counters at zero for every tool of `graph`.
    pub fn new(graph: &ToolGraph) -> Self {
        Metrics { tools: alloc::vec![ToolCounters::default(); graph.node_count()], ..Metrics::default() }
    }

    pub(crate) fn run_started(&mut self) {
        self.runs_started += 1;
    }

    /// Counts one event of a run.
    pub(crate) fn observe(&mut self, graph: &ToolGraph, event: &Event) {
        let tool = |id: &str| graph.index(id);
        match &event.kind {
            EventKind::ToolCalled { tool: id, .. } => self.with(tool(id), |t| t.calls += 1),
            EventKind::ToolSucceeded { tool: id, latency_ms } => {
                let secs = latency_ms / 1000.0;
                self.with(tool(id), |t| {
                    t.successes += 1;
                    if secs.is_finite() && secs >= 0.0 {
                        if let Some(b) = BUCKETS.iter().position(|&le| secs <= le) {
                            t.latency[b] += 1;
                        }
                        t.latency_count += 1;
                        t.latency_sum += secs;
                    }
                })
            }
            EventKind::ToolFailed { tool: id, .. } => self.with(tool(id), |t| t.failures += 1),
            EventKind::Retried { tool: id, .. } => self.with(tool(id), |t| t.retries += 1),
            EventKind::Shed { tool: id, reason } => {
                let k = REFUSALS.iter().position(|(r, _)| r == reason).unwrap_or(0);
                self.with(tool(id), |t| t.shed[k] += 1)
            }
            EventKind::Rerouted { .. } => self.reroutes += 1,
            EventKind::Escalated { reason, llm_call, .. } => {
                let k = REASONS.iter().position(|(r, _)| r == reason).unwrap_or(0);
                self.escalations[k] += 1;
                self.llm_calls += u64::from(*llm_call > 0);
            }
            EventKind::Finished { status, .. } => {
                let k = STATUSES.iter().position(|(s, _)| s == status).unwrap_or(0);
                self.finished[k] += 1;
            }
            _ => {}
        }
    }

    fn with(&mut self, v: Option<usize>, f: impl FnOnce(&mut ToolCounters)) {
        if let Some(t) = v.and_then(|v| self.tools.get_mut(v)) {
            f(t);
        }
    }

    /// The Prometheus text exposition of these counters and of `health` at `now`.
    pub fn render(&self, graph: &ToolGraph, health: &HealthBook, now: Millis) -> String {
        let mut out = String::new();
        let tools: Vec<(usize, String)> = (0..graph.node_count())
            .filter(|&v| graph.node(v).tool)
            .map(|v| (v, label(graph.id(v))))
            .collect();
        let counter = |out: &mut String, name: &str, help: &str, value: &dyn Fn(&ToolCounters) -> u64| {
            head(out, name, help, "counter");
            for (v, id) in &tools {
                let _ = writeln!(out, "{name}{{tool=\"{id}\"}} {}", value(&self.tools[*v]));
            }
        };
        counter(&mut out, "shr_tool_calls_total", "Calls started, per tool.", &|t| t.calls);
        counter(&mut out, "shr_tool_successes_total", "Calls that succeeded, per tool.", &|t| t.successes);
        counter(&mut out, "shr_tool_failures_total", "Calls that failed, per tool.", &|t| t.failures);
        counter(&mut out, "shr_tool_retries_total", "Retries scheduled, per tool.", &|t| t.retries);
        head(
            &mut out,
            "shr_tool_shed_total",
            "Calls a tool would not take (breaker, bulkhead, rate limit, retry budget).",
            "counter",
        );
        for (v, id) in &tools {
            for (k, (_, reason)) in REFUSALS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "shr_tool_shed_total{{tool=\"{id}\",reason=\"{reason}\"}} {}",
                    self.tools[*v].shed[k]
                );
            }
        }
        head(
            &mut out,
            "shr_breaker_state",
            "Breaker state per tool: 0 closed, 1 half-open, 2 open.",
            "gauge",
        );
        for (v, id) in &tools {
            let state = match health.state(*v) {
                BreakerState::Closed => 0,
                BreakerState::HalfOpen => 1,
                BreakerState::Open => 2,
            };
            let _ = writeln!(out, "shr_breaker_state{{tool=\"{id}\"}} {state}");
        }
        head(&mut out, "shr_tool_in_flight", "Calls in flight per tool, over every run.", "gauge");
        for (v, id) in &tools {
            let n = health.tool(*v).map_or(0, |t| t.in_flight());
            let _ = writeln!(out, "shr_tool_in_flight{{tool=\"{id}\"}} {n}");
        }
        head(&mut out, "shr_tool_weight", "Live weight per tool (+Inf: routed around).", "gauge");
        for (v, id) in &tools {
            let _ = writeln!(out, "shr_tool_weight{{tool=\"{id}\"}} {}", float(health.weight(*v, now)));
        }
        head(
            &mut out,
            "shr_tool_call_duration_seconds",
            "Latency of successful calls, per tool.",
            "histogram",
        );
        for (v, id) in &tools {
            let t = &self.tools[*v];
            let mut cumulative = 0;
            for (b, le) in BUCKETS.iter().enumerate() {
                cumulative += t.latency[b];
                let _ = writeln!(
                    out,
                    "shr_tool_call_duration_seconds_bucket{{tool=\"{id}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "shr_tool_call_duration_seconds_bucket{{tool=\"{id}\",le=\"+Inf\"}} {}",
                t.latency_count
            );
            let _ =
                writeln!(out, "shr_tool_call_duration_seconds_sum{{tool=\"{id}\"}} {}", float(t.latency_sum));
            let _ =
                writeln!(out, "shr_tool_call_duration_seconds_count{{tool=\"{id}\"}} {}", t.latency_count);
        }
        head(&mut out, "shr_runs_started_total", "Runs started.", "counter");
        let _ = writeln!(out, "shr_runs_started_total {}", self.runs_started);
        head(&mut out, "shr_runs_finished_total", "Runs finished, per status.", "counter");
        for (k, (_, status)) in STATUSES.iter().enumerate() {
            let _ = writeln!(out, "shr_runs_finished_total{{status=\"{status}\"}} {}", self.finished[k]);
        }
        head(&mut out, "shr_reroutes_total", "Plans recomputed from where a run stands.", "counter");
        let _ = writeln!(out, "shr_reroutes_total {}", self.reroutes);
        head(&mut out, "shr_escalations_total", "Escalations, per reason.", "counter");
        for (k, (_, reason)) in REASONS.iter().enumerate() {
            let _ = writeln!(out, "shr_escalations_total{{reason=\"{reason}\"}} {}", self.escalations[k]);
        }
        head(&mut out, "shr_llm_calls_total", "Escalations that asked the LLM (or a person).", "counter");
        let _ = writeln!(out, "shr_llm_calls_total {}", self.llm_calls);
        out
    }
}

fn head(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A label value escaped as the text format asks: backslash, double quote and newline.
fn label(id: &str) -> String {
    let mut s = String::with_capacity(id.len());
    for c in id.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// A sample value as the text format writes it (`+Inf`, `NaN`).
fn float(x: f64) -> String {
    if x == f64::INFINITY {
        "+Inf".into()
    } else if x.is_nan() {
        "NaN".into()
    } else {
        alloc::format!("{x}")
    }
}
