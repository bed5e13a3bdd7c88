//! Random routing cases for the property tests: graphs of up to a given size with random costs,
//! failure sets and quorum joins, their routing weights, and the check of a plan against the
//! brute-force oracle.

use proptest::prelude::*;
use serde_json::json;
use shr_core::algo::Plan;
use shr_core::graph::Join;
use shr_core::ToolGraph;

#[derive(Debug, Clone)]
pub struct Case {
    pub graph: ToolGraph,
    pub failed: Vec<bool>,
}

/// Random graph description: `n` nodes, random edges with costs 0..10 (some zero), about one
/// node in eight a quorum join, and a random failure set.
pub fn case(max_nodes: usize) -> impl Strategy<Value = Case> {
    case_with(max_nodes, true, false)
}

/// Join-free graphs, which plain point-to-point queries answer with the two-sided search.
pub fn plain_case(max_nodes: usize) -> impl Strategy<Value = Case> {
    case_with(max_nodes, false, false)
}

/// Join-free acyclic graphs (every edge from a lower index to a higher one): tool graphs' shape,
/// which plain queries answer with the topological sweep.
pub fn dag_case(max_nodes: usize) -> impl Strategy<Value = Case> {
    case_with(max_nodes, false, true)
}

pub fn case_with(max_nodes: usize, with_joins: bool, acyclic: bool) -> impl Strategy<Value = Case> {
    (2..=max_nodes)
        .prop_flat_map(|n| {
            let edges = prop::collection::vec((0..n, 0..n, 0u32..=20), 0..=(n * 4));
            let joins = prop::collection::vec(0u32..8, n);
            let failed = prop::collection::vec(prop::bool::weighted(0.2), n);
            (Just(n), edges, joins, failed, 0..n)
        })
        .prop_map(move |(n, edges, joins, failed, goal)| {
            let mut seen = std::collections::BTreeSet::new();
            let edges: Vec<_> = edges
                .into_iter()
                .map(|(a, b, c)| if acyclic && a > b { (b, a, c) } else { (a, b, c) })
                .filter(|(a, b, _)| a != b && seen.insert((*a, *b)))
                .collect();
            let mut indeg = vec![0u32; n];
            for (_, b, _) in &edges {
                indeg[*b] += 1;
            }
            let nodes: Vec<_> = (0..n)
                .map(|i| {
                    let mut node = json!({ "id": format!("n{i}") });
                    // About one node in eight needs a quorum of 2 or 3 of its inputs.
                    if with_joins && joins[i] == 0 && indeg[i] >= 2 {
                        node["join"] = json!({ "quorum": 2 + (indeg[i] > 2 && i % 2 == 0) as u32 });
                    }
                    node
                })
                .collect();
            let edges: Vec<_> = edges
                .iter()
                .map(|(a, b, c)| json!({ "from": format!("n{a}"), "to": format!("n{b}"), "cost": *c as f64 / 2.0 }))
                .collect();
            let spec = json!({ "nodes": nodes, "edges": edges, "start": "n0", "goal": format!("n{goal}") });
            let graph = ToolGraph::from_json(&spec.to_string()).expect("generated graphs are valid");
            Case { graph, failed }
        })
}

pub fn weights(c: &Case) -> impl Fn(usize) -> f64 + '_ {
    move |e| {
        let edge = c.graph.edge(e);
        if c.failed[edge.to] {
            f64::INFINITY
        } else {
            edge.cost
        }
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// A plan is well formed and worth what it says: each node not a source is fed by its plan
/// edges as its join needs, comes after the nodes feeding them, over usable edges only, and
/// every plan edge feeds a plan node; and its cost is what the plan alone gives (nothing at a
/// source, the feeding edge's source plus its weight at a node, the sum over its `k` feeding
/// edges at a join: Knuth's superior function, each branch paying its own way).
pub fn check_plan(c: &Case, plan: &Plan, sources: &[usize], w: &dyn Fn(usize) -> f64) {
    let at = |v: usize| plan.nodes.iter().position(|&x| x == v).expect("plan edges join plan nodes");
    let mut value = vec![f64::NAN; c.graph.node_count()];
    let mut fed = 0;
    for &v in &plan.nodes {
        if sources.contains(&v) {
            value[v] = 0.0;
            continue;
        }
        let feeds: Vec<usize> = plan.edges.iter().copied().filter(|&e| c.graph.edge(e).to == v).collect();
        let need = match c.graph.node(v).join {
            Join::Any => 1,
            Join::Quorum(k) => k as usize,
        };
        assert_eq!(feeds.len(), need, "n{v} fed by {} plan edges, needs {need}", feeds.len());
        fed += need;
        let mut sum = 0.0;
        for e in feeds {
            let from = c.graph.edge(e).from;
            assert!(at(from) < at(v), "n{from} feeds n{v} but comes after it");
            assert!(w(e).is_finite(), "plan edge {e} is unusable");
            sum += value[from] + w(e);
        }
        value[v] = sum;
    }
    assert_eq!(fed, plan.edges.len(), "a plan edge feeds no plan node");
    let order = |e: usize| (at(c.graph.edge(e).to), c.graph.edge(e).from, e);
    let in_order = plan.edges.windows(2).all(|p| order(p[0]) < order(p[1]));
    assert!(in_order, "plan edges {:?} not by the node they enter, then source, then index", plan.edges);
    let worth = plan.nodes.last().map_or(f64::NAN, |&g| value[g]);
    assert!(close(worth, plan.cost), "the plan is worth {worth}, says {}", plan.cost);
}
