//! The third arm: an LLM asked, after every tool call, whether the output looks right. A mock
//! with stated rates (it is told the truth and errs at random), so the table shows what the
//! deterministic validators save and miss against paying an LLM call per output. The rates and
//! the latency are assumptions of this lab, not measurements of any model.

use shr_core::rng::SplitMix64;
use shr_core::Millis;

use super::corrupt::Family;

/// Share of wrong outputs the judge passes, for every family but plausible values.
pub const MISS_RATE: f64 = 0.15;
/// Share of plausible wrong values (a number off by 10-60%, in range, of the right kind) the
/// judge passes: reading one output, nothing looks off unless the judge knows the right number,
/// so it is assumed to miss them far more often than a missing field or a wrong type.
pub const PLAUSIBLE_MISS_RATE: f64 = 0.5;
/// Share of clean outputs the judge rejects.
pub const FALSE_ALARM_RATE: f64 = 0.02;
/// The time one verdict takes, added to the tool call it judges.
pub const LATENCY_MS: Millis = 800;

/// The judge's assumed miss rate on `family`.
pub fn miss_rate(family: Family) -> f64 {
    if family == Family::Plausible {
        PLAUSIBLE_MISS_RATE
    } else {
        MISS_RATE
    }
}

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

    /// Whether the judge rejects an output: wrong by `wrong`'s family, or clean (`None`).
    pub fn rejects(&mut self, wrong: Option<Family>) -> bool {
        self.calls += 1;
        let u = self.rng.unit();
        match wrong {
            Some(family) => u >= miss_rate(family),
            None => u < FALSE_ALARM_RATE,
        }
    }
}
