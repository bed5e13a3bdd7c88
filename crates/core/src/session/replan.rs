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
        let mut found = self.route(env, &sources, cyclic, true, false, &mut plan);
        let mut abandoned = Vec::new();
        if !found && !cyclic && env.config.replan_from == ReplanFrom::Completed && !self.completion.is_empty()
        {
            // A dead end after completed work: branch from earlier work rather than ask the LLM.
            let points = self.branch_points(env);
            found = self.route(env, &points, false, true, false, &mut plan);
            if found {
                abandoned = self.branch_back(env, &plan);
            }
        }
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
            let over_budget = cyclic && self.route(env, &sources, cyclic, false, false, &mut plan);
            // Tools that are only full or rate-limited for now will take calls again: wait for
            // them (bounded) rather than ask the LLM.
            let wait = !over_budget && self.route(env, &sources, cyclic, true, true, &mut plan);
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
                self.blocking_side_effect(env, &sources).map(|v| {
                    alloc::format!(
                        "A path from earlier work exists, but it branches back past `{}`, which has a side \
                         effect and no `compensate` tool to undo it.",
                        env.graph.id(v)
                    )
                })
            };
            self.needs_replan = true;
            self.escalate(env, reason, agent_action, None);
        }
    }

    /// Completed nodes a plan may branch from: the latest first, back to (and with) the first
    /// side effect that cannot be undone, past which no plan may go.
    fn branch_points(&self, env: &Env<'_>) -> Vec<NodeIx> {
        let mut out = Vec::new();
        for &u in self.completion.iter().rev() {
            if !self.nodes[u].completed || out.contains(&u) {
                continue;
            }
            out.push(u);
            let node = env.graph.node(u);
            if node.side_effect && node.compensate().is_none() && !self.nodes[u].compensated {
                break;
            }
        }
        out
    }

    /// The side effect with no compensation that keeps `plan`-less runs from branching further
    /// back, when a path from the work behind it would exist.
    fn blocking_side_effect(&mut self, env: &Env<'_>, tips: &[NodeIx]) -> Option<NodeIx> {
        if env.config.replan_from != ReplanFrom::Completed {
            return None;
        }
        let points = self.branch_points(env);
        let blocker = *points.last()?;
        let node = env.graph.node(blocker);
        if !(node.side_effect && node.compensate().is_none()) || points.len() == self.completion.len() {
            return None;
        }
        let all: Vec<NodeIx> = self.completion.iter().copied().filter(|&u| self.nodes[u].completed).collect();
        let mut plan = Plan::default();
        (all.len() > tips.len() && self.route(env, &all, false, true, false, &mut plan)).then_some(blocker)
    }

    /// The completed work `plan` branches back past (completed after the plan's earliest
    /// completed node, and not on the plan), latest first; its side effects are queued to be
    /// undone before the plan goes on.
    fn branch_back(&mut self, env: &Env<'_>, plan: &Plan) -> Vec<NodeIx> {
        let Some(from) = self.completion.iter().position(|&u| plan.contains(u)) else { return Vec::new() };
        let past: Vec<NodeIx> = self.completion[from + 1..]
            .iter()
            .rev()
            .copied()
            .filter(|&w| !plan.contains(w) && env.graph.node(w).tool)
            .collect();
        for &w in &past {
            let node = env.graph.node(w);
            if let (true, Some(by), false) = (node.side_effect, node.compensate(), self.nodes[w].compensated)
            {
                self.compensations.push_back((w, by));
            }
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
        let weights = RunWeights {
            graph: env.graph,
            health: env.health,
            nodes: &self.nodes,
            in_flight: &self.in_flight,
            admitted,
            visit_budget: if visit_budget && cyclic { env.config.visit_budget } else { u32::MAX },
            // Outside a cyclic workflow completed work is never re-entered: a plan through a
            // completed node would make what follows it ready before what precedes it ran.
            mask_completed: !cyclic,
            now: self.now,
        };
        if cyclic {
            self.dijkstra.route_from_into(env.graph, &[], sources, self.goal, &weights, &mut (), plan)
        } else {
            self.dijkstra.route_into(env.graph, sources, self.goal, &weights, &mut (), plan)
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
        let mut out = Vec::new();
        for &v in &self.completion {
            if !self.nodes[v].completed || out.contains(&v) {
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
struct RunWeights<'a> {
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
    now: Millis,
}

impl EdgeWeight for RunWeights<'_> {
    fn weight(&self, e: usize) -> f64 {
        let edge = self.graph.edge(e);
        let to = &self.nodes[edge.to];
        if (self.mask_completed && to.completed) || to.avoided || to.visits >= self.visit_budget {
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
