//! Graph algorithms, one a file, in the style of `petgraph::algo`.

pub mod bidirectional;
pub mod dijkstra;
pub mod keep;
pub mod oracle;
pub mod plan;
pub mod topo;
pub mod trace;
pub mod weight;

pub use bidirectional::Bidirectional;
pub use dijkstra::Dijkstra;
pub use plan::Plan;
pub(crate) use plan::{join_cost, keep_cheapest};
pub use topo::TopoSweep;
pub use trace::{Observer, Trace, TraceStep};
pub use weight::{entered_weight, EdgeWeight, FactorTable};
