//! `Router.run`: drives a core session with async JS tool functions.
//!
//! The loop is the core's host loop and nothing more: ask `next(clock())`; on `call_tools`
//! start every call at once (each after its `delayMs`, through `sleep`); on `wait` take the
//! first call to settle, translate what the tool did into a `ToolResult`, `report` it and ask
//! again; on `escalate` await the host's `escalate(request)` and pass its decision back; on
//! `finished` resolve. New events go to `onEvent` after every step.
//!
//! Every wait is bounded, so a run always settles: a tool by its call's timeout (the node's
//! `timeout_ms`, else `timeoutMs`, else the router's `admission.callTimeoutMs`), a backoff or
//! pause by its duration (a host `sleep` a second past it), `escalate` by `escalateTimeoutMs`
//! and everything by `deadlineMs`. A wait that expires ends the run through the core's
//! `abandon`: an `Escalated` event of reason `deadline` and an outcome saying which.
//!
//! Each tool call receives `{tool, attempt, callId, signal, context, results}`: `callId` is the
//! call's idempotency key (the same on a retry of a step), `signal` an `AbortSignal` aborted at
//! the call's timeout, the run's deadline, or the end of the run with the call still out
//! (`js.rs`). When the run ends, every place its calls held is given back to the router.
//!
//! What a tool did becomes a result like this (never a trap):
//! - threw or rejected -> service failure, transient (an untyped error is no proof of an
//!   outage), message = the error's message;
//! - did not settle within its timeout -> aborted, and an unknown outcome: for a tool with no
//!   side effect a transient failure; a `side_effect` tool's late result is awaited for
//!   `admission.leaseGraceMs` more (it is the result if it comes), else the outcome stays
//!   unknown and the run verifies or escalates before anything acts again;
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
use shr_core::{Action, Decision, Event, Outcome, Run};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::convert::{events_to_json_camel, get, is_nullish, to_js};
use crate::error::{message_of, ShrError};
use crate::{parse_task, task_error, Inner};

mod call;
mod js;
mod options;
mod outcome;
mod result;
mod task;
mod wait;

use call::{InFlight, Phase};
use options::{RunOptions, MAX_TIMER_MS};
pub use options::{DEFAULT_ESCALATE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS};
pub(crate) use outcome::parse_decision;
use outcome::{result_of, Kept};
use wait::{timer, Deadline, Sleep, SLEEP_GRACE_MS};

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
    task::spawn(async move { drive(inner, task, options).await.map_err(ShrError::into_js) })
}

async fn drive(
    inner: Rc<RefCell<Inner>>,
    task_js: JsValue,
    options_js: JsValue,
) -> Result<JsValue, ShrError> {
    let router_clock = inner.borrow().clock.clone();
    let opts = RunOptions::parse(&options_js, router_clock)?;
    let mut task = parse_task(&task_js)?;
    // Idempotency keys must not collide across the agent processes of a fleet: a run with no
    // `id` of its own gets a random one.
    task.id = task.id.or_else(random_key);
    let context =
        if is_nullish(&task_js) { JsValue::UNDEFINED } else { get(&task_js, "context", "bad_task", "task")? };
    let context = if is_nullish(&context) { Object::new().into() } else { context };
    let t0 = opts.now()?;
    let mut run = inner.borrow_mut().router.start(task, t0).map_err(task_error)?;
    run.set_call_timeout(opts.timeout_ms);
    let (late_ms, outputs_read) = {
        let inner = inner.borrow();
        let graph = inner.router.graph();
        // Guards and `verify` answers read the outputs of any tool; validators their own tool's.
        let outputs_read = graph.has_guards() || graph.nodes().iter().any(|n| n.verify().is_some());
        (inner.router.config().admission.lease_grace_ms as f64, outputs_read)
    };
    let deadline = opts.deadline_ms.map(|ms| {
        let sentinel: JsValue = Object::new().into();
        let (p, id) = timer(ms, &sentinel);
        Deadline { ms, promise: p.clone(), future: JsFuture::from(p), timer: id, sentinel }
    });
    // The node ids as JS strings, kept by the router for `route`: a call's tool and the
    // outcome's goals cross as indices.
    let ids = {
        let mut guard = inner.borrow_mut();
        let Inner { router, routing, .. } = &mut *guard;
        crate::route::RouteJs::cached(routing, router.graph())?.state.clone()
    };
    let mut host = Host {
        ids,
        opts,
        context,
        results: Object::new(),
        in_flight: Vec::new(),
        events: Vec::with_capacity(16),
        deadline,
        late_ms,
        outputs_read,
    };
    let result = host.drive(&inner, &mut run, t0).await;
    host.abandon();
    // Finished, expired or rejected: the places of calls still out are given back now, not
    // when their leases run out.
    if let Ok(mut inner) = inner.try_borrow_mut() {
        inner.router.release_run(&mut run);
    }
    // The result from JSON texts: the events are most of a run's objects, JS builds them from
    // text faster than Rust can one property at a time, and only when they are read.
    let texts = result.and_then(|outcome| Ok((outcome, events_to_json_camel(&host.events)?)));
    match texts {
        Ok((outcome, events)) => {
            let inner = inner.try_borrow().ok();
            Ok(result::run_result_of(&outcome, &events, inner.as_ref().map(|i| i.router.graph()), &host.ids))
        }
        Err(e) => Err(e.with("events", to_js(&host.events).unwrap_or_else(|_| Array::new().into()))),
    }
}

struct Host {
    /// The router's node ids in JS ([`crate::route::RouteJs`]'s state).
    ids: JsValue,
    opts: RunOptions,
    context: JsValue,
    /// Outputs of the tools that succeeded in this run, by id (passed to later tools).
    results: Object,
    in_flight: Vec<InFlight>,
    /// Every event of the run: the run itself keeps none once they are taken.
    events: Vec<Event>,
    /// The run's deadline (`deadlineMs`), raced against every wait.
    deadline: Option<Deadline>,
    /// How long a side effect's late result is awaited past its timeout.
    late_ms: f64,
    /// Whether the core may read any tool's output (the graph has guards or `verify` tools).
    outputs_read: bool,
}

impl Host {
    async fn drive(&mut self, inner: &RefCell<Inner>, run: &mut Run, t0: u64) -> Result<Outcome, ShrError> {
        match self.steps(inner, run, t0).await {
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

    async fn steps(&mut self, inner: &RefCell<Inner>, run: &mut Run, t0: u64) -> Result<Outcome, End> {
        // A reading taken with no wait (and no host code) since is reused: one reading a step,
        // and the run's start time for its first.
        let mut read: Option<u64> = Some(t0);
        loop {
            let now = match read.take() {
                Some(now) => now,
                None => self.opts.now()?,
            };
            let action = inner.borrow_mut().router.next(run, now).map_err(ShrError::session)?;
            self.emit(run);
            match action {
                Action::Finished { outcome } => return Ok(outcome),
                Action::CallTools { calls } => {
                    // No host code ran since `now` was read unless a listener took the events.
                    let now = if self.opts.on_event.is_none() { now } else { self.opts.now()? };
                    for call in calls {
                        let (ix, side_effect, output_read) = {
                            let inner = inner.borrow();
                            let graph = inner.router.graph();
                            let Some(v) = graph.index(&call.tool) else {
                                let why = format!("the session called `{}`, not in its graph", call.tool);
                                return Err(ShrError::new("internal", why).into());
                            };
                            let node = graph.node(v);
                            (v as u32, node.side_effect, self.outputs_read || !node.validators().is_empty())
                        };
                        // The backoff as a duration: a host clock that steps back changes no wait.
                        let phase = if call.delay_ms > 0 {
                            Phase::Backoff(self.sleep(call.delay_ms as f64))
                        } else {
                            self.start_tool(&call.tool, ix, call.attempt, &call.call_id, call.timeout_ms)?
                        };
                        self.in_flight.push(InFlight {
                            tool: call.tool,
                            ix,
                            attempt: call.attempt,
                            call_id: call.call_id,
                            timeout_ms: call.timeout_ms,
                            side_effect,
                            output_read,
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
                    call.phase.clear();
                    let now = self.opts.now()?;
                    let latency = now.saturating_sub(call.started) as f64;
                    let (result, kept) = result_of(&call.tool, settled, latency);
                    inner
                        .borrow_mut()
                        .router
                        .report(run, &call.tool, result, now)
                        .map_err(ShrError::session)?;
                    // (A listener may take its time: with one, the next step reads the clock.)
                    read = self.opts.on_event.is_none().then_some(now);
                    match (kept, call.phase.call()) {
                        (Kept::Copy(output), _) => js::set_own(&self.results, &call.tool, &output),
                        (Kept::InCall, Some(c)) => js::call_keep(c, &self.results),
                        _ => {}
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

    /// Takes the run's new events, keeps them for the result and streams them to `onEvent` (as
    /// JS values only when there is a listener). A listener that throws is ignored: it must not
    /// change the run.
    fn emit(&mut self, run: &mut Run) {
        for e in run.drain_events() {
            if let Some(f) = &self.opts.on_event {
                if let Ok(v) = to_js(&e) {
                    let _ = f.call1(&JsValue::UNDEFINED, &v);
                }
            }
            self.events.push(e);
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

    /// Clears the timers of the run and of calls still in flight when it ends (a finished run
    /// does not wait for them; their results are ignored), so that nothing of it keeps a host's
    /// event loop alive, and aborts those calls.
    fn abandon(&mut self) {
        if let Some(d) = &self.deadline {
            clear_timeout(&d.timer);
        }
        for c in self.in_flight.drain(..) {
            c.phase.clear();
            c.phase.abort("AbortError", &format!("the run ended with `{}` still out", c.tool));
        }
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

thread_local! {
    /// The random part of this module instance's run keys, and the runs keyed so far.
    static RUN_KEYS: std::cell::RefCell<(String, u64)> = const { std::cell::RefCell::new((String::new(), 0)) };
}

/// A run key unique across processes, in a UUID's shape: a random UUID's first 24 characters
/// (74 random bits; `crypto.randomUUID`, else 80 bits of `Math.random`), drawn once per module
/// instance, and this instance's run number (48 bits, in hex). A UUID per run cost more than a tenth of a run's CPU (issue 48).
fn random_key() -> Option<String> {
    RUN_KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        let (prefix, n) = &mut *keys;
        if prefix.is_empty() {
            let uuid = js::random_uuid().unwrap_or_else(|| {
                // Where there is no `crypto`: 20 hex digits from `Math.random`, in the same shape.
                let mut p = String::with_capacity(24);
                for i in 0..20 {
                    if matches!(i, 8 | 12 | 16) {
                        p.push('-');
                    }
                    p.push(char::from(HEX[(js_sys::Math::random() * 16.0) as usize & 15]));
                }
                p.push('-');
                p
            });
            // `xxxxxxxx-xxxx-4xxx-yxxx-`: the UUID's first 24 characters.
            *prefix = uuid.chars().take(24).collect();
        }
        *n = (*n + 1) & 0xffff_ffff_ffff;
        let mut key = String::with_capacity(36);
        key.push_str(prefix);
        for shift in (0..12).rev() {
            key.push(char::from(HEX[((*n >> (shift * 4)) & 0xf) as usize]));
        }
        Some(key)
    })
}
