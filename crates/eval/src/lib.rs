//! SHR's evaluation lab, kept apart from the router (`shr-core`), which never depends on it:
//! the paper's 19 scenarios and their three executors (SHR, ReAct, static workflow), the sweep of
//! every failure combination ([`sweep`]), ToolMaze
//! fault injection ([`perturb`]), seed 004's cyclic workflows ([`cyclic`]), and the soak
//! (`examples/soak.rs`). The CLI and the visualizer use it; every number it prints is computed
//! by running.
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]

extern crate alloc;

pub mod cyclic;
pub mod exhaustive;
pub mod perturb;
pub mod scenario;
pub mod sweep;
