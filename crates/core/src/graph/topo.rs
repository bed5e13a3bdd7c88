//! A graph's topological layout, computed once when it is built, for the acyclic sweep
//! ([`crate::algo::TopoSweep`]): Kahn's order and, by position in it, the edges entering each
//! node in contiguous arrays. O(V log V + E) to build; both empty when the graph has a cycle.
//!
//! ```
//! use shr_core::ToolGraph;
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"}],
//!   "edges":[{"from":"a","to":"b","cost":1}], "start":"a","goal":"b"}"#).unwrap();
//! assert_eq!(g.topo_order(), [0, 1]);
//! assert_eq!(g.topo_in().from, [0]);
//! ```

use alloc::vec::Vec;

use super::Edge;

/// The edges entering each node, laid out by the node's topological position for the acyclic
/// sweep ([`crate::algo::TopoSweep`]): for the node at position `p`, `k` in
/// `start[p]..start[p + 1]` gives the source's position `from[k]`, the edge's description cost
/// `cost[k]` and its index `edge[k]`, ordered by source position. Empty when the graph has a
/// cycle. Contiguous arrays: a sweep reads them front to back.
#[derive(Clone, Debug, Default)]
pub struct TopoIn {
    /// Per position `p`, where its entering edges begin in the other arrays (one more entry than positions).
    pub start: Vec<u32>,
    /// Each entering edge's source position.
    pub from: Vec<u32>,
    /// Each entering edge's description cost.
    pub cost: Vec<f64>,
    /// Each entering edge's index in [`super::ToolGraph::edges`].
    pub edge: Vec<u32>,
    /// How many entering edges come from more than [`NEAR_ENTRY`] positions back: a sweep
    /// reads their sources' costs out of cache, several times slower than a near one's.
    pub far: u32,
}

/// The distance in topological positions up to which an entering edge counts as near
/// ([`TopoIn::far`]): 4,096 costs of 8 bytes, 32 KiB, a first-level cache.
pub const NEAR_ENTRY: usize = 4096;

/// From this many nodes a graph's topological order goes by waves, grouped by how many edges
/// enter a node (`topological`, below); under it, lowest ready index first, which keeps a goal
/// listed early near the front (on the customer-support graph, whose goal's wave comes after
/// its side branches, a window of 7 nodes instead of 12).
pub const WAVES_FROM: usize = 4096;

/// Kahn's algorithm, the lowest ready index first (so the order, and every tie it breaks, is the
/// same for the same graph); on a graph of [`WAVES_FROM`] nodes or more, by waves first (the
/// nodes no edge enters, then those whose every entering edge comes from an earlier wave: by
/// longest path from a node no edge enters), then by how many edges enter a node, then index.
/// The pull sweep branches on how many edges enter a node: in waves grouped so the branch
/// mostly goes as it went for the node before. In index order, its mispredictions threw away
/// the memory loads begun ahead once a window outgrew the cache: a layered graph of 20,000
/// nodes routed from JS in half the time grouped (`bench/lean.mjs`). Returns the order and each
/// node's position, or two empty lists when a cycle leaves nodes unordered. O(V log V + E).
pub(super) fn topological(
    n: usize,
    out_start: &[u32],
    out_edges: &[u32],
    edges: &[Edge],
) -> (Vec<u32>, Vec<u32>) {
    let mut entering = alloc::vec![0u32; n];
    for e in edges {
        entering[e.to] += 1;
    }
    let mut left = entering.clone();
    let waves = n >= WAVES_FROM;
    // The wave each node is in, once known (every node entering it ordered).
    let mut wave = alloc::vec![0u32; if waves { n } else { 0 }];
    let key = |v: usize, wave: &[u32]| match waves {
        true => (wave[v] as u128) << 64 | (entering[v] as u128) << 32 | v as u128,
        false => v as u128,
    };
    let mut ready: alloc::collections::BinaryHeap<core::cmp::Reverse<u128>> =
        (0..n).filter(|&v| entering[v] == 0).map(|v| core::cmp::Reverse(key(v, &wave))).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(core::cmp::Reverse(k)) = ready.pop() {
        let u = k as u32;
        order.push(u);
        let (a, b) = (out_start[u as usize] as usize, out_start[u as usize + 1] as usize);
        for &e in &out_edges[a..b] {
            let v = edges[e as usize].to;
            if waves {
                wave[v] = wave[v].max(wave[u as usize] + 1);
            }
            left[v] -= 1;
            if left[v] == 0 {
                ready.push(core::cmp::Reverse(key(v, &wave)));
            }
        }
    }
    if order.len() != n {
        return (Vec::new(), Vec::new());
    }
    let mut pos = alloc::vec![0u32; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i as u32;
    }
    (order, pos)
}

/// The edges entering each node, for the acyclic sweep: empty when the graph has a cycle.
pub(super) fn entering_in_order(
    order: &[u32],
    pos: &[u32],
    in_start: &[u32],
    in_edges: &[u32],
    edges: &[Edge],
) -> TopoIn {
    let mut t = TopoIn::default();
    if order.is_empty() {
        return t;
    }
    t.start.reserve(order.len() + 1);
    t.from.reserve(edges.len());
    t.cost.reserve(edges.len());
    t.edge.reserve(edges.len());
    let mut entering: Vec<u128> = Vec::new();
    t.start.push(0);
    for (at, &v) in order.iter().enumerate() {
        let (a, b) = (in_start[v as usize] as usize, in_start[v as usize + 1] as usize);
        entering.clear();
        entering
            .extend(in_edges[a..b].iter().map(|&e| (pos[edges[e as usize].from] as u128) << 64 | e as u128));
        // By source position: the sweep keeps the first of equal costs, as a push sweep would.
        crate::sort::packed(&mut entering);
        for (p, e) in entering.iter().map(|&k| ((k >> 64) as u32, k as u32)) {
            t.far += u32::from(at - p as usize > NEAR_ENTRY);
            t.from.push(p);
            t.cost.push(edges[e as usize].cost);
            t.edge.push(e);
        }
        t.start.push(t.from.len() as u32);
    }
    t
}
