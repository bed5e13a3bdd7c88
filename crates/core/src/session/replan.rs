//! Replanning: the cheapest healthy plan from where execution stands, over live weights masked
//! by what this task knows (tools it avoids, completed work, visit budgets, edge guards).

use alloc::collections::BTreeMap;
use alloc::string::ToString;
use alloc::vec::Vec;

use super::{Env, NodeState, Run};
use crate::algo::{EdgeWeight, Plan};
use crate::event::{EventKind, PlanView};
use crate::graph::{NodeIx, ToolGraph};
use crate::health::{edge_weight, HealthBook, Permit};
use crate::vocab::{EscalationReason, ReplanFrom};
use crate::Millis;

/// What an escalation says when the graph's costs can overflow (see `ProblemKind::CostOverflow`).
const OVERFLOW_ACTION: &str =
    "No finite-cost path: the graph's costs can sum past the largest number, and such a \
    path counts as no path (the graph was accepted with a cost_overflow warning). Scale the costs down.";

/// How long a run waits for a full or rate-limited tool before it looks again. Short: another
/// run's report usually frees the place sooner, and a host may ask again after any report.
pub(super) const PAUSE_MS: Millis = 25;

impl Run {
    pub(super) fn replan(&mut self, env: &mut Env<'_>) {
        // Route over breakers brought up to date: one whose cooldown passed since the last
        // decision (between two tasks sharing health, say) is half-open and may be probed, not
        // an open wall that makes "no path" (found by the soak).
        self.poll_breakers(env);
        let pending = core::mem::take(&mut self.pending);
        let sources = self.sources(env);
        // A graph with guarded edges is a cyclic workflow: where execution stands is an origin
        // that later steps may visit again. Without guards, completed work is never re-entered.
        let cyclic = env.graph.has_guards() && !self.completion.is_empty();
        let mut plan = self.plan.take().unwrap_or_default();
        let old = plan.clone();
        let had_plan = !old.nodes.is_empty();
        // A reroute never re-runs a completed side effect that was not undone (a loop the
        // workflow's guards take may).
        self.keep_effects = !pending.failed.is_empty();
        let mut blocked_by = Vec::new();
        let mut found = self.plan_from(env, &sources, cyclic, &mut plan, &mut blocked_by);
        // Where the last search started: waiting is weighed from there too (a branch back may
        // only wait for a tool that other runs hold, found by interleaving many runs).
        let mut tried = sources.clone();
        if !found && env.config.replan_from == ReplanFrom::Completed && !self.completion.is_empty() {
            // A dead end after completed work: branch from earlier work rather than ask the LLM.
            let points = self.branch_points(env);
            if points.iter().any(|p| !sources.contains(p)) {
                blocked_by.clear();
                self.keep_effects = true;
                found = self.plan_from(env, &points, cyclic, &mut plan, &mut blocked_by);
                tried = points;
            }
        }
        let abandoned = if found { self.let_go(env, &plan) } else { Vec::new() };
        self.needs_replan = false;
        if found {
            self.waiting_since = None;
            self.pauses = 0;
            if cyclic {
                for i in 0..plan.nodes.len() {
                    let v = plan.nodes[i];
                    if self.nodes[v].completed {
                        let node = &mut self.nodes[v];
                        node.completed = false;
                        node.left = false;
                        let visit = node.visits + 1;
                        self.counts.revisits += 1;
                        self.emit(EventKind::Revisited { tool: env.graph.id(v).to_string(), visit });
                    }
                }
            }
            let to_plan = PlanView::new(env.graph, &plan);
            // A plan made around failed tools is a reroute even when it is the first (a host that
            // redirected to a tool before anything was planned, found by fuzzing): their
            // `ToolFailed` events must be answered (DESIGN section 7).
            if had_plan || !pending.failed.is_empty() {
                if !pending.failed.is_empty() {
                    self.counts.reroutes += 1;
                }
                let around = pending.failed.iter().map(|&v| env.graph.id(v).to_string()).collect();
                let abandoned = abandoned.iter().map(|&v| env.graph.id(v).to_string()).collect();
                let from_plan = PlanView::new(env.graph, &old);
                self.emit(EventKind::Rerouted { from_plan, to_plan, around, abandoned });
            } else {
                self.emit(EventKind::PathPlanned { plan: to_plan });
            }
            self.tell_refused_alternatives(env, &plan);
            self.plan = Some(plan);
        } else {
            let over_budget = cyclic && self.route(env, &tried, cyclic, false, false, &mut plan);
            // Tools that are only full or rate-limited for now will take calls again: wait for
            // them (bounded) rather than ask the LLM.
            let wait = !over_budget && self.route(env, &tried, cyclic, true, true, &mut plan);
            self.plan = Some(old);
            if wait {
                let since = *self.waiting_since.get_or_insert(self.now);
                let max_wait = env.config.admission.max_wait_ms;
                self.pauses += 1;
                let asked = u64::from(self.pauses).saturating_mul(PAUSE_MS);
                if self.now.saturating_sub(since) < max_wait && asked <= max_wait {
                    self.paused_until = Some(self.now.saturating_add(PAUSE_MS));
                    self.needs_replan = true;
                    self.pending = pending;
                    return;
                }
            }
            let reason = if pending.policy {
                EscalationReason::Policy
            } else if over_budget {
                EscalationReason::Budget
            } else {
                EscalationReason::NoPath
            };
            // "No path" with every tool healthy can be costs summing past f64, or a side effect
            // that cannot be undone barring the way back: say so, or the LLM is asked about an
            // outage that is not there.
            let overflow = reason == EscalationReason::NoPath
                && env.graph.warnings().iter().any(|w| w.kind == crate::error::ProblemKind::CostOverflow);
            let agent_action = if pending.agent_action.is_some() || reason != EscalationReason::NoPath {
                pending.agent_action
            } else if overflow {
                Some(OVERFLOW_ACTION.to_string())
            } else {
                blocked_by.first().map(|&v| {
                    alloc::format!(
                        "A path from earlier work exists, but it abandons `{}`, which has a side effect \
                         and no `compensate` tool able to undo it.",
                        env.graph.id(v)
                    )
                })
            };
            self.needs_replan = true;
            self.escalate(env, reason, agent_action, None);
        }
    }

    /// The cheapest plan from `sources` that abandons no side effect it cannot undo, weighing
    /// the compensations it needs (see `lineage`). `blocked_by`: the side effects that barred
    /// a plan that otherwise exists.
    fn plan_from(
        &mut self,
        env: &Env<'_>,
        sources: &[NodeIx],
        cyclic: bool,
        plan: &mut Plan,
        blocked_by: &mut Vec<NodeIx>,
    ) -> bool {
        if !self.route(env, sources, cyclic, true, false, plan) {
            return false;
        }
        let abandoned = self.abandoned_by(env, plan);
        if !abandoned.iter().any(|&w| env.graph.node(w).side_effect && !self.nodes[w].compensated) {
            return true;
        }
        if self.route_keeping(env, sources, cyclic, plan) {
            return true;
        }
        *blocked_by = self.irreversible(env, &abandoned);
        false
    }

    /// Commits `plan`: what it abandons is marked (reported once), its side effects queued to
    /// be undone before the plan goes on, latest first; what it keeps is no longer abandoned.
    fn let_go(&mut self, env: &Env<'_>, plan: &Plan) -> Vec<NodeIx> {
        let kept = self.kept_by(env, plan);
        for (v, k) in kept.iter().enumerate() {
            if *k {
                self.nodes[v].abandoned = false;
            }
        }
        let past = self.abandoned_by(env, plan);
        for &w in &past {
            let node = env.graph.node(w);
            if let (true, Some(by), false) = (node.side_effect, node.compensate(), self.nodes[w].compensated)
            {
                self.compensations.push_back((w, by));
            }
            self.nodes[w].abandoned = true;
        }
        past
    }

    /// Says which tools the plan goes around because of what the router's health says of them
    /// now (a breaker another run opened, a full bulkhead, a spent rate limit): the steps the
    /// plan takes could have gone to them. Once per tool and run, and not for tools this run saw
    /// fail itself (their failure was said). O(out-degree of the plan's nodes).
    fn tell_refused_alternatives(&mut self, env: &Env<'_>, plan: &Plan) {
        for &u in &plan.nodes {
            for &e in env.graph.out_edges(u) {
                let w = env.graph.edge(e as usize).to;
                let node = &self.nodes[w];
                if node.told || node.avoided || !env.graph.node(w).tool || plan.contains(w) {
                    continue;
                }
                if let Some(reason) = env.health.refusal(w, self.now) {
                    self.nodes[w].told = true;
                    self.emit(EventKind::Shed { tool: env.graph.id(w).to_string(), reason });
                }
            }
        }
    }

    /// Routes from where execution stands over live weights; `admitted`: as if every tool
    /// could take a call now (what waiting could give).
    fn route(
        &mut self,
        env: &Env<'_>,
        sources: &[NodeIx],
        cyclic: bool,
        visit_budget: bool,
        admitted: bool,
        plan: &mut Plan,
    ) -> bool {
        let mut dijkstra = core::mem::take(&mut self.dijkstra);
        let weights = self.weights(env, cyclic, visit_budget, admitted);
        let found = if cyclic {
            dijkstra.route_from_into(env.graph, &[], sources, self.goal, &weights, &mut (), plan)
        } else {
            dijkstra.route_into(env.graph, sources, self.goal, &weights, &mut (), plan)
        };
        self.dijkstra = dijkstra;
        found
    }

    /// The weights this run routes with now (see [`RunWeights`]).
    pub(super) fn weights<'a>(
        &'a self,
        env: &'a Env<'_>,
        cyclic: bool,
        visit_budget: bool,
        admitted: bool,
    ) -> RunWeights<'a> {
        RunWeights {
            graph: env.graph,
            health: env.health,
            nodes: &self.nodes,
            in_flight: &self.in_flight,
            admitted,
            visit_budget: if visit_budget && cyclic { env.config.visit_budget } else { u32::MAX },
            // Outside a cyclic workflow completed work is never re-entered: a plan through a
            // completed node would make what follows it ready before what precedes it ran.
            mask_completed: !cyclic,
            keep_effects: self.keep_effects,
            now: self.now,
        }
    }

    /// Where execution stands: completed nodes at the tip of a branch, and completed nodes
    /// with a planned successor still to do. Before anything completed, the start node.
    fn sources(&self, env: &Env<'_>) -> Vec<NodeIx> {
        if self.completion.is_empty() {
            // The start is entered without an edge, so its own weight never reaches the search: a
            // start tool that is down (open breaker, quota spent) is no place to start from, or
            // every plan would begin on it and be refused again (found by fuzzing).
            let s = self.start;
            let down = env.graph.node(s).tool && !env.health.weight(s, self.now).is_finite();
            return if self.nodes[s].avoided || down { Vec::new() } else { alloc::vec![s] };
        }
        let tainted = self.tainted(env);
        let mut out = Vec::new();
        for &v in &self.completion {
            if !self.nodes[v].completed || out.contains(&v) || tainted.get(v).copied().unwrap_or(false) {
                continue;
            }
            let open_succ =
                self.plan.as_ref().is_some_and(|p| p.succs(env.graph, v).any(|s| !self.nodes[s].completed));
            if !self.nodes[v].left || open_succ {
                out.push(v);
            }
        }
        out
    }
}

/// The weights a run routes with: the live edge weight ([`edge_weight`]), infinite for tools
/// this task avoids, outside cyclic workflows for completed nodes and, in cyclic workflows, for
/// tools out of visits. A guarded edge counts only when its source's result satisfies the guard;
/// before that result exists (a step still ahead) the guard is assumed to hold.
pub(super) struct RunWeights<'a> {
    graph: &'a ToolGraph,
    health: &'a HealthBook,
    nodes: &'a [NodeState],
    /// This run's calls in flight: their tools took the call already, so a full bulkhead or a
    /// spent probe does not make them unusable to the run that holds the call.
    in_flight: &'a BTreeMap<NodeIx, (u32, Permit)>,
    /// Weigh every tool as if it could take a call now.
    admitted: bool,
    visit_budget: u32,
    /// Outside a cyclic workflow: completed nodes, which no edge may enter again (the sources,
    /// completed themselves, are settled at cost 0 before any edge could reach them).
    mask_completed: bool,
    /// A completed side effect that was not undone is not entered again (a reroute).
    keep_effects: bool,
    now: Millis,
}

impl EdgeWeight for RunWeights<'_> {
    fn weight(&self, e: usize) -> f64 {
        let edge = self.graph.edge(e);
        let to = &self.nodes[edge.to];
        if (self.mask_completed && to.completed) || to.avoided || to.visits >= self.visit_budget {
            return f64::INFINITY;
        }
        if self.keep_effects && to.completed && !to.compensated && self.graph.node(edge.to).side_effect {
            return f64::INFINITY;
        }
        let tool = if self.admitted || self.in_flight.contains_key(&edge.to) {
            self.health.weight_when_admitted(edge.to, self.now)
        } else {
            self.health.weight(edge.to, self.now)
        };
        edge_weight(edge, tool)
    }

    fn seed_weight(&self, e: usize) -> f64 {
        let edge = self.graph.edge(e);
        match (self.graph.guard(e), &self.nodes[edge.from].output) {
            (Some(g), Some(out)) if !g.holds(out) => f64::INFINITY,
            _ => self.weight(e),
        }
    }
}
