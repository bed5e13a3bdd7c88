//! The driver's waits: a timer as a promise, a backoff or pause slept through the host's
//! `sleep` (bounded) or a timer, and the run's deadline raced against every wait.

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::{clear_timeout, set_timeout, End};
use crate::error::{message_of, ShrError};

/// A promise that resolves with `value` after `ms`, and the timer to clear.
pub(super) fn timer(ms: f64, value: &JsValue) -> (Promise, JsValue) {
    let mut id = JsValue::UNDEFINED;
    let p = Promise::new(&mut |resolve, _reject| {
        id = set_timeout(&resolve, ms, value);
    });
    (p, id)
}

/// A wait of `ms` (a duration: a clock that steps back changes nothing), through the host's
/// `sleep` or a timer. A host `sleep` is bounded: if it has not settled a second after the wait,
/// the wait has expired and the run ends, saying so.
pub(super) struct Sleep {
    pub(super) ms: f64,
    pub(super) fut: JsFuture,
    /// The timer of the wait (no host `sleep`) or of its bound.
    pub(super) timer: JsValue,
    /// What the bound resolves with, when there is a host `sleep`.
    pub(super) expired: Option<JsValue>,
}

/// How long a host `sleep` may take past the wait it was asked for.
pub(super) const SLEEP_GRACE_MS: f64 = 1_000.0;

impl Sleep {
    /// `Ok(())` when the wait is over, `Err` with the reason when the run must end.
    pub(super) fn ended(&self, r: Result<JsValue, JsValue>) -> Result<(), End> {
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

/// A run's deadline: the timer's promise (for races in JS) and a future of it (for polls).
pub(super) struct Deadline {
    pub(super) ms: f64,
    pub(super) promise: Promise,
    pub(super) future: JsFuture,
    pub(super) timer: JsValue,
    pub(super) sentinel: JsValue,
}

impl Deadline {
    pub(super) fn passed(&self) -> End {
        End::Expired(format!("the run's deadline of {} ms passed", self.ms))
    }
}
