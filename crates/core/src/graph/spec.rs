//! The graph description as JSON reads it ([`GraphSpec`] and its parts): what a user writes,
//! before validation.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::validate::Validator;

/// How a node combines its incoming branches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Join {
    /// Classic OR: one completed predecessor is enough (plain Dijkstra).
    #[default]
    Any,
    /// Needs `k` distinct completed predecessors (k = in-degree is AND).
    Quorum(u32),
}

/// Retry policy for transient service failures of one tool. A field left out takes the
/// default policy's value (one retry, no backoff), the same as leaving out `retry` entirely.
/// The wait before retry `n` is `backoff_ms x 2^(n-1)`, capped at `max_backoff_ms`, drawn
/// uniformly below that with `jitter` (see [`crate::health::backoff`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RetryPolicy {
    /// Extra attempts after the first call (0 = never retry).
    pub attempts: u32,
    /// The wait before the first retry; it doubles with each retry.
    pub backoff_ms: u64,
    /// The longest wait before a retry.
    pub max_backoff_ms: u64,
    /// Full jitter: runs that fail together do not retry together.
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { attempts: 1, backoff_ms: 0, max_backoff_ms: 30_000, jitter: true }
    }
}

/// `"rate_limit": {"calls": n, "per_ms": t}`: at most `n` calls per `t` ms, for every run of a
/// router together (a token bucket, [`crate::health::TokenBucket`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateLimitSpec {
    /// Calls allowed per window.
    pub calls: u32,
    /// The window, in milliseconds.
    pub per_ms: u64,
}

/// `"probe": {"interval_ms": t, "input": {...}}`: while the tool's breaker is not CLOSED, the
/// router asks its host for a probe call at most every `t` ms, once a probe is let through
/// (HALF_OPEN, and no other member of the fleet owns the probe), so that a down tool recovers
/// with no traffic and no host code (see [`crate::Router::due_probes`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbeSpec {
    /// The shortest time between two probes of the tool.
    pub interval_ms: u64,
    /// The input the probe call is given (a cheap, harmless request: a health check, a
    /// read); `null` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<serde_json::Value>,
}

/// One node as written in the JSON description. A field it does not know is an error (a
/// misspelt `validator` must not turn validation off in silence).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// The node's id, unique in the graph (1 to 128 bytes).
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The name to show (the id when absent).
    pub label: Option<String>,
    /// Capability tag, e.g. `payment`; risk rules and baselines refer to stages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    /// Multiplies the cost of every edge into this node (default 1).
    pub base_cost: f64,
    /// False for waypoints (start, goals) that complete without a call.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub tool: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Needs `quorum` distinct completed inputs (AND when it is the in-degree); default any one (OR).
    pub join: Option<JoinSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Retries of transient failures (default: one more attempt, no backoff).
    pub retry: Option<RetryPolicy>,
    /// What the tool does, for people and agents reading the graph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Calls allowed per quota window; the rate-limit factor rises near it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<u32>,
    /// The tool changes the world (charges a card, sends a message): a run does not branch back
    /// past it without undoing it first.
    #[serde(default, skip_serializing_if = "is_false")]
    pub side_effect: bool,
    /// The tool that undoes this one's side effect (saga pattern), run before a run branches
    /// back past it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compensate: Option<String>,
    /// A hard rate limit shared by every run: over it, the tool is routed around.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitSpec>,
    /// Calls allowed in flight at once (a bulkhead); the router's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrent: Option<u32>,
    /// Probe the tool while it is down, so that it recovers without traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeSpec>,
    /// How long a call may take before it is given up on (its `AbortSignal` aborts); the
    /// router's `admission.call_timeout_ms` when absent. The call's place in the bulkhead is a
    /// lease that runs out this long plus `admission.lease_grace_ms` after it was let through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// For a `side_effect` tool: the tool (another node id) that tells whether a call whose
    /// outcome is unknown (it timed out) took effect. It is called with the unknown call's
    /// `call_id` and answers `{"done": true}` or `{"done": false}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<String>,
    /// Normal latency of the tool; the latency factor compares the rolling mean with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_latency_ms: Option<f64>,
    /// Checks on the tool's output; a result that fails one is an implicit failure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validators: Vec<Validator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Horizontal position hint for drawing.
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Vertical position hint for drawing.
    pub y: Option<f64>,
    /// Why the node is what it is, for the person reviewing a proposed graph (`shr discover`
    /// says why tools were grouped and where a cost is a guess). Routing ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl NodeSpec {
    /// A tool node with every optional field left out, as `{"id": ...}` in JSON would give.
    pub fn new(id: impl Into<String>) -> NodeSpec {
        NodeSpec {
            id: id.into(),
            label: None,
            stage: None,
            base_cost: 1.0,
            tool: true,
            join: None,
            retry: None,
            description: None,
            side_effect: false,
            compensate: None,
            quota: None,
            rate_limit: None,
            max_concurrent: None,
            probe: None,
            timeout_ms: None,
            verify: None,
            baseline_latency_ms: None,
            validators: Vec::new(),
            x: None,
            y: None,
            reason: None,
        }
    }
}

/// `"join": {"quorum": k}` in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinSpec {
    /// Distinct completed inputs the node needs.
    pub quorum: u32,
}

/// One edge as written in the JSON description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EdgeSpec {
    /// The source node's id.
    pub from: String,
    /// The target node's id.
    pub to: String,
    #[serde(default = "one")]
    /// Non-negative and finite (default 1).
    pub cost: f64,
    /// Taken only when the last result of `from` satisfies this (cycles, seed 004).
    // Boxed: few edges have one, and an edge is 64 bytes instead of 120 while a description is
    // parsed (rand_100000's 400,000 edges: 157 -> 128 MB at the peak, `peak_mem` bench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<Box<Guard>>,
    /// Why the edge exists, for the person reviewing a proposed graph (`shr discover` names
    /// the output fields that feed the input). Routing ignores it. Boxed like `guard`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Box<String>>,
}

/// A deterministic edge guard on the last result of the edge's source tool: the machine
/// counterpart of seed 004's natural-language transition criteria ("if verification fails,
/// return to search"). Before the source has a result the guard is assumed to hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Guard {
    /// Dot path into the result (`ok`, `booking.status`).
    pub field: String,
    /// The guard holds when the field equals this value...
    pub equals: serde_json::Value,
    /// ...or, with `negate`, when it does not.
    #[serde(default, skip_serializing_if = "is_false")]
    pub negate: bool,
}

impl Guard {
    /// Whether the guard holds on a result.
    pub fn holds(&self, output: &serde_json::Value) -> bool {
        let mut v = Some(output);
        for part in self.field.split('.') {
            v = v.and_then(|v| v.get(part));
        }
        (v == Some(&self.equals)) != self.negate
    }
}

fn is_false(v: &bool) -> bool {
    !*v
}

/// A risk rule: before calling a tool of `stage`, if context value `key` exceeds `max`, the risk
/// monitor raises a signal of `priority` (which escalates when it wins).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RiskRule {
    /// The context key the rule reads (`amount`).
    pub key: String,
    /// The value above which the rule fires.
    pub max: f64,
    /// The stage the rule guards: it fires before a tool of this stage is called.
    pub stage: String,
    #[serde(default = "risk_priority")]
    /// The signal's priority when it fires.
    pub priority: f64,
}

/// An intent rule: when the task's `request` text contains `keyword`, the intent monitor raises a
/// routine signal of `priority`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntentRule {
    /// Text whose presence in the task's `request` raises the signal.
    pub keyword: String,
    #[serde(default = "intent_priority")]
    /// The signal's priority.
    pub priority: f64,
}

/// The JSON description of a tool graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// The JSON Schema the description follows, for editors (`graph.schema.json`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The format version: 1, this format. A description without it is read as version 1.
    #[serde(default = "format_version", skip_serializing_if = "is_format_version")]
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The graph's name, for people.
    pub name: Option<String>,
    /// The nodes: tools and waypoints.
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    /// The edges between them.
    pub edges: Vec<EdgeSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The start node of a task that names none.
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The goal node of a task that names none.
    pub goal: Option<String>,
    /// Stage names in pipeline order (for display and baselines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Rules that escalate before a guarded stage when a context value is too high.
    pub risk_rules: Vec<RiskRule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Keywords of the task's request that raise routine intent signals.
    pub intents: Vec<IntentRule>,
}

impl Default for GraphSpec {
    /// An empty description of the current format version.
    fn default() -> Self {
        GraphSpec {
            schema: None,
            version: FORMAT_VERSION,
            name: None,
            nodes: Vec::new(),
            edges: Vec::new(),
            start: None,
            goal: None,
            stages: Vec::new(),
            risk_rules: Vec::new(),
            intents: Vec::new(),
        }
    }
}

/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

fn format_version() -> u32 {
    FORMAT_VERSION
}
fn is_format_version(v: &u32) -> bool {
    *v == FORMAT_VERSION
}
fn one() -> f64 {
    1.0
}
fn is_one(v: &f64) -> bool {
    *v == 1.0
}
fn yes() -> bool {
    true
}
fn is_true(v: &bool) -> bool {
    *v
}
fn risk_priority() -> f64 {
    0.95
}
fn intent_priority() -> f64 {
    0.9
}
