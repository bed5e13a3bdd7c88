//! The JS half of a tool call (issue 48: a run's CPU is mostly its crossings of the boundary).
//! One crossing starts a call: the tool's input is built in JS, its `signal` is a getter that
//! makes the call's `AbortController` only when a tool reads it (most never do; one read after
//! the call was aborted gets a signal aborted with the same reason), and the call's timeout
//! timer is armed only when the tool has not settled within the microtask turn it was called in
//! (an async tool that returns at once costs no timer). What the driver awaits is one promise
//! per wait: it resolves with the tool's value, rejects with what it threw, or resolves with the
//! call object itself when the wait's time is up (no tool can return that object).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const OPTIONS = new Set(['tools', 'escalate', 'onEvent', 'timeoutMs', 'escalateTimeoutMs', 'deadlineMs', 'clock', 'sleep']);
class ToolCall {
  constructor() {
    this.controller = null;
    this.reason = null;
    this.timer = null;
    this.state = 0; // 0 running, 1 returned, 2 threw
    this.value = undefined;
    this.resolve = null;
    this.reject = null;
    this.cleared = false;
    this.copy = undefined;
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
function settled(c, state, value) {
  if (c.state !== 0) return;
  c.state = state;
  c.value = value;
  if (c.timer !== null) {
    clearTimeout(c.timer);
    c.timer = null;
  }
  const done = state === 1 ? c.resolve : c.reject;
  c.resolve = c.reject = null;
  if (done !== null) done(value);
}
function expire(c) {
  c.timer = null;
  const done = c.resolve;
  c.resolve = c.reject = null;
  if (done !== null) done(c);
}
function arm(c, ms) {
  if (c.resolve !== null && c.timer === null && !c.cleared) c.timer = setTimeout(expire, ms, c);
}
function wait(c, ms, now) {
  return new Promise((resolve, reject) => {
    if (c.state === 1) return resolve(c.value);
    if (c.state === 2) return reject(c.value);
    c.resolve = resolve;
    c.reject = reject;
    if (now) arm(c, ms);
    else queueMicrotask(() => arm(c, ms));
  });
}
export function call_tool(tools, tool, attempt, callId, context, results) {
  // Only the host's own properties are tools. A throwing check is thrown (the run rejects); a
  // throwing read is returned in an array, and no function is `undefined` (the call's failure).
  const own = Object.hasOwn(tools, tool);
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
  return c;
}
export function tool_output(c, v) {
  // A value that is plainly no structured failure, as JSON text; its copy (what later tools
  // get) kept for call_keep. Anything else (`success: false`, a throwing getter, no JSON) is
  // `undefined`: the Rust side reads it and says what is wrong.
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
  return text;
}
export function call_keep(c, results, tool) {
  results[tool] = c.copy;
}
export function run_options(o) {
  // The options in one crossing when they are plain: own string keys all known, no getter
  // throws. Anything else is `undefined`, and the Rust side reads them one by one and words
  // the error.
  if (typeof o !== 'object' || o === null) return undefined;
  try {
    for (const k of Reflect.ownKeys(o)) if (typeof k === 'string' && !OPTIONS.has(k)) return undefined;
    return [o.tools, o.escalate, o.onEvent, o.timeoutMs, o.escalateTimeoutMs, o.deadlineMs, o.clock, o.sleep];
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
export function given_result(p) {
  const c = new ToolCall();
  p.then((v) => settled(c, 1, v), (e) => settled(c, 2, e));
  return c;
}
export function call_wait(c, ms) {
  return wait(c, ms, false);
}
export function call_late(c, ms) {
  return wait(c, ms, true);
}
export function call_clear(c) {
  c.cleared = true;
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
  return {
    outcome: JSON.parse(outcome),
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
    /// Calls `tools[tool]` with the call's input; the returned handle is what the other
    /// functions take. `undefined` when `tools` has no own function `tool`, `[e]` when reading
    /// it threw `e`; `Err` when checking for it threw.
    #[wasm_bindgen(catch)]
    pub(super) fn call_tool(
        tools: &JsValue,
        tool: &str,
        attempt: u32,
        call_id: &str,
        context: &JsValue,
        results: &JsValue,
    ) -> Result<JsValue, JsValue>;
    /// What a call returned as JSON text when it is plainly an output (its copy kept in the
    /// call), else `None`.
    pub(super) fn tool_output(c: &JsValue, v: &JsValue) -> Option<String>;
    /// `results[tool]` = the copy [`tool_output`] kept.
    pub(super) fn call_keep(c: &JsValue, results: &JsValue, tool: &str);
    /// `[tools, escalate, onEvent, timeoutMs, escalateTimeoutMs, deadlineMs, clock, sleep]`
    /// when the options are plain (known keys, no getter that throws), else `undefined`.
    pub(super) fn run_options(o: &JsValue) -> JsValue;
    /// `crypto.randomUUID()`, or `None` where there is none.
    pub(super) fn random_uuid() -> Option<String>;
    /// A call that did not reach a tool: its result is the promise given.
    pub(super) fn given_result(p: &Promise) -> JsValue;
    /// The call's result, or the call itself once `ms` passed (the timer armed only when the
    /// call has not settled within this microtask turn).
    pub(super) fn call_wait(c: &JsValue, ms: f64) -> Promise;
    /// The same with the timer armed at once (a side effect's late result against the grace).
    pub(super) fn call_late(c: &JsValue, ms: f64) -> Promise;
    /// Clears the call's timer, and arms none after.
    pub(super) fn call_clear(c: &JsValue);
    /// What a run resolves with, from the JSON texts of its outcome and its events: the events
    /// (most of the text) are parsed when first read, a data property from then on.
    pub(super) fn run_result(outcome: &str, events: &str) -> JsValue;
    /// Aborts the call's signal (now, or when a tool reads it) with an `Error` named `name`.
    pub(super) fn call_abort(c: &JsValue, name: &str, message: &str);
}
