//! What the generated tools answer when nothing is wrong: the task's order, its customer and the
//! refund asked for, each tool answering in the shape of its contract (`contracts/<name>.json`),
//! read at the time of the call.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{json, Map, Value};

use shr_core::rng::SplitMix64;
use shr_core::Millis;

/// The clock a perturbed run starts at (2026-01-01T00:00:00Z): answers carry real-looking times.
pub const EPOCH_MS: Millis = 1_767_225_600_000;

const DAY_MS: Millis = 86_400_000;

/// A line of the order.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub sku: String,
    pub qty: u32,
    pub unit_price: f64,
}

/// A task's record: the order the agent was asked to refund, and its customer.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub order_id: String,
    pub customer_id: String,
    /// The amount to refund.
    pub amount: f64,
    pub lines: Vec<Line>,
    pub placed_at: Millis,
    pub tier: &'static str,
    pub verified: bool,
}

impl Record {
    pub fn draw(seed: u64) -> Record {
        let mut rng = SplitMix64::new(seed ^ 0x005E_ED0F_7A5C);
        let order_id = format!("ord_{}", 10_000 + rng.below(90_000));
        let customer_id = format!("cus_{}", 1_000 + rng.below(9_000));
        let amount = (5_000 + rng.below(495_000)) as f64 / 100.0;
        let lines = (0..1 + rng.below(5))
            .map(|_| Line {
                sku: format!("SKU-{}", 100 + rng.below(900)),
                qty: 1 + rng.below(4) as u32,
                unit_price: (199 + rng.below(20_000)) as f64 / 100.0,
            })
            .collect();
        let placed_at = EPOCH_MS - (1 + rng.below(60)) * DAY_MS;
        let tier = ["standard", "plus", "business"][rng.below(3) as usize];
        Record { order_id, customer_id, amount, lines, placed_at, tier, verified: rng.below(4) > 0 }
    }

    /// The task's context: what the agent knows before any tool runs.
    pub fn context(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("order_id".into(), json!(self.order_id));
        m.insert("customer_id".into(), json!(self.customer_id));
        m.insert("amount".into(), json!(self.amount));
        m
    }

    /// The clean answer at `now` of a tool that answers by contract `contract`; `tool` tells
    /// substitutes apart (their ids and fees differ, as services do). `Null` for an unknown
    /// contract.
    pub fn answer(&self, contract: &str, tool: usize, now: Millis) -> Value {
        match contract {
            "order_lookup" => json!({
                "order_id": self.order_id,
                "customer_id": self.customer_id,
                "state": "delivered",
                "placed_at": self.placed_at,
                "read_at": now,
            }),
            "customer_lookup" => json!({
                "customer_id": self.customer_id,
                "email": format!("{}@example.com", self.customer_id.replace('_', ".")),
                "tier": self.tier,
                "verified": self.verified,
                "read_at": now,
            }),
            "order_lines" => {
                let lines: Vec<Value> = self
                    .lines
                    .iter()
                    .map(|l| json!({ "sku": l.sku, "qty": l.qty, "unit_price": l.unit_price }))
                    .collect();
                json!({
                    "order_id": self.order_id,
                    "lines": lines,
                    "count": self.lines.len(),
                    "read_at": now,
                })
            }
            "refund" => {
                // Processors charge a fixed part and a rate, capped; each tool its own rate.
                let rate = 0.01 + 0.005 * (tool % 5) as f64;
                let fee = (0.25 + self.amount * rate).min(25.0);
                json!({
                    "refund_id": format!("re_{}{:03}", self.order_id.trim_start_matches("ord_"), tool % 1000),
                    "order_id": self.order_id,
                    "amount": self.amount,
                    "fee": (fee * 100.0).round() / 100.0,
                    "currency": "EUR",
                    "status": "succeeded",
                    "created_at": now,
                })
            }
            _ => Value::Null,
        }
    }
}
