//! The JS half of `route`, and the JS glue the bindings share (the default clock, the guard on
//! freed objects). `route` sits on every request of an agent, so a route crosses the boundary
//! once, with numbers only: see the comment on the inline JS below.

use shr_core::algo::Plan;
use shr_core::{NodeIx, ToolGraph};
use wasm_bindgen::prelude::*;

use crate::convert::number_arg;
use crate::error::ShrError;
use crate::{Inner, Router};

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
    pub(crate) error: Option<ShrError>,
}

/// `__routeIx`'s answer when no healthy route exists.
pub(crate) const NO_ROUTE: f64 = -1.0;
/// `__routeIx`'s answer when it failed; `__routeError` says why.
pub(crate) const ROUTE_ERROR: f64 = -2.0;
/// `node_index`'s answer for a nullish id: the graph's own start (or goal).
const DEFAULT_NODE: i32 = -2;

/// What `route` keeps on the JS side: node ids cross the boundary once, not on every call.
pub(crate) struct RouteJs {
    /// `{ids, index, header}`: every node id as a JS string in index order, a `Map` from id to
    /// index, and the word address of [`Routing::header`].
    pub(crate) state: JsValue,
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
    const state = stateOf(this);
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
  install_health(proto);
  witness.free();
}
function stateOf(router) {
  let state = router[STATE];
  if (state === undefined) {
    state = router.__routeState();
    Object.defineProperty(router, STATE, { value: state });
  }
  return state;
}
// markDown, markUp and record (what every fleet delta and probe result calls): the tool looked
// up in the route state's Map and one call with numbers only (`__healthIx`, NaN when refused);
// anything unusual goes to the checked method, which words the error.
// `{ok, latencyMs?, hard?, at?}` with nothing else and each of the right type, else null.
function plainOutcome(outcome) {
  if (typeof outcome !== 'object' || outcome === null || Array.isArray(outcome)) return null;
  for (const k in outcome) if (k !== 'ok' && k !== 'latencyMs' && k !== 'hard' && k !== 'at') return null;
  const { ok, latencyMs, hard, at } = outcome;
  const latencyOk = latencyMs === undefined || (typeof latencyMs === 'number' && latencyMs >= 0 && latencyMs < Infinity);
  if (typeof ok !== 'boolean' || !latencyOk || !(hard === undefined || typeof hard === 'boolean')
    || !(at === undefined || typeof at === 'number')) return null;
  return { ok, latencyMs, hard, at };
}
function install_health(proto) {
  const { markDown, markUp, record } = proto;
  const mark = (checked, op, name) => function (tool, now) {
    if (this.__wbg_ptr === 0) throw freed(name);
    const v = typeof tool === 'string' ? stateOf(this).index.get(tool) : undefined;
    const clock = now === undefined || now === null;
    if (v !== undefined && (clock || typeof now === 'number')) {
      const w = this.__healthIx(v, op, NaN, !clock, clock ? 0 : now);
      if (w === w) return w;
    }
    return checked.call(this, tool, now);
  };
  proto.markDown = mark(markDown, 0, 'markDown');
  proto.markUp = mark(markUp, 1, 'markUp');
  proto.record = function (tool, outcome) {
    if (this.__wbg_ptr === 0) throw freed('record');
    const v = typeof tool === 'string' ? stateOf(this).index.get(tool) : undefined;
    let fast = null;
    // A getter or proxy that throws: the checked method reads it and says so with a code.
    try {
      fast = v === undefined ? null : plainOutcome(outcome);
    } catch {
      fast = null;
    }
    if (fast !== null) {
      const { ok, latencyMs, hard, at } = fast;
      const op = ok ? 2 : hard ? 4 : 3;
      const w = this.__healthIx(v, op, latencyMs === undefined ? NaN : latencyMs, at !== undefined, at === undefined ? 0 : at);
      if (w === w) return w;
    }
    return record.call(this, tool, outcome);
  };
}
"#)]
extern "C" {
    fn route_state(ids: &JsValue, header: u32, memory: &JsValue) -> JsValue;
    fn node_index(state: &JsValue, id: &JsValue) -> i32;
    pub(crate) fn route_object(state: &JsValue, cost: f64) -> JsValue;
    fn install_route(witness: JsValue);
    pub(crate) fn monotonic_now() -> f64;
}

thread_local! {
    static ROUTE_INSTALLED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Puts the JS half of `route` on `Router.prototype`, once. The prototype is reachable only
/// through an instance, so a router on a one-node graph is made to show it, then freed.
pub(crate) fn install_fast_route() {
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
    pub(crate) fn node(
        &self,
        id: &JsValue,
        default: NodeIx,
        count: usize,
        field: &str,
    ) -> Result<NodeIx, ShrError> {
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
    pub(crate) fn cached<'a>(routing: &'a mut Routing, graph: &ToolGraph) -> Result<&'a RouteJs, ShrError> {
        let js = match routing.js.take() {
            Some(js) => js,
            // One JSON text parsed by the engine: far cheaper than a string per id across the
            // boundary on a large graph.
            None => {
                let ids: Vec<&str> = graph.nodes().iter().map(|n| n.id()).collect();
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
    pub(crate) fn publish(&mut self, graph: &ToolGraph, plan: &Plan) -> f64 {
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

impl Router {
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
}

#[wasm_bindgen]
impl Router {
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
}
