//! The driver's own executor: a run is a future polled from a promise job, and its promise is
//! settled with what the future gives (what `future_to_promise` does, without its costs: a
//! closure crossing to make each promise, and Node's `queueMicrotask`, which makes an async
//! resource each time a run is woken; issue 48, target 3).
//!
//! A run is polled in a microtask after it starts and after each wake, never within the call
//! that wakes it (a tool's settling wakes its run, which then reads every call already settled,
//! in call order). Runs woken in one turn are polled in one job, in the order they were woken.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::error::{message_of, ShrError};

#[wasm_bindgen(module = "/src/driver/driver.js")]
extern "C" {
    /// The function [`queue_poll`] runs in a promise job, and the one given what it threw.
    fn set_poll(poll: &JsValue, threw: &JsValue);
    /// Polls the runs woken, in a promise job.
    fn queue_poll();
    /// The promise of the run in `slot`.
    fn job_promise(slot: u32) -> Promise;
    /// Resolves (`ok`) or rejects the promise of the run in `slot` with `value`.
    fn job_settle(slot: u32, ok: bool, value: &JsValue);
}

type Job = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// A run's place: its future (taken out while it is polled) and the waker that queues it.
struct Place {
    job: Option<Job>,
    waker: Waker,
    /// Counts the runs the place has held: a waker of an earlier run wakes nothing.
    generation: u32,
    queued: bool,
}

thread_local! {
    static PLACES: RefCell<Vec<Place>> = const { RefCell::new(Vec::new()) };
    static FREE: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// The runs woken since the last poll job, by (slot, generation).
    static WOKEN: RefCell<VecDeque<(u32, u32)>> = const { RefCell::new(VecDeque::new()) };
    /// Whether a poll job is queued.
    static QUEUED: Cell<bool> = const { Cell::new(false) };
    /// Whether JS has the function that polls.
    static POLL_SET: Cell<bool> = const { Cell::new(false) };
    /// The slot of the run being polled: still set when its poll threw.
    static POLLING: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Wakes the run in `slot` while it holds `generation`.
struct RunWaker {
    slot: u32,
    generation: u32,
}

impl Wake for RunWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        wake(self.slot, self.generation);
    }
}

fn wake(slot: u32, generation: u32) {
    let fresh = PLACES.with(|p| {
        let Ok(mut places) = p.try_borrow_mut() else { return true };
        match places.get_mut(slot as usize) {
            Some(place) if place.generation == generation && !place.queued => {
                place.queued = true;
                true
            }
            _ => false,
        }
    });
    if !fresh {
        return;
    }
    WOKEN.with(|w| w.borrow_mut().push_back((slot, generation)));
    if !QUEUED.with(|q| q.replace(true)) {
        queue_poll();
    }
}

/// Polls the runs woken before this job (runs woken while it runs are polled in the next). A
/// poll that throws ends its run ([`poll_threw`]) and leaves the runs after it woken.
fn poll_woken() {
    QUEUED.with(|q| q.set(false));
    let count = WOKEN.with(|w| w.borrow().len());
    for _ in 0..count {
        let Some((slot, generation)) = WOKEN.with(|w| w.borrow_mut().pop_front()) else { break };
        let taken = PLACES.with(|p| {
            let mut places = p.borrow_mut();
            let place = places.get_mut(slot as usize).filter(|place| place.generation == generation)?;
            place.queued = false;
            Some((place.job.take()?, place.waker.clone()))
        });
        let Some((mut job, waker)) = taken else { continue };
        POLLING.with(|p| p.set(Some(slot)));
        let polled = job.as_mut().poll(&mut Context::from_waker(&waker));
        POLLING.with(|p| p.set(None));
        match polled {
            Poll::Pending => PLACES.with(|p| {
                if let Some(place) = p.borrow_mut().get_mut(slot as usize) {
                    place.job = Some(job);
                }
            }),
            Poll::Ready(result) => {
                drop(job);
                settle(slot, result);
            }
        }
    }
}

/// Gives the place back (its wakers stale from now on) and settles its run's promise.
fn settle(slot: u32, result: Result<JsValue, JsValue>) {
    PLACES.with(|p| {
        if let Some(place) = p.borrow_mut().get_mut(slot as usize) {
            place.generation = place.generation.wrapping_add(1);
            place.queued = false;
        }
    });
    FREE.with(|f| f.borrow_mut().push(slot));
    match result {
        Ok(v) => job_settle(slot, true, &v),
        Err(e) => job_settle(slot, false, &e),
    }
}

/// A poll threw (JS code that should not throw did, or a trap): the run it was polling rejects,
/// not waits forever, and the runs woken after it are polled in the next job. What the poll
/// held is not dropped (a throw unwinds past Rust's destructors); its wakers are stale.
fn poll_threw(thrown: JsValue) {
    if let Some(slot) = POLLING.with(|p| p.take()) {
        let why = format!("the run's driver threw: {}", message_of(&thrown));
        settle(slot, Err(ShrError::new("internal", why).with("cause", thrown).into_js()));
    }
    if !WOKEN.with(|w| w.borrow().is_empty()) && !QUEUED.with(|q| q.replace(true)) {
        queue_poll();
    }
}

/// Runs `future` from the next microtask on; the promise settles with what it gives.
pub(super) fn spawn(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    if !POLL_SET.with(|s| s.replace(true)) {
        set_poll(
            &Closure::<dyn FnMut()>::new(poll_woken).into_js_value(),
            &Closure::<dyn FnMut(JsValue)>::new(poll_threw).into_js_value(),
        );
    }
    let job: Job = Box::pin(future);
    let slot = FREE.with(|f| f.borrow_mut().pop());
    let (slot, generation) = PLACES.with(|p| {
        let mut places = p.borrow_mut();
        let slot = slot.unwrap_or(places.len() as u32);
        let generation = places.get(slot as usize).map_or(0, |place| place.generation);
        // A waker of the place's earlier runs stays stale: it names an earlier generation.
        let waker = Waker::from(Arc::new(RunWaker { slot, generation }));
        let place = Place { job: Some(job), waker, generation, queued: false };
        match places.get_mut(slot as usize) {
            Some(p) => *p = place,
            None => places.push(place),
        }
        (slot, generation)
    });
    let promise = job_promise(slot);
    wake(slot, generation);
    promise
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::spawn;
    use js_sys::Reflect;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen(inline_js = "export function boom() { throw new Error('boom'); }")]
    extern "C" {
        fn boom();
    }

    fn text(v: &JsValue, key: &str) -> String {
        Reflect::get(v, &JsValue::from_str(key)).ok().and_then(|v| v.as_string()).unwrap_or_default()
    }

    #[wasm_bindgen_test]
    async fn a_run_whose_poll_throws_rejects_and_the_runs_woken_after_it_go_on() {
        let thrown = spawn(async {
            boom();
            Ok(JsValue::NULL)
        });
        let after = spawn(async { Ok(JsValue::from(42)) });
        let err = JsFuture::from(thrown).await.expect_err("the run rejects, not waits");
        assert_eq!(text(&err, "code"), "internal");
        assert!(text(&err, "message").contains("boom"), "{}", text(&err, "message"));
        assert_eq!(JsFuture::from(after).await.ok().and_then(|v| v.as_f64()), Some(42.0));
        // The place is given back and reused.
        let again = spawn(async { Ok(JsValue::from(7)) });
        assert_eq!(JsFuture::from(again).await.ok().and_then(|v| v.as_f64()), Some(7.0));
    }
}
