//! Limits on what a description may hold. Exceeding one is a clear error, never a slow death.

/// Most nodes accepted from a description.
pub const MAX_NODES: usize = 200_000;
/// Most edges accepted from a description.
pub const MAX_EDGES: usize = 2_000_000;
/// Longest node id, in bytes.
pub const MAX_ID: usize = 128;
/// Longest label, in characters.
pub const MAX_LABEL: usize = 200;
/// Longest `reason` of a node or an edge, in characters.
pub const MAX_REASON: usize = 2000;
/// Largest JSON description, in bytes.
pub const MAX_JSON_BYTES: usize = 64 * 1024 * 1024;
/// Most retry attempts a tool may declare.
pub const MAX_RETRY_ATTEMPTS: u32 = 10;
/// The longest `timeout_ms` a node may declare: a day. Longer is more likely a unit mistake
/// (seconds as microseconds) than a tool that answers in a week.
pub const MAX_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;
