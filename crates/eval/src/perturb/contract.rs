//! The validators of generated tasks, declared as data in `contracts/record_api.json` from the
//! tools' output contract (what the record API promises), not from the injector.

use alloc::vec::Vec;
use serde::Deserialize;
use shr_core::validate::Validator;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Contract {
    #[allow(dead_code)]
    contract: alloc::string::String,
    validators: Vec<Validator>,
}

/// The checks every generated tool declares on its output.
pub fn validators() -> Vec<Validator> {
    // The file is part of the crate and checked by a test: an error here is a build mistake,
    // reported as no validators rather than a panic in library code.
    serde_json::from_str::<Contract>(include_str!("../../contracts/record_api.json"))
        .map(|c| c.validators)
        .unwrap_or_default()
}
