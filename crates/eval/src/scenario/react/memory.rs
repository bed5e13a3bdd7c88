//! What the ReAct agent remembers between its steps.

use alloc::string::String;
use alloc::vec::Vec;

/// What the agent remembers: its observations so far, as the prompt of its next step holds them.
#[derive(Clone, Debug, Default)]
pub(super) struct Memory {
    pub(super) goal: String,
    /// Steps it takes as done: (capability, tool).
    pub(super) done: Vec<(String, String)>,
    /// Tools it saw fail.
    pub(super) failed: Vec<String>,
    /// The last observation: this tool failed while providing this capability.
    pub(super) last_failure: Option<(String, String)>,
    /// Policies already reasoned about.
    pub(super) reviewed: Vec<usize>,
    /// Goals pursued so far: a demotion never returns to one.
    pub(super) pursued: Vec<String>,
}

impl Memory {
    pub(super) fn count(&self, capability: &str) -> u32 {
        self.done.iter().filter(|(c, _)| c == capability).count() as u32
    }

    pub(super) fn capability_done(&self, capability: &str) -> bool {
        self.done.iter().any(|(c, _)| c == capability)
    }
}
