//! What a search weighs edges by: [`EdgeWeight`], from a plain closure to live health, and the
//! rule every search shares for which weights can be travelled.
//!
//! ```
//! use shr_core::algo::{entered_weight, EdgeWeight};
//! let costs = [1.0, f64::INFINITY];
//! let w = |e: usize| costs[e];
//! assert_eq!(w.weight(0), 1.0);
//! assert_eq!(w.entry_factor(0), None);
//! assert_eq!(entered_weight(2.0, 1.5), 3.0);
//! ```

use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use crate::graph::{NodeIx, ToolGraph};

/// Weight of edge `e` (an index into [`crate::graph::ToolGraph::edges`]). Infinite, NaN or negative = unusable.
pub trait EdgeWeight {
    /// The weight of edge `e`.
    fn weight(&self, edge: usize) -> f64;

    /// Weight of an edge leaving an origin (see [`super::Dijkstra::route_from_into`]): where execution
    /// stands, so a guard can be judged on a real result. Defaults to [`EdgeWeight::weight`].
    fn seed_weight(&self, edge: usize) -> f64 {
        self.weight(edge)
    }

    /// When the weight of every edge into `node` is that edge's description cost times one
    /// factor of `node` (the form of [`crate::health::edge_weight`]: a tool's live weight), that
    /// factor. The acyclic sweep then weighs a node once, not each edge into it, and reads the
    /// costs from contiguous arrays. `None` (the default): weigh edge by edge.
    fn entry_factor(&self, _node: NodeIx) -> Option<f64> {
        None
    }

    /// A table the sweep may keep [`EdgeWeight::entry_factor`]s in, by topological position,
    /// for as long as these weights hold (a [`crate::health::WeightMemo`] between health
    /// changes). `None` (the default): factors are asked node by node every query.
    fn factor_table(&self) -> Option<&FactorTable> {
        None
    }
}

/// Entry factors by topological position, kept between sweeps while the weights hold: a sweep
/// over a large window then reads one array front to back instead of looking each node up
/// through the order (on a layered graph of 100,000 nodes that lookup was a fifth of a route
/// from JS). Atomics so that its owner stays `Send` and `Sync`; the loads and stores are plain
/// ones on wasm32 and x86. Whoever fills it fills it with the same weights' factors, so
/// interleaved sweeps write the same bits.
#[derive(Debug, Default)]
pub struct FactorTable {
    /// A factor's bits (`f64::to_bits`) by position.
    factors: Vec<AtomicU64>,
    /// The positions `lo..=hi` holding the weights' factors, as `lo << 32 | hi`; `EMPTY` when
    /// none.
    kept: AtomicU64,
    /// Queries whose two-sided try ran out of budget under these weights
    /// ([`super::Dijkstra`]), by [`query_key`], a few slots chosen by key; 0 is none.
    ran_out: [AtomicU64; RAN_OUT_SLOTS],
}

/// How many queries whose try ran out a table remembers: a router replanning a task asks from
/// the few points its runs have reached.
const RAN_OUT_SLOTS: usize = 4;

/// The factor table `weights` keep for `graph`, if any: one sized for another graph (a caller's
/// mistake) is passed over, not trusted.
pub(crate) fn kept_table<'a, W: EdgeWeight + ?Sized>(
    weights: &'a W,
    graph: &ToolGraph,
) -> Option<&'a FactorTable> {
    weights.factor_table().filter(|t| t.len() == graph.node_count())
}

/// A query's key: its goal, sources and the window still to sweep, mixed into 64 bits (never
/// 0). Two queries sharing a key share what is remembered of their try: the later one is swept
/// at once, to the same cost.
pub(crate) fn query_key(goal: NodeIx, sources: &[NodeIx], window: usize) -> u64 {
    let mix = |k: u64, x: u64| (k ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    let k = sources.iter().fold(mix(goal as u64, window as u64), |k, &s| mix(k, s as u64));
    k | 1
}

const EMPTY: u64 = u64::MAX;

impl Clone for FactorTable {
    fn clone(&self) -> Self {
        let factors = self.factors.iter().map(|f| AtomicU64::new(f.load(Ordering::Relaxed))).collect();
        let ran_out = core::array::from_fn(|i| AtomicU64::new(self.ran_out[i].load(Ordering::Relaxed)));
        FactorTable { factors, kept: AtomicU64::new(self.kept.load(Ordering::Acquire)), ran_out }
    }
}

impl FactorTable {
    /// Forgets every factor (the weights changed) and sizes the table for `n` positions.
    pub fn forget(&mut self, n: usize) {
        if self.factors.len() != n {
            self.factors = (0..n).map(|_| AtomicU64::new(0)).collect();
        }
        *self.kept.get_mut() = EMPTY;
        self.ran_out.iter_mut().for_each(|k| *k.get_mut() = 0);
    }

    /// Whether the query of `key` ([`query_key`]) ran out of its try's budget under these
    /// weights: the same search on the same weights would again.
    pub(crate) fn ran_out(&self, key: u64) -> bool {
        self.ran_out[key as usize % RAN_OUT_SLOTS].load(Ordering::Relaxed) == key
    }

    /// Remembers that the query of `key` ran out of its try's budget.
    pub(crate) fn note_ran_out(&self, key: u64) {
        self.ran_out[key as usize % RAN_OUT_SLOTS].store(key, Ordering::Relaxed);
    }

    /// Positions it has room for.
    pub fn len(&self) -> usize {
        self.factors.len()
    }

    /// Whether it has room for none (not sized for a graph yet).
    pub fn is_empty(&self) -> bool {
        self.factors.is_empty()
    }

    /// The factors of positions `lo..=hi` when all are kept.
    #[inline]
    pub(crate) fn kept(&self, lo: usize, hi: usize) -> Option<&[AtomicU64]> {
        let kept = self.kept.load(Ordering::Acquire);
        let (a, b) = ((kept >> 32) as usize, (kept & u64::from(u32::MAX)) as usize);
        (kept != EMPTY && a <= lo && hi <= b).then(|| self.factors.get(lo..=hi)).flatten()
    }

    /// Asks `weights` the factor of every position of `lo..=hi` of `graph` (sized for it) and
    /// keeps them; their slice (empty if the table is not sized for the graph).
    pub(crate) fn weigh<W: EdgeWeight + ?Sized>(
        &self,
        graph: &ToolGraph,
        weights: &W,
        lo: usize,
        hi: usize,
    ) -> &[AtomicU64] {
        let (Some(order), Some(slots)) = (graph.topo_order().get(lo..=hi), self.factors.get(lo..=hi)) else {
            return &[];
        };
        for (slot, &v) in slots.iter().zip(order) {
            let factor = weights.entry_factor(v as NodeIx).unwrap_or(f64::INFINITY);
            slot.store(factor.to_bits(), Ordering::Relaxed);
        }
        self.keep(lo, hi);
        slots
    }

    /// Every position of `lo..=hi` has been weighed: kept from now on, joined with
    /// the range kept before when the two touch (else in its place).
    pub(crate) fn keep(&self, lo: usize, hi: usize) {
        let (Ok(lo32), Ok(hi32)) = (u32::try_from(lo), u32::try_from(hi)) else { return };
        if hi >= self.factors.len() || lo > hi {
            return;
        }
        let _ = self.kept.fetch_update(Ordering::Release, Ordering::Acquire, |kept| {
            let (a, b) = ((kept >> 32) as u32, (kept & u64::from(u32::MAX)) as u32);
            let touch = kept != EMPTY && lo32 <= b.saturating_add(1) && a <= hi32.saturating_add(1);
            let (a, b) = if touch { (a.min(lo32), b.max(hi32)) } else { (lo32, hi32) };
            Some(u64::from(a) << 32 | u64::from(b))
        });
    }
}

/// An edge's weight from its description cost and the factor of the node it enters: the one
/// formula, which [`crate::health::edge_weight`] applies to live health and the acyclic sweep
/// to an [`EdgeWeight::entry_factor`].
#[inline(always)]
pub fn entered_weight(cost: f64, factor: f64) -> f64 {
    cost * factor
}

impl<F: Fn(usize) -> f64> EdgeWeight for F {
    #[inline]
    fn weight(&self, edge: usize) -> f64 {
        self(edge)
    }
}

/// Whether a weight can be travelled: finite and not negative (Dijkstra's invariant needs
/// `w >= 0`; validated costs and health weights never are negative, a custom `EdgeWeight` might
/// be). Infinite is a failed tool; NaN is nonsense.
#[inline]
pub(super) fn usable(w: f64) -> bool {
    (0.0..f64::INFINITY).contains(&w)
}
