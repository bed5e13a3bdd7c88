//! Live weights remembered between routes: a router answering many queries weighs a tool once
//! while its health holds still, not once per edge per query.
//!
//! ```
//! use shr_core::{ToolGraph, HealthBook, algo::{Dijkstra, Plan}, health::{BreakerConfig, WeightMemo}};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a","tool":false},{"id":"b"},{"id":"c"}],
//!   "edges":[{"from":"a","to":"b","cost":1},{"from":"b","to":"c","cost":1},
//!            {"from":"a","to":"c","cost":5}], "start":"a","goal":"c"}"#).unwrap();
//! let mut health = HealthBook::new(&g, BreakerConfig::default());
//! let mut memo = WeightMemo::default();
//! let (mut search, mut plan) = (Dijkstra::new(), Plan::default());
//! memo.refresh(&g, &mut health, 0);
//! search.route_into(&g, &[g.start()], g.goal(), &memo.weights(&g, &health, 0), &mut (), &mut plan);
//! assert_eq!(plan.ids(&g), ["a", "b", "c"]);
//! health.trip(g.index("b").unwrap(), 0);
//! memo.forget(); // the health changed
//! memo.refresh(&g, &mut health, 0);
//! search.route_into(&g, &[g.start()], g.goal(), &memo.weights(&g, &health, 0), &mut (), &mut plan);
//! assert_eq!(plan.ids(&g), ["a", "c"]);
//! ```

use alloc::vec::Vec;
use core::cell::Cell;

use super::{edge_weight, HealthBook};
use crate::algo::EdgeWeight;
use crate::graph::{NodeIx, ToolGraph};
use crate::Millis;

/// Each node's live weight, computed when a search first reaches the node (a route on a large
/// graph touches few of them) and kept while the health holds still.
#[derive(Clone, Debug, Default)]
pub struct WeightMemo {
    /// `(memo number, weight)`; a slot of an older number is unknown.
    slots: Vec<Cell<(u32, f64)>>,
    number: u32,
    /// The clock values the weights hold for, `from..until` ([`HealthBook::steady_until`]);
    /// `None` once the health changed.
    span: Option<(Millis, Millis)>,
}

impl WeightMemo {
    /// The health changed (an outcome recorded, a breaker moved): every weight is stale. The
    /// owner of the [`HealthBook`] must call this after each change it makes.
    pub fn forget(&mut self) {
        self.span = None;
    }

    /// Makes the memo serve `now`: keeps the weights when the clock is still inside the span
    /// they hold for, else starts afresh. O(1) but for a first use or a graph of a new size.
    pub fn refresh(&mut self, graph: &ToolGraph, health: &mut HealthBook, now: Millis) {
        let n = graph.node_count();
        if self.slots.len() != n {
            self.slots = alloc::vec![Cell::new((0, 0.0)); n];
            self.number = 0;
            self.span = None;
        }
        if self.number != 0 && self.span.is_some_and(|(from, until)| from <= now && now < until) {
            return;
        }
        self.span = Some((now, health.steady_until(now)));
        self.number = self.number.wrapping_add(1);
        if self.number == 0 {
            // Wrapped after 4 billion refreshes: forget every slot once.
            self.slots.iter().for_each(|c| c.set((0, 0.0)));
            self.number = 1;
        }
    }

    /// The weights to route with (`edge.cost x weight(target)`), after [`WeightMemo::refresh`]
    /// with the same graph, health and clock.
    pub fn weights<'a>(
        &'a self,
        graph: &'a ToolGraph,
        health: &'a HealthBook,
        now: Millis,
    ) -> LiveWeights<'a> {
        LiveWeights { graph, health, now, memo: self }
    }
}

/// [`EdgeWeight`] over a [`WeightMemo`].
#[derive(Clone, Copy, Debug)]
pub struct LiveWeights<'a> {
    graph: &'a ToolGraph,
    health: &'a HealthBook,
    now: Millis,
    memo: &'a WeightMemo,
}

impl LiveWeights<'_> {
    /// The live weight of tool `v`, remembered while the health holds still.
    #[inline]
    fn tool_weight(&self, v: NodeIx) -> f64 {
        match self.memo.slots.get(v).map(Cell::get) {
            Some((number, w)) if number == self.memo.number => w,
            _ => self.weigh(v),
        }
    }

    /// A weight not remembered yet: weighed, and kept when the memo has a slot for it (a memo
    /// not refreshed for this graph has none). Out of line, so the loops that ask for
    /// remembered weights keep their registers.
    #[cold]
    #[inline(never)]
    fn weigh(&self, v: NodeIx) -> f64 {
        let w = self.health.weight(v, self.now);
        if let Some(slot) = self.memo.slots.get(v) {
            slot.set((self.memo.number, w));
        }
        w
    }
}

impl EdgeWeight for LiveWeights<'_> {
    #[inline]
    fn weight(&self, e: usize) -> f64 {
        let edge = self.graph.edge(e);
        edge_weight(edge, self.tool_weight(edge.to))
    }

    #[inline]
    fn entry_factor(&self, v: NodeIx) -> Option<f64> {
        Some(self.tool_weight(v))
    }
}
