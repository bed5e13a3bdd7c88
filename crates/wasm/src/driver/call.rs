//! One tool call of a run: started with its input and `AbortSignal`, raced against its timeout
//! (a side effect's late result against the lease grace), and turned into a `ToolResult`. The
//! call itself lives in JS ([`super::js`]): one crossing starts it.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::js::{
    call_abort, call_clear, call_late, call_text, call_tool, call_value, given_result, tool_output, CallEnd,
    CallWait,
};
use super::options::MAX_TIMER_MS;
use super::outcome::{permanent, Settled};
use super::wait::Sleep;
use super::{clear_timeout, End, Host};
use crate::error::{message_of, ShrError};

/// A call in flight.
pub(super) struct InFlight {
    pub(super) tool: String,
    /// The tool's node index.
    pub(super) ix: u32,
    pub(super) attempt: u32,
    pub(super) call_id: String,
    pub(super) timeout_ms: u64,
    pub(super) side_effect: bool,
    /// Whether the core reads this tool's output (a validator, a guard, a `verify` answer):
    /// otherwise its text is not handed over ([`super::js::tool_output`]).
    pub(super) output_read: bool,
    /// Waiting out a retry's backoff (`delay_ms`), then the tool.
    pub(super) phase: Phase,
    pub(super) started: u64,
}

/// What woke a call in flight.
enum Woke {
    /// Its backoff ended (or failed).
    Slept(Result<JsValue, JsValue>),
    Call(CallEnd),
}

pub(super) enum Phase {
    Backoff(Sleep),
    /// The tool's result awaited against its timeout; `call` is the JS half ([`super::js`]).
    Running {
        fut: CallWait,
        call: JsValue,
    },
    /// A side effect past its timeout, aborted: its late result awaited against the grace.
    Late {
        fut: CallWait,
        call: JsValue,
    },
}

impl Phase {
    pub(super) fn clear(&self) {
        match self {
            Phase::Backoff(s) => clear_timeout(&s.timer),
            Phase::Running { call, .. } | Phase::Late { call, .. } => call_clear(call),
        }
    }

    /// The call's JS half, once it is started.
    pub(super) fn call(&self) -> Option<&JsValue> {
        match self {
            Phase::Backoff(_) => None,
            Phase::Running { call, .. } | Phase::Late { call, .. } => Some(call),
        }
    }

    /// Aborts the call's signal (a call still in its backoff has none yet).
    pub(super) fn abort(&self, name: &str, message: &str) {
        if let Phase::Running { call, .. } | Phase::Late { call, .. } = self {
            call_abort(call, name, message);
        }
    }
}

impl Host {
    /// Calls the tool, its timeout armed (in JS, with the call's lazy `AbortSignal`). A
    /// `tools` object whose own-property check throws (a hostile Proxy) breaks the host's
    /// contract: the run rejects with `bad_options`.
    pub(super) fn start_tool(
        &self,
        tool: &str,
        ix: u32,
        attempt: u32,
        call_id: &str,
        timeout_ms: u64,
    ) -> Result<Phase, ShrError> {
        // Only the host's own properties are tools: `constructor` or `toString` must not run
        // what every object inherits. Every way of not having a callable tool is that call's
        // failure, not the run's: the session routes around it like any other outage.
        let ms = (timeout_ms as f64).min(MAX_TIMER_MS);
        let call =
            call_tool(&self.opts.tools, &self.ids, ix, attempt, call_id, &self.context, &self.results, ms);
        let call = if call.is_undefined() {
            given_result(&permanent(&format!("options.tools has no function for `{tool}`")), ms)
        } else if Array::is_array(&call) {
            let threw = Array::from(&call);
            let e = threw.get(0);
            if threw.length() > 1 {
                return Err(ShrError::new(
                    "bad_options",
                    format!("options.tools: checking for `{tool}` threw: {}", message_of(&e)),
                ));
            }
            given_result(
                &permanent(&format!("options.tools.{tool}: reading `{tool}` threw: {}", message_of(&e))),
                ms,
            )
        } else {
            call
        };
        Ok(Phase::Running { fut: CallWait::new(&call), call })
    }

    /// Waits for the first call in flight to settle (in call order among those already
    /// settled). A call whose backoff ends is started and waited for like the others; one whose
    /// timeout passes is aborted, and a side effect's late result is then awaited for the grace.
    pub(super) async fn settle_one(&mut self) -> Result<(usize, Settled), End> {
        loop {
            let (i, r) = poll_fn(|cx| {
                if let Some(d) = &mut self.deadline {
                    if Pin::new(&mut d.future).poll(cx).is_ready() {
                        return Poll::Ready(Err(d.passed()));
                    }
                }
                for (i, c) in self.in_flight.iter_mut().enumerate() {
                    let r = match &mut c.phase {
                        Phase::Backoff(s) => Pin::new(&mut s.fut).poll(cx).map(Woke::Slept),
                        Phase::Running { fut, .. } | Phase::Late { fut, .. } => {
                            Pin::new(fut).poll(cx).map(Woke::Call)
                        }
                    };
                    if let Poll::Ready(r) = r {
                        return Poll::Ready(Ok((i, r)));
                    }
                }
                Poll::Pending
            })
            .await?;
            let c = &mut self.in_flight[i];
            let (end, call) = match (r, &c.phase) {
                (Woke::Slept(r), Phase::Backoff(s)) => {
                    s.ended(r)?;
                    let now = self.opts.now()?;
                    let (tool, ix, attempt, call_id, timeout_ms) =
                        (c.tool.clone(), c.ix, c.attempt, c.call_id.clone(), c.timeout_ms);
                    let phase = self.start_tool(&tool, ix, attempt, &call_id, timeout_ms)?;
                    let c = &mut self.in_flight[i];
                    (c.phase, c.started) = (phase, now);
                    continue;
                }
                (Woke::Call(end), Phase::Running { call, .. } | Phase::Late { call, .. }) => (end, call),
                // Each phase's wait ends with its own kind of value.
                _ => continue,
            };
            let late = matches!(c.phase, Phase::Late { .. });
            let settled = match (end, late) {
                (CallEnd::Returned, _) => match tool_output(call, c.output_read) {
                    0 => Settled::Value(call_value(call)),
                    1 => Settled::Unread,
                    _ => Settled::Output(call_text(call)),
                },
                (CallEnd::Threw(e), false) => Settled::Threw(e),
                // A rejection after the abort (an `AbortError`) says nothing of what it did.
                (CallEnd::Threw(e), true) => Settled::Unknown(format!(
                    "`{}` timed out after {} ms and then failed: {}",
                    c.tool,
                    c.timeout_ms,
                    message_of(&e)
                )),
                (CallEnd::Expired, true) => Settled::Unknown(format!(
                    "`{}` timed out after {} ms, and no late result came within {} ms",
                    c.tool, c.timeout_ms, self.late_ms
                )),
                (CallEnd::Expired, false) => {
                    let why = format!("`{}` did not settle within {} ms", c.tool, c.timeout_ms);
                    c.phase.abort("TimeoutError", &why);
                    if !c.side_effect {
                        Settled::Unknown(why)
                    } else {
                        // A side effect may have acted: its late result is the outcome, if it
                        // comes within the grace (the lease holds its place that long).
                        let Phase::Running { call, .. } = &c.phase else { continue };
                        let call = call.clone();
                        call_late(&call, self.late_ms.clamp(1.0, MAX_TIMER_MS));
                        c.phase = Phase::Late { fut: CallWait::new(&call), call };
                        continue;
                    }
                }
            };
            return Ok((i, settled));
        }
    }
}
