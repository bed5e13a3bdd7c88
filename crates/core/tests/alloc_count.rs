//! The steady path of routing allocates nothing: once a [`Dijkstra`] and a [`Plan`] have been
//! used on a graph, routing again on it (with the same or other weights it has already seen)
//! makes zero heap allocations. A counting global allocator counts the allocations of the
//! current thread only, so tests running in parallel do not disturb each other.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use shr_core::algo::{Dijkstra, Plan};
use shr_core::ToolGraph;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: the allocator may run while the thread-local is being torn down.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (alloc, alloc_zeroed, realloc) made by this thread while `f` runs.
fn allocations<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let before = ALLOCS.with(Cell::get);
    let r = f();
    (ALLOCS.with(Cell::get) - before, r)
}

/// A seeded random graph (out-degree 4, costs 1..=10) with a quorum join, in the JSON format.
fn graph(n: usize) -> ToolGraph {
    let mut rng = shr_core::rng::SplitMix64::new(0xA110C);
    let mut nodes: Vec<String> = (0..n).map(|v| format!(r#"{{"id":"n{v}"}}"#)).collect();
    let mut edges = Vec::new();
    for u in 0..n {
        // A chain keeps every node reachable; three random edges make alternatives.
        let mut out = vec![(u + 1) % n];
        while out.len() < 4 {
            let v = rng.below(n as u64) as usize;
            if v != u && !out.contains(&v) {
                out.push(v);
            }
        }
        for v in out {
            edges.push(format!(r#"{{"from":"n{u}","to":"n{v}","cost":{}}}"#, 1 + rng.below(10)));
        }
    }
    // One quorum join (k = 1: its chain input guarantees it can be met), so the join buffers
    // are on the path too.
    nodes[n / 2] = format!(r#"{{"id":"n{}","join":{{"quorum":1}}}}"#, n / 2);
    let json = format!(
        r#"{{"nodes":[{}],"edges":[{}],"start":"n0","goal":"n{}"}}"#,
        nodes.join(","),
        edges.join(","),
        n - 1
    );
    ToolGraph::from_json(&json).expect("valid graph")
}

#[test]
fn the_counter_sees_allocations() {
    // Guards against a counter that silently counts nothing (which would pass every test).
    let (n, b) = allocations(|| Box::new(std::hint::black_box(7u64)));
    assert!(n >= 1, "a Box allocation was not counted");
    drop(b);
    let g = graph(200);
    let (n, _) = allocations(|| {
        let mut d = Dijkstra::new();
        let mut plan = Plan::default();
        d.route_into(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost, &mut (), &mut plan)
    });
    assert!(n > 0, "a cold router allocated nothing: the counter is not wired to routing");
}

#[test]
fn repeated_routes_on_the_same_graph_allocate_nothing() {
    for size in [12, 1_000, 20_000] {
        let g = graph(size);
        let weights = |e: usize| g.edge(e).cost;
        let mut d = Dijkstra::new();
        let mut plan = Plan::default();
        assert!(d.route_into(&g, &[g.start()], g.goal(), &weights, &mut (), &mut plan));
        let first = plan.clone();
        let (n, ok) = allocations(|| {
            let mut ok = true;
            for _ in 0..100 {
                ok &= d.route_into(&g, &[g.start()], g.goal(), &weights, &mut (), &mut plan);
            }
            ok
        });
        assert!(ok);
        assert_eq!(plan, first, "routing again changed the plan");
        assert_eq!(n, 0, "{n} heap allocations in 100 steady routes on a {size}-node graph");
    }
}

#[test]
fn reroutes_over_failures_already_seen_allocate_nothing() {
    let g = graph(5_000);
    // Fail 1, 2, 3, 5 and 10 tools of the healthy best path, as a health book would.
    let mut d = Dijkstra::new();
    let mut plan = Plan::default();
    assert!(d.route_into(&g, &[g.start()], g.goal(), &|e: usize| g.edge(e).cost, &mut (), &mut plan));
    let tools: Vec<usize> = plan.nodes[1..plan.nodes.len() - 1].to_vec();
    let sets: Vec<Vec<bool>> = [0, 1, 2, 3, 5, 10]
        .iter()
        .map(|&k| {
            let mut failed = vec![false; g.node_count()];
            for &t in tools.iter().take(k) {
                failed[t] = true;
            }
            failed
        })
        .collect();
    let route = |d: &mut Dijkstra, plan: &mut Plan, failed: &[bool]| {
        let w = |e: usize| if failed[g.edge(e).to] { f64::INFINITY } else { g.edge(e).cost };
        d.route_into(&g, &[g.start()], g.goal(), &w, &mut (), plan)
    };
    // One pass to let the buffers reach their high-water mark...
    for failed in &sets {
        route(&mut d, &mut plan, failed);
    }
    // ...then every reroute is free.
    let (n, _) = allocations(|| {
        for _ in 0..10 {
            for failed in &sets {
                route(&mut d, &mut plan, failed);
            }
        }
    });
    assert_eq!(n, 0, "{n} heap allocations in 60 reroutes");
}
