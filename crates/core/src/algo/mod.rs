//! Graph algorithms, one a file, in the style of `petgraph::algo`.

pub mod bidirectional;
pub mod dijkstra;
pub mod keep;
pub mod oracle;
pub mod topo;

pub use bidirectional::Bidirectional;
pub use dijkstra::{entered_weight, Dijkstra, EdgeWeight, Observer, Plan, Trace, TraceStep};
pub use topo::TopoSweep;
