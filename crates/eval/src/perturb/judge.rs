//! The third arm: an LLM asked, after every tool call, whether the output looks right. A mock
//! with stated rates (it is told the truth and errs at random), so the table shows what the
//! deterministic validators save and miss against paying an LLM call per output. The rates
//! are assumptions of this lab, not measurements of any model.

use shr_core::rng::SplitMix64;

/// Share of wrong outputs the judge passes.
pub const MISS_RATE: f64 = 0.15;
/// Share of clean outputs the judge rejects.
pub const FALSE_ALARM_RATE: f64 = 0.02;

/// A seeded mock LLM verifier; every verdict is one LLM call.
#[derive(Clone, Debug)]
pub struct Judge {
    rng: SplitMix64,
    pub calls: u32,
}

impl Judge {
    pub fn new(seed: u64) -> Judge {
        Judge { rng: SplitMix64::new(seed ^ 0x1D6E), calls: 0 }
    }

    /// Whether the judge rejects an output that is `wrong` (or clean).
    pub fn rejects(&mut self, wrong: bool) -> bool {
        self.calls += 1;
        let u = self.rng.unit();
        if wrong {
            u >= MISS_RATE
        } else {
            u < FALSE_ALARM_RATE
        }
    }
}
