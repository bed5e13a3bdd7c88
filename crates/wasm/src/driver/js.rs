//! The JS half of a tool call (issue 48: a run's CPU is mostly its crossings of the boundary).
//! One crossing starts a call: the tool's input is built in JS, its `signal` is a getter that
//! makes the call's `AbortController` only when a tool reads it (most never do; one read after
//! the call was aborted gets a signal aborted with the same reason), and the call's timeout
//! timer is armed only when the tool has not settled within the microtask turn it was called in
//! (an async tool that returns at once costs no timer). What the driver awaits is one promise
//! per wait: it resolves with the tool's value, rejects with what it threw, or resolves with the
//! call object itself when the wait's time is up (no tool can return that object).
//! The driver waits on a call with [`CallWait`], a future woken from JS through one function
//! made once (a `JsFuture` per call would make two closures and a promise per call).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use shr_core::{Outcome, Status, ToolGraph};
use wasm_bindgen::prelude::*;

use crate::convert::{outcome_to_json_camel, strings_to_json};

#[wasm_bindgen(inline_js = r#"
const OPTIONS = new Set(['tools', 'escalate', 'onEvent', 'timeoutMs', 'escalateTimeoutMs', 'deadlineMs', 'clock', 'sleep']);
let notify = null;
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
  const input = {
    tool, attempt, callId,
    get signal() { return c.signal(); },
    context, results: Object.assign({}, results),
  };
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
export function tool_output(c, v, text_read) {
  // A value that is plainly no structured failure, as JSON text; its copy (what later tools
  // get) kept for call_keep. Anything else (`success: false`, a throwing getter, no JSON) is
  // `undefined`: the Rust side reads it and says what is wrong. When the core reads no output
  // of this tool (`text_read` false: no validator, guard or verify reads it) and the text is
  // too short to nest past the core's parser's depth limit (128), the text stays here and ''
  // says it was an output.
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    try {
      if (v.success === false) return undefined;
    } catch (_) {
      return undefined;
    }
  }
  let text;
  try {
    text = JSON.stringify(v);
  } catch (_) {
    return undefined;
  }
  if (typeof text !== 'string') return undefined;
  c.copy = JSON.parse(text);
  return text_read || text.length > 200 ? text : '';
}
export function call_keep(c, results) {
  results[c.tool] = c.copy;
}
export function run_options(o) {
  // The options in one crossing when they are plain: own string keys all known, no getter
  // throws. Anything else is `undefined`, and the Rust side reads them one by one and words
  // the error.
  if (typeof o !== 'object' || o === null) return undefined;
  try {
    for (const k of Reflect.ownKeys(o)) if (typeof k === 'string' && !OPTIONS.has(k)) return undefined;
    const v = [o.tools, o.escalate, o.onEvent, o.timeoutMs, o.escalateTimeoutMs, o.deadlineMs, o.clock, o.sleep];
    let given = 0;
    for (let i = 0; i < 8; i++) if (v[i] !== undefined && v[i] !== null) given |= 1 << i;
    v.push(given);
    return v;
  } catch (_) {
    return undefined;
  }
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
function call_wait(c, ms) {
  // The call's timeout of `ms`, armed when it has not settled within this microtask turn.
  queueMicrotask(() => arm(c, ms));
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
function own(o, value) {
  Object.defineProperty(o, 'events', { value, enumerable: true, configurable: true, writable: true });
  return value;
}
export function run_result(outcome, events) {
  return result(JSON.parse(outcome), events);
}
const STATUS = ['completed', 'demoted', 'escalated'];
export function run_result_plain(status, ids, goal, originalGoal, path, cost, toolCalls, llmCalls, reroutes, retries, failures, revisits, events) {
  // The keys in the order `outcome_to_json_camel` writes them; the goals by node index.
  const outcome = { status: STATUS[status], goal: ids.ids[goal], originalGoal: ids.ids[originalGoal], path: JSON.parse(path), cost, toolCalls, llmCalls, reroutes, retries, failures, revisits };
  return result(outcome, events);
}
function result(outcome, events) {
  return {
    outcome,
    get events() {
      return own(this, JSON.parse(events));
    },
    set events(value) {
      own(this, value);
    },
  };
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
    /// What a call returned as JSON text when it is plainly an output (its copy kept in the
    /// call), else `None`.
    /// `Some("")` for a short output when `text_read` is false: one whose text the core does
    /// not read (a long one is handed over still, for the parser's depth check).
    pub(super) fn tool_output(c: &JsValue, v: &JsValue, text_read: bool) -> Option<String>;
    /// `results[tool]` = the copy [`tool_output`] kept, for the call's tool.
    pub(super) fn call_keep(c: &JsValue, results: &JsValue);
    /// `[tools, escalate, onEvent, timeoutMs, escalateTimeoutMs, deadlineMs, clock, sleep,
    /// given]` when the options are plain (known keys, no getter that throws), else
    /// `undefined`; bit `i` of `given` says the option at `i` is not nullish.
    pub(super) fn run_options(o: &JsValue) -> JsValue;
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
    /// What a run resolves with, from the JSON texts of its outcome and its events: the events
    /// (most of the text) are parsed when first read, a data property from then on.
    fn run_result(outcome: &str, events: &str) -> JsValue;
    /// [`run_result`] for the common outcome, from its fields (only the path as JSON text, the
    /// goals as indices into the ids of `ids`, [`crate::route::RouteJs`]'s state).
    #[allow(clippy::too_many_arguments)]
    fn run_result_plain(
        status: u32,
        ids: &JsValue,
        goal: u32,
        original_goal: u32,
        path: &str,
        cost: f64,
        tool_calls: u32,
        llm_calls: u32,
        reroutes: u32,
        retries: u32,
        failures: u32,
        revisits: u32,
        events: &str,
    ) -> JsValue;
    /// Aborts the call's signal (now, or when a tool reads it) with an `Error` named `name`.
    pub(super) fn call_abort(c: &JsValue, name: &str, message: &str);
}

/// What a run resolves with: its outcome and its events' JSON text, parsed when first read. An
/// outcome with no abandoned work, sunk cost or message and a finite cost (most) is built from
/// its fields, not parsed from JSON text; the object is the same (`outcome_to_json_camel`'s keys,
/// in its order).
pub(super) fn run_result_of(o: &Outcome, events: &str, graph: Option<&ToolGraph>, ids: &JsValue) -> JsValue {
    let Outcome {
        status,
        goal,
        original_goal,
        path,
        cost,
        abandoned,
        sunk_cost,
        tool_calls,
        llm_calls,
        reroutes,
        retries,
        failures,
        revisits,
        message,
    } = o;
    let goals = graph.and_then(|g| g.index(goal).zip(g.index(original_goal)));
    let Some((goal, original_goal)) =
        goals.filter(|_| abandoned.is_empty() && *sunk_cost == 0.0 && message.is_none() && cost.is_finite())
    else {
        return run_result(&outcome_to_json_camel(o), events);
    };
    // An index into the JS half's `STATUS`: serde's `rename_all = "snake_case"` names.
    let status = match status {
        Status::Completed => 0,
        Status::Demoted => 1,
        Status::Escalated => 2,
    };
    run_result_plain(
        status,
        ids,
        goal as u32,
        original_goal as u32,
        &strings_to_json(path),
        *cost,
        *tool_calls,
        *llm_calls,
        *reroutes,
        *retries,
        *failures,
        *revisits,
        events,
    )
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

/// Waits for a call ([`call_tool`] or [`call_late`] armed its timer): `Ok(value)` when it
/// returned, `Err(e)` when it threw, `Ok(call)` when the wait's time is up.
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
    type Output = Result<JsValue, JsValue>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match call_poll(&self.call, self.slot) {
            1 => Poll::Ready(Ok(call_value(&self.call))),
            2 => Poll::Ready(Err(call_value(&self.call))),
            3 => Poll::Ready(Ok(self.call.clone())),
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
