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
mod costs;
pub mod driver;
pub mod error;
mod fleet;
mod health;
mod probe;
mod route;
mod types;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Function;
use serde::Serialize;
use shr_core::health::{BreakerState, Factors};
use shr_core::{Monitors, NodeIx, Observation, SessionConfig, Task, ToolGraph, ToolResult};
use wasm_bindgen::prelude::*;

use convert::{from_js_camel, get, is_nullish, millis, number_arg, only_keys, opt_fn, to_js, to_js_as_is};
use error::ShrError;
use route::{install_fast_route, monotonic_now, Routing};

/// What a router holds: the core router (graph, one live health, limits), the host's clock and
/// the JS side of `route`.
pub(crate) struct Inner {
    pub router: shr_core::Router,
    pub clock: Option<Function>,
    /// `route` sits on every request of an agent: its plan's indices and the JS strings of node
    /// ids are kept between calls so a route allocates nothing new.
    pub routing: Routing,
    /// Probes handed out and not yet settled, by the number JS holds.
    pub probes: probe::Outstanding,
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
        let inner =
            Inner { router, clock, routing: Routing::default(), probes: probe::Outstanding::default() };
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

    /// Method arguments: `tool` names a tool (not a waypoint); `now` is ms, or the clock's.
    fn tool_arg(&self, tool: &JsValue) -> Result<NodeIx, ShrError> {
        self.tool(&tool_id(tool)?)
    }
    fn now_arg(&self, now: &JsValue) -> Result<u64, ShrError> {
        self.now(number_arg(now, "now", "bad_clock")?)
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

    /// An outcome as `record` and `settleProbe` take it (`{ok, latencyMs?, hard?, at?}`), and
    /// the clock value it holds for.
    pub(crate) fn observation(&self, outcome: &JsValue) -> Result<(Observation, u64), ShrError> {
        let rec: RecordOutcome = from_js_camel(outcome, "outcome", "bad_record", &[])?;
        // NaN and Infinity would read as "not given" (JSON has neither): refused, not dropped.
        let raw = get(outcome, "latencyMs", "bad_record", "outcome")?.as_f64();
        if rec.latency_ms.or(raw).is_some_and(|l| !(l.is_finite() && l >= 0.0)) {
            return Err(ShrError::new("bad_record", "outcome.latencyMs must be a finite number >= 0"));
        }
        let now = self.now(rec.at)?;
        let observed = match (rec.ok, rec.hard) {
            // No latency given: no latency sample (NaN is never remembered), only the success.
            (true, _) => Observation::Success { latency_ms: rec.latency_ms.unwrap_or(f64::NAN) },
            (false, true) => Observation::Outage,
            (false, false) => Observation::Failure,
        };
        Ok((observed, now))
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
        Ok(to_js_as_is(&self.inner.borrow().router.graph().to_spec())?)
    }

    /// Ids of the nodes that are tools (the functions a run may call), in description order.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn tools(&self) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let ids: Vec<&str> = inner.router.graph().nodes().iter().filter(|n| n.tool).map(|n| n.id()).collect();
        Ok(to_js(&ids)?)
    }

    /// Marks a tool down: its breaker opens at once (infinite weight) until the cooldown lets a
    /// probe through or `markUp` is called. Returns the tool's weight now (`Infinity`: routed
    /// around); `health(tool)` has the breaker state and factors.
    #[wasm_bindgen(js_name = markDown)]
    pub fn mark_down(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<f64, JsValue> {
        let v = self.tool_arg(&tool)?;
        let now = self.now_arg(now)?;
        Ok(self.update(v, health::Update::Down, now))
    }

    /// Marks a tool up: its breaker closes and it weighs what a healthy tool weighs (the
    /// failures and latencies from before are forgotten). Returns the tool's weight now.
    #[wasm_bindgen(js_name = markUp)]
    pub fn mark_up(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<f64, JsValue> {
        let v = self.tool_arg(&tool)?;
        let now = self.now_arg(now)?;
        Ok(self.update(v, health::Update::Up, now))
    }

    /// Records an outcome the host observed outside a run: `{ok: true, latencyMs}` feeds the
    /// rolling latency and the breaker; `{ok: false}` counts a failure toward the breaker's
    /// thresholds; `{ok: false, hard: true}` opens it at once. `at` is the clock value (the
    /// router's clock when omitted). Returns the tool's weight now (`Infinity`: routed around).
    pub fn record(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RecordOutcome")] outcome: JsValue,
    ) -> Result<f64, JsValue> {
        let v = self.tool_arg(&tool)?;
        let (observed, now) = self.observation(&outcome)?;
        Ok(self.update(v, health::Update::Record(observed), now))
    }

    /// A tool's health now: breaker state, composite weight (`null` = infinite) and its factors.
    #[wasm_bindgen(unchecked_return_type = "ToolHealth")]
    pub fn health(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] tool: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let v = self.tool_arg(&tool)?;
        let now = self.now_arg(now)?;
        Ok(self.health_view(v, now)?)
    }

    /// The router's counters (calls, failures, retries, sheds per tool; reroutes, escalations,
    /// runs) and gauges (breaker state, calls in flight, live weight) in the Prometheus text
    /// exposition format, for a `/metrics` endpoint.
    pub fn metrics(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number | null")] now: &JsValue,
    ) -> Result<String, JsValue> {
        let now = self.now_arg(now)?;
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
        let now = self.now_arg(&now)?;
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
/// Its calls' places are leases: `free()`, or the garbage collector dropping the session,
/// gives back those not yet reported; a host that loses the session without either loses
/// them for one lease at most (the call's timeout plus `admission.leaseGraceMs`).
#[wasm_bindgen]
pub struct Session {
    router: Rc<RefCell<Inner>>,
    run: shr_core::Run,
}

impl Drop for Session {
    fn drop(&mut self) {
        // Never while the router is borrowed (wasm is single-threaded and a finalizer runs on
        // its own turn); if it were, the leases would still run out by themselves.
        if let Ok(mut inner) = self.router.try_borrow_mut() {
            inner.router.release_run(&mut self.run);
        }
    }
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
