//! The sparse start of the pull sweep ([`super::TopoSweep`]): only the nodes the sources reach,
//! in topological order. On a DAG whose edges jump far ahead in the order (a random DAG, a
//! catalogue where any tool may follow any earlier one) a start reaches few of the nodes between
//! it and the goal, and sweeping every one of them was slower than a heap Dijkstra that visits
//! only what it reaches (`benches/floor`, random DAG pairs).
//!
//! The window's reached positions are bits in words, scanned front to back: the lowest pending
//! position is final (every edge into it came from an earlier, expanded one), so it pushes its
//! cost along its out-edges, each weighed as the pull sweep weighs it (its cost times the factor
//! of the node it enters: the same operations, so the same bits). A node costlier than the
//! goal's offer so far is not expanded: nothing through it can make or tie the goal's cost, so
//! the costs of every node a plan can use are those of the full sweep, and so is the plan
//! (walked back from the costs, [`super::pulled_entry`]).
//!
//! When the reached nodes turn out dense (at least a quarter of the positions from the window's
//! start to the farthest reached: layered graphs and chains do at once), or the next node would
//! push to a quarter of what is left (a fan's source), it stops and the pull sweep takes over
//! from the lowest pending position, which reads the costs it needs front to back instead of
//! scattering them.
//!
//! Complexity: O(R + E_R + W/64) for the R nodes it expands, their E_R out-edges and a window
//! of W positions; no heap, and no node visited twice.

use super::{fill_to, usable_factor, TopoSweep, NONE};
use crate::algo::weight::{entered_weight, EdgeWeight};
use crate::graph::{NodeIx, ToolGraph};

/// The pull sweep takes over once the reached positions are at least one in this many of those
/// from the window's start to the farthest reached: an edge pushed costs a few of those pulled
/// (scattered reads against contiguous ones).
const DENSE: usize = 4;

/// Windows of fewer positions go to the pull sweep at once: a few words of bits would cost more
/// than they save.
pub(super) const SPARSE_WINDOW: usize = 128;

impl TopoSweep {
    /// Sweeps the reached nodes of the window `lo..=hi` while they stay sparse; `dist` (by
    /// position) is infinite over `lo..filled` but for the sources' zeros, and made so further
    /// as nodes are reached. Returns the position from which the pull sweep must go on: `hi + 1`
    /// when every reached node was expanded, so that the goal's cost is final.
    pub(super) fn reach<W: EdgeWeight + ?Sized>(
        &mut self,
        graph: &ToolGraph,
        sources: &[NodeIx],
        lo: usize,
        hi: usize,
        weights: &W,
        filled: &mut usize,
    ) -> usize {
        let Self { dist, via, pending, .. } = self;
        pending.clear();
        pending.resize((hi - lo) / 64 + 1, 0);
        let (mut reached, mut far) = (0, lo);
        for p in sources.iter().filter_map(|&s| graph.topo_position(s)).filter(|&p| p < hi) {
            let bit = 1u64 << ((p - lo) % 64);
            if pending[(p - lo) / 64] & bit == 0 {
                pending[(p - lo) / 64] |= bit;
                (reached, far) = (reached + 1, far.max(p));
            }
        }
        let order = graph.topo_order();
        let mut i = 0;
        while let Some(&bits) = pending.get(i) {
            if bits == 0 {
                i += 1;
                continue;
            }
            let p = lo + i * 64 + bits.trailing_zeros() as usize;
            if p >= hi {
                break;
            }
            // The first source is where the window starts: the density means something once
            // it has pushed.
            if p > lo && reached * DENSE > far - lo {
                return p;
            }
            let out = graph.out_edges(order[p] as usize);
            // A node that alone reaches that many (a fan's source) would be pushed slowly.
            if out.len() * DENSE > hi - p {
                return p;
            }
            pending[i] = bits & (bits - 1);
            let d = dist[p];
            // Nothing through it can make or tie the goal's cost.
            let bound = if hi < *filled { dist[hi] } else { f64::INFINITY };
            if d > bound {
                continue;
            }
            for &e in out {
                let edge = graph.edge(e as usize);
                let Some(q) = graph.topo_position(edge.to).filter(|&q| q <= hi) else { continue };
                let m = weights.entry_factor(edge.to).unwrap_or(f64::INFINITY);
                if !usable_factor(m) {
                    continue;
                }
                let offer = d + entered_weight(edge.cost, m);
                fill_to(dist, filled, q);
                if offer < dist[q] && offer <= bound {
                    if dist[q] == f64::INFINITY {
                        pending[(q - lo) / 64] |= 1u64 << ((q - lo) % 64);
                        // Found again from the costs on the way back.
                        via[q] = NONE;
                        (reached, far) = (reached + 1, far.max(q));
                    }
                    dist[q] = offer;
                }
            }
        }
        hi + 1
    }
}
