//! shr-wasm: the Self-Healing Router for JavaScript hosts (browser and Node).
//!
//! A thin wasm-bindgen layer over `shr-core`: it translates JS values to core types and back,
//! reads the host's clock and calls the host's tools, and never decides anything itself. Every
//! routing, health and escalation decision is the core's.
//!
//! - [`Router`]: the core's `Router` (a validated tool graph with one live health, shared by
//!   every run and session). `route`, `markDown`, `markUp`,
//!   `record`, `health`, `metrics`, and `run(task, {tools, escalate, onEvent, timeoutMs,
//!   escalateTimeoutMs, deadlineMs, clock, sleep})`, which drives a core run with async JS tool
//!   functions (see [`driver`]). `route` has a JS
//!   half, put on `Router.prototype` by the first router built, so that a route crosses the
//!   boundary once with numbers only.
//! - [`Session`]: a run of the core's sans-IO session on a router (`next`, `report`,
//!   `resolveEscalation`, `pollEvents`), for hosts that drive it themselves.
//!
//! Errors reaching JS are `Error`s named `ShrError` with a stable `code` (see [`error`]). Keys
//! are camelCase in JS both ways, mapped in [`convert`] and nowhere else.
#![forbid(unsafe_code)]

pub mod convert;
pub mod driver;
pub mod error;
mod fleet;
mod types;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use serde::Serialize;
use shr_core::algo::Plan;
use shr_core::health::{BreakerState, Factors};
use shr_core::{Monitors, NodeIx, Observation, SessionConfig, Task, ToolGraph, ToolResult};
use wasm_bindgen::prelude::*;

use convert::{from_js_camel, get, is_nullish, millis, number_arg, only_keys, opt_fn, to_js, to_js_as_is};
use error::ShrError;

/// What a router holds: the core router (graph, one live health, limits), the host's clock and
/// the JS side of `route`.
pub(crate) struct Inner {
    pub router: shr_core::Router,
    pub clock: Option<Function>,
    /// `route` sits on every request of an agent: its plan's indices and the JS strings of node
    /// ids are kept between calls so a route allocates nothing new.
    pub routing: Routing,
}

/// Reused state of `route` on the JS side.
#[derive(Default)]
pub(crate) struct Routing {
    /// The plan as node indices, then `from, to` per edge: read by [`route_object`] in place.
    out: Vec<u32>,
    /// Where `out` sits (its word address), its node count and length: a fixed place the JS
    /// half reads after each route, since `out` moves when it grows.
    header: Box<[u32; 3]>,
    /// The JS half of routing, made on the first route.
    js: Option<RouteJs>,
    /// Why the last `__routeIx` returned [`ROUTE_ERROR`], for the JS half to throw.
    error: Option<ShrError>,
}

/// `__routeIx`'s answer when no healthy route exists.
const NO_ROUTE: f64 = -1.0;
/// `__routeIx`'s answer when it failed; `__routeError` says why.
const ROUTE_ERROR: f64 = -2.0;
/// `node_index`'s answer for a nullish id: the graph's own start (or goal).
const DEFAULT_NODE: i32 = -2;

/// What `route` keeps on the JS side: node ids cross the boundary once, not on every call.
struct RouteJs {
    /// `{ids, index, header}`: every node id as a JS string in index order, a `Map` from id to
    /// index, and the word address of [`Routing::header`].
    state: JsValue,
}

// `route` is called on every request of an agent, and on a small graph the boundary costs more
// than the search. So the JS half does all it can: `Router.prototype.route` is replaced (once, by
// `install_route`) with a function that looks the ids up in a JS `Map`, makes one call with
// numbers only (`__routeIx`: no strings, no `Result`, which wasm-bindgen returns through the
// externref table and an array) and builds the result from the plan's indices, read in place
// through a view of memory. Anything unusual (an unknown id, a `now` that is not a number) goes
// to the Rust `route`, which words the error; an error found in Rust (the clock) is kept for
// `__routeError`.
#[wasm_bindgen(inline_js = r#"
const STATE = Symbol('shr.route');
let memory = null;
let view = null;
function words() {
  // Growing memory detaches the old buffer, and a view of a detached buffer has length 0.
  if (view === null || view.length === 0) view = new Uint32Array(memory.buffer);
  return view;
}
export function route_state(ids, header, mem) {
  memory = mem;
  return { ids, index: new Map(ids.map((id, i) => [id, i])), header };
}
export function node_index(state, id) {
  // -2: nullish (the graph's own), -1: not a node id.
  return id === undefined || id === null ? -2 : (state.index.get(id) ?? -1);
}
export function route_object(state, cost) {
  const v = words(), h = state.header, ids = state.ids;
  const at = v[h], nodes = v[h + 1], end = at + v[h + 2];
  const path = new Array(nodes);
  for (let i = 0; i < nodes; i++) path[i] = ids[v[at + i]];
  const edges = new Array((end - at - nodes) >> 1);
  for (let j = 0, k = at + nodes; k < end; j++, k += 2) edges[j] = [ids[v[k]], ids[v[k + 1]]];
  return { path, edges, cost };
}
// The default clock: milliseconds since the epoch that never step back (the time origin plus a
// monotonic clock), so a wall clock set back an hour moves no cooldown, window or backoff.
const ORIGIN = typeof performance === 'object' && performance !== null && typeof performance.now === 'function'
  ? (typeof performance.timeOrigin === 'number' ? performance.timeOrigin : Date.now() - performance.now())
  : null;
export function monotonic_now() {
  return ORIGIN === null ? Date.now() : ORIGIN + performance.now();
}
function freed(name) {
  const e = new Error(`${name}: this object was freed (free() was called before)`);
  e.name = 'ShrError';
  e.code = "freed";
  return e;
}
// A freed object has pointer 0; wasm-bindgen would throw an Error without a code for it (and
// for a second free()).
function guard(proto) {
  const free = proto.free;
  const once = function free_() {
    if (this.__wbg_ptr !== 0) free.call(this);
  };
  Object.defineProperty(proto, 'free', { ...Object.getOwnPropertyDescriptor(proto, 'free'), value: once });
  if (typeof Symbol.dispose === 'symbol' && proto[Symbol.dispose] === free) proto[Symbol.dispose] = once;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor' || name === 'free' || name === 'route' || name.startsWith('__')) continue;
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (typeof d.value === 'function') {
      const f = d.value;
      Object.defineProperty(proto, name, { ...d, value: function (...args) {
        if (this.__wbg_ptr === 0) throw freed(name);
        return f.apply(this, args);
      } });
    } else if (d.get) {
      const g = d.get;
      Object.defineProperty(proto, name, { ...d, get() {
        if (this.__wbg_ptr === 0) throw freed(name);
        return g.call(this);
      } });
    }
  }
}
export function install_route(witness) {
  const proto = Object.getPrototypeOf(witness);
  const checked = proto.route;
  guard(proto);
  const session = witness.session(null, 0);
  guard(Object.getPrototypeOf(session));
  session.free();
  proto.route = function route(start, goal, now) {
    if (this.__wbg_ptr === 0) throw freed('route');
    let state = this[STATE];
    if (state === undefined) {
      state = this.__routeState();
      Object.defineProperty(this, STATE, { value: state });
    }
    const from = node_index(state, start);
    const to = node_index(state, goal);
    const clock = now === undefined || now === null;
    if (from === -1 || to === -1 || !(clock || typeof now === 'number')) {
      return checked.call(this, start, goal, now);
    }
    const cost = this.__routeIx(from, to, !clock, clock ? 0 : now);
    if (cost >= 0) return route_object(state, cost);
    if (cost === -1) return null;
    throw this.__routeError();
  };
  witness.free();
}
"#)]
extern "C" {
    fn route_state(ids: &JsValue, header: u32, memory: &JsValue) -> JsValue;
    fn node_index(state: &JsValue, id: &JsValue) -> i32;
    fn route_object(state: &JsValue, cost: f64) -> JsValue;
    fn install_route(witness: JsValue);
    fn monotonic_now() -> f64;
}

thread_local! {
    static ROUTE_INSTALLED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Puts the JS half of `route` on `Router.prototype`, once. The prototype is reachable only
/// through an instance, so a router on a one-node graph is made to show it, then freed.
fn install_fast_route() {
    if ROUTE_INSTALLED.with(|done| done.replace(true)) {
        return;
    }
    let Ok(graph) =
        ToolGraph::from_json(r#"{"start":"s","goal":"s","nodes":[{"id":"s","tool":false}],"edges":[]}"#)
    else {
        // Then `route` stays the Rust one: slower, never wrong.
        return;
    };
    install_route(Router::with_graph(shr_core::Router::new(graph), None).into());
}

/// The node a `node_index` answer picks: `default` for [`DEFAULT_NODE`], else the index when it
/// is one of the graph's `count` nodes.
fn picked_node(ix: i32, default: NodeIx, count: usize) -> Option<NodeIx> {
    if ix == DEFAULT_NODE {
        return Some(default);
    }
    usize::try_from(ix).ok().filter(|&v| v < count)
}

impl RouteJs {
    /// The index of the node `id` names (`default` when nullish), or `unknown_node` naming it.
    fn node(&self, id: &JsValue, default: NodeIx, count: usize, field: &str) -> Result<NodeIx, ShrError> {
        // One crossing per id: JS tells nullish (DEFAULT_NODE) from unknown (-1).
        if let Some(v) = picked_node(node_index(&self.state, id), default, count) {
            return Ok(v);
        }
        Err(match id.as_string() {
            Some(name) => ShrError::new("unknown_node", format!("{field}: unknown node `{name}`"))
                .with("node", JsValue::from_str(&name)),
            None => ShrError::new("unknown_node", format!("{field} must be a node id (a string)"))
                .with("node", id.clone()),
        })
    }

    /// The JS half kept in `routing`, made on first use.
    fn cached<'a>(routing: &'a mut Routing, graph: &ToolGraph) -> Result<&'a RouteJs, ShrError> {
        let js = match routing.js.take() {
            Some(js) => js,
            // One JSON text parsed by the engine: far cheaper than a string per id across the
            // boundary on a large graph.
            None => {
                let ids: Vec<&str> = graph.nodes().iter().map(|n| n.id.as_str()).collect();
                let text =
                    serde_json::to_string(&ids).map_err(|e| ShrError::new("internal", e.to_string()))?;
                let ids = js_sys::JSON::parse(&text)
                    .map_err(|_| ShrError::new("internal", "node ids are not JSON"))?;
                // wasm32 addresses are u32; the JS half reads the header as u32 words.
                let header = (routing.header.as_ptr() as usize / core::mem::size_of::<u32>()) as u32;
                RouteJs { state: route_state(&ids, header, &wasm_bindgen::memory()) }
            }
        };
        Ok(routing.js.insert(js))
    }
}

impl Routing {
    /// Writes `plan` into `out` and `header` for the JS half to read; returns its cost.
    fn publish(&mut self, graph: &ToolGraph, plan: &Plan) -> f64 {
        self.out.clear();
        self.out.extend(plan.nodes.iter().map(|&v| v as u32));
        for &e in &plan.edges {
            let edge = graph.edge(e);
            self.out.extend([edge.from as u32, edge.to as u32]);
        }
        let at = self.out.as_ptr() as usize / core::mem::size_of::<u32>();
        *self.header = [at as u32, plan.nodes.len() as u32, self.out.len() as u32];
        plan.cost
    }
}

/// A tool graph with live health. Cheap to keep for the life of an agent.
#[wasm_bindgen]
pub struct Router {
    inner: Rc<RefCell<Inner>>,
}

/// A tool's health as JS sees it.
#[derive(Serialize)]
struct ToolHealthView<'a> {
    tool: &'a str,
    state: BreakerState,
    /// `null` when infinite.
    weight: f64,
    factors: Factors,
}

/// Reads the clock: the host's function, or a monotonic clock on the epoch's scale
/// (`performance.timeOrigin + performance.now()`; `Date.now()` where there is no `performance`).
pub(crate) fn read_clock(clock: Option<&Function>) -> Result<u64, ShrError> {
    let Some(f) = clock else {
        return millis(monotonic_now(), "the default clock");
    };
    let v = f
        .call0(&JsValue::UNDEFINED)
        .map_err(|e| ShrError::new("bad_clock", format!("clock() threw: {}", error::message_of(&e))))?;
    match v.as_f64() {
        Some(x) => millis(x, "clock()"),
        None => Err(ShrError::new("bad_clock", "clock() must return a number of milliseconds")),
    }
}

impl Router {
    fn build(graph: &JsValue, options: &JsValue) -> Result<Router, ShrError> {
        let text = convert::graph_text(graph)?;
        let graph = ToolGraph::from_json(&text).map_err(|e| ShrError::graph(&e))?;
        let origin = fleet::origin_option(options)?;
        let (config, clock) = if is_nullish(options) {
            (SessionConfig::default(), None)
        } else {
            if !options.is_object() {
                return Err(ShrError::new("bad_options", "options must be an object"));
            }
            only_keys(options, &["config", "clock", "origin"], "bad_options", "options")?;
            let c = get(options, "config", "bad_options", "options")?;
            let config = if is_nullish(&c) {
                SessionConfig::default()
            } else {
                from_js_camel::<SessionConfig>(&c, "options.config", "bad_options", &[])?
            };
            (config, opt_fn(options, "clock", "bad_options", "options")?)
        };
        let mut router = shr_core::Router::with_parts(graph, config, Monitors::default()).map_err(|e| {
            let field: Vec<String> = e.field.split('.').map(convert::camel).collect();
            ShrError::new("bad_options", format!("options.config.{} {}", field.join("."), e.message))
        })?;
        if let Some(origin) = origin {
            router.set_origin(&origin);
        }
        install_fast_route();
        Ok(Router::with_graph(router, clock))
    }

    fn with_graph(router: shr_core::Router, clock: Option<Function>) -> Router {
        let inner = Inner { router, clock, routing: Routing::default() };
        Router { inner: Rc::new(RefCell::new(inner)) }
    }

    fn now(&self, at: Option<f64>) -> Result<u64, ShrError> {
        match at {
            Some(x) => millis(x, "now"),
            None => {
                let clock = self.inner.borrow().clock.clone();
                read_clock(clock.as_ref())
            }
        }
    }

    /// The index of a tool node, or `unknown_tool` naming it.
    fn tool(&self, id: &str) -> Result<NodeIx, ShrError> {
        let inner = self.inner.borrow();
        let graph = inner.router.graph();
        let unknown = || {
            ShrError::new("unknown_tool", format!("unknown tool `{id}`")).with("tool", JsValue::from_str(id))
        };
        let v = graph.index(id).ok_or_else(unknown)?;
        if !graph.node(v).tool {
            return Err(ShrError::new("unknown_tool", format!("`{id}` is a waypoint, not a tool"))
                .with("tool", JsValue::from_str(id)));
        }
        Ok(v)
    }

    /// Both halves of `route`: reads the clock, then routes between the nodes `ends` picks
    /// (breakers brought up to date by the core), into `routing.out`. The route's cost, or
    /// `None` when none is healthy.
    fn route_between(
        &self,
        now: Option<f64>,
        ends: impl FnOnce(&ToolGraph, &mut Routing) -> Result<(NodeIx, NodeIx), ShrError>,
    ) -> Result<Option<f64>, ShrError> {
        let now = self.now(now)?;
        let mut inner = self.inner.borrow_mut();
        let Inner { router, routing, .. } = &mut *inner;
        let (from, to) = ends(router.graph(), routing)?;
        if router.route(from, to, now).is_none() {
            return Ok(None);
        }
        Ok(Some(routing.publish(router.graph(), router.last_route())))
    }

    fn health_view(&self, v: NodeIx, now: u64) -> Result<JsValue, ShrError> {
        let mut inner = self.inner.borrow_mut();
        inner.router.advance(now);
        let health = inner.router.health();
        to_js(&ToolHealthView {
            tool: inner.router.graph().id(v),
            state: health.state(v),
            weight: health.weight(v, now),
            factors: health.factors(v, now),
        })
    }

    pub(crate) fn shared(&self) -> Rc<RefCell<Inner>> {
        self.inner.clone()
    }
}

#[wasm_bindgen]
impl Router {
    /// Builds a router from a graph description (an object or JSON text). Throws `invalid_graph`
    /// with `problems` (every problem found, each naming the offending id).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "GraphSpec | string")] graph: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RouterOptions")] options: JsValue,
    ) -> Result<Router, JsValue> {
        Ok(Router::build(&graph, &options)?)
    }

    /// Same as `new Router(graph, options)`.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "GraphSpec | string")] graph: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RouterOptions")] options: JsValue,
    ) -> Result<Router, JsValue> {
        Ok(Router::build(&graph, &options)?)
    }

    /// Warnings found by validation (the graph was accepted), e.g. an unreachable goal.
    #[wasm_bindgen(getter, unchecked_return_type = "Problem[]")]
    pub fn warnings(&self) -> Result<JsValue, JsValue> {
        Ok(to_js(self.inner.borrow().router.graph().warnings())?)
    }

    /// The graph description (for export and round trips).
    #[wasm_bindgen(js_name = toJson, unchecked_return_type = "GraphSpec")]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        Ok(to_js_as_is(self.inner.borrow().router.graph().spec())?)
    }

    /// Ids of the nodes that are tools (the functions a run may call), in description order.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn tools(&self) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let ids: Vec<&str> =
            inner.router.graph().nodes().iter().filter(|n| n.tool).map(|n| n.id.as_str()).collect();
        Ok(to_js(&ids)?)
    }

    /// The cheapest route over live weights (`edge.cost x weight(target)`), from `start` to
    /// `goal` (the graph's own when omitted); `null` when no healthy route exists. With quorum
    /// joins the route is a tree: `path` lists its nodes, `edges` its edges.
    #[wasm_bindgen(unchecked_return_type = "Route | null")]
    pub fn route(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] start: &JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] goal: &JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = number_arg(now, "now", "bad_clock")?;
        let mut state = JsValue::NULL;
        let cost = self.route_between(now, |graph, routing| {
            let js = RouteJs::cached(routing, graph)?;
            state = js.state.clone();
            let n = graph.node_count();
            Ok((js.node(start, graph.start(), n, "start")?, js.node(goal, graph.goal(), n, "goal")?))
        })?;
        Ok(cost.map_or(JsValue::NULL, |cost| route_object(&state, cost)))
    }

    /// The JS half of `route` (see `install_route`): node indices as `node_index` gives them
    /// (-2: the graph's own) and the clock value when `has_now`; the route's cost, -1 when none
    /// is healthy, -2 on an error.
    #[wasm_bindgen(js_name = __routeIx, skip_typescript)]
    pub fn route_ix(&self, from: i32, to: i32, has_now: bool, now: f64) -> f64 {
        let routed = self.route_between(has_now.then_some(now), |graph, _| {
            // The JS half passes indices it looked up; anything else is a caller of the hidden
            // export.
            let node = |ix: i32, default: NodeIx| {
                picked_node(ix, default, graph.node_count())
                    .ok_or_else(|| ShrError::new("unknown_node", format!("no node has index {ix}")))
            };
            Ok((node(from, graph.start())?, node(to, graph.goal())?))
        });
        match routed {
            Ok(Some(cost)) => cost,
            Ok(None) => NO_ROUTE,
            Err(e) => {
                self.inner.borrow_mut().routing.error = Some(e);
                ROUTE_ERROR
            }
        }
    }

    /// Why the last `__routeIx` returned -2.
    #[wasm_bindgen(js_name = __routeError, skip_typescript)]
    pub fn route_error(&self) -> JsValue {
        let error = self.inner.borrow_mut().routing.error.take();
        error.unwrap_or_else(|| ShrError::new("internal", "no route error to report")).into()
    }

    /// `{ids, index, header}` for the JS half of `route`.
    #[wasm_bindgen(js_name = __routeState, skip_typescript)]
    pub fn js_route_state(&self) -> Result<JsValue, JsValue> {
        let mut inner = self.inner.borrow_mut();
        let Inner { router, routing, .. } = &mut *inner;
        Ok(RouteJs::cached(routing, router.graph())?.state.clone())
    }

    /// Marks a tool down: its breaker opens at once (infinite weight) until the cooldown lets a
    /// probe through or `markUp` is called. Returns the tool's health.
    #[wasm_bindgen(js_name = markDown, unchecked_return_type = "ToolHealth")]
    pub fn mark_down(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = self.tool(&tool_id(&tool)?)?;
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        self.inner.borrow_mut().router.mark_down(v, now);
        Ok(self.health_view(v, now)?)
    }

    /// Marks a tool up: its breaker closes; its weight comes back to normal over a few
    /// successes. Returns the tool's health.
    #[wasm_bindgen(js_name = markUp, unchecked_return_type = "ToolHealth")]
    pub fn mark_up(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = self.tool(&tool_id(&tool)?)?;
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        self.inner.borrow_mut().router.mark_up(v, now);
        Ok(self.health_view(v, now)?)
    }

    /// Records an outcome the host observed outside a run: `{ok: true, latencyMs}` feeds the
    /// rolling latency and the breaker; `{ok: false}` counts a failure toward the breaker's
    /// thresholds; `{ok: false, hard: true}` opens it at once. `at` is the clock value (the
    /// router's clock when omitted). Returns the tool's health.
    #[wasm_bindgen(unchecked_return_type = "ToolHealth")]
    pub fn record(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RecordOutcome")] outcome: JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = self.tool(&tool_id(&tool)?)?;
        let rec: RecordOutcome = from_js_camel(&outcome, "outcome", "bad_record", &[])?;
        if rec.latency_ms.is_some_and(|l| !(l.is_finite() && l >= 0.0)) {
            return Err(ShrError::new("bad_record", "outcome.latencyMs must be a finite number >= 0").into());
        }
        let now = self.now(rec.at)?;
        let observed = match (rec.ok, rec.hard) {
            (true, _) => Observation::Success { latency_ms: rec.latency_ms.unwrap_or(0.0) },
            (false, true) => Observation::Outage,
            (false, false) => Observation::Failure,
        };
        self.inner.borrow_mut().router.record(v, observed, now);
        Ok(self.health_view(v, now)?)
    }

    /// A tool's health now: breaker state, composite weight (`null` = infinite) and its factors.
    #[wasm_bindgen(unchecked_return_type = "ToolHealth")]
    pub fn health(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = self.tool(&tool_id(&tool)?)?;
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        Ok(self.health_view(v, now)?)
    }

    /// The router's counters (calls, failures, retries, sheds per tool; reroutes, escalations,
    /// runs) and gauges (breaker state, calls in flight, live weight) in the Prometheus text
    /// exposition format, for a `/metrics` endpoint.
    pub fn metrics(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<String, JsValue> {
        let now = self.now(number_arg(now, "now", "bad_clock")?)?;
        Ok(self.inner.borrow_mut().router.metrics(now))
    }

    /// A low-level session: a run of a task on this router, driven by the host with `next`,
    /// `report` and `resolveEscalation`. It shares the router's one live health with every
    /// other session and run of the router: what it reports, they route on at once.
    pub fn session(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Task | null")] task: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: JsValue,
    ) -> Result<Session, JsValue> {
        let task = parse_task(&task)?;
        let now = self.now(number_arg(&now, "now", "bad_clock")?)?;
        let run = self.inner.borrow_mut().router.start(task, now).map_err(task_error)?;
        Ok(Session { router: self.shared(), run })
    }

    /// Runs a task to the end with JS tool functions. See `RunOptions` in the TypeScript
    /// definitions. Resolves with `{outcome, events}`; rejects with a `ShrError` (with `events`
    /// so far) only when the host breaks the contract (bad task, options or decision).
    /// Every run of a router routes on its one live health: an outcome one run reports (or a
    /// `markDown`/`markUp`/`record`) changes the route of every other run at its next decision.
    #[wasm_bindgen(unchecked_return_type = "Promise<RunResult>")]
    pub fn run(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Task | null | undefined")] task: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RunOptions")] options: JsValue,
    ) -> js_sys::Promise {
        driver::run(self.shared(), task, options)
    }
}

/// `record`'s outcome (`{ok, latencyMs?, hard?, at?}` in JS, mapped by `from_js_camel`).
#[derive(serde::Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RecordOutcome {
    ok: bool,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default)]
    hard: bool,
    #[serde(default)]
    at: Option<f64>,
}

/// A `now` a session method needs: a number of milliseconds, else `bad_clock`.
fn required_now(now: &JsValue) -> Result<u64, ShrError> {
    match number_arg(now, "now", "bad_clock")? {
        Some(x) => millis(x, "now"),
        None => Err(ShrError::new("bad_clock", "now must be a number of milliseconds, not nullish")),
    }
}

/// A tool id from JS. wasm-bindgen would read a non-string as string memory (and trap), so ids
/// cross as values and anything but a string is `unknown_tool` naming what it was.
fn tool_id(tool: &JsValue) -> Result<String, ShrError> {
    tool.as_string().ok_or_else(|| {
        ShrError::new(
            "unknown_tool",
            format!("a tool id must be a string, not {}", error::message_of(&tool.js_typeof())),
        )
        .with("tool", tool.clone())
    })
}

/// A task from JS: `undefined`/`null` is the graph's own start and goal.
pub(crate) fn parse_task(task: &JsValue) -> Result<Task, ShrError> {
    if is_nullish(task) {
        return Ok(Task::default());
    }
    if !task.is_object() || js_sys::Array::is_array(task) {
        return Err(ShrError::new("bad_task", "task must be an object {goal?, start?, context?}"));
    }
    from_js_camel(task, "task", "bad_task", &["context"])
}

/// A session could not be made from a task: the task names a node the graph does not have.
pub(crate) fn task_error(e: shr_core::SessionError) -> ShrError {
    match e {
        shr_core::SessionError::UnknownNode { id } => {
            ShrError::new("bad_task", format!("task names unknown node `{id}` (task.start or task.goal)"))
                .with("node", JsValue::from_str(&id))
        }
        other => ShrError::session(other),
    }
}

/// A run of the core's sans-IO session on a router, for hosts that drive it themselves.
#[wasm_bindgen]
pub struct Session {
    router: Rc<RefCell<Inner>>,
    run: shr_core::Run,
}

#[wasm_bindgen]
impl Session {
    /// What to do now: `{action: 'call_tools', calls}`, `{action: 'wait'}`,
    /// `{action: 'escalate', request}` or `{action: 'finished', outcome}`.
    #[wasm_bindgen(unchecked_return_type = "Action")]
    pub fn next(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let now = required_now(now)?;
        let action = self.router.borrow_mut().router.next(&mut self.run, now).map_err(ShrError::session)?;
        Ok(to_js(&action)?)
    }

    /// Reports a call's outcome in the core's form: `{result: 'ok', output, latencyMs}` or
    /// `{result: 'err', category, transient, message, agentAction}` (camelCase keys).
    pub fn report(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ToolResult")] result: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] now: &JsValue,
    ) -> Result<(), JsValue> {
        let tool = tool_id(&tool)?;
        let now = required_now(now)?;
        let result: ToolResult = from_js_camel(&result, "result", "bad_result", &["output"])?;
        let mut inner = self.router.borrow_mut();
        inner.router.report(&mut self.run, &tool, result, now).map_err(|e| ShrError::session(e).into_js())
    }

    /// Answers the pending escalation.
    #[wasm_bindgen(js_name = resolveEscalation)]
    pub fn resolve_escalation(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Decision")] decision: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] now: &JsValue,
    ) -> Result<(), JsValue> {
        let now = required_now(now)?;
        let decision = driver::parse_decision(&decision)?;
        let mut inner = self.router.borrow_mut();
        inner
            .router
            .resolve_escalation(&mut self.run, decision, now)
            .map_err(|e| ShrError::session(e).into_js())
    }

    /// Events not yet taken by `pollEvents`, from sequence number `since` on (all when omitted).
    #[wasm_bindgen(unchecked_return_type = "ShrEvent[]")]
    pub fn events(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] since: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let since = match number_arg(since, "since", "bad_options")? {
            None => 0,
            // A sequence number: `as` saturates, and no run has 2^32 events.
            Some(x) if x >= 0.0 => x as u32,
            Some(x) => {
                return Err(ShrError::new("bad_options", format!("since must be >= 0, got {x}")).into())
            }
        };
        Ok(to_js(self.run.events_since(since))?)
    }

    /// Takes the events not yet taken, oldest first: a host that takes them as it goes keeps
    /// none in the session's memory.
    #[wasm_bindgen(js_name = pollEvents, unchecked_return_type = "ShrEvent[]")]
    pub fn poll_events(&mut self) -> Result<JsValue, JsValue> {
        let events: Vec<shr_core::Event> = self.run.drain_events().collect();
        Ok(to_js(&events)?)
    }

    /// The outcome once finished, else `null`.
    #[wasm_bindgen(unchecked_return_type = "Outcome | null")]
    pub fn outcome(&self) -> Result<JsValue, JsValue> {
        match self.run.outcome() {
            Some(o) => Ok(to_js(o)?),
            None => Ok(JsValue::NULL),
        }
    }

    #[wasm_bindgen(getter, js_name = isFinished)]
    pub fn is_finished(&self) -> bool {
        self.run.is_finished()
    }

    /// The pending escalation, else `null`.
    #[wasm_bindgen(unchecked_return_type = "EscalationRequest | null")]
    pub fn escalation(&self) -> Result<JsValue, JsValue> {
        match self.run.escalation() {
            Some(r) => Ok(to_js(r)?),
            None => Ok(JsValue::NULL),
        }
    }
}

/// The crate's version, for hosts that log it.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
