//! The floors SHR's route is measured against (issue 48), written as plainly as such code is:
//! a push-relax sweep over a CSR array in a precomputed topological order, and a binary-heap
//! Dijkstra over the same CSR. Both take the failure set the way SHR does (a factor per node,
//! infinite when failed, times the edge's cost) and, like SHR, return the path, not only its
//! cost.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Out-edges by node: `to[start[u]..start[u + 1]]`, `cost[..]` alike.
pub struct Csr {
    pub start: Vec<u32>,
    pub to: Vec<u32>,
    pub cost: Vec<f64>,
    /// A topological order and each node's place in it (empty with a cycle).
    pub order: Vec<u32>,
    pub pos: Vec<u32>,
}

impl Csr {
    pub fn new(n: usize, edges: &[(usize, usize, f64)]) -> Csr {
        let mut start = vec![0u32; n + 1];
        for &(a, _, _) in edges {
            start[a + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let (mut to, mut cost, mut fill) = (vec![0; edges.len()], vec![0.0; edges.len()], start.clone());
        for &(a, b, c) in edges {
            let k = fill[a] as usize;
            (to[k], cost[k], fill[a]) = (b as u32, c, fill[a] + 1);
        }
        // Kahn's order.
        let mut indeg = vec![0u32; n];
        edges.iter().for_each(|&(_, b, _)| indeg[b] += 1);
        let mut order: Vec<u32> = (0..n as u32).filter(|&v| indeg[v as usize] == 0).collect();
        let mut i = 0;
        while i < order.len() {
            let u = order[i] as usize;
            for k in start[u] as usize..start[u + 1] as usize {
                indeg[to[k] as usize] -= 1;
                if indeg[to[k] as usize] == 0 {
                    order.push(to[k]);
                }
            }
            i += 1;
        }
        let mut pos = vec![0u32; n];
        if order.len() == n {
            order.iter().enumerate().for_each(|(p, &v)| pos[v as usize] = p as u32);
        } else {
            (order, pos) = (Vec::new(), Vec::new());
        }
        Csr { start, to, cost, order, pos }
    }
}

/// Scratch of either floor, reused between queries.
pub struct Scratch {
    pub dist: Vec<f64>,
    pub pred: Vec<u32>,
    pub path: Vec<u32>,
    touched: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Scratch {
    pub fn new(n: usize) -> Scratch {
        let (dist, pred) = (vec![f64::INFINITY; n], vec![u32::MAX; n]);
        Scratch { dist, pred, path: Vec::new(), touched: Vec::new(), heap: BinaryHeap::new() }
    }

    fn walk_back(&mut self, s: usize, t: usize) {
        self.path.clear();
        let mut v = t as u32;
        self.path.push(v);
        while v as usize != s {
            v = self.pred[v as usize];
            self.path.push(v);
        }
        self.path.reverse();
    }
}

/// The floor sweep: the nodes from `s` to `t` in topological order, each pushing its cost
/// along its out-edges. The cost of the cheapest path, which is left in `x.path`.
pub fn sweep(g: &Csr, factor: &[f64], s: usize, t: usize, x: &mut Scratch) -> f64 {
    let (lo, hi) = (g.pos[s] as usize, g.pos[t] as usize);
    g.order[lo..=hi].iter().for_each(|&v| x.dist[v as usize] = f64::INFINITY);
    x.dist[s] = 0.0;
    for &u in &g.order[lo..hi] {
        let (u, d) = (u as usize, x.dist[u as usize]);
        for k in g.start[u] as usize..g.start[u + 1] as usize {
            let v = g.to[k] as usize;
            let nd = d + g.cost[k] * factor[v];
            if nd < x.dist[v] {
                (x.dist[v], x.pred[v]) = (nd, u as u32);
            }
        }
    }
    if x.dist[t] < f64::INFINITY {
        x.walk_back(s, t);
    }
    x.dist[t]
}

/// The 30-line binary-heap Dijkstra: stops at `t`; only the nodes it touched are reset.
pub fn heap_dijkstra(g: &Csr, factor: &[f64], s: usize, t: usize, x: &mut Scratch) -> f64 {
    for &v in &x.touched {
        x.dist[v as usize] = f64::INFINITY;
    }
    x.touched.clear();
    x.heap.clear();
    x.dist[s] = 0.0;
    x.touched.push(s as u32);
    x.heap.push(Reverse((0f64.to_bits(), s as u32)));
    while let Some(Reverse((bits, u))) = x.heap.pop() {
        let (u, d) = (u as usize, f64::from_bits(bits));
        if d > x.dist[u] {
            continue;
        }
        if u == t {
            x.walk_back(s, t);
            return d;
        }
        for k in g.start[u] as usize..g.start[u + 1] as usize {
            let v = g.to[k] as usize;
            let nd = d + g.cost[k] * factor[v];
            if nd < x.dist[v] {
                if x.dist[v] == f64::INFINITY {
                    x.touched.push(v as u32);
                }
                (x.dist[v], x.pred[v]) = (nd, u as u32);
                // Non-negative floats order as their bits.
                x.heap.push(Reverse((nd.to_bits(), v as u32)));
            }
        }
    }
    f64::INFINITY
}
