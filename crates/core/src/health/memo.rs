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
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::{edge_weight, HealthBook};
use crate::algo::{EdgeWeight, FactorTable};
use crate::graph::{NodeIx, ToolGraph};
use crate::Millis;

/// Each node's live weight, computed when a search first reaches the node (a route on a large
/// graph touches few of them) and kept while the health holds still.
#[derive(Clone, Debug, Default)]
pub struct WeightMemo {
    /// A weight and the memo number it was weighed under; a slot of an older number is unknown.
    slots: Vec<Slot>,
    number: u32,
    /// The clock values the weights hold for, `from..until` ([`HealthBook::steady_until`]);
    /// `None` once the health changed.
    span: Option<(Millis, Millis)>,
    /// The same weights by topological position, kept by the sweep over a large window.
    table: FactorTable,
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
            self.slots = (0..n).map(|_| Slot::default()).collect();
            self.number = 0;
            self.span = None;
        }
        if self.number != 0 && self.span.is_some_and(|(from, until)| from <= now && now < until) {
            return;
        }
        self.span = Some((now, health.steady_until(now)));
        self.table.forget(n);
        self.number = self.number.wrapping_add(1);
        if self.number == 0 {
            // Wrapped after 4 billion refreshes: forget every slot once.
            self.slots.iter().for_each(|slot| slot.number.store(0, Ordering::Relaxed));
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

/// One remembered weight. Atomics rather than a `Cell`, so that a router holding a memo is
/// `Send` and `Sync`; the loads and stores are plain ones on wasm32 and x86. The weight is
/// stored before its number (release) and the number read before the weight (acquire), so a
/// slot whose number is current holds that number's weight.
#[derive(Debug, Default)]
struct Slot {
    number: AtomicU32,
    /// The weight's bits (`f64::to_bits`).
    weight: AtomicU64,
}

impl Clone for Slot {
    fn clone(&self) -> Self {
        Slot {
            number: AtomicU32::new(self.number.load(Ordering::Acquire)),
            weight: AtomicU64::new(self.weight.load(Ordering::Relaxed)),
        }
    }
}

impl Slot {
    /// The weight when it was weighed under memo number `number`.
    #[inline]
    fn get(&self, number: u32) -> Option<f64> {
        (self.number.load(Ordering::Acquire) == number)
            .then(|| f64::from_bits(self.weight.load(Ordering::Relaxed)))
    }

    #[inline]
    fn set(&self, number: u32, weight: f64) {
        self.weight.store(weight.to_bits(), Ordering::Relaxed);
        self.number.store(number, Ordering::Release);
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
        match self.memo.slots.get(v).and_then(|slot| slot.get(self.memo.number)) {
            Some(w) => w,
            None => self.weigh(v),
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
            slot.set(self.memo.number, w);
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

    #[inline]
    fn factor_table(&self) -> Option<&FactorTable> {
        // Sized for this graph only once refreshed for it.
        (self.memo.slots.len() == self.graph.node_count()).then_some(&self.memo.table)
    }
}
