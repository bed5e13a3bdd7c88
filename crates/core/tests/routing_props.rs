//! Property tests on random graphs (up to 200 nodes, random failure sets, random quorum joins):
//! the router against a brute-force oracle, and the session's invariants.

use proptest::prelude::*;
use serde_json::json;
use shr_core::algo::{oracle, Dijkstra, Plan, Trace, TraceStep};
use shr_core::audit_completion;
use shr_core::check_observability;
use shr_core::drive::FnHost;
use shr_core::event::to_json_lines;
use shr_core::{Call, Decision, EscalationRequest, Performed, Session, Status, Task, ToolGraph, ToolResult};

#[path = "support/routing_cases.rs"]
mod routing_cases;
use routing_cases::{case, check_plan, close, dag_case, plain_case, weights, Case};

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn plan_cost_equals_the_oracle_and_none_exactly_when_unreachable(c in case(200)) {
        let (s, g) = (c.graph.start(), c.graph.goal());
        let w = weights(&c);
        let got = Dijkstra::new().route(&c.graph, &[s], g, &w, &mut ());
        let want = oracle::cheapest_cost(&c.graph, &[s], g, &w);
        match (&got, want) {
            (Some(p), Some(o)) => {
                prop_assert!(close(p.cost, o), "dijkstra {} oracle {}", p.cost, o);
                check_plan(&c, p, &[s], &w);
            }
            (None, None) => {}
            (p, o) => prop_assert!(false, "dijkstra {:?} oracle {:?}", p.as_ref().map(|p| p.cost), o),
        }
    }

    #[test]
    fn the_two_sided_search_finds_what_the_one_sided_search_finds(
        c in plain_case(200),
        extra in prop::collection::vec(0usize..200, 0..3),
    ) {
        let sources: Vec<usize> = core::iter::once(c.graph.start())
            .chain(extra.into_iter().filter(|&s| s < c.graph.node_count()))
            .collect();
        let g = c.graph.goal();
        let w = weights(&c);
        let mut d = Dijkstra::new();
        // Nobody records: the two-sided search. A trace asks for the one-sided one.
        let two = d.route(&c.graph, &sources, g, &w, &mut ());
        let two_settled = d.settled_count();
        let mut trace = Trace::default();
        let one = d.route(&c.graph, &sources, g, &w, &mut trace);
        // The count of the one-sided search is the settled steps a trace shows.
        let traced = trace.steps.iter().filter(|s| matches!(s, TraceStep::Settled { .. })).count();
        prop_assert_eq!(d.settled_count(), traced);
        // Each side settles a node at most once.
        prop_assert!(two_settled <= 2 * c.graph.node_count());
        // Nothing to search only when the goal is a source.
        prop_assert_eq!(two_settled == 0, sources.contains(&g));
        let want = oracle::cheapest_cost(&c.graph, &sources, g, &w);
        match (&two, &one, want) {
            (Some(p), Some(q), Some(o)) => {
                prop_assert!(close(p.cost, o) && close(q.cost, o), "two-sided {} one-sided {} oracle {}", p.cost, q.cost, o);
                // A simple path from a source to the goal, edge after edge.
                prop_assert!(sources.contains(&p.nodes[0]));
                prop_assert_eq!(p.nodes.last(), Some(&g));
                prop_assert_eq!(p.edges.len() + 1, p.nodes.len());
                for (i, &e) in p.edges.iter().enumerate() {
                    let edge = c.graph.edge(e);
                    prop_assert_eq!((edge.from, edge.to), (p.nodes[i], p.nodes[i + 1]));
                }
                let mut seen = p.nodes.clone();
                seen.sort_unstable();
                seen.dedup();
                prop_assert_eq!(seen.len(), p.nodes.len(), "a node twice on {:?}", &p.nodes);
                check_plan(&c, p, &[p.nodes[0]], &weights(&c));
                prop_assert!(p.seeds.is_empty());
            }
            (None, None, None) => {}
            (p, q, o) => prop_assert!(false, "two-sided {:?} one-sided {:?} oracle {:?}",
                p.as_ref().map(|p| p.cost), q.as_ref().map(|q| q.cost), o),
        }
        // Reused buffers give the same answer as fresh ones.
        prop_assert_eq!(&two, &Dijkstra::new().route(&c.graph, &sources, g, &w, &mut ()));
    }

    #[test]
    fn routing_is_deterministic_and_buffers_are_reusable(c in case(120)) {
        let (s, g) = (c.graph.start(), c.graph.goal());
        let w = weights(&c);
        let mut d = Dijkstra::new();
        let a = d.route(&c.graph, &[s], g, &w, &mut ());
        let b = d.route(&c.graph, &[s], g, &w, &mut ());
        let fresh = Dijkstra::new().route(&c.graph, &[s], g, &w, &mut ());
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(&a, &fresh);
    }

    #[test]
    fn sessions_keep_their_invariants_and_are_deterministic(c in case(60), after in 0u32..6, demote in 0usize..60) {
        let a = run_session(&c, after, demote);
        let b = run_session(&c, after, demote);
        prop_assert_eq!(&a.0, &b.0, "same inputs, different events");
        let (events_json, outcome, completed, failed_tools) = a;
        let events: Vec<serde_json::Value> =
            events_json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        // Every ToolFailed is followed by Retried, Rerouted or Escalated.
        for (i, e) in events.iter().enumerate() {
            if e["event"] == "ToolFailed" {
                let answered = events[i + 1..].iter().any(|l| {
                    l["event"] == "Rerouted" || l["event"] == "Escalated"
                        || (l["event"] == "Retried" && l["tool"] == e["tool"])
                });
                prop_assert!(answered, "ToolFailed at {} unanswered", i);
            }
        }
        let outcome = outcome.expect("every session finishes");
        if outcome.status != Status::Escalated {
            let goal = c.graph.index(&outcome.goal).unwrap();
            let done: Vec<usize> = completed.iter().map(|id| c.graph.index(id).unwrap()).collect();
            prop_assert!(audit_completion(&c.graph, c.graph.start(), &done, goal).is_ok(),
                "success with a required step missing: {:?}", completed);
            for t in &failed_tools {
                prop_assert!(!completed.contains(t), "completed a tool that failed: {}", t);
            }
        }
    }
}

/// Drives a session: tools marked failed fail once `after` calls have been made; escalations
/// are answered by demoting to node `demote % n` once, then aborting.
fn run_session(
    c: &Case,
    after: u32,
    demote: usize,
) -> (String, Option<shr_core::Outcome>, Vec<String>, Vec<String>) {
    let mut s = Session::new(c.graph.clone(), Task::default(), 0).unwrap();
    let mut calls = 0u32;
    let mut demoted = false;
    let mut failed_tools = Vec::new();
    s.drive(
        &mut FnHost::new(
            |call: &Call| {
                let v = c.graph.index(&call.tool).unwrap();
                let result = if c.failed[v] && calls >= after {
                    failed_tools.push(call.tool.clone());
                    ToolResult::outage("down")
                } else {
                    ToolResult::ok(json!({}), 5.0)
                };
                calls += 1;
                Performed { result, latency_ms: 7 }
            },
            |_: &EscalationRequest| {
                if demoted {
                    Decision::Abort { message: "give up".into() }
                } else {
                    demoted = true;
                    Decision::Demote { goal: c.graph.id(demote % c.graph.node_count()).to_string() }
                }
            },
        ),
        0,
    );
    let completed = s.completed().map(str::to_string).collect();
    (to_json_lines(s.events()), s.outcome().cloned(), completed, failed_tools)
}

/// Branching graphs like the benchmark's (out-degree 4): the two-sided search's frontiers grow
/// many levels before they meet, which is where its pruning (a node that cannot lead to a cheaper
/// meeting is not queued) decides. Many queries per graph, each with its own failures, against
/// the one-sided search. Costs run from 0 to 10 in steps of 1/32, one edge in eight free: a
/// pruning rule with slack `s` (`offer + beyond + s < best`) errs only past an edge cheaper than
/// `s`, so costs of 1 and more let a slack of 0.5 pass unseen, and free edges (zero-cost cycles
/// too) are where a rule meets its edge cases.
fn branching_graph(max_nodes: usize) -> impl Strategy<Value = (Case, Vec<(usize, usize, Vec<usize>)>)> {
    (20..=max_nodes).prop_flat_map(|n| {
        let cost = prop_oneof![1 => Just(0u32), 7 => 0u32..=320];
        let edges = prop::collection::vec((0..n, cost), n * 4);
        let queries = prop::collection::vec((0..n, 0..n, prop::collection::vec(0..n, 0..6)), 24);
        (Just(n), edges, queries)
    })
    .prop_map(|(n, edges, queries)| {
        let nodes: Vec<_> = (0..n).map(|i| json!({ "id": format!("n{i}") })).collect();
        // Node i's four out-edges: to random targets (a repeat or a self-loop is dropped).
        let mut seen = std::collections::BTreeSet::new();
        let edges: Vec<_> = edges
            .iter()
            .enumerate()
            .map(|(i, &(to, c))| (i / 4, to, c))
            .filter(|&(a, b, _)| a != b && seen.insert((a, b)))
            .map(|(a, b, c)| json!({ "from": format!("n{a}"), "to": format!("n{b}"), "cost": c as f64 / 32.0 }))
            .collect();
        let spec = json!({ "nodes": nodes, "edges": edges, "start": "n0", "goal": "n1" });
        let graph = ToolGraph::from_json(&spec.to_string()).expect("generated graphs are valid");
        (Case { graph, failed: vec![false; n] }, queries)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn on_branching_graphs_the_two_sided_search_finds_the_cheapest_cost((mut c, queries) in branching_graph(400)) {
        let mut d = Dijkstra::new();
        let (mut two, mut one) = (Plan::default(), Plan::default());
        for (s, t, down) in queries {
            c.failed.fill(false);
            down.iter().filter(|&&v| v != s && v != t).for_each(|&v| c.failed[v] = true);
            let (g, w) = (&c.graph, weights(&c));
            let found = d.route_into(g, &[s], t, &w, &mut (), &mut two);
            let want = d.route_into(g, &[s], t, &w, &mut Trace::default(), &mut one);
            prop_assert_eq!(found, want, "{} -> {} with {:?} down", s, t, &down);
            if found {
                prop_assert!(close(two.cost, one.cost), "two-sided {} one-sided {}", two.cost, one.cost);
                let sum: f64 = two.edges.iter().map(|&e| w(e)).sum();
                prop_assert!(close(sum, two.cost), "edge sum {} != cost {}", sum, two.cost);
                prop_assert_eq!((two.nodes[0], two.nodes.last().copied()), (s, Some(t)));
            }
        }
    }
}

/// Nodes settled is the work a route does: on a binary tree whose goal is a deepest leaf, the
/// one-sided search settles every node nearer than the goal, the two-sided one little more than
/// the goal's ancestors.
#[test]
fn settled_count_shows_the_two_sided_search_doing_less_work() {
    let depth = 10;
    let n = (1usize << (depth + 1)) - 1;
    let nodes: Vec<_> = (0..n).map(|i| json!({"id": format!("n{i}")})).collect();
    let edges: Vec<_> =
        (1..n).map(|i| json!({"from": format!("n{}", (i - 1) / 2), "to": format!("n{i}")})).collect();
    let spec = json!({"nodes": nodes, "edges": edges, "start": "n0", "goal": format!("n{}", n - 1)});
    let g = ToolGraph::from_json(&spec.to_string()).unwrap();
    let w = |e: usize| g.edge(e).cost;
    let mut d = Dijkstra::new();
    let two = d.route(&g, &[g.start()], g.goal(), &w, &mut ()).unwrap();
    let two_settled = d.settled_count();
    let one = d.route(&g, &[g.start()], g.goal(), &w, &mut Trace::default()).unwrap();
    let one_settled = d.settled_count();
    assert_eq!((two.cost, one.cost), (depth as f64, depth as f64));
    // Every node above the goal's depth, and the goal itself, at least.
    assert!(one_settled >= (1 << depth), "one-sided settled {one_settled}");
    assert!(two_settled <= 4 * (depth + 1), "two-sided settled {two_settled}");
    // The count is the last query's, not a running total.
    d.route(&g, &[g.start()], g.start(), &w, &mut ()).unwrap();
    assert_eq!(d.settled_count(), 0);
}

#[test]
fn observability_checker_catches_an_unanswered_failure() {
    use shr_core::event::{Event, EventKind};
    let failed = Event {
        seq: 0,
        at: 0,
        kind: EventKind::ToolFailed {
            tool: "x".into(),
            category: shr_core::Category::Service,
            implicit: false,
            transient: false,
            message: String::new(),
            agent_action: None,
        },
    };
    assert!(check_observability(&[failed]).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// On acyclic graphs the topological sweep finds the oracle's cost, as the one-sided
    /// Dijkstra does, and a simple path from a source to the goal.
    #[test]
    fn the_topological_sweep_matches_dijkstra_and_the_oracle(
        c in dag_case(120),
        extra in prop::collection::vec(0usize..120, 0..3),
    ) {
        prop_assert!(c.graph.topo_position(0).is_some(), "generated DAGs have an order");
        let sources: Vec<usize> = core::iter::once(c.graph.start())
            .chain(extra.into_iter().filter(|&s| s < c.graph.node_count()))
            .collect();
        let g = c.graph.goal();
        let w = weights(&c);
        let mut sweep_plan = Plan::default();
        let swept = shr_core::algo::TopoSweep::new().route_into(&c.graph, &sources, g, &w, &mut sweep_plan);
        let mut trace = Trace::default();
        let one = Dijkstra::new().route(&c.graph, &sources, g, &w, &mut trace);
        let want = oracle::cheapest_cost(&c.graph, &sources, g, &w);
        prop_assert_eq!(swept, want.is_some());
        prop_assert_eq!(one.is_some(), want.is_some());
        if let (Some(o), Some(q)) = (want, one) {
            prop_assert!(close(sweep_plan.cost, o) && close(q.cost, o), "sweep {} one-sided {} oracle {}", sweep_plan.cost, q.cost, o);
            prop_assert!(sources.contains(&sweep_plan.nodes[0]));
            prop_assert_eq!(sweep_plan.nodes.last(), Some(&g));
            prop_assert_eq!(sweep_plan.edges.len() + 1, sweep_plan.nodes.len());
            let mut total = 0.0;
            for (i, &e) in sweep_plan.edges.iter().enumerate() {
                let edge = c.graph.edge(e);
                prop_assert_eq!((edge.from, edge.to), (sweep_plan.nodes[i], sweep_plan.nodes[i + 1]));
                total += w(e);
            }
            prop_assert!(close(total, sweep_plan.cost));
            // The same inputs, the same path.
            let mut again = Plan::default();
            shr_core::algo::TopoSweep::new().route_into(&c.graph, &sources, g, &w, &mut again);
            prop_assert_eq!(again, sweep_plan);
        }
    }

    /// With node factors (live weights' form) the sweep pulls: the same plan, edge for edge, as
    /// the push sweep over the same weights edge by edge, and the same count of nodes swept; one
    /// reused sweep answers a mix of both kinds of query. On graphs with quorum joins too: the
    /// oracle's cost and the one-sided Dijkstra's, a plan that costs what it says (each node
    /// after its feeders, each join fed `k` times), and a Dijkstra nobody records answering with
    /// the sweep's plan.
    #[test]
    fn the_pull_sweep_gives_the_push_sweeps_plan(
        c in prop_oneof![dag_case(120), join_dag_case(120)],
        factors in prop::collection::vec(prop_oneof![8 => 0u32..16, 1 => Just(u32::MAX)], 120),
        extra in prop::collection::vec(0usize..120, 0..3),
    ) {
        let sources: Vec<usize> = core::iter::once(c.graph.start())
            .chain(extra.into_iter().filter(|&s| s < c.graph.node_count()))
            .collect();
        let g = c.graph.goal();
        // A factor per node: 0 to 3.75 in quarters, or infinite (a failed tool).
        let factor: Vec<f64> = (0..c.graph.node_count())
            .map(|v| if factors[v] == u32::MAX || c.failed[v] { f64::INFINITY } else { factors[v] as f64 / 4.0 })
            .collect();
        let pull = Factored { graph: &c.graph, factor: &factor };
        let push = |e: usize| shr_core::algo::entered_weight(c.graph.edge(e).cost, factor[c.graph.edge(e).to]);
        let mut sweep = shr_core::algo::TopoSweep::new();
        let (mut a, mut b) = (Plan::default(), Plan::default());
        let pushed = sweep.route_into(&c.graph, &sources, g, &push, &mut a);
        let pushed_count = sweep.swept_count();
        let pulled = sweep.route_into(&c.graph, &sources, g, &pull, &mut b);
        prop_assert_eq!(pushed, pulled);
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(pushed_count, sweep.swept_count());
        let want = oracle::cheapest_cost(&c.graph, &sources, g, &push);
        let one = Dijkstra::new().route(&c.graph, &sources, g, &push, &mut Trace::default());
        prop_assert_eq!(pulled, want.is_some());
        prop_assert_eq!(one.is_some(), want.is_some());
        if let (Some(o), Some(q)) = (want, one) {
            prop_assert!(close(b.cost, o) && close(q.cost, o), "sweep {} one-sided {} oracle {}", b.cost, q.cost, o);
            prop_assert_eq!(b.nodes.last(), Some(&g));
            check_plan(&c, &b, &sources, &push);
        }
        let mut routed = Plan::default();
        let found = Dijkstra::new().route_into(&c.graph, &sources, g, &pull, &mut (), &mut routed);
        prop_assert_eq!(found, pulled);
        prop_assert_eq!(&routed, &b);
        // Pushed again after a pull on the same buffers: the same answer as at first.
        let mut c2 = Plan::default();
        sweep.route_into(&c.graph, &sources, g, &push, &mut c2);
        prop_assert_eq!(&a, &c2);
    }
}

/// Weights given as a factor per node, as live health gives them.
struct Factored<'a> {
    graph: &'a ToolGraph,
    factor: &'a [f64],
}

impl shr_core::algo::EdgeWeight for Factored<'_> {
    fn weight(&self, e: usize) -> f64 {
        shr_core::algo::entered_weight(self.graph.edge(e).cost, self.factor[self.graph.edge(e).to])
    }
    fn entry_factor(&self, v: usize) -> Option<f64> {
        Some(self.factor[v])
    }
}

/// Acyclic graphs with quorum joins on the way: every node after the first is entered from one
/// to four earlier nodes (so all can be reached from `n0`), half of those with two or more
/// inputs needing a quorum of 2 or 3, the goal in the last third, one tool in seven failed.
fn join_dag_case(max_nodes: usize) -> impl Strategy<Value = Case> {
    (3..=max_nodes)
        .prop_flat_map(|n| {
            let inputs = prop::collection::vec(prop::collection::vec((0..n, 0u32..=20), 1..=4), n);
            let joins = prop::collection::vec((0u32..2, 2u32..=3), n);
            let failed = prop::collection::vec(prop::bool::weighted(0.15), n);
            (Just(n), inputs, joins, failed, (2 * n / 3)..n)
        })
        .prop_map(|(n, inputs, joins, failed, goal)| {
            let mut nodes = Vec::new();
            let mut edges = Vec::new();
            for (v, ins) in inputs.iter().enumerate() {
                let mut node = json!({ "id": format!("n{v}") });
                let mut from: Vec<(usize, u32)> =
                    if v == 0 { Vec::new() } else { ins.iter().map(|&(u, c)| (u % v, c)).collect() };
                from.sort_unstable_by_key(|f| f.0);
                from.dedup_by_key(|f| f.0);
                if joins[v].0 == 0 && from.len() >= 2 {
                    node["join"] = json!({ "quorum": joins[v].1.min(from.len() as u32) });
                }
                for (u, c) in from {
                    edges.push(
                        json!({ "from": format!("n{u}"), "to": format!("n{v}"), "cost": c as f64 / 2.0 }),
                    );
                }
                nodes.push(node);
            }
            let spec = json!({ "nodes": nodes, "edges": edges, "start": "n0", "goal": format!("n{goal}") });
            let graph = ToolGraph::from_json(&spec.to_string()).expect("generated graphs are valid");
            debug_assert!(n == graph.node_count());
            Case { graph, failed }
        })
}
