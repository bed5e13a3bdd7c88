//! What the generated tools answer when nothing is wrong: the task's record as the record API
//! describes it, read at the time of the call.

use alloc::format;
use alloc::vec::Vec;
use serde_json::{json, Map, Value};

use shr_core::rng::SplitMix64;
use shr_core::Millis;

/// The clock a perturbed run starts at (2026-01-01T00:00:00Z): answers carry real-looking times.
pub const EPOCH_MS: Millis = 1_767_225_600_000;

/// A task's record: what the agent was asked to act on.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub entity: alloc::string::String,
    pub amount: f64,
    pub lines: u32,
}

impl Record {
    pub fn draw(seed: u64) -> Record {
        let mut rng = SplitMix64::new(seed ^ 0x005E_ED0F_7A5C);
        Record {
            entity: format!("ord_{}", 10_000 + rng.below(90_000)),
            amount: (5_000 + rng.below(495_000)) as f64 / 100.0,
            lines: 2 + rng.below(4) as u32,
        }
    }

    /// The task's context: what the agent knows before any tool runs.
    pub fn context(&self) -> Map<alloc::string::String, Value> {
        let mut m = Map::new();
        m.insert("entity".into(), json!(self.entity));
        m.insert("amount".into(), json!(self.amount));
        m
    }

    /// A tool's clean answer at `now`; `tool` sets its fee rate, as services differ.
    pub fn answer(&self, tool: usize, now: Millis) -> Value {
        let rate = 0.01 + 0.005 * (tool % 5) as f64;
        let items: Vec<Value> = (1..=self.lines).map(|i| json!(format!("line-{i}"))).collect();
        json!({
            "status": "ok",
            "entity": self.entity,
            "amount": self.amount,
            "fee": (self.amount * rate * 100.0).round() / 100.0,
            "currency": "EUR",
            "items": items,
            "count": self.lines,
            "as_of": now,
        })
    }
}
