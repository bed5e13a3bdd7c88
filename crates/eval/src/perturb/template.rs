//! The task templates of C1-C4, read from `tasks/perturb.json`: per complexity, its parallel
//! branches of stages, and for each stage the contract its tools answer by.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;

use super::Complexity;

/// One complexity's template.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// The largest number of substitutable tools a stage draws.
    pub max_group: u64,
    /// The last stage of every branch is one tool with no substitute.
    #[serde(default)]
    pub single_action: bool,
    /// Branches, each a list of stages named by their contract.
    pub branches: Vec<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    about: String,
    complexities: alloc::collections::BTreeMap<String, Template>,
}

/// The template of `complexity`; `None` if the file lacks it or does not parse (a test reads
/// every one, so that is a build mistake).
pub fn of(complexity: Complexity) -> Option<Template> {
    let file: File = serde_json::from_str(include_str!("../../tasks/perturb.json")).ok()?;
    file.complexities.get(&alloc::format!("{complexity:?}")).cloned()
}
