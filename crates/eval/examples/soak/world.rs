//! The soak's random world: routers shared by groups of sessions, graphs (a chain that keeps the goal reachable, back edges, quorum
//! joins, retries, quotas, validators, guards, a risk rule), task contexts, and tool outcomes.

use serde_json::{json, Value};
use shr_core::graph::{EdgeSpec, GraphSpec, Guard, JoinSpec, NodeSpec, RateLimitSpec, RetryPolicy, RiskRule};
use shr_core::rng::SplitMix64;
use shr_core::validate::Validator;
use shr_core::{
    BreakerConfig, Category, Monitors, Router, SessionConfig, Task, ToolFailure, ToolGraph, ToolResult,
};
use shr_eval::perturb::{self, Complexity};

fn node(id: String) -> NodeSpec {
    NodeSpec::new(id)
}

/// A random graph: a chain that keeps the goal reachable, random extra edges (back edges make
/// cycles), quorum joins, retry policies, quotas, validators, guards, a risk rule.
pub(crate) fn random_spec(rng: &mut SplitMix64) -> GraphSpec {
    let n = 3 + rng.below(28) as usize;
    let guarded = rng.below(4) == 0;
    let mut nodes: Vec<NodeSpec> = (0..n).map(|i| node(format!("n{i}"))).collect();
    nodes[0].tool = rng.below(8) == 0;
    nodes[n - 1].tool = rng.below(2) == 0;
    let mut pairs = std::collections::BTreeSet::new();
    // The chain keeps the goal reachable in the healthy graph, except in one graph in sixteen
    // where a link is cut (the goal may then be unreachable: a validation warning, then no path).
    let cut = if rng.below(16) == 0 { rng.below(n as u64 - 1) as usize } else { usize::MAX };
    for i in 0..n - 1 {
        if i != cut {
            pairs.insert((i, i + 1));
        }
    }
    for _ in 0..rng.below(2 * n as u64) {
        let (a, b) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
        if a != b {
            pairs.insert((a, b));
        }
    }
    let mut indeg = vec![0u32; n];
    let mut edges = Vec::with_capacity(pairs.len());
    for &(a, b) in &pairs {
        indeg[b] += 1;
        let guard = (guarded && rng.below(4) == 0).then(|| {
            Box::new(Guard {
                field: "ok".into(),
                equals: Value::Bool(rng.below(2) == 0),
                negate: rng.below(4) == 0,
            })
        });
        edges.push(EdgeSpec {
            from: format!("n{a}"),
            to: format!("n{b}"),
            cost: rng.below(10) as f64,
            guard,
            reason: None,
        });
    }
    for (i, nd) in nodes.iter_mut().enumerate() {
        if indeg[i] >= 2 && rng.below(8) == 0 {
            nd.join = Some(JoinSpec { quorum: 1 + rng.below(indeg[i] as u64) as u32 });
        }
        if rng.below(3) == 0 {
            nd.retry = Some(RetryPolicy {
                attempts: rng.below(4) as u32,
                backoff_ms: rng.below(100),
                jitter: rng.below(2) == 0,
                ..RetryPolicy::default()
            });
        }
        if rng.below(16) == 0 {
            nd.max_concurrent = Some(1 + rng.below(3) as u32);
        }
        if rng.below(32) == 0 {
            nd.rate_limit =
                Some(RateLimitSpec { calls: 1 + rng.below(5) as u32, per_ms: 1 + rng.below(60_000) });
        }
        // Quotas are per hour and the router's tasks come about a minute apart: a small quota
        // takes its tool out for most of the run, so they are rare.
        if rng.below(64) == 0 {
            nd.quota = Some(1 + rng.below(40) as u32);
        }
        if rng.below(4) == 0 {
            nd.validators.push(Validator { min: Some(0.0), ..Validator::on("count") });
        }
        if rng.below(6) == 0 {
            nd.stage = Some("pay".into());
        }
        nd.base_cost = [1.0, 1.0, 0.5, 2.0][rng.below(4) as usize];
    }
    let risk_rules = if rng.below(4) == 0 {
        vec![RiskRule { key: "amount".into(), max: 100.0, stage: "pay".into(), priority: 0.95 }]
    } else {
        Vec::new()
    };
    GraphSpec {
        nodes,
        edges,
        start: Some("n0".into()),
        goal: Some(format!("n{}", n - 1)),
        risk_rules,
        ..GraphSpec::default()
    }
}

/// Sessions that share one router: its graph, limits and one live health, and a clock carried
/// from session to session.
pub(crate) struct Group {
    pub(crate) router: Router,
    pub(crate) now: u64,
    /// Sessions run at once on the router (1 to 8): their steps interleave.
    pub(crate) width: u64,
}

impl Group {
    pub(crate) fn new(rng: &mut SplitMix64) -> Group {
        let spec = if rng.below(3) == 0 {
            // ToolMaze tasks (substitute groups, parallel branches joined), with their validators.
            let c = Complexity::ALL[rng.below(4) as usize];
            perturb::generate(c, rng.next_u64()).spec
        } else {
            random_spec(rng)
        };
        // One graph in eight goes through the JSON text, as an imported description would.
        let graph = if rng.below(8) == 0 {
            let text = serde_json::to_string(&spec).unwrap_or_default();
            ToolGraph::from_json(&text)
        } else {
            ToolGraph::from_spec(spec)
        };
        // The generators only make valid descriptions: a refusal is a bug in the soak itself.
        let graph = graph.unwrap_or_else(|e| panic!("generated graph refused: {e}"));
        let mut config = SessionConfig::default();
        if rng.below(4) == 0 {
            config.tool_budget = 1 + rng.below(30) as u32;
            config.escalation_budget = rng.below(5) as u32;
            config.visit_budget = 1 + rng.below(4) as u32;
        }
        if rng.below(2) == 0 {
            config.breaker = BreakerConfig { cooldown_ms: 50 + rng.below(2_000), ..BreakerConfig::default() };
        }
        let router = Router::with_parts(graph, config, Monitors::default())
            .unwrap_or_else(|e| panic!("generated limits refused: {e}"));
        let width = [1, 2, 4, 8][rng.below(4) as usize];
        Group { router, now: 0, width }
    }
}

/// One task's context: an amount for the risk rules, sometimes a tool known to be bad.
pub(crate) fn task(rng: &mut SplitMix64, graph: &ToolGraph) -> Task {
    let mut task = Task::default();
    if rng.below(2) == 0 {
        task.context.insert("amount".into(), json!(rng.below(200)));
    }
    if rng.below(8) == 0 {
        let bad = graph.id(rng.below(graph.node_count() as u64) as usize).to_string();
        task.context.insert("known_bad".into(), json!([bad]));
    }
    task
}

/// What the host's tool returns: mostly success, else each kind of failure.
pub(crate) fn call(rng: &mut SplitMix64, fail_rate: f64) -> ToolResult {
    let latency = 1.0 + rng.below(300) as f64;
    if rng.unit() >= fail_rate {
        let ok = rng.below(5) != 0;
        return ToolResult::ok(
            json!({ "ok": ok, "count": rng.below(5), "status": "ok", "value": rng.below(100) }),
            latency,
        );
    }
    let failure = |category, transient: bool| {
        ToolResult::Err(ToolFailure {
            category,
            transient,
            message: "soak".into(),
            agent_action: None,
            latency_ms: latency,
        })
    };
    match rng.below(10) {
        0..=3 => failure(Category::Service, true),
        4..=5 => failure(Category::Service, false),
        // Well-formed but wrong: fails the validators where the tool has them.
        6..=7 => ToolResult::ok(json!({ "ok": false, "count": -1, "status": "error", "value": -1 }), latency),
        8 => failure(Category::Policy, false),
        _ => failure(Category::Input, false),
    }
}
