//! The validators of generated tasks: one output contract per kind of tool, declared as data in
//! `contracts/<name>.json` from what the tool promises (its `contract` text), not from the
//! injector. The task templates (`tasks/perturb.json`, [`super::template`]) say which contract
//! each stage's tools answer by.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;
use shr_core::validate::Validator;

/// The contracts, by name: the order store's lookup, the customer store's lookup, the order's
/// list of lines, and the payment processor's refund.
pub const NAMES: [&str; 4] = ["order_lookup", "customer_lookup", "order_lines", "refund"];

/// A tool's output contract: what it promises, and the checks written from that promise.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// The promise, in words.
    pub contract: String,
    pub validators: Vec<Validator>,
}

/// The contract file's text, for a known name.
pub fn source(name: &str) -> Option<&'static str> {
    Some(match name {
        "order_lookup" => include_str!("../../contracts/order_lookup.json"),
        "customer_lookup" => include_str!("../../contracts/customer_lookup.json"),
        "order_lines" => include_str!("../../contracts/order_lines.json"),
        "refund" => include_str!("../../contracts/refund.json"),
        _ => return None,
    })
}

/// The contract named `name`; `None` for an unknown name or a file that does not parse (a test
/// parses every file, so that is a build mistake).
pub fn load(name: &str) -> Option<Contract> {
    source(name).and_then(|text| serde_json::from_str(text).ok())
}

/// The checks a tool answering by contract `name` declares on its output (none for an unknown
/// name, rather than a panic in library code).
pub fn validators(name: &str) -> Vec<Validator> {
    load(name).map(|c| c.validators).unwrap_or_default()
}
