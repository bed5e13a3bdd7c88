//! One router shared by the tasks of a multi-thread tokio runtime: `Arc<Mutex<Router>>`.
//!
//! `cargo run -p shr-core --example tokio_shared`
//!
//! Eight tasks each run a refund on their own worker thread. The router is locked only to
//! decide and to report (microseconds); the tool calls are awaited with the lock released, so
//! the tasks' calls overlap. Stripe fails: the first runs learn it, its breaker opens, and every
//! later run routes through Razorpay at once. The clock is the host's (`Instant` since start):
//! the core never reads one.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use shr_core::{Action, BreakerState, Decision, GraphBuilder, Millis, Router, Status, Task, ToolResult};

/// Milliseconds since the runtime started: the host's clock, passed in at every step.
fn now(epoch: Instant) -> Millis {
    epoch.elapsed().as_millis() as Millis
}

/// A tool: Stripe is down (a permanent failure opens its breaker at once), the others work.
async fn call(tool: &str) -> ToolResult {
    tokio::time::sleep(Duration::from_millis(5)).await;
    match tool {
        "stripe" => ToolResult::failed(shr_core::Category::Service, "stripe: 503"),
        other => ToolResult::ok(json!({ "tool": other }), 5.0),
    }
}

/// Drives one run to its end, holding the router's lock only between awaits.
async fn run(router: Arc<Mutex<Router>>, task: u32, epoch: Instant) -> (Status, Vec<String>) {
    let mut run = {
        let mut r = router.lock().expect("no task panics with the lock held");
        let task = Task { id: Some(format!("refund-{task}")), ..Task::default() };
        r.start(task, now(epoch)).expect("the graph's own start and goal")
    };
    loop {
        let action = {
            let mut r = router.lock().expect("no task panics with the lock held");
            r.next(&mut run, now(epoch)).expect("a run of this router")
        };
        match action {
            Action::CallTools { calls } => {
                // The batch's calls run together, with the lock released.
                let results = futures_join(calls.iter().map(|c| call(&c.tool))).await;
                let mut r = router.lock().expect("no task panics with the lock held");
                for (c, result) in calls.iter().zip(results) {
                    r.report(&mut run, &c.tool, result, now(epoch)).expect("a call in flight");
                }
            }
            Action::Wait => tokio::task::yield_now().await,
            Action::Pause { until } => {
                let wait = until.saturating_sub(now(epoch)).max(1);
                tokio::time::sleep(Duration::from_millis(wait)).await;
            }
            Action::Escalate { request } => {
                let mut r = router.lock().expect("no task panics with the lock held");
                let decision = Decision::Abort { message: format!("needs a person: {:?}", request.reason) };
                r.resolve_escalation(&mut run, decision, now(epoch)).expect("an escalation pending");
            }
            Action::Finished { outcome } => return (outcome.status, outcome.path),
        }
    }
}

/// Awaits futures one after another after starting them all (tokio's `join_all` needs the
/// `futures` crate; spawning each would need `'static` tools).
async fn futures_join<F: std::future::Future<Output = ToolResult>>(
    futures: impl Iterator<Item = F>,
) -> Vec<ToolResult> {
    let mut out = Vec::new();
    for f in futures {
        out.push(f.await);
    }
    out
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    let graph = GraphBuilder::new()
        .waypoint("start")
        .tool("stripe")
        .tool("razorpay")
        .tool("email")
        .waypoint("done")
        .edge("start", "stripe", 1.0)
        .edge("start", "razorpay", 2.0)
        .edge("stripe", "email", 1.0)
        .edge("razorpay", "email", 1.0)
        .edge("email", "done", 0.0)
        .route("start", "done")
        .build()
        .expect("a valid graph");
    let stripe = graph.index("stripe").expect("stripe is a node");
    let router = Arc::new(Mutex::new(Router::new(graph)));
    let epoch = Instant::now();

    let tasks: Vec<_> = (0..8).map(|i| tokio::spawn(run(router.clone(), i, epoch))).collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let (status, path) = task.await.expect("the task ends");
        println!("refund-{i}: {status:?} via {}", path.join(" -> "));
        assert_eq!(status, Status::Completed);
        assert!(path.contains(&"razorpay".to_string()));
    }
    let r = router.lock().expect("every task ended");
    assert_eq!(r.health().state(stripe), BreakerState::Open);
    println!("stripe's breaker: {:?}", r.health().state(stripe));
}
