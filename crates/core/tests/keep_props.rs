//! Replanning against a brute-force oracle (issue 44), over random DAGs with quorum joins,
//! guards, side effects and compensations, and random tools down:
//! - no side effect the final path uses was undone;
//! - a completed run's path is an execution of the graph (every node fed by enough of the path,
//!   guards of origins holding) through tools that never failed;
//! - a `no_path` escalation only when no plan (enumerated from every set of completed nodes it
//!   may start from) keeps every side effect that nothing can undo.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::json;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::{
    check_observability, Call, Decision, EscalationReason, EscalationRequest, Performed, Session,
    SessionConfig, Status, Task, ToolGraph, ToolResult,
};

#[derive(Clone, Debug)]
struct Case {
    tools: usize,
    /// Edge present, by (from, to) over s = 0, tools 1..=n, g = n + 1, from < to.
    edges: Vec<bool>,
    costs: Vec<u8>,
    joins: Vec<bool>,
    effects: Vec<u8>,
    guards: Vec<bool>,
    ok: Vec<bool>,
    down: Vec<bool>,
}

fn name(case: &Case, i: usize) -> String {
    match i {
        0 => "s".into(),
        i if i == case.tools + 1 => "g".into(),
        i => format!("t{i}"),
    }
}

impl Case {
    fn pairs(&self) -> Vec<(usize, usize)> {
        let n = self.tools + 2;
        let all = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b)));
        all.filter(|&(a, b)| !(a == 0 && b == n - 1)).collect()
    }

    fn graph(&self) -> Option<ToolGraph> {
        let mut nodes = vec![json!({"id": "s", "tool": false}), json!({"id": "g", "tool": false})];
        let pairs = self.pairs();
        let chosen: Vec<(usize, usize)> =
            pairs.iter().zip(self.edges.iter().cycle()).filter(|(_, on)| **on).map(|(p, _)| *p).collect();
        let indeg = |v: usize| chosen.iter().filter(|p| p.1 == v).count();
        let mut effects = 0;
        for i in 1..=self.tools {
            let mut n = json!({"id": name(self, i)});
            if self.joins[i % self.joins.len()] && indeg(i) >= 2 {
                n["join"] = json!({"quorum": 2});
            }
            let fx = self.effects[i % self.effects.len()];
            if fx % 3 != 0 && effects < 4 {
                effects += 1;
                n["side_effect"] = json!(true);
                if fx % 3 == 2 {
                    n["compensate"] = json!(format!("undo{i}"));
                    nodes.push(json!({"id": format!("undo{i}")}));
                }
            }
            nodes.push(n);
        }
        let edges: Vec<_> = chosen
            .iter()
            .enumerate()
            .map(|(k, &(a, b))| {
                let mut e = json!({"from": name(self, a), "to": name(self, b), "cost": 1 + self.costs[k % self.costs.len()] % 5});
                if a > 0 && self.guards[k % self.guards.len()] {
                    e["guard"] = json!({"field": "ok", "equals": true});
                }
                e
            })
            .collect();
        let text = json!({"nodes": nodes, "edges": edges, "start": "s", "goal": "g"}).to_string();
        ToolGraph::from_json(&text).ok()
    }
}

fn case() -> impl Strategy<Value = Case> {
    (3usize..=6).prop_flat_map(|tools| {
        let pairs = (tools + 2) * (tools + 1) / 2;
        (
            Just(tools),
            prop::collection::vec(prop::bool::weighted(0.45), pairs),
            prop::collection::vec(any::<u8>(), 1..12),
            prop::collection::vec(prop::bool::weighted(0.4), 1..6),
            prop::collection::vec(any::<u8>(), 1..8),
            prop::collection::vec(prop::bool::weighted(0.15), 1..8),
            prop::collection::vec(prop::bool::weighted(0.8), tools + 2),
            prop::collection::vec(prop::bool::weighted(0.3), tools + 2),
        )
            .prop_map(|(tools, edges, costs, joins, effects, guards, ok, down)| Case {
                tools,
                edges,
                costs,
                joins,
                effects,
                guards,
                ok,
                down,
            })
    })
}

/// The run's state when it stopped, as the oracle reads it.
struct State<'a> {
    g: &'a ToolGraph,
    s: &'a Session,
    cyclic: bool,
    budget: u32,
}

impl State<'_> {
    fn lineage(&self, roots: &BTreeSet<usize>) -> BTreeSet<usize> {
        let mut kept = roots.clone();
        let mut stack: Vec<usize> = roots.iter().copied().collect();
        while let Some(v) = stack.pop() {
            for &e in self.s.run().traversed() {
                let edge = self.g.edge(e);
                if edge.to == v && kept.insert(edge.from) {
                    stack.push(edge.from);
                }
            }
        }
        kept
    }

    fn undoing(&self, v: usize) -> bool {
        let n = &self.s.run().nodes()[v];
        let node = self.g.node(v);
        n.is_compensated() || (n.is_abandoned() && node.side_effect && node.compensate().is_some())
    }

    /// Completed nodes a plan may start from: not undone, not built on undone work.
    fn eligible(&self, v: usize) -> bool {
        let n = &self.s.run().nodes()[v];
        n.is_completed() && !self.lineage(&BTreeSet::from([v])).iter().any(|&u| self.undoing(u))
    }

    /// Every set of sources some plan reaching `v` starts from.
    fn options(&self, v: usize, memo: &mut BTreeMap<usize, Vec<BTreeSet<usize>>>) -> Vec<BTreeSet<usize>> {
        if let Some(o) = memo.get(&v) {
            return o.clone();
        }
        let nodes = self.s.run().nodes();
        let n = &nodes[v];
        let mut out: Vec<BTreeSet<usize>> = Vec::new();
        if self.eligible(v) {
            out.push(BTreeSet::from([v]));
        }
        let node = self.g.node(v);
        let enterable = if n.is_completed() {
            self.cyclic && (n.is_compensated() || !node.side_effect) && n.visits() < self.budget
        } else {
            true
        };
        if enterable && !n.is_avoided() && v != self.g.start() {
            let mut per_edge: Vec<Vec<BTreeSet<usize>>> = Vec::new();
            for (e, edge) in self.g.edges().iter().enumerate().filter(|(_, x)| x.to == v) {
                let from = edge.from;
                let mut opts = Vec::new();
                for o in self.options(from, memo) {
                    let origin = o.len() == 1 && o.contains(&from) && nodes[from].is_completed();
                    let guard_ok = match (self.g.guard(e), origin) {
                        (Some(guard), true) => {
                            self.s.run().nodes()[from].output().is_some_and(|out| guard.holds(out))
                        }
                        _ => true,
                    };
                    if guard_ok {
                        opts.push(o);
                    }
                }
                per_edge.push(opts);
            }
            match self.g.quorum(v) {
                0 => out.extend(per_edge.into_iter().flatten()),
                _ => {
                    for i in 0..per_edge.len() {
                        for j in i + 1..per_edge.len() {
                            for a in &per_edge[i] {
                                for b in &per_edge[j] {
                                    out.push(a.union(b).copied().collect());
                                }
                            }
                        }
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out.truncate(4000);
        memo.insert(v, out.clone());
        out
    }

    /// Whether a plan exists that keeps every completed side effect nothing can undo.
    fn valid_plan_exists(&self) -> bool {
        let nodes = self.s.run().nodes();
        let must: BTreeSet<usize> = (0..nodes.len())
            .filter(|&v| {
                let (n, node) = (&nodes[v], self.g.node(v));
                n.is_completed() && node.side_effect && node.compensate().is_none() && !n.is_compensated()
            })
            .collect();
        let mut memo = BTreeMap::new();
        self.options(self.g.goal(), &mut memo).iter().any(|sources| self.lineage(sources).is_superset(&must))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn replanning_agrees_with_the_oracle(case in case()) {
        let Some(g) = case.graph() else { return Ok(()) };
        let down: BTreeSet<String> = (1..=case.tools).filter(|&i| case.down[i]).map(|i| name(&case, i)).collect();
        let ok: BTreeMap<String, bool> = (1..=case.tools).map(|i| (name(&case, i), case.ok[i])).collect();
        let mut s = Session::new(g.clone(), Task::default(), 0).unwrap();
        let mut reasons = Vec::new();
        let call = |c: &Call| {
            let result = if down.contains(&c.tool) {
                ToolResult::outage("down")
            } else {
                ToolResult::ok(json!({"ok": ok.get(&c.tool).copied().unwrap_or(true)}), 1.0)
            };
            Performed { result, latency_ms: 1 }
        };
        let escalate = |r: &EscalationRequest| {
            reasons.push(r.reason);
            Decision::Abort { message: "stop".into() }
        };
        s.drive(&mut FnHost::new(call, escalate), 0);
        check_observability(s.events()).unwrap();
        let o = s.outcome().unwrap().clone();
        // An undone side effect is on the path only if it ran again after (a cyclic workflow).
        let mut last_undone: BTreeMap<&str, usize> = BTreeMap::new();
        let mut last_done: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, e) in s.events().iter().enumerate() {
            match &e.kind {
                EventKind::Compensated { tool, .. } => { last_undone.insert(tool, i); }
                EventKind::ToolSucceeded { tool, .. } => { last_done.insert(tool, i); }
                _ => {}
            }
        }
        for (tool, at) in last_undone {
            prop_assert!(!o.path.iter().any(|p| p == tool) || last_done[tool] > at,
                "undid {tool}, which the path uses: {:?}", o.path);
        }
        if o.status == Status::Completed {
            let on: BTreeSet<usize> = o.path.iter().map(|id| g.index(id).unwrap()).collect();
            for &v in &on {
                prop_assert!(!down.contains(g.id(v)), "{} is down", g.id(v));
                if v == g.start() {
                    continue;
                }
                let feeders = g.edges().iter().filter(|e| e.to == v && on.contains(&e.from)).count();
                prop_assert!(feeders >= (g.quorum(v) as usize).max(1), "{} not fed: {:?}", g.id(v), o.path);
            }
        }
        if reasons.last() == Some(&EscalationReason::NoPath) {
            let state = State { g: &g, s: &s, cyclic: g.has_guards(), budget: SessionConfig::default().visit_budget };
            prop_assert!(!state.valid_plan_exists(),
                "escalated although a plan keeps every side effect: path {:?}, abandoned {:?}", o.path, o.abandoned);
        }
    }
}
