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
    #[inline(never)]
    pub(super) fn lineage(&self, env: &Env<'_>, roots: impl IntoIterator<Item = NodeIx>) -> Vec<bool> {
        self.feeding(env, roots).0
    }

    /// [`Run::lineage`], and which traversed edges fed it. O(T) for T traversed edges: the
    /// edges into a node are recorded together when it completes, after what fed it did, so
    /// one walk from the latest edge back reads each needed completion's feeders. A node
    /// completed more than once (a cyclic workflow) is needed at its latest completion before
    /// the one that used it, not at every visit.
    fn feeding(&self, env: &Env<'_>, roots: impl IntoIterator<Item = NodeIx>) -> (Vec<bool>, Vec<bool>) {
        let mut kept = alloc::vec![false; self.nodes.len()];
        let mut need = alloc::vec![false; self.nodes.len()];
        let mut used = alloc::vec![false; self.traversed.len()];
        for v in roots {
            kept[v] = true;
            need[v] = true;
        }
        let mut block: Option<NodeIx> = None;
        for (i, &e) in self.traversed.iter().enumerate().rev() {
            let edge = env.graph.edge(e);
            if let Some(b) = block.filter(|&b| b != edge.to) {
                need[b] = false;
                block = None;
            }
            if need[edge.to] {
                kept[edge.from] = true;
                need[edge.from] = true;
                used[i] = true;
                block = Some(edge.to);
            }
        }
        (kept, used)
    }

    /// Nodes undone or being undone (a side effect a plan abandoned, with a compensation), and
    /// all work built on them: no plan may start from them. Empty when nothing was undone.
    #[inline(never)]
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
    #[inline(never)]
    pub(super) fn kept_by(&self, env: &Env<'_>, plan: &Plan) -> Vec<bool> {
        let completed = plan.nodes.iter().copied().filter(|&v| self.nodes[v].completed);
        let origins = plan.seeds.iter().map(|&e| env.graph.edge(e).from);
        self.lineage(env, completed.chain(origins))
    }

    /// Completed tools `plan` abandons that no earlier plan abandoned or undid, latest first.
    #[inline(never)]
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
    #[inline(never)]
    pub(super) fn executed(&self, env: &Env<'_>) -> (Vec<String>, f64, f64, Vec<String>) {
        let (kept, used) = if self.nodes[self.goal].completed {
            self.feeding(env, [self.goal])
        } else {
            let kept: Vec<bool> = self.nodes.iter().map(|n| n.completed && !n.abandoned).collect();
            let used = self
                .traversed
                .iter()
                .map(|&e| kept[env.graph.edge(e).from] && kept[env.graph.edge(e).to])
                .collect();
            (kept, used)
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
        for (&e, &on_path) in self.traversed.iter().zip(&used) {
            let edge = env.graph.edge(e);
            let c = edge.cost * env.graph.node(edge.to).base_cost;
            if on_path {
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
        // The live weight already holds the compensating tool's base cost.
        let undo_cost = node.compensate().map(|by| env.health.weight(by, self.now));
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
    #[inline(never)]
    pub(super) fn route_keeping(
        &mut self,
        env: &Env<'_>,
        sources: &[NodeIx],
        cyclic: bool,
        plan: &mut Plan,
    ) -> bool {
        // Irreversible side effects first, then the latest compensable ones.
        let mut stakes: Vec<Stake> = Vec::new();
        for undoable in [false, true] {
            for &w in self.completion.iter().rev() {
                if stakes.iter().all(|s| s.tool != w) {
                    stakes.extend(self.stake(env, w).filter(|s| s.undo_cost.is_some() == undoable));
                }
            }
        }
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
            search.route(env.graph, &keeps, cyclic, self.goal, stakes.len(), &weights, &score)
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
