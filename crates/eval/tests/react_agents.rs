//! The ReAct agents of the ToolMaze tasks and the cyclic workflows run loops of their own
//! (issue 44): their figures come from their own calls, never from the router's run.

use shr_eval::cyclic;
use shr_eval::perturb::{self, react, Arm, Complexity, FaultProfile, Mode, Setup};
use shr_eval::scenario::react::ReactAction;

#[test]
fn the_toolmaze_agent_counts_its_own_steps() {
    for c in Complexity::ALL {
        for seed in 0..20 {
            let task = perturb::generate(c, seed);
            for mode in Mode::ALL {
                let fault = FaultProfile { target: task.victim.clone(), mode };
                let setup = Setup { arm: Arm::React, ..Setup::default() };
                let a = react::run(&task, &fault, &setup);
                assert_eq!(a.flags, react::run(&task, &fault, &setup).flags, "deterministic");
                let calls =
                    a.run.steps.iter().filter(|s| matches!(s.action, ReactAction::Call { .. })).count();
                assert_eq!(calls as u32, a.flags.tool_calls);
                assert_eq!(a.flags.llm_calls, a.flags.tool_calls + 1, "a step per call, and the answer");
                assert!(matches!(a.run.steps.last().map(|s| &s.action), Some(ReactAction::Finish { .. })));
                // The matrix's React arm is this agent's run.
                assert_eq!(perturb::run_with(&task, &fault, &setup).flags, a.flags);
                if mode == Mode::NP {
                    assert!(a.flags.tool_calls >= task.optimal_calls);
                }
                if mode == Mode::P2 && task.has_alternative {
                    assert!(a.flags.success, "{}: a permanent error is routed to the substitute", task.id);
                }
                if mode == Mode::P2 && !task.has_alternative {
                    assert!(a.flags.escalated && a.flags.recovered, "{}: it stops and says so", task.id);
                }
            }
        }
    }
}

#[test]
fn the_cyclic_agent_follows_the_workflow_with_an_llm_call_a_step() {
    for ex in cyclic::examples() {
        for seed in 0..30 {
            let nominal = cyclic::react::run(&ex, 0.0, seed);
            assert!(nominal.run.success, "{} seed {seed}", ex.id);
            assert_eq!(nominal.run.llm_calls, nominal.run.tool_calls + 1);
            // The same world as the router's run: the same calls when nothing is redirected.
            let shr = cyclic::run(&ex, 0.0, seed);
            assert_eq!(nominal.run.visits, shr.visits, "{} seed {seed}", ex.id);
            let faulty = cyclic::react::run(&ex, 0.5, seed);
            assert!(faulty.run.tool_calls <= cyclic::TOOL_BUDGET);
            assert_eq!(faulty.react.steps.len() as u32, faulty.run.llm_calls);
        }
    }
}
