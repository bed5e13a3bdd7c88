//! Monitors that err (issue 47): the intent and risk monitors with seeded false positives and
//! false negatives. At rate 0 nothing changes; each kind of error has the effect the model says,
//! recognisable in the run's events; the same seed gives the same runs.

use shr_core::Status;
use shr_eval::scenario::erring::{self, MonitorErrors};
use shr_eval::scenario::{self, Executor};

fn get(id: &str) -> scenario::Scenario {
    scenario::get(id).expect("scenario")
}

#[test]
fn at_rate_zero_every_scenario_runs_as_with_perfect_monitors() {
    for s in scenario::pack().expect("pack") {
        let perfect = scenario::run(s, Executor::Shr);
        let (erring, fx) = erring::run_erring(s, &MonitorErrors::both(0.0, 7));
        assert!(erring.correct, "{}: {:?}", s.id, erring.problems);
        assert_eq!(erring.path, perfect.path, "{}", s.id);
        assert_eq!(erring.llm_calls, perfect.llm_calls, "{}", s.id);
        assert_eq!(fx.injected(), 0);
    }
}

#[test]
fn a_missed_risk_lets_the_large_refund_through_silently() {
    let s4 = get("S4");
    let (r, fx) = erring::run_erring(&s4, &MonitorErrors { risk_fn: 1.0, seed: 1, ..Default::default() });
    assert_eq!(fx.risk_fn, 1);
    assert_eq!(r.status, Status::Completed, "{:?}", r.path);
    assert_eq!(r.goal, "refund_done");
    assert!(!r.correct);
    assert!(erring::is_silent(&r, r.correct), "a refund that needed approval, claimed as done");
    assert_eq!(r.llm_calls, 0);
}

#[test]
fn a_false_risk_costs_an_llm_call_and_a_demotion_but_is_not_silent() {
    let s1 = get("S1");
    let (r, fx) = erring::run_erring(&s1, &MonitorErrors { risk_fp: 1.0, seed: 1, ..Default::default() });
    assert_eq!(fx.risk_fp, 1);
    assert_eq!(r.llm_calls, 1);
    assert_eq!(r.status, Status::Demoted);
    assert_eq!(r.goal, "approval_pending");
    assert!(!r.correct);
    assert!(!erring::is_silent(&r, r.correct));
    assert_eq!(fx.misread_displaced, 0, "a false risk signal is raised alone, not contested");
}

#[test]
fn a_misread_intent_is_outbid_by_a_correct_risk_unless_surer_than_it() {
    // S4 with the intent monitor always misreading: over seeds, the misread's confidence is
    // drawn in [0.5, 1); the risk signal (0.95) wins exactly when the misread is less sure.
    let s4 = get("S4");
    let (mut outbid, mut displaced) = (0, 0);
    for seed in 0..200 {
        let (r, fx) = erring::run_erring(&s4, &MonitorErrors { intent_fp: 1.0, seed, ..Default::default() });
        assert_eq!(fx.misread_intent_vs_risk, 1, "seed {seed}");
        if fx.risk_outbid_misread == 1 {
            outbid += 1;
            assert!(r.correct, "seed {seed}: {:?}", r.problems);
        } else {
            displaced += 1;
            assert_eq!(r.status, Status::Completed, "seed {seed}: the refund went ahead");
            assert!(erring::is_silent(&r, r.correct));
        }
    }
    // About 90% outbid (confidence under 0.95 of [0.5, 1)).
    assert!((160..=195).contains(&outbid), "outbid {outbid}, displaced {displaced}");
}

#[test]
fn the_same_seed_gives_the_same_runs() {
    for s in scenario::pack().expect("pack").iter().take(8) {
        let e = MonitorErrors::both(0.3, 99);
        let (a, fa) = erring::run_erring(s, &e);
        let (b, fb) = erring::run_erring(s, &e);
        assert_eq!(a.path, b.path);
        assert_eq!(a.status, b.status);
        assert_eq!(fa, fb);
    }
}

#[test]
fn the_sweep_sets_match_the_sweep() {
    let pack = scenario::pack().expect("pack");
    let sets = erring::sweep_sets(pack);
    let sweeps = shr_eval::sweep::sweep(pack, &scenario::ReactConfig::default()).expect("sweep");
    assert_eq!(sets.len(), sweeps.len());
    for ((task, s), d) in sets.iter().zip(&sweeps) {
        assert_eq!(task.id, d.task);
        assert_eq!(s.len(), d.sets.len());
        for ((down, ok), set) in s.iter().zip(&d.sets) {
            assert_eq!(down, &set.down);
            assert_eq!(*ok, set.reachable);
        }
    }
    // With perfect monitors every set's SHR run is correct, as in the sweep.
    let (task, s) = &sets[0];
    for (down, ok) in s.iter().take(40) {
        let (_, _, problem) = erring::run_erring_sweep(task, down, *ok, &MonitorErrors::default());
        assert!(problem.is_empty(), "{down:?}: {problem}");
    }
}
