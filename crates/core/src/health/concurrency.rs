//! How many calls one tool may have in flight, across every run of a router: a bulkhead (a hard
//! ceiling, Resilience4j's `Bulkhead`, Envoy's `max_requests`) under a slow start (TCP's
//! congestion window: a tool with no record begins with a few calls, and each success lets one
//! more through, so the window doubles per round trip while the tool answers; a failure halves
//! it). A dead tool therefore meets at most the initial window of calls at once, however many
//! runs want it, while a healthy one opens up within a few round trips.
//!
//! ```
//! use shr_core::health::Concurrency;
//! let mut c = Concurrency::new(2, Some(3));
//! assert!(c.try_acquire() && c.try_acquire());
//! assert!(!c.try_acquire(), "the initial window is 2");
//! c.release();
//! c.on_success(); // a window of 3 now, the bulkhead's ceiling
//! assert!(c.try_acquire() && c.try_acquire() && !c.try_acquire());
//! ```

/// A tool's concurrency: calls in flight against its window and ceiling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Concurrency {
    in_flight: u32,
    /// The slow-start window; `u32::MAX` once it is off.
    window: u32,
    /// The window a tool starts with and falls back to; 0 turns slow start off.
    initial: u32,
    /// The bulkhead's ceiling; `None` for none.
    ceiling: Option<u32>,
}

impl Concurrency {
    /// A window of `initial` calls (slow start), never above `ceiling` when given.
    pub fn new(initial: u32, ceiling: Option<u32>) -> Self {
        Concurrency { in_flight: 0, window: if initial == 0 { u32::MAX } else { initial }, initial, ceiling }
    }

    /// Calls allowed in flight now.
    pub fn limit(&self) -> u32 {
        self.ceiling.map_or(self.window, |c| c.min(self.window))
    }

    /// Calls let through and not yet settled.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Whether one more call may start now.
    pub fn has_room(&self) -> bool {
        self.in_flight < self.limit()
    }

    /// Takes a place for one call, when there is room.
    pub fn try_acquire(&mut self) -> bool {
        let room = self.has_room();
        if room {
            self.in_flight += 1;
        }
        room
    }

    /// A call ended (whatever its outcome, or abandoned).
    pub fn release(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// A success widens the window by one call.
    pub fn on_success(&mut self) {
        if self.initial != 0 {
            self.window = self.window.saturating_add(1);
        }
    }

    /// A failure halves the window, never below the initial one.
    pub fn on_failure(&mut self) {
        if self.initial != 0 {
            self.window = (self.window / 2).max(self.initial);
        }
    }

    /// The tool starts over (its breaker opened): the initial window again.
    pub fn restart(&mut self) {
        if self.initial != 0 {
            self.window = self.initial;
        }
    }
}
