//! The JS half of a tool call (issue 48: a run's CPU is mostly its crossings of the boundary).
//! One crossing starts a call: the tool's input is built in JS, its `signal` is a getter that
//! makes the call's `AbortController` only when a tool reads it (most never do; one read after
//! the call was aborted gets a signal aborted with the same reason), and the call's timeout
//! timer is armed only when the tool has not settled within two microtask turns of its call
//! (an async tool that returns at once costs no timer). The input's `signal` is an own enumerable
//! getter, as an object literal's `get signal()` would be, but one getter serves every input: it
//! finds its call through a private field (`Stamp`), not a closure per call.
//! The driver waits on a call with [`CallWait`], a future woken from JS through one function
//! made once (a `JsFuture` per call would make two closures and a promise per call): it ends
//! when the tool returned (its value stays in JS until read), threw, or the wait's time is up.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/driver/driver.js")]
extern "C" {
    /// Calls `tools[tool]` (`tool` the node id at `ix` in the ids of [`crate::route::RouteJs`]'s
    /// state) with the call's input, its timeout of `ms` armed when it has not
    /// settled within this microtask turn; the returned handle is what the other functions
    /// take. `undefined` when `tools` has no own function `tool`, `[e]` when reading it threw
    /// `e`, `[e, true]` when checking for it threw `e`.
    pub(super) fn call_tool(
        tools: &JsValue,
        ids: &JsValue,
        ix: u32,
        attempt: u32,
        call_id: &str,
        context: &JsValue,
        results: &JsValue,
        ms: f64,
    ) -> JsValue;
    /// What the call returned, read in JS: 0 when it is not plainly an output (read it with
    /// [`call_value`]); 2 when it is, its JSON text then taken by [`call_text`] (its copy kept
    /// in the call); 1 for a short output when `text_read` is false: one whose text the core
    /// does not read (a long one is handed over still, for the parser's depth check).
    pub(super) fn tool_output(c: &JsValue, text_read: bool) -> u32;
    /// The JSON text [`tool_output`] kept.
    pub(super) fn call_text(c: &JsValue) -> String;
    /// `results[tool]` = the copy [`tool_output`] kept, for the call's tool.
    pub(super) fn call_keep(c: &JsValue, results: &JsValue);
    /// `o[key]` = `value`, defined as an own key when `o` inherits one (a tool may be named
    /// `__proto__`).
    pub(super) fn set_own(o: &JsValue, key: &str, value: &JsValue);
    /// `crypto.randomUUID()`, or `None` where there is none.
    pub(super) fn random_uuid() -> Option<String>;
    /// A call that did not reach a tool: its result is the promise given (its timeout armed
    /// as [`call_tool`]'s).
    pub(super) fn given_result(p: &Promise, ms: f64) -> JsValue;
    /// Arms a new wait of `ms` at once (a side effect's late result against the grace).
    pub(super) fn call_late(c: &JsValue, ms: f64);
    /// 1 returned, 2 threw, 3 the wait's time is up; 0 still out, and `slot` is woken (through
    /// the function [`set_notify`] gave) when that changes.
    pub(super) fn call_poll(c: &JsValue, slot: u32) -> u32;
    /// What the call returned or threw.
    pub(super) fn call_value(c: &JsValue) -> JsValue;
    /// The function that wakes a slot's waker.
    fn set_notify(f: &JsValue);
    /// Clears the call's timer, and arms none after.
    pub(super) fn call_clear(c: &JsValue);
    /// Aborts the call's signal (now, or when a tool reads it) with an `Error` named `name`.
    pub(super) fn call_abort(c: &JsValue, name: &str, message: &str);
}

thread_local! {
    /// The wakers of the calls waited on, by slot; `None` is a free slot.
    static WAKERS: RefCell<Vec<Option<Waker>>> = const { RefCell::new(Vec::new()) };
    /// Slots of calls no longer waited on, to reuse.
    static FREE: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// Whether JS has the function that wakes a slot.
    static NOTIFY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Wakes the waker of `slot`, if it is still waited on (a late wake of a reused slot is a
/// spurious wake, which the poll that follows sees as such).
fn wake_slot(slot: u32) {
    let waker = WAKERS.with(|w| w.try_borrow_mut().ok().and_then(|mut w| w.get_mut(slot as usize)?.take()));
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// How a wait for a call ended.
pub(super) enum CallEnd {
    /// The tool returned: its value stays in the call ([`tool_output`], [`call_value`]).
    Returned,
    Threw(JsValue),
    /// The wait's time is up.
    Expired,
}

/// Waits for a call ([`call_tool`] or [`call_late`] armed its timer).
pub(super) struct CallWait {
    call: JsValue,
    slot: u32,
}

impl CallWait {
    pub(super) fn new(call: &JsValue) -> CallWait {
        if !NOTIFY.with(|n| n.replace(true)) {
            set_notify(&Closure::<dyn FnMut(u32)>::new(wake_slot).into_js_value());
        }
        let slot = FREE.with(|f| f.borrow_mut().pop()).unwrap_or_else(|| {
            WAKERS.with(|w| {
                let mut w = w.borrow_mut();
                w.push(None);
                (w.len() - 1) as u32
            })
        });
        CallWait { call: call.clone(), slot }
    }
}

impl Future for CallWait {
    type Output = CallEnd;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match call_poll(&self.call, self.slot) {
            1 => Poll::Ready(CallEnd::Returned),
            2 => Poll::Ready(CallEnd::Threw(call_value(&self.call))),
            3 => Poll::Ready(CallEnd::Expired),
            _ => {
                WAKERS.with(|w| {
                    if let Some(place) = w.borrow_mut().get_mut(self.slot as usize) {
                        *place = Some(cx.waker().clone());
                    }
                });
                Poll::Pending
            }
        }
    }
}

impl Drop for CallWait {
    fn drop(&mut self) {
        WAKERS.with(|w| {
            if let Some(place) = w.borrow_mut().get_mut(self.slot as usize) {
                *place = None;
            }
        });
        FREE.with(|f| f.borrow_mut().push(self.slot));
    }
}
