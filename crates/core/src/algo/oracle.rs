//! A slow, obviously-correct reference for [`super::Dijkstra`]: value iteration in the manner of
//! Bellman-Ford, applying each node's cost function (min for OR nodes, sum of the `k` cheapest
//! inputs for quorum joins) until nothing changes. Used by property tests and benchmarks.
//!
//! Complexity: O(V x E x k). Not for production routing.
//!
//! ```
//! use shr_core::{ToolGraph, algo::oracle::cheapest_cost};
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"a"},{"id":"b"}],
//!   "edges":[{"from":"a","to":"b","cost":3}], "start":"a","goal":"b"}"#).unwrap();
//! assert_eq!(cheapest_cost(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost), Some(3.0));
//! ```

use alloc::vec::Vec;

use super::EdgeWeight;
use crate::graph::{Join, NodeIx, ToolGraph};

/// The cheapest cost from `sources` to `goal`, or `None` when unreachable over finite weights.
pub fn cheapest_cost<W: EdgeWeight + ?Sized>(
    graph: &ToolGraph,
    sources: &[NodeIx],
    goal: NodeIx,
    weights: &W,
) -> Option<f64> {
    let n = graph.node_count();
    let mut dist = alloc::vec![f64::INFINITY; n];
    let mut is_source = alloc::vec![false; n];
    for &s in sources {
        if s < n {
            dist[s] = 0.0;
            is_source[s] = true;
        }
    }
    let mut inputs: Vec<f64> = Vec::new();
    for _ in 0..=n {
        let mut changed = false;
        for v in 0..n {
            if is_source[v] {
                continue;
            }
            inputs.clear();
            for &e in graph.in_edges(v) {
                let e = e as usize;
                let w = weights.weight(e);
                let d = dist[graph.edge(e).from];
                if w.is_finite() && d.is_finite() {
                    inputs.push(d + w);
                }
            }
            let value = match graph.node(v).join {
                Join::Any => inputs.iter().copied().fold(f64::INFINITY, f64::min),
                Join::Quorum(k) => {
                    let k = k as usize;
                    if inputs.len() < k {
                        f64::INFINITY
                    } else {
                        inputs.sort_by(f64::total_cmp);
                        inputs[..k].iter().sum()
                    }
                }
            };
            if value < dist[v] - 1e-12 * value.abs().max(1.0) {
                dist[v] = value;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    dist.get(goal).copied().filter(|d| d.is_finite())
}
