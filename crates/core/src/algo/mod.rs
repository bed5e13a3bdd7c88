//! Graph algorithms, one a file, in the style of `petgraph::algo`.

pub mod dijkstra;
pub mod oracle;

pub use dijkstra::{Dijkstra, EdgeWeight, Observer, Plan, Trace, TraceStep};
