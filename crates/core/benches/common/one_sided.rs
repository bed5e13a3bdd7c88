//! The observer that keeps a query on the one-directional search (the `route`, `reroute` and
//! `layered` benches).

use shr_core::algo::Observer;

/// Watches nothing, but asks for the steps: the search stays one-directional.
pub struct OneSided;
impl Observer for OneSided {}
