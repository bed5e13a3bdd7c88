//! The TypeScript string unions in `src/types.rs` (the package's `.d.ts`) follow the Rust enums
//! they mirror: a variant added in Rust and left out of its union, or a union member Rust does
//! not know, fails here. The variants are found from the enums' serde derives
//! ([`shr_eval::exhaustive::variants`]), not from a second list.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::Serialize;
use shr_core::health::admission::Refusal;
use shr_core::{BreakerState, Category, EscalationReason, MonitorKind, Status};
use shr_eval::exhaustive::variants;

const TYPES: &str = include_str!("../src/types.rs");

/// The members of `export type NAME = "a" | "b" ...;` (the union may span lines).
fn union(name: &str) -> BTreeSet<String> {
    let head = format!("export type {name} =");
    let at = TYPES.find(&head).unwrap_or_else(|| panic!("types.rs has no `{head}`"));
    let rest = &TYPES[at + head.len()..];
    let body = &rest[..rest.find(';').expect("the union ends with ;")];
    body.split('|').map(|m| m.trim().trim_matches('"').to_string()).filter(|m| !m.is_empty()).collect()
}

fn rust_names<T: DeserializeOwned + Serialize>() -> BTreeSet<String> {
    variants::<T>()
        .iter()
        .map(|v| serde_json::to_value(v).unwrap().as_str().expect("a unit variant").to_string())
        .collect()
}

#[test]
fn every_string_union_matches_its_enum() {
    let checks: [(&str, BTreeSet<String>); 6] = [
        ("Category", rust_names::<Category>()),
        ("BreakerState", rust_names::<BreakerState>()),
        ("Status", rust_names::<Status>()),
        ("EscalationReason", rust_names::<EscalationReason>()),
        ("Refusal", rust_names::<Refusal>()),
        ("MonitorKind", rust_names::<MonitorKind>()),
    ];
    for (name, rust) in checks {
        assert!(!rust.is_empty(), "{name}");
        assert_eq!(union(name), rust, "the TypeScript union {name} follows the Rust enum");
    }
}
