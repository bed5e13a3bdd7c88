// The driver's JS half: the run's executor (task.rs), its tool calls (js.rs), its options
// (options.rs) and its result (result.rs). One module, not an inline snippet per Rust file: a
// page fetches its snippets at once, and with five the headless browser tests hung for minutes
// now and then (wasm-bindgen-test-runner's server, tiny_http 0.12, can leave a connection
// unread when more open together than it has idle threads). One module also has one `Stamp`.
// Only `export function` is exported: scripts/build-wasm-pkg makes this file CommonJS for Node.

// Adds a private field to an object made elsewhere (a base constructor may return any object):
// what it holds is invisible to the object's users (no key, no symbol, the prototype unchanged).
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
  static drop(o) {
    o.#held = null;
  }
}

// The executor (task.rs).
const RESOLVED = Promise.resolve();
let poll = null;
let threw = null;
const resolves = [];
const rejects = [];
export function set_poll(p, t) {
  poll = p;
  threw = t;
}
function pollJob() {
  try {
    poll();
  } catch (e) {
    threw(e);
  }
}
export function queue_poll() {
  RESOLVED.then(pollJob);
}
export function job_promise(slot) {
  return new Promise((resolve, reject) => {
    resolves[slot] = resolve;
    rejects[slot] = reject;
  });
}
export function job_settle(slot, ok, value) {
  const settle = ok ? resolves[slot] : rejects[slot];
  resolves[slot] = undefined;
  rejects[slot] = undefined;
  settle(value);
}

// Tool calls (js.rs).
let notify = null;
// The accessor a literal's `get signal()` would make, made once.
const SIGNAL = Object.getOwnPropertyDescriptor({
  get signal() {
    const c = Stamp.held(this);
    return c instanceof ToolCall ? c.signal() : undefined;
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
// `o[key] = value` as an object literal's key would be: defined when `key` is one `o` inherits
// (a tool named `__proto__`; a setter or a read-only value on a polluted Object.prototype),
// which an assignment would hand to what is inherited.
export function set_own(o, key, value) {
  if (key in Object.prototype) defineOwn(o, key, value);
  else o[key] = value;
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
  set_own(input, 'context', context);
  set_own(input, 'results', { ...results });
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
  set_own(results, c.tool, c.copy);
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

// Run options (options.rs).
const OPTIONS = new Set(['tools', 'escalate', 'onEvent', 'timeoutMs', 'escalateTimeoutMs', 'deadlineMs', 'clock', 'sleep']);
// The last options read, by position, until the Rust side takes them (`run_option`).
const read = [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined];
export function run_options(o) {
  // The options read once when they are plain: own string keys all known, no getter throws,
  // `tools` an object. Then bit `i` of the answer says the option at `i` is not nullish, and
  // `run_option(i)` gives it. Anything else is -1, and the Rust side reads them one by one and
  // words the error. (`read` is empty here: Rust takes every option given.)
  if (typeof o !== 'object' || o === null) return -1;
  try {
    const keys = Reflect.ownKeys(o);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (typeof k === 'string' && !OPTIONS.has(k)) return -1;
    }
    read[0] = o.tools;
    read[1] = o.escalate;
    read[2] = o.onEvent;
    read[3] = o.timeoutMs;
    read[4] = o.escalateTimeoutMs;
    read[5] = o.deadlineMs;
    read[6] = o.clock;
    read[7] = o.sleep;
  } catch (_) {
    read.fill(undefined);
    return -1;
  }
  if (typeof read[0] !== 'object' || read[0] === null) {
    read.fill(undefined);
    return -1;
  }
  let given = 0;
  for (let i = 0; i < 8; i++) if (read[i] !== undefined && read[i] !== null) given |= 1 << i;
  return given;
}
export function run_option(i) {
  const v = read[i];
  read[i] = undefined;
  return v;
}

// The run's result (result.rs).
// The accessors a literal's `get events()`/`set events()` would make, made once; the first
// read (or a write) makes `events` a data property and lets the text go.
const EVENTS = Object.getOwnPropertyDescriptor({
  get events() {
    const text = Stamp.held(this);
    if (typeof text !== 'string') return undefined;
    Stamp.drop(this);
    return own(this, JSON.parse(text));
  },
  set events(value) {
    if (typeof Stamp.held(this) === 'string') Stamp.drop(this);
    own(this, value);
  },
}, 'events');
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
  const r = { outcome };
  Object.defineProperty(r, 'events', EVENTS);
  new Stamp(r, events);
  return r;
}
