//! The fuzz input of `session_ops`: a small arbitrary graph (nodes, edges, backoffs, joins,
//! intents) and the hostile host's operations, clock moves, tool results and decisions.

use std::collections::BTreeSet;

use arbitrary::Arbitrary;
use serde_json::{json, Value};
use shr_core::{Category, ToolFailure, ToolGraph, ToolResult};

#[derive(Arbitrary, Debug)]
pub struct NodeGen {
    pub tool: bool,
    pub base_cost: u8,
    pub quorum: u8,
    pub retry: Option<(u8, Backoff)>,
    pub quota: Option<u8>,
    pub validator: Option<u8>,
    pub stage: u8,
}

#[derive(Arbitrary, Debug)]
pub enum Backoff {
    Small(u8),
    Any(u64),
}

#[derive(Arbitrary, Debug)]
pub struct EdgeGen {
    pub from: u8,
    pub to: u8,
    pub cost: u8,
    /// Guard on the source's `ok` field: (equals, negate).
    pub guard: Option<(bool, bool)>,
}

#[derive(Arbitrary, Debug)]
pub struct Input {
    pub nodes: Vec<NodeGen>,
    pub edges: Vec<EdgeGen>,
    pub goal: u8,
    pub task_goal: Option<u8>,
    pub task_start: Option<u8>,
    /// Risk rule on stage s1 with this max, and the context amount.
    pub risk: Option<(u8, u8)>,
    pub known_bad: Vec<u8>,
    /// Intent rule priority, and whether the request matches it.
    pub intent: Option<(u8, bool)>,
    pub tool_budget: u8,
    pub escalation_budget: u8,
    pub visit_budget: u8,
    pub breaker: Option<(u8, u8, u8, u8, u8)>,
    pub start_clock: u64,
    pub ops: Vec<Op>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Clock {
    Same,
    Advance(u16),
    AdvanceBig(u32),
    Back(u16),
    Jump(u64),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum ResultGen {
    Ok {
        ok_field: Option<bool>,
        count: i8,
        latency: u8,
    },
    Fail {
        category: u8,
        transient: bool,
        agent_action: bool,
        latency: u8,
    },
    /// Timed out: nobody knows what it did.
    Unknown {
        latency: u8,
    },
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum DecisionGen {
    Demote(u8),
    Approve,
    Abort,
    HandOff,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Op {
    Next(Clock),
    /// Report one of the calls in flight (or, when none is, node `pick`).
    ReportCall {
        pick: u8,
        result: ResultGen,
        clock: Clock,
    },
    /// Report any node id, including unknown ones and ones never called.
    ReportNode {
        node: u8,
        result: ResultGen,
        clock: Clock,
    },
    /// Report every call in flight with the same result (K failures together).
    ReportAll {
        result: ResultGen,
        clock: Clock,
    },
    Resolve {
        decision: DecisionGen,
        clock: Clock,
    },
    Redirect {
        node: u8,
        clock: Clock,
    },
}

pub fn id(i: usize) -> String {
    format!("n{i}")
}

/// Node `i` of `n`, or an id the graph does not have.
pub fn node_or_ghost(i: u8, n: usize) -> String {
    if (i as usize) < n {
        id(i as usize)
    } else if i.is_multiple_of(2) {
        format!("ghost{i}")
    } else {
        String::new()
    }
}

pub fn latency(l: u8) -> f64 {
    match l % 8 {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => -1.0,
        3 => 1e300,
        _ => l as f64,
    }
}

pub fn result(r: ResultGen) -> ToolResult {
    match r {
        ResultGen::Ok { ok_field, count, latency: l } => {
            let mut out = json!({ "count": count, "items": if count > 0 { json!([1]) } else { json!([]) } });
            if let Some(ok) = ok_field {
                out["ok"] = Value::Bool(ok);
            }
            ToolResult::ok(out, latency(l))
        }
        ResultGen::Fail { category, transient, agent_action, latency: l } => ToolResult::Err(ToolFailure {
            category: match category % 3 {
                0 => Category::Service,
                1 => Category::Input,
                _ => Category::Policy,
            },
            transient,
            message: "fuzz".into(),
            agent_action: agent_action.then(|| "try again later".into()),
            latency_ms: latency(l),
        }),
        ResultGen::Unknown { latency: l } => {
            ToolResult::Unknown { message: "fuzz: timed out".into(), latency_ms: latency(l) }
        }
    }
}

pub fn graph(input: &Input) -> ToolGraph {
    let n = 2 + input.nodes.len().min(7);
    let mut seen = BTreeSet::new();
    let mut indeg = vec![0u32; n];
    let mut edges = Vec::new();
    for e in input.edges.iter().take(24) {
        let (a, b) = (e.from as usize % n, e.to as usize % n);
        if a == b || !seen.insert((a, b)) {
            continue;
        }
        indeg[b] += 1;
        let mut edge = json!({ "from": id(a), "to": id(b), "cost": e.cost as f64 / 4.0 });
        if let Some((equals, negate)) = e.guard {
            edge["guard"] = json!({ "field": "ok", "equals": equals, "negate": negate });
        }
        edges.push(edge);
    }
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            let mut node = json!({ "id": id(i) });
            let Some(g) = input.nodes.get(i) else { return node };
            node["tool"] = json!(g.tool || i != 0);
            node["base_cost"] = json!([1.0, 0.0, 0.5, 3.0][g.base_cost as usize % 4]);
            if g.quorum % 4 >= 2 && indeg[i] >= 2 {
                node["join"] = json!({ "quorum": 2 + (g.quorum as u32 / 4) % (indeg[i] - 1) });
            }
            if let Some((attempts, backoff)) = &g.retry {
                let backoff = match backoff {
                    Backoff::Small(b) => *b as u64 * 10,
                    Backoff::Any(b) => *b,
                };
                node["retry"] = json!({ "attempts": attempts % 11, "backoff_ms": backoff });
            }
            if let Some(q) = g.quota {
                node["quota"] = json!(1 + q % 4);
            }
            match g.validator.map(|v| v % 3) {
                Some(0) => node["validators"] = json!([{ "field": "count", "min": 0 }]),
                Some(1) => node["validators"] = json!([{ "field": "items", "non_empty": true }]),
                Some(_) => node["validators"] = json!([{ "field": "ok", "one_of": [true] }]),
                None => {}
            }
            node["stage"] = json!(format!("s{}", g.stage % 3));
            node
        })
        .collect();
    let mut spec = json!({
        "nodes": nodes, "edges": edges, "start": id(0), "goal": id(input.goal as usize % n),
    });
    if let Some((max, _)) = input.risk {
        spec["risk_rules"] = json!([{ "key": "amount", "max": max as f64, "stage": "s1" }]);
    }
    if let Some((p, _)) = input.intent {
        let priority = [0.5, 0.9, 0.98, 1.0][p as usize % 4];
        spec["intents"] = json!([{ "keyword": "refund", "priority": priority }]);
    }
    ToolGraph::from_json(&spec.to_string()).expect("generated graphs are valid")
}
