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

#[wasm_bindgen(inline_js = r#"
let notify = null;
// Adds a private field to an object made elsewhere (a base constructor may return any object):
// what it holds is invisible to the object's users (no key, no symbol, the prototype unchanged).
// Also in result.rs: wasm-bindgen's inline snippets cannot import one another, and each file's
// private field is its own.
class Through {
  constructor(o) {
    return o;
  }
}
class Stamp extends Through {
  #held;
  constructor(o, held) {
    super(o);
    this.#held = held;
  }
  static held(o) {
    return typeof o === 'object' && o !== null && #held in o ? o.#held : null;
  }
}
// The accessor a literal's `get signal()` would make, made once.
const SIGNAL = Object.getOwnPropertyDescriptor({
  get signal() {
    const c = Stamp.held(this);
    return c === null ? undefined : c.signal();
  },
}, 'signal');
class ToolCall {
  constructor() {
    this.controller = null;
    this.reason = null;
    this.timer = null;
    this.state = 0; // 0 running, 1 returned, 2 threw
    this.value = undefined;
    this.expired = false;
    this.slot = -1; // the waker the driver waits with, while it waits
    this.cleared = false;
    this.copy = undefined;
    this.tool = null;
    this.ms = 0;
    this.text = '';
  }
  signal() {
    if (this.controller === null) {
      if (typeof AbortController !== 'function') return undefined;
      this.controller = new AbortController();
      if (this.reason !== null) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}
function defineOwn(o, key, value) {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}
function wake(c) {
  const slot = c.slot;
  c.slot = -1;
  if (slot >= 0 && notify !== null) notify(slot);
}
function settled(c, state, value) {
  if (c.state !== 0) return;
  c.state = state;
  c.value = value;
  if (c.timer !== null) {
    clearTimeout(c.timer);
    c.timer = null;
  }
  wake(c);
}
function expire(c) {
  c.timer = null;
  c.expired = true;
  wake(c);
}
function arm(c, ms) {
  if (c.state === 0 && !c.expired && c.timer === null && !c.cleared) c.timer = setTimeout(expire, ms, c);
}
export function set_notify(f) {
  notify = f;
}
export function call_tool(tools, ids, ix, attempt, callId, context, results, ms) {
  const tool = ids.ids[ix];
  // Only the host's own properties are tools. What a throwing check threw is returned as
  // `[e, true]` (the run rejects), what a throwing read threw as `[e]`, and no function is
  // `undefined` (both the call's failure). Nothing is thrown: no wrapper to catch it.
  let own;
  try {
    own = Object.hasOwn(tools, tool);
  } catch (e) {
    return [e, true];
  }
  let f;
  if (own) {
    try {
      f = tools[tool];
    } catch (e) {
      return [e];
    }
  }
  if (typeof f !== 'function') return undefined;
  const c = new ToolCall();
  c.tool = tool;
  // `signal` is an own enumerable getter, as a literal's `get signal()` would be; one shared
  // getter finds its call through a private field (a getter per call cost half a microsecond).
  const input = { tool, attempt, callId };
  Object.defineProperty(input, 'signal', SIGNAL);
  if (!('context' in Object.prototype || 'results' in Object.prototype)) {
    input.context = context;
    input.results = Object.assign({}, results);
  } else {
    // An inherited `context` or `results` (a setter, a read-only value) must not take the
    // assignment: defined, as an object literal would.
    defineOwn(input, 'context', context);
    defineOwn(input, 'results', Object.assign({}, results));
  }
  new Stamp(input, c);
  let p;
  try {
    p = Promise.resolve(f(input));
  } catch (e) {
    p = Promise.reject(e);
  }
  p.then((v) => settled(c, 1, v), (e) => settled(c, 2, e));
  call_wait(c, ms);
  return c;
}
export function tool_output(c, text_read) {
  // What the call returned (`c.value`): 0 when it is not plainly an output (`success: false`, a
  // throwing getter, no JSON: the Rust side reads it and says what is wrong); else its copy
  // (what later tools get) is kept for call_keep, and 2 says its JSON text is in `c.text`. When
  // the core reads no output of this tool (`text_read` false: no validator, guard or verify
  // reads it) and the text is too short to nest past the core's parser's depth limit (128),
  // the text stays here and 1 says it was an output.
  const v = c.value;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    try {
      if (v.success === false) return 0;
    } catch (_) {
      return 0;
    }
  }
  let text;
  try {
    text = JSON.stringify(v);
  } catch (_) {
    return 0;
  }
  if (typeof text !== 'string') return 0;
  c.copy = JSON.parse(text);
  if (!text_read && text.length <= 200) return 1;
  c.text = text;
  return 2;
}
export function call_text(c) {
  const text = c.text;
  c.text = '';
  return text;
}
export function call_keep(c, results) {
  results[c.tool] = c.copy;
}
let crypto = null;
export function random_uuid() {
  try {
    // Node's `globalThis.crypto` is a getter that costs more than the UUID.
    if (crypto === null) crypto = globalThis.crypto;
    return crypto.randomUUID();
  } catch (_) {
    return undefined;
  }
}
export function given_result(p, ms) {
  const c = new ToolCall();
  p.then((v) => settled(c, 1, v), (e) => settled(c, 2, e));
  call_wait(c, ms);
  return c;
}
// Calls whose timeouts are armed when they have not settled within two microtask turns: one
// pair of promise jobs for every call started in a turn (Node's `queueMicrotask` makes an async
// resource per call, and a call whose tool settled in that turn needs no timer).
const RESOLVED = Promise.resolve();
let arming = [];
let armingQueued = false;
function armLater() {
  // Calls started from here on are the next batch's.
  const calls = arming;
  arming = [];
  armingQueued = false;
  RESOLVED.then(() => {
    for (let i = 0; i < calls.length; i++) arm(calls[i], calls[i].ms);
  });
}
function call_wait(c, ms) {
  c.ms = ms;
  arming.push(c);
  if (!armingQueued) {
    armingQueued = true;
    RESOLVED.then(armLater);
  }
}
export function call_late(c, ms) {
  c.expired = false;
  arm(c, ms);
}
export function call_poll(c, slot) {
  // 1 returned, 2 threw, 3 time is up; 0 still out: `slot` is woken when that changes.
  if (c.state !== 0) return c.state;
  if (c.expired) return 3;
  c.slot = slot;
  return 0;
}
export function call_value(c) {
  return c.value;
}
export function call_clear(c) {
  c.cleared = true;
  c.slot = -1;
  if (c.timer !== null) {
    clearTimeout(c.timer);
    c.timer = null;
  }
}
export function call_abort(c, name, message) {
  if (c.reason !== null) return;
  const reason = new Error(message);
  reason.name = name;
  c.reason = reason;
  if (c.controller !== null) {
    try {
      c.controller.abort(reason);
    } catch (_) {}
  }
}
"#)]
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
