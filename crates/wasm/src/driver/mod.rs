//! `Router.run`: drives a core session with async JS tool functions.
//!
//! The loop is the core's host loop and nothing more: ask `next(clock())`; on `call_tools`
//! start every call at once (each after its `delayMs`, through `sleep`); on `wait` take the
//! first call to settle, translate what the tool did into a `ToolResult`, `report` it and ask
//! again; on `escalate` await the host's `escalate(request)` and pass its decision back; on
//! `finished` resolve. New events go to `onEvent` after every step.
//!
//! Every wait is bounded, so a run always settles: a tool by `timeoutMs` (its failure), a
//! backoff or pause by its duration (a host `sleep` a second past it), `escalate` by
//! `escalateTimeoutMs` and everything by `deadlineMs`. A wait that expires ends the run through
//! the core's `abandon`: an `Escalated` event of reason `deadline` and an outcome saying which.
//!
//! What a tool did becomes a result like this (never a trap):
//! - threw or rejected -> service failure, permanent, message = the error's message;
//! - did not settle within `timeoutMs` (default 10 s) -> service failure, transient;
//! - returned `{success: false, error, category, agentAction, transient}` -> that failure
//!   (seed 003, whose `agent_action` is read too); a key it does not know or a category other
//!   than input/service/policy is malformed data;
//! - returned something JSON cannot hold (a cycle, a BigInt, a function) -> service failure,
//!   permanent ("malformed data");
//! - returned anything else -> success with that output (`undefined` is `null`), which the
//!   core then checks with the tool's validators.

use std::cell::RefCell;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;

use js_sys::{Array, Function, Object, Promise};
use serde_json::Value;
use shr_core::{Action, Category, Decision, Outcome, Run, ToolFailure, ToolResult};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use crate::convert::{from_js_camel, get, is_nullish, stringify, to_js, tool_failure};
use crate::error::{message_of, ShrError};
use crate::{parse_task, task_error, Inner};

mod options;

use options::{RunOptions, MAX_TIMER_MS};
pub use options::{DEFAULT_ESCALATE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS};

/// A promise that resolves with `value` after `ms`, and the timer to clear.
fn timer(ms: f64, value: &JsValue) -> (Promise, JsValue) {
    let mut id = JsValue::UNDEFINED;
    let p = Promise::new(&mut |resolve, _reject| {
        id = set_timeout(&resolve, ms, value);
    });
    (p, id)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64, arg: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
    #[wasm_bindgen(js_namespace = Promise, js_name = resolve, catch)]
    fn promise_resolve(v: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = Promise, js_name = reject)]
    fn promise_reject(v: &JsValue) -> Promise;
    #[wasm_bindgen(js_namespace = Promise, js_name = race)]
    fn promise_race(items: &Array) -> Promise;
}

/// A call in flight.
struct InFlight {
    tool: String,
    attempt: u32,
    /// Waiting out a retry's backoff (`delay_ms`), then the tool.
    phase: Phase,
    started: u64,
}

enum Phase {
    Backoff(Sleep),
    Running { fut: JsFuture, timer: Option<JsValue>, sentinel: Object },
}

/// A wait of `ms` (a duration: a clock that steps back changes nothing), through the host's
/// `sleep` or a timer. A host `sleep` is bounded: if it has not settled a second after the wait,
/// the wait has expired and the run ends, saying so.
struct Sleep {
    ms: f64,
    fut: JsFuture,
    /// The timer of the wait (no host `sleep`) or of its bound.
    timer: JsValue,
    /// What the bound resolves with, when there is a host `sleep`.
    expired: Option<JsValue>,
}

/// How long a host `sleep` may take past the wait it was asked for.
const SLEEP_GRACE_MS: f64 = 1_000.0;

impl Sleep {
    /// `Ok(())` when the wait is over, `Err` with the reason when the run must end.
    fn ended(&self, r: Result<JsValue, JsValue>) -> Result<(), End> {
        clear_timeout(&self.timer);
        match r {
            Err(e) => {
                Err(End::Failed(ShrError::new("bad_options", format!("sleep() failed: {}", message_of(&e)))))
            }
            Ok(v) if self.expired.as_ref().is_some_and(|x| Object::is(&v, x)) => Err(End::Expired(format!(
                "sleep({}) did not settle within {} ms",
                self.ms,
                self.ms + SLEEP_GRACE_MS
            ))),
            Ok(_) => Ok(()),
        }
    }
}

/// What a settled call gave.
enum Settled {
    Value(JsValue),
    Threw(JsValue),
    TimedOut,
}

/// Why a run stops before the core finishes it.
enum End {
    /// A wait expired (the run's deadline, `escalate`'s or a `sleep`'s bound): the core ends the
    /// run, escalated, with this reason in an event and in the outcome.
    Expired(String),
    /// The host broke the contract: the run rejects.
    Failed(ShrError),
}

impl From<ShrError> for End {
    fn from(e: ShrError) -> End {
        End::Failed(e)
    }
}

pub(crate) fn run(inner: Rc<RefCell<Inner>>, task: JsValue, options: JsValue) -> Promise {
    future_to_promise(async move { drive(inner, task, options).await.map_err(ShrError::into_js) })
}

async fn drive(
    inner: Rc<RefCell<Inner>>,
    task_js: JsValue,
    options_js: JsValue,
) -> Result<JsValue, ShrError> {
    let router_clock = inner.borrow().clock.clone();
    let opts = RunOptions::parse(&options_js, router_clock)?;
    let task = parse_task(&task_js)?;
    let context =
        if is_nullish(&task_js) { JsValue::UNDEFINED } else { get(&task_js, "context", "bad_task", "task")? };
    let context = if is_nullish(&context) { Object::new().into() } else { context };
    let t0 = opts.now()?;
    let mut run = inner.borrow_mut().router.start(task, t0).map_err(task_error)?;
    let deadline = opts.deadline_ms.map(|ms| {
        let sentinel: JsValue = Object::new().into();
        let (p, id) = timer(ms, &sentinel);
        Deadline { ms, promise: p.clone(), future: JsFuture::from(p), timer: id, sentinel }
    });
    let mut host =
        Host { opts, context, results: Object::new(), in_flight: Vec::new(), events: Array::new(), deadline };
    let result = host.drive(&inner, &mut run).await;
    host.abandon();
    let events: JsValue = host.events.into();
    let outcome = result.and_then(|o| to_js(&o));
    match outcome {
        Ok(outcome) => {
            let out = Object::new();
            let _ = js_sys::Reflect::set(&out, &JsValue::from_str("outcome"), &outcome);
            let _ = js_sys::Reflect::set(&out, &JsValue::from_str("events"), &events);
            Ok(out.into())
        }
        Err(e) => Err(e.with("events", events)),
    }
}

struct Host {
    opts: RunOptions,
    context: JsValue,
    /// Outputs of the tools that succeeded in this run, by id (passed to later tools).
    results: Object,
    in_flight: Vec<InFlight>,
    /// Every event of the run, as JS values: the run itself keeps none once they are taken.
    events: Array,
    /// The run's deadline (`deadlineMs`), raced against every wait.
    deadline: Option<Deadline>,
}

/// A run's deadline: the timer's promise (for races in JS) and a future of it (for polls).
struct Deadline {
    ms: f64,
    promise: Promise,
    future: JsFuture,
    timer: JsValue,
    sentinel: JsValue,
}

impl Deadline {
    fn passed(&self) -> End {
        End::Expired(format!("the run's deadline of {} ms passed", self.ms))
    }
}

impl Host {
    async fn drive(&mut self, inner: &RefCell<Inner>, run: &mut Run) -> Result<Outcome, ShrError> {
        match self.steps(inner, run).await {
            Ok(o) => Ok(o),
            Err(End::Failed(e)) => Err(e),
            Err(End::Expired(why)) => {
                // A wait that expired ends the run there, explicitly: calls in flight are given
                // back, an `Escalated` event of reason `deadline` says why, and the run resolves.
                let now = self.opts.now()?;
                inner.borrow_mut().router.abandon(run, &why, now).map_err(ShrError::session)?;
                self.emit(run);
                run.outcome()
                    .cloned()
                    .ok_or_else(|| ShrError::new("internal", "an abandoned run has no outcome"))
            }
        }
    }

    async fn steps(&mut self, inner: &RefCell<Inner>, run: &mut Run) -> Result<Outcome, End> {
        loop {
            let now = self.opts.now()?;
            let action = inner.borrow_mut().router.next(run, now).map_err(ShrError::session)?;
            self.emit(run);
            match action {
                Action::Finished { outcome } => return Ok(outcome),
                Action::CallTools { calls } => {
                    let now = self.opts.now()?;
                    for call in calls {
                        // The backoff as a duration: a host clock that steps back changes no wait.
                        let phase = if call.delay_ms > 0 {
                            Phase::Backoff(self.sleep(call.delay_ms as f64))
                        } else {
                            self.start_tool(&call.tool, call.attempt)
                        };
                        self.in_flight.push(InFlight {
                            tool: call.tool,
                            attempt: call.attempt,
                            phase,
                            started: now,
                        });
                    }
                }
                Action::Pause { until } => {
                    // Other runs of this router hold what this run needs (a full bulkhead, a
                    // spent rate limit): look again after a short wait, which the core bounds.
                    let now = self.opts.now()?;
                    let mut wait = self.sleep(until.saturating_sub(now).max(1) as f64);
                    match self.or_deadline(&mut wait.fut).await {
                        Ok(r) => wait.ended(r)?,
                        Err(end) => {
                            clear_timeout(&wait.timer);
                            return Err(end);
                        }
                    }
                }
                Action::Wait => {
                    if self.in_flight.is_empty() {
                        // The core waits only while calls are in flight; this guards a host loop.
                        return Err(
                            ShrError::new("internal", "the session waits but no call is in flight").into()
                        );
                    }
                    let (i, settled) = self.settle_one().await?;
                    let call = self.in_flight.remove(i);
                    if let Phase::Running { timer: Some(t), .. } = &call.phase {
                        clear_timeout(t);
                    }
                    let now = self.opts.now()?;
                    let latency = now.saturating_sub(call.started) as f64;
                    let (result, output) = self.translate(&call.tool, settled, latency);
                    let ok = matches!(result, ToolResult::Ok { .. });
                    inner
                        .borrow_mut()
                        .router
                        .report(run, &call.tool, result, now)
                        .map_err(ShrError::session)?;
                    if ok {
                        let _ = js_sys::Reflect::set(&self.results, &JsValue::from_str(&call.tool), &output);
                    }
                    self.emit(run);
                }
                Action::Escalate { request } => {
                    let decision = match &self.opts.escalate {
                        None => Decision::Abort { message: "no escalate callback was given".into() },
                        Some(f) => {
                            let f = f.clone();
                            self.ask(&f, &to_js(&request)?).await?
                        }
                    };
                    let now = self.opts.now()?;
                    inner
                        .borrow_mut()
                        .router
                        .resolve_escalation(run, decision, now)
                        .map_err(ShrError::session)?;
                    self.emit(run);
                }
            }
        }
    }

    /// Asks the host's `escalate` and waits for its decision, at most `escalateTimeoutMs` and
    /// never past the run's deadline.
    async fn ask(&mut self, escalate: &Function, request: &JsValue) -> Result<Decision, End> {
        let answer = match escalate.call1(&JsValue::UNDEFINED, request) {
            Ok(v) => promise_resolve(&v).unwrap_or_else(|e| promise_reject(&e)),
            Err(e) => promise_reject(&e),
        };
        // An answer that never comes must not hold the run forever.
        let late: JsValue = Object::new().into();
        let racers = Array::of1(&answer);
        let mut timer_id = None;
        if let Some(ms) = self.opts.escalate_timeout_ms {
            let (p, id) = timer(ms, &late);
            racers.push(&p);
            timer_id = Some(id);
        }
        if let Some(d) = &self.deadline {
            racers.push(&d.promise);
        }
        let answer = JsFuture::from(promise_race(&racers)).await;
        if let Some(id) = timer_id {
            clear_timeout(&id);
        }
        let answer = answer.map_err(|e| {
            ShrError::new("escalation_failed", format!("escalate() failed: {}", message_of(&e)))
        })?;
        if let Some(d) = self.deadline.as_ref().filter(|d| Object::is(&answer, &d.sentinel)) {
            return Err(d.passed());
        }
        if Object::is(&answer, &late) {
            let ms = self.opts.escalate_timeout_ms.unwrap_or(0.0);
            return Err(End::Expired(format!("escalate() did not answer within {ms} ms")));
        }
        Ok(parse_decision(&answer)?)
    }

    /// Takes the run's new events, keeps them for the result and streams them to `onEvent`. A
    /// listener that throws is ignored: it must not change the run.
    fn emit(&mut self, run: &mut Run) {
        for e in run.drain_events() {
            let Ok(v) = to_js(&e) else { continue };
            if let Some(f) = &self.opts.on_event {
                let _ = f.call1(&JsValue::UNDEFINED, &v);
            }
            self.events.push(&v);
        }
    }

    /// Waits `ms` (a duration, so a clock that steps back changes nothing): the host's `sleep`,
    /// bounded by a timer `SLEEP_GRACE_MS` past the wait, or a timer.
    fn sleep(&self, ms: f64) -> Sleep {
        let ms = ms.min(MAX_TIMER_MS);
        match &self.opts.sleep {
            Some(f) => {
                let asked = match f.call1(&JsValue::UNDEFINED, &JsValue::from_f64(ms)) {
                    Ok(v) => promise_resolve(&v).unwrap_or_else(|e| promise_reject(&e)),
                    Err(e) => promise_reject(&e),
                };
                let expired: JsValue = Object::new().into();
                let (bound, timer) = timer((ms + SLEEP_GRACE_MS).min(MAX_TIMER_MS), &expired);
                let fut = JsFuture::from(promise_race(&Array::of2(&asked, &bound)));
                Sleep { ms, fut, timer, expired: Some(expired) }
            }
            None => {
                let (p, timer) = timer(ms, &JsValue::UNDEFINED);
                Sleep { ms, fut: JsFuture::from(p), timer, expired: None }
            }
        }
    }

    /// Waits for `fut`, or the run's deadline, whichever comes first.
    async fn or_deadline(&mut self, fut: &mut JsFuture) -> Result<Result<JsValue, JsValue>, End> {
        poll_fn(|cx| {
            if let Some(d) = &mut self.deadline {
                if Pin::new(&mut d.future).poll(cx).is_ready() {
                    return Poll::Ready(Err(d.passed()));
                }
            }
            Pin::new(&mut *fut).poll(cx).map(Ok)
        })
        .await
    }

    /// Calls the tool and races it against the timeout.
    fn start_tool(&self, tool: &str, attempt: u32) -> Phase {
        let sentinel = Object::new();
        // Every way of not having a callable tool is that call's failure, not the run's: the
        // session routes around it like any other outage.
        let key = JsValue::from_str(tool);
        // Only the host's own properties are tools: `constructor` or `toString` must not run
        // what every object inherits.
        let own = Object::has_own(&Object::from(self.opts.tools.clone()), &key);
        let found = if own { js_sys::Reflect::get(&self.opts.tools, &key) } else { Ok(JsValue::UNDEFINED) };
        let p = match found {
            Err(e) => {
                let m = format!("options.tools.{tool}: reading `{tool}` threw: {}", message_of(&e));
                promise_reject(&js_sys::Error::new(&m).into())
            }
            Ok(f) if f.is_function() => {
                let input = self.input(tool, attempt);
                match Function::from(f).call1(&JsValue::UNDEFINED, &input) {
                    Ok(v) => promise_resolve(&v).unwrap_or_else(|e| promise_reject(&e)),
                    Err(e) => promise_reject(&e),
                }
            }
            Ok(_) => {
                let e = js_sys::Error::new(&format!("options.tools has no function for `{tool}`"));
                promise_reject(&e.into())
            }
        };
        let (p, timer) = match self.opts.timeout_ms {
            None => (p, None),
            Some(ms) => {
                let (timeout, id) = timer(ms, &sentinel);
                (promise_race(&Array::of2(&p, &timeout)), Some(id))
            }
        };
        Phase::Running { fut: JsFuture::from(p), timer, sentinel }
    }

    /// What a tool function receives: `{tool, attempt, context, results}`.
    fn input(&self, tool: &str, attempt: u32) -> JsValue {
        let input = Object::new();
        let results = Object::assign(&Object::new(), &self.results);
        for (k, v) in [
            ("tool", JsValue::from_str(tool)),
            ("attempt", JsValue::from_f64(attempt as f64)),
            ("context", self.context.clone()),
            ("results", results.into()),
        ] {
            let _ = js_sys::Reflect::set(&input, &JsValue::from_str(k), &v);
        }
        input.into()
    }

    /// Waits for the first call in flight to settle (in call order among those already
    /// settled). A call whose backoff ends is started and waited for like the others.
    async fn settle_one(&mut self) -> Result<(usize, Settled), End> {
        loop {
            let (i, r, backoff) = poll_fn(|cx| {
                if let Some(d) = &mut self.deadline {
                    if Pin::new(&mut d.future).poll(cx).is_ready() {
                        return Poll::Ready(Err(d.passed()));
                    }
                }
                for (i, c) in self.in_flight.iter_mut().enumerate() {
                    let (fut, backoff) = match &mut c.phase {
                        Phase::Backoff(s) => (&mut s.fut, true),
                        Phase::Running { fut, .. } => (fut, false),
                    };
                    if let Poll::Ready(r) = Pin::new(fut).poll(cx) {
                        return Poll::Ready(Ok((i, r, backoff)));
                    }
                }
                Poll::Pending
            })
            .await?;
            if backoff {
                if let Phase::Backoff(s) = &self.in_flight[i].phase {
                    s.ended(r)?;
                }
                let now = self.opts.now()?;
                let (tool, attempt) = (self.in_flight[i].tool.clone(), self.in_flight[i].attempt);
                self.in_flight[i].phase = self.start_tool(&tool, attempt);
                self.in_flight[i].started = now;
                continue;
            }
            let settled = match r {
                Err(e) => Settled::Threw(e),
                Ok(v) => match &self.in_flight[i].phase {
                    Phase::Running { sentinel, .. } if Object::is(&v, sentinel) => Settled::TimedOut,
                    _ => Settled::Value(v),
                },
            };
            return Ok((i, settled));
        }
    }

    /// A settled call as the core's `ToolResult`, and the output to keep for later tools.
    fn translate(&self, tool: &str, settled: Settled, latency_ms: f64) -> (ToolResult, JsValue) {
        let fail = |category, transient, message: String, agent_action| ToolFailure {
            category,
            transient,
            message,
            agent_action,
            latency_ms,
        };
        let failure = match settled {
            Settled::TimedOut => {
                let ms = self.opts.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
                fail(Category::Service, true, format!("`{tool}` did not settle within {ms} ms"), None)
            }
            Settled::Threw(e) => fail(Category::Service, false, message_of(&e), None),
            Settled::Value(v) => match tool_failure(&v) {
                Ok(Some(f)) => ToolFailure { latency_ms, ..f },
                Err(m) => {
                    fail(Category::Service, false, format!("`{tool}` returned malformed data: {m}"), None)
                }
                Ok(None) => match output_of(&v) {
                    // Later tools get the value that was validated, a copy: not the live object,
                    // which a getter or a later change could make differ from what was checked.
                    Ok((output, snapshot)) => return (ToolResult::Ok { output, latency_ms }, snapshot),
                    Err(m) => {
                        fail(Category::Service, false, format!("`{tool}` returned malformed data: {m}"), None)
                    }
                },
            },
        };
        (ToolResult::Err(failure), JsValue::UNDEFINED)
    }

    /// Clears the timers of the run and of calls still in flight when it ends (a finished run
    /// does not wait for them; their results are ignored), so that nothing of it keeps a host's
    /// event loop alive.
    fn abandon(&mut self) {
        if let Some(d) = &self.deadline {
            clear_timeout(&d.timer);
        }
        for c in self.in_flight.drain(..) {
            match &c.phase {
                Phase::Running { timer: Some(t), .. } => clear_timeout(t),
                Phase::Running { timer: None, .. } => {}
                Phase::Backoff(s) => clear_timeout(&s.timer),
            }
        }
    }
}

/// A tool's return value as JSON output (`undefined` is `null`), and the same value as a fresh
/// JS copy of that JSON (what later tools receive).
fn output_of(v: &JsValue) -> Result<(Value, JsValue), String> {
    if v.is_undefined() {
        return Ok((Value::Null, JsValue::NULL));
    }
    match stringify(v)? {
        None => Err("a function or symbol is not data".into()),
        Some(text) => {
            let output = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let copy = js_sys::JSON::parse(&text).map_err(|e| message_of(&e))?;
            Ok((output, copy))
        }
    }
}

/// A decision from JS: `{decision: 'demote', goal} | {decision: 'approve'} |
/// {decision: 'abort', message} | {decision: 'hand_off', to}`.
pub(crate) fn parse_decision(v: &JsValue) -> Result<Decision, ShrError> {
    if !v.is_object() || Array::is_array(v) {
        return Err(ShrError::new(
            "bad_decision",
            "decision must be an object {decision: 'demote'|'approve'|'abort'|'hand_off', ...}",
        ));
    }
    from_js_camel(v, "decision", "bad_decision", &[])
}
