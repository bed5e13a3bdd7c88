//! Every variant of a field-less enum, found from its serde derive, not from a list a person
//! keeps: the tests that check `Family::ALL`, `MonitorKind::ALL` and the TypeScript unions
//! against the enums use it, so a variant left out of a list fails a test.

use alloc::vec::Vec;
use serde::de::value::{Error, U32Deserializer};
use serde::de::{DeserializeOwned, IntoDeserializer};

/// Every variant of `T`, in declaration order. `T` must derive `Deserialize` and have only unit
/// variants: serde's derive reads a variant by its index, and the first index past the last
/// variant is refused.
pub fn variants<T: DeserializeOwned>() -> Vec<T> {
    let mut out = Vec::new();
    for i in 0u32.. {
        let at: U32Deserializer<Error> = i.into_deserializer();
        match T::deserialize(at) {
            Ok(v) => out.push(v),
            Err(_) => break,
        }
    }
    out
}
