//! How the pull sweep ([`super::TopoSweep`]) enters a node: the cheapest of the edges entering
//! it, the pair of a chain's node, a quorum join's `k` cheapest, and, on the way back, which
//! edge gave a node its cost.

use alloc::vec::Vec;

use super::{window_entries, NONE};
use crate::algo::weight::entered_weight;
use crate::algo::{join_cost, keep_cheapest};
use crate::graph::{ToolGraph, TopoIn};

/// The cheapest cost of entering a node over edges from sources at `froms` with costs `costs`,
/// its factor `m`. Only the minimum is kept, in two running minimums: a node's time was the
/// chain of compare-and-select through one minimum and its index, edge after edge. Which edge
/// gave it is found again for the few nodes a plan keeps ([`pulled_entry`]).
#[inline(always)]
pub(super) fn cheapest_entry(dist: &[f64], froms: &[u32], costs: &[f64], m: f64) -> f64 {
    // Indices, not iterator adapters: the release profile (opt-level "z") calls those, edge
    // after edge.
    let n = froms.len().min(costs.len());
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    let mut k = n % 2;
    if k == 1 {
        a = dist[froms[0] as usize] + entered_weight(costs[0], m);
    }
    while k + 1 < n {
        let x = dist[froms[k] as usize] + entered_weight(costs[k], m);
        let y = dist[froms[k + 1] as usize] + entered_weight(costs[k + 1], m);
        a = if x < a { x } else { a };
        b = if y < b { y } else { b };
        k += 2;
    }
    if b < a {
        b
    } else {
        a
    }
}

/// The entry (an index into [`ToolGraph::topo_in`]) by which the pull sweep entered the plain
/// node at position `p`, factor `m`, in the window from `lo`: the first whose offer is the
/// node's cost. It is computed by the same operations as in [`cheapest_entry`], so equal to
/// the bit (compared as bits: one branch, where `==` on floats takes two). Inlined where a
/// plan is walked back: called, it made that walk half as slow again.
/// A node entered by two edges (a chain's) kept its entry in `via` instead ([`pull_pair`]).
#[inline(always)]
pub(super) fn pulled_entry(
    graph: &ToolGraph,
    dist: &[f64],
    via: &[u32],
    lo: usize,
    p: usize,
    m: f64,
) -> Option<usize> {
    if let Some(&j) = via.get(p).filter(|&&j| j != NONE) {
        return Some(j as usize);
    }
    let into = graph.topo_in();
    let entries = window_entries(graph, lo, p);
    let cost = dist[p].to_bits();
    let (froms, costs) = (&into.from[..], &into.cost[..]);
    let mut j = entries.start;
    while j < entries.end {
        if (dist[froms[j] as usize] + entered_weight(costs[j], m)).to_bits() == cost {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// A node entered by the two edges at `j` and `j + 1` (a chain's): its cost and the entry that
/// gave it (the first of equal costs), or `NONE`. Which of two edges gave a chain node's cost is
/// data: found again on the way back it was a branch mispredicted half the time, or, selected,
/// a chain of dependent loads node after node; kept here it is one select.
#[inline(always)]
pub(super) fn pull_pair(dist: &[f64], into: &TopoIn, j: usize, m: f64) -> (f64, u32, u32) {
    let (a, b) = (into.from[j], into.from[j + 1]);
    let x = dist[a as usize] + entered_weight(into.cost[j], m);
    let y = dist[b as usize] + entered_weight(into.cost[j + 1], m);
    let (best, at, from) = if y < x { (y, j + 1, b) } else { (x, j, a) };
    (best, if best < f64::INFINITY { at as u32 } else { NONE }, from)
}

/// A quorum join's entry over `offers` (cost so far plus the edge's weight, and the edge), in
/// the order a push sweep would relax them: the sum of the `k` cheapest finite ones, the first
/// offered first among equal costs. The edges taken are appended to `taken`; returns the cost
/// and where they start, or `(∞, NONE)` when fewer than `k` can be had. Two copies serve every
/// kind of weights (module size): the pull sweep's ([`pull_join`]) and the push sweep's, whose
/// offers come through a trait object.
pub(super) fn enter_join(
    slots: &mut Vec<(f64, u32)>,
    taken: &mut Vec<u32>,
    k: usize,
    offers: impl Iterator<Item = (f64, u32)>,
) -> (f64, u32) {
    slots.clear();
    slots.resize(k, (f64::INFINITY, NONE));
    let mut len = 0;
    for (offer, edge) in offers {
        if offer < f64::INFINITY {
            len = keep_cheapest(slots, len, offer, edge);
        }
    }
    let cost = join_cost(slots, len);
    if cost == f64::INFINITY {
        return (f64::INFINITY, NONE);
    }
    let at = taken.len() as u32;
    taken.extend(slots.iter().map(|s| s.1));
    (cost, at)
}

/// A join's entry in the pull sweep: the inputs over `entries` ([`window_entries`]), each edge's
/// cost times the join's factor `m`.
pub(super) fn pull_join(
    slots: &mut Vec<(f64, u32)>,
    taken: &mut Vec<u32>,
    k: usize,
    dist: &[f64],
    into: &TopoIn,
    entries: core::ops::Range<usize>,
    m: f64,
) -> (f64, u32) {
    let offers =
        entries.map(|j| (dist[into.from[j] as usize] + entered_weight(into.cost[j], m), into.edge[j]));
    enter_join(slots, taken, k, offers)
}
