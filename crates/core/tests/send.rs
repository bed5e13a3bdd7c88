//! Compile-time checks: a router, a session and a run cross threads (a tokio multi-thread
//! runtime holding one `Arc<Mutex<Router>>`), and a shared `&Router` may be read from several.
//! A field that is not `Send`/`Sync` (an `Rc`, a `Cell`, a `Box<dyn Trait>` without the bounds)
//! fails this file's build, not a user's.

use shr_core::{Event, GraphBuilder, Monitors, Outcome, Router, Run, Session, ToolGraph};

const fn assert_send<T: Send>() {}
const fn assert_sync<T: Sync>() {}

const _: () = {
    assert_send::<Router>();
    assert_sync::<Router>();
    assert_send::<Session>();
    assert_sync::<Session>();
    assert_send::<Run>();
    assert_sync::<Run>();
    assert_send::<ToolGraph>();
    assert_sync::<ToolGraph>();
    assert_send::<Monitors>();
    assert_sync::<Monitors>();
    assert_send::<Event>();
    assert_send::<Outcome>();
    assert_send::<GraphBuilder>();
};

#[test]
fn a_router_routes_from_another_thread() {
    let graph = GraphBuilder::new()
        .waypoint("start")
        .tool("a")
        .waypoint("done")
        .edge("start", "a", 1.0)
        .edge("a", "done", 0.0)
        .route("start", "done")
        .build()
        .expect("a valid graph");
    let router = std::sync::Arc::new(std::sync::Mutex::new(Router::new(graph)));
    let shared = router.clone();
    let path = std::thread::spawn(move || {
        let mut r = shared.lock().expect("not poisoned");
        let (from, to) = (r.graph().start(), r.graph().goal());
        r.route(from, to, 0).expect("a route");
        r.last_route().ids(r.graph()).iter().map(|s| s.to_string()).collect::<Vec<_>>()
    })
    .join()
    .expect("the thread ends");
    assert_eq!(path, ["start", "a", "done"]);
}
