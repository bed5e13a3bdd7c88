//! What a plan keeps and what it abandons: one definition, used both for where a plan may
//! start and for what is undone.
//!
//! A plan keeps the completed work it starts from (its sources: completed plan nodes and the
//! origins of its seed edges) and everything that work was built on, along the edges the run
//! traversed. Every other completed tool is abandoned. A side effect is undone only when the
//! plan abandons it, and one that cannot be undone forbids the plans that would abandon it; the
//! search weighs the compensations a plan makes necessary ([`crate::algo::keep`]). Completion
//! order plays no part: with a join, work completed late may feed the plan and work completed
//! early may not.

use alloc::string::String;
use alloc::vec::Vec;

use super::{Env, Run};
use crate::algo::keep::{KeepSearch, MAX_KEPT};
use crate::algo::Plan;
use crate::graph::NodeIx;

/// A side effect at stake in a choice of plan: abandoning it costs its compensation, or is
/// not allowed (`None`).
struct Stake {
    tool: NodeIx,
    undo_cost: Option<f64>,
}

impl Run {
    /// Marks `roots` and the completed work they were built on (edges the run traversed).
    /// O(T log T) for T traversed edges.
    pub(super) fn lineage(&self, env: &Env<'_>, roots: impl IntoIterator<Item = NodeIx>) -> Vec<bool> {
        let mut kept = alloc::vec![false; self.nodes.len()];
        let mut into = self.traversed.clone();
        crate::sort::by_key(&mut into, &mut Vec::new(), |e| env.graph.edge(e).to as u64);
        let mut stack: Vec<NodeIx> = roots.into_iter().collect();
        while let Some(v) = stack.pop() {
            if core::mem::replace(&mut kept[v], true) {
                continue;
            }
            let from = into.partition_point(|&e| env.graph.edge(e).to < v);
            for &e in into[from..].iter().take_while(|&&e| env.graph.edge(e).to == v) {
                stack.push(env.graph.edge(e).from);
            }
        }
        kept
    }

    /// Nodes undone or being undone (a side effect a plan abandoned, with a compensation), and
    /// all work built on them: no plan may start from them. Empty when nothing was undone.
    pub(super) fn tainted(&self, env: &Env<'_>) -> Vec<bool> {
        let undoing = |v: NodeIx| {
            let n = &self.nodes[v];
            n.compensated
                || (n.abandoned && env.graph.node(v).side_effect && env.graph.node(v).compensate().is_some())
        };
        let roots: Vec<NodeIx> = self.completion.iter().copied().filter(|&v| undoing(v)).collect();
        if roots.is_empty() {
            return Vec::new();
        }
        let mut out = alloc::vec![false; self.nodes.len()];
        for &v in &self.completion {
            if !out[v] {
                let built_on = self.lineage(env, [v]);
                out[v] = roots.iter().any(|&r| built_on[r]);
            }
        }
        out
    }

    /// What `plan` keeps: its sources and their lineage.
    pub(super) fn kept_by(&self, env: &Env<'_>, plan: &Plan) -> Vec<bool> {
        let completed = plan.nodes.iter().copied().filter(|&v| self.nodes[v].completed);
        let origins = plan.seeds.iter().map(|&e| env.graph.edge(e).from);
        self.lineage(env, completed.chain(origins))
    }

    /// Completed tools `plan` abandons that no earlier plan abandoned or undid, latest first.
    pub(super) fn abandoned_by(&self, env: &Env<'_>, plan: &Plan) -> Vec<NodeIx> {
        let kept = self.kept_by(env, plan);
        let mut out: Vec<NodeIx> = Vec::new();
        for &w in self.completion.iter().rev() {
            let n = &self.nodes[w];
            if n.completed && !kept[w] && !n.abandoned && env.graph.node(w).tool && !out.contains(&w) {
                out.push(w);
            }
        }
        out
    }

    /// The executed path (ids, completion order), its cost, the sunk cost and the abandoned tools: at the
    /// goal, the goal's lineage; before it, completed work not abandoned.
    pub(super) fn executed(&self, env: &Env<'_>) -> (Vec<String>, f64, f64, Vec<String>) {
        let kept = if self.nodes[self.goal].completed {
            self.lineage(env, [self.goal])
        } else {
            self.nodes.iter().map(|n| n.completed && !n.abandoned).collect()
        };
        let id = |v: NodeIx| String::from(env.graph.id(v));
        let path = self.completion.iter().filter(|&&v| kept[v]).map(|&v| id(v)).collect();
        let mut abandoned: Vec<String> = Vec::new();
        for &v in self.completion.iter().filter(|&&v| !kept[v] && env.graph.node(v).tool) {
            if !abandoned.contains(&id(v)) {
                abandoned.push(id(v));
            }
        }
        let (mut cost, mut sunk) = (0.0, 0.0);
        for e in self.traversed.iter().map(|&e| env.graph.edge(e)) {
            let c = e.cost * env.graph.node(e.to).base_cost;
            if kept[e.from] && kept[e.to] {
                cost += c;
            } else {
                sunk += c;
            }
        }
        (path, cost, sunk, abandoned)
    }

    /// The side effects among `abandoned` that no compensation can undo.
    pub(super) fn irreversible(&self, env: &Env<'_>, abandoned: &[NodeIx]) -> Vec<NodeIx> {
        abandoned
            .iter()
            .copied()
            .filter(|&w| self.stake(env, w).is_some_and(|s| s.undo_cost.is_none()))
            .collect()
    }

    /// `w` as a side effect at stake, if it is one: completed and not undone.
    fn stake(&self, env: &Env<'_>, w: NodeIx) -> Option<Stake> {
        let node = env.graph.node(w);
        if !node.side_effect || self.nodes[w].compensated || self.nodes[w].abandoned {
            return None;
        }
        let undo_cost =
            node.compensate().map(|by| env.graph.node(by).base_cost * env.health.weight(by, self.now));
        Some(Stake { tool: w, undo_cost: undo_cost.filter(|c| c.is_finite()) })
    }

    /// Completed nodes a branch-back may start from: all completed work not undone and not
    /// built on undone work, latest first.
    pub(super) fn branch_points(&self, env: &Env<'_>) -> Vec<NodeIx> {
        let tainted = self.tainted(env);
        let mut out = Vec::new();
        for &u in self.completion.iter().rev() {
            if self.nodes[u].completed && !out.contains(&u) && !tainted.get(u).copied().unwrap_or(false) {
                out.push(u);
            }
        }
        out
    }

    /// Replaces `plan`, which abandons a side effect, with the plan from `sources` that is
    /// cheapest counting the compensations it needs, among those abandoning none that cannot be
    /// undone. False when there is none. Side effects past [`MAX_KEPT`] (irreversible ones
    /// first, then the latest) are not told apart: their compensation is not weighed, and one
    /// that cannot be undone is only checked after the search.
    pub(super) fn route_keeping(
        &mut self,
        env: &Env<'_>,
        sources: &[NodeIx],
        cyclic: bool,
        plan: &mut Plan,
    ) -> bool {
        let mut stakes: Vec<Stake> = Vec::new();
        for &w in self.completion.iter().rev() {
            if stakes.iter().all(|s| s.tool != w) {
                stakes.extend(self.stake(env, w));
            }
        }
        stakes.sort_by_key(|s| s.undo_cost.is_some());
        stakes.truncate(MAX_KEPT);
        let keeps: Vec<(NodeIx, u32)> = sources
            .iter()
            .map(|&u| {
                let built_on = self.lineage(env, [u]);
                let bits =
                    stakes.iter().enumerate().filter(|(_, s)| built_on[s.tool]).map(|(i, _)| 1u32 << i);
                (u, bits.fold(0, |a, b| a | b))
            })
            .collect();
        let must: u32 =
            stakes.iter().enumerate().filter(|(_, s)| s.undo_cost.is_none()).map(|(i, _)| 1 << i).sum();
        let score = |m: u32, d: f64| {
            if m & must != must {
                return f64::INFINITY;
            }
            let undo: f64 = stakes
                .iter()
                .enumerate()
                .filter(|(i, _)| m & (1 << i) == 0)
                .filter_map(|(_, s)| s.undo_cost)
                .sum();
            d + undo
        };
        let weights = self.weights(env, cyclic, true, false);
        let mut search = KeepSearch::default();
        let Some((found, _)) =
            search.route(env.graph, &keeps, cyclic, self.goal, stakes.len(), &weights, score)
        else {
            return false;
        };
        let abandoned = self.abandoned_by(env, &found);
        if !self.irreversible(env, &abandoned).is_empty() {
            return false;
        }
        *plan = found;
        true
    }
}
