//! Cheapest plan that keeps chosen completed work: Knuth's generalized Dijkstra (see
//! [`super::dijkstra`]) over labels (node, kept set).
//!
//! A run that branches back from completed work must not abandon a side effect it cannot undo,
//! and should weigh what undoing the others costs. A plan keeps what the sources it starts from
//! were built on, so each source carries the set of marked nodes it keeps, a mask of at most
//! [`MAX_KEPT`] bits. `d[M][v]` is the cheapest plan reaching `v` whose sources keep at least
//! `M`. Masks are searched in increasing order, so every proper subset of `M` is final when `M`
//! is: a quorum join whose branches keep parts of `M` is seeded from them before the pass (a
//! small subset product over its inputs), and a branch keeping all of `M` joins the cheapest
//! other inputs of the plain search (mask 0) during the pass. The caller scores each mask that
//! reaches the goal (what the work it does not keep costs to undo, or that it may not be
//! abandoned at all) and gets the best plan.
//!
//! Complexity: O(2^r (V + E) log V + 4^r J d k) for `r` bits and `J` joins of in-degree `d`
//! and quorum `k`. Only a branch-back whose plain plan would abandon a side effect asks.
//!
//! ```
//! use shr_core::{ToolGraph, algo::keep::KeepSearch};
//! // From s, two ways to g: via a (cost 1) or via b (cost 3); the completed work t kept by b.
//! let g = ToolGraph::from_json(r#"{"nodes":[{"id":"s","tool":false},{"id":"t"},{"id":"a"},
//!   {"id":"b"},{"id":"g","tool":false}],"edges":[{"from":"s","to":"a","cost":1},
//!   {"from":"t","to":"b","cost":3},{"from":"a","to":"g","cost":0},{"from":"b","to":"g","cost":0}],
//!   "start":"s","goal":"g"}"#).unwrap();
//! let t = g.index("t").unwrap();
//! let mut k = KeepSearch::default();
//! let sources = [(g.start(), 0), (t, 1)];
//! // Abandoning t costs 5 (say, its compensation): keeping it is cheaper.
//! let (plan, kept) = k
//!     .route(&g, &sources, false, g.goal(), 1, &|e: usize| g.edge(e).cost, &|m, d| d + if m & 1 == 0 { 5.0 } else { 0.0 })
//!     .unwrap();
//! assert_eq!((plan.ids(&g), kept), (vec!["t", "b", "g"], 1));
//! ```

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;

use super::dijkstra::Entry;
use super::weight::usable;
use super::{EdgeWeight, Plan};
use crate::graph::{NodeIx, ToolGraph};

/// Most marked nodes a search tells apart (2^6 = 64 passes).
pub const MAX_KEPT: usize = 6;

/// How a label was reached: an input edge, its tail's mask, and whether it left an origin.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Input {
    edge: u32,
    mask: u32,
    seed: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Pred {
    None,
    /// A source, entered at cost 0.
    Source,
    Edge(Input),
    /// A quorum join: its inputs in `KeepSearch::picks[at..at + k]`.
    Join(u32),
}

/// Reusable state of the search; see the module docs.
#[derive(Debug, Default)]
pub struct KeepSearch {
    dist: Vec<f64>,
    pred: Vec<Pred>,
    /// Settling order over all passes: a plan's feeders come before what they feed.
    order: Vec<u32>,
    picks: Vec<Input>,
    /// Per edge, this pass's cheapest offer and whether it left an origin.
    offer: Vec<(f64, bool)>,
    /// The same after the plain pass (mask 0), final.
    plain: Vec<(f64, bool)>,
    heap: BinaryHeap<Entry>,
}

impl KeepSearch {
    /// The plan to `goal` with the lowest `score(mask, cost)` (infinite: not allowed), from
    /// `sources` (node, the bits it keeps, below `1 << bits`); `origins`: the sources are
    /// origins (cyclic workflows: entered by their out-edges' [`EdgeWeight::seed_weight`], and
    /// they may be visited again), else they are plan nodes at cost 0. Returns the plan and the
    /// mask it was scored with. `None` when no allowed plan exists or `bits > MAX_KEPT`.
    #[allow(clippy::too_many_arguments)]
    pub fn route(
        &mut self,
        graph: &ToolGraph,
        sources: &[(NodeIx, u32)],
        origins: bool,
        goal: NodeIx,
        bits: usize,
        weights: &dyn EdgeWeight,
        score: &dyn Fn(u32, f64) -> f64,
    ) -> Option<(Plan, u32)> {
        let n = graph.node_count();
        if bits > MAX_KEPT || goal >= n {
            return None;
        }
        let masks = 1usize << bits;
        self.dist.clear();
        self.dist.resize(masks * n, f64::INFINITY);
        self.pred.clear();
        self.pred.resize(masks * n, Pred::None);
        self.order.clear();
        self.order.resize(masks * n, u32::MAX);
        self.picks.clear();
        let mut tick = 0u32;
        for m in 0..masks as u32 {
            self.pass(graph, sources, origins, m, weights, &mut tick);
        }
        let at = |m: u32| m as usize * n + goal;
        let best = (0..masks as u32)
            .filter(|&m| self.dist[at(m)].is_finite())
            .map(|m| (score(m, self.dist[at(m)]), m))
            .filter(|(s, _)| s.is_finite())
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))?;
        let mut plan = Plan::default();
        self.extract(graph, goal, best.1, &mut plan);
        plan.cost = self.dist[at(best.1)];
        Some((plan, best.1))
    }

    /// One pass: labels of mask `m`, every proper subset of `m` already final.
    #[inline(never)]
    fn pass(
        &mut self,
        graph: &ToolGraph,
        sources: &[(NodeIx, u32)],
        origins: bool,
        m: u32,
        weights: &dyn EdgeWeight,
        tick: &mut u32,
    ) {
        let n = graph.node_count();
        let base = m as usize * n;
        self.offer.clear();
        self.offer.resize(graph.edge_count(), (f64::INFINITY, false));
        self.heap.clear();
        for &(u, keeps) in sources {
            if u >= n || keeps & m != m {
                continue;
            }
            if !origins {
                self.dist[base + u] = 0.0;
                self.pred[base + u] = Pred::Source;
                self.heap.push(Entry { dist: 0.0, node: u as u32 });
                continue;
            }
            for &e in graph.out_edges(u) {
                let w = weights.seed_weight(e as usize);
                self.relax(graph, m, Input { edge: e, mask: m, seed: true }, w);
            }
        }
        if m != 0 {
            for &v in graph.join_nodes() {
                self.seed_split(graph, sources, origins, m, v, weights);
            }
        }
        let mut settled = alloc::vec![false; n];
        while let Some(Entry { dist, node }) = self.heap.pop() {
            let u = node as usize;
            if settled[u] || dist > self.dist[base + u] {
                continue;
            }
            settled[u] = true;
            self.order[base + u] = *tick;
            *tick += 1;
            for &e in graph.out_edges(u) {
                let w = weights.weight(e as usize);
                if !settled[graph.edge(e as usize).to] {
                    self.relax(graph, m, Input { edge: e, mask: m, seed: false }, dist + w);
                }
            }
        }
        if m == 0 {
            self.plain.clone_from(&self.offer);
        }
    }

    /// Offers the head of `input.edge` the cost `offer` in pass `m`.
    #[inline(never)]
    fn relax(&mut self, graph: &ToolGraph, m: u32, input: Input, offer: f64) {
        if !usable(offer) {
            return;
        }
        let e = input.edge as usize;
        let v = graph.edge(e).to;
        let at = m as usize * graph.node_count() + v;
        let k = graph.quorum(v) as usize;
        let (cost, pred) = if k == 0 {
            (offer, Pred::Edge(input))
        } else {
            if offer >= self.offer[e].0 {
                return;
            }
            self.offer[e] = (offer, input.seed);
            // Mask 0: the k cheapest offers so far (Knuth). Else this branch keeps all of `m`
            // and the other k - 1 inputs are the plain search's cheapest.
            let (rest, others) = if m == 0 {
                self.cheapest(graph, v, k, None, false)
            } else {
                self.cheapest(graph, v, k - 1, Some(e), true)
            };
            let Some(rest) = rest.filter(|_| m != 0 || others.iter().any(|i| i.edge as usize == e)) else {
                return;
            };
            let here = if m == 0 { 0.0 } else { offer };
            let at_picks = self.picks.len() as u32;
            if m != 0 {
                self.picks.push(input);
            }
            self.picks.extend(others);
            (here + rest, Pred::Join(at_picks))
        };
        if cost < self.dist[at] {
            self.dist[at] = cost;
            self.pred[at] = pred;
            self.heap.push(Entry { dist: cost, node: v as u32 });
        } else if let Pred::Join(p) = pred {
            self.picks.truncate(p as usize);
        }
    }

    /// The `k` cheapest usable inputs of join `v` offered in this pass (`plain`: in the plain
    /// pass), other than `skip`, as (their sum, them with mask 0); `None` with fewer than `k`.
    #[inline(never)]
    fn cheapest(
        &self,
        graph: &ToolGraph,
        v: NodeIx,
        k: usize,
        skip: Option<usize>,
        plain: bool,
    ) -> (Option<f64>, Vec<Input>) {
        let t = if plain { &self.plain } else { &self.offer };
        // Insertion into at most k places: joins are small, and no sort is instantiated.
        let mut best: Vec<(f64, u32)> = Vec::with_capacity(k + 1);
        for &e in graph.in_edges(v) {
            let c = t[e as usize].0;
            if Some(e as usize) == skip || !usable(c) {
                continue;
            }
            let at = best.iter().position(|b| c < b.0).unwrap_or(best.len());
            if at < k {
                best.insert(at, (c, e));
                best.truncate(k);
            }
        }
        if best.len() < k {
            return (None, Vec::new());
        }
        let picks = best.iter().map(|&(_, e)| Input { edge: e, mask: 0, seed: t[e as usize].1 }).collect();
        (Some(best.iter().map(|b| b.0).sum()), picks)
    }

    /// Seeds join `v` in pass `m` from branches that each keep a proper subset of `m` (final
    /// from earlier passes) and together keep `m`: the cheapest `k` distinct inputs by a small
    /// product over subsets.
    #[inline(never)]
    fn seed_split(
        &mut self,
        graph: &ToolGraph,
        sources: &[(NodeIx, u32)],
        origins: bool,
        m: u32,
        v: NodeIx,
        weights: &dyn EdgeWeight,
    ) {
        let k = graph.quorum(v) as usize;
        let n = graph.node_count();
        let subs: Vec<u32> = (0..=m).filter(|s| s & m == *s).collect();
        let width = subs.len();
        let cell = |j: usize, c: u32| j * width + subs.iter().position(|&x| x == c).unwrap_or(0);
        // A 0/1 knapsack over the inputs: layer i, cell (j, c): the cheapest j of the first i
        // inputs keeping exactly c, and how it was reached (skipped, or input i with mask s).
        let inputs = graph.in_edges(v);
        let mut layers: Vec<Vec<(f64, Option<Input>)>> = Vec::with_capacity(inputs.len() + 1);
        let mut first = alloc::vec![(f64::INFINITY, None); (k + 1) * width];
        first[0] = (0.0, None);
        layers.push(first);
        for &e in inputs {
            let from = graph.edge(e as usize).from;
            let w = weights.weight(e as usize);
            // An origin feeds the join over its seed edge, with the bits it keeps.
            let seed = sources.iter().filter(|s| origins && s.0 == from).map(|s| s.1).next();
            let seed_w = if seed.is_some() { weights.seed_weight(e as usize) } else { f64::INFINITY };
            let prev = &layers[layers.len() - 1];
            let mut next: Vec<(f64, Option<Input>)> = prev.iter().map(|x| (x.0, None)).collect();
            for j in 0..k {
                for &c in &subs {
                    let have = prev[cell(j, c)].0;
                    // Proper subsets only: a branch keeping all of `m` joins during the pass.
                    for &s in subs.iter().filter(|&&s| s != m && have.is_finite()) {
                        let on = self.dist[s as usize * n + from] + w;
                        let by_seed = seed.is_some_and(|keeps| keeps & s == s) && seed_w < on;
                        let d = have + if by_seed { seed_w } else { on };
                        let to = cell(j + 1, c | s);
                        if usable(d) && d < next[to].0 {
                            next[to] = (d, Some(Input { edge: e, mask: s, seed: by_seed }));
                        }
                    }
                }
            }
            layers.push(next);
        }
        let at = m as usize * n + v;
        let (cost, _) = layers[layers.len() - 1][cell(k, m)];
        if !(usable(cost) && cost < self.dist[at]) {
            return;
        }
        // Walk the layers back from (k, m): each taken input, with what it kept.
        let start = self.picks.len();
        let (mut j, mut c) = (k, m);
        for i in (1..layers.len()).rev() {
            if let (_, Some(input)) = layers[i][cell(j, c)] {
                self.picks.push(input);
                j -= 1;
                // The state it came from keeps c without the input's bits, or with some of them.
                let prev = &layers[i - 1];
                let rest = input.mask;
                c = subs
                    .iter()
                    .copied()
                    .filter(|&x| x | rest == c)
                    .min_by(|&a, &b| prev[cell(j, a)].0.total_cmp(&prev[cell(j, b)].0))
                    .unwrap_or(0);
            }
        }
        self.dist[at] = cost;
        self.pred[at] = Pred::Join(start as u32);
        self.heap.push(Entry { dist: cost, node: v as u32 });
    }

    /// Walks the labels back from (goal, `m`): the plan's nodes (feeders first), edges and seeds.
    #[inline(never)]
    fn extract(&self, graph: &ToolGraph, goal: NodeIx, m: u32, plan: &mut Plan) {
        let n = graph.node_count();
        let mut stack = alloc::vec![(goal, m)];
        let mut seen = alloc::vec![false; n * (self.dist.len() / n.max(1))];
        let mut nodes: Vec<(u32, NodeIx)> = Vec::new();
        while let Some((v, m)) = stack.pop() {
            let at = m as usize * n + v;
            if core::mem::replace(&mut seen[at], true) {
                continue;
            }
            match nodes.iter_mut().find(|x| x.1 == v) {
                Some(x) => x.0 = x.0.min(self.order[at]),
                None => nodes.push((self.order[at], v)),
            }
            let inputs: &[Input] = match &self.pred[at] {
                Pred::Edge(i) => core::slice::from_ref(i),
                Pred::Join(p) => {
                    let k = graph.quorum(v) as usize;
                    &self.picks[*p as usize..*p as usize + k]
                }
                Pred::None | Pred::Source => &[],
            };
            for i in inputs {
                let e = i.edge as usize;
                if !plan.edges.contains(&e) {
                    plan.edges.push(e);
                }
                if i.seed {
                    if !plan.seeds.contains(&e) {
                        plan.seeds.push(e);
                    }
                } else {
                    stack.push((graph.edge(e).from, i.mask));
                }
            }
        }
        sort_by_key(&mut nodes, |x| u64::from(x.0));
        plan.nodes = nodes.into_iter().map(|x| x.1).collect();
        let rank = |v: NodeIx| plan.nodes.iter().position(|&x| x == v).unwrap_or(usize::MAX) as u64;
        let mut edges = core::mem::take(&mut plan.edges);
        sort_by_key(&mut edges, |&e| (rank(graph.edge(e).to) << 32) | graph.edge(e).from as u64);
        plan.edges = edges;
    }
}

/// Insertion sort: a plan has a few nodes and edges, and this keeps the module small.
fn sort_by_key<T: Copy>(items: &mut [T], key: impl Fn(&T) -> u64) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && key(&items[j - 1]) > key(&items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}
