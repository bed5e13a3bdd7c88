//! The options of `Router.run`, read strictly: a misspelt option is `bad_options` naming it, and
//! every duration fits a JS timer.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::convert::{get, is_nullish, only_keys, opt_fn};
use crate::error::ShrError;
use crate::read_clock;

#[wasm_bindgen(module = "/src/driver/driver.js")]
extern "C" {
    /// Reads the options when they are plain (known keys, no getter that throws, `tools` an
    /// object): bit `i` of the answer says the option at `i` of `[tools, escalate, onEvent,
    /// timeoutMs, escalateTimeoutMs, deadlineMs, clock, sleep]` is not nullish; -1 otherwise.
    fn run_options(o: &JsValue) -> i32;
    /// The option at `i` that [`run_options`] read (given once: JS keeps it no longer).
    fn run_option(i: u32) -> JsValue;
}

/// Default per-call timeout (the core's `admission.call_timeout_ms`, which a router's config
/// may change).
pub const DEFAULT_TIMEOUT_MS: f64 = 10_000.0;
/// Default time `escalate` has to answer: an LLM or a person, but never forever.
pub const DEFAULT_ESCALATE_TIMEOUT_MS: f64 = 300_000.0;
/// The longest wait `setTimeout` holds (2^31-1 ms); a larger one would fire at once.
pub(super) const MAX_TIMER_MS: f64 = 2_147_483_647.0;

/// A duration option: nullish is `default`, `Infinity` is none, else a number of milliseconds
/// in `0 < ms <= 2^31-1` (what a timer holds), or `bad_options` naming the option.
fn duration(options: &JsValue, key: &str, default: Option<f64>) -> Result<Option<f64>, ShrError> {
    let v = get(options, key, "bad_options", "options")?;
    if is_nullish(&v) {
        return Ok(default);
    }
    match v.as_f64() {
        Some(ms) if ms == f64::INFINITY => Ok(None),
        Some(ms) if ms > 0.0 && ms <= MAX_TIMER_MS => Ok(Some(ms)),
        _ => Err(ShrError::new(
            "bad_options",
            format!("options.{key} must be a number of ms in 0 < ms <= 2147483647 (Infinity: none)"),
        )),
    }
}

/// The options of a run, checked.
pub(super) struct RunOptions {
    pub(super) tools: JsValue,
    pub(super) escalate: Option<Function>,
    pub(super) on_event: Option<Function>,
    /// The run's call timeout when given (`Infinity`: the longest a node may declare, a day);
    /// `None`: each node's `timeout_ms`, else the router's `admission.callTimeoutMs`.
    pub(super) timeout_ms: Option<u64>,
    /// How long `escalate` may take to answer; `None` = no limit.
    pub(super) escalate_timeout_ms: Option<f64>,
    /// The whole run's deadline; `None` = none.
    pub(super) deadline_ms: Option<f64>,
    pub(super) clock: Option<Function>,
    pub(super) sleep: Option<Function>,
}

impl RunOptions {
    pub(super) fn parse(options: &JsValue, router_clock: Option<Function>) -> Result<RunOptions, ShrError> {
        // Plain options are read in one crossing and checked here; anything unusual (an
        // unknown key, a getter that throws) is read again below, which words the error.
        let given = run_options(options);
        if let Ok(given) = u32::try_from(given) {
            if let Some(opts) = Self::checked(given, router_clock.clone()) {
                return Ok(opts);
            }
        }
        if !options.is_object() {
            return Err(ShrError::new(
                "bad_options",
                "options must be an object {tools, escalate?, onEvent?, timeoutMs?, escalateTimeoutMs?, \
                 deadlineMs?, clock?, sleep?}",
            ));
        }
        only_keys(
            options,
            &[
                "tools",
                "escalate",
                "onEvent",
                "timeoutMs",
                "escalateTimeoutMs",
                "deadlineMs",
                "clock",
                "sleep",
            ],
            "bad_options",
            "options",
        )?;
        let tools = get(options, "tools", "bad_options", "options")?;
        if !tools.is_object() {
            return Err(ShrError::new(
                "bad_options",
                "options.tools must be an object mapping tool ids to functions",
            ));
        }
        Ok(RunOptions {
            tools,
            escalate: opt_fn(options, "escalate", "bad_options", "options")?,
            on_event: opt_fn(options, "onEvent", "bad_options", "options")?,
            timeout_ms: if is_nullish(&get(options, "timeoutMs", "bad_options", "options")?) {
                None
            } else {
                // Infinity (no timeout) is the longest a node may declare: a lease needs an end.
                Some(
                    duration(options, "timeoutMs", None)?
                        .map_or(shr_core::limits::MAX_TIMEOUT_MS, |ms| ms as u64),
                )
            },
            escalate_timeout_ms: duration(options, "escalateTimeoutMs", Some(DEFAULT_ESCALATE_TIMEOUT_MS))?,
            deadline_ms: duration(options, "deadlineMs", None)?,
            clock: opt_fn(options, "clock", "bad_options", "options")?.or(router_clock),
            sleep: opt_fn(options, "sleep", "bad_options", "options")?,
        })
    }

    /// The options [`run_options`] read, when each is what it must be; `None` sends
    /// them to [`RunOptions::parse`]'s reading, which says what is wrong.
    fn checked(given: u32, router_clock: Option<Function>) -> Option<RunOptions> {
        // Only the options given are taken (each is a crossing); every one given is taken
        // before any check fails, so that JS keeps none.
        let mut v: [JsValue; 8] = Default::default();
        for (i, slot) in v.iter_mut().enumerate() {
            if given & (1 << i) != 0 {
                *slot = run_option(i as u32);
            }
        }
        let absent = |i: usize| given & (1 << i) == 0;
        let f = |i: usize| -> Option<Option<Function>> {
            if absent(i) {
                Some(None)
            } else {
                v[i].clone().dyn_into::<Function>().ok().map(Some)
            }
        };
        let ms = |i: usize, default: Option<f64>| -> Option<Option<f64>> {
            if absent(i) {
                return Some(default);
            }
            match v[i].as_f64() {
                Some(ms) if ms == f64::INFINITY => Some(None),
                Some(ms) if ms > 0.0 && ms <= MAX_TIMER_MS => Some(Some(ms)),
                _ => None,
            }
        };
        let timeout_ms = if absent(3) {
            None
        } else {
            Some(ms(3, None)?.map_or(shr_core::limits::MAX_TIMEOUT_MS, |ms| ms as u64))
        };
        Some(RunOptions {
            escalate: f(1)?,
            on_event: f(2)?,
            timeout_ms,
            escalate_timeout_ms: ms(4, Some(DEFAULT_ESCALATE_TIMEOUT_MS))?,
            deadline_ms: ms(5, None)?,
            clock: f(6)?.or(router_clock),
            sleep: f(7)?,
            tools: core::mem::take(&mut v[0]),
        })
    }

    pub(super) fn now(&self) -> Result<u64, ShrError> {
        read_clock(self.clock.as_ref())
    }
}
