//! The failure-combination sweep: every subset of a domain's tools, judged by one rule.

use shr_eval::scenario::{self, Executor, ReactConfig};
use shr_eval::sweep::{self, reachable};

#[test]
fn sweep_covers_every_subset_and_shr_never_fails_silently() {
    let pack = scenario::pack().unwrap();
    let sweeps = sweep::sweep(pack, &ReactConfig::default()).unwrap();
    assert_eq!(sweeps.len(), 3);
    let mut static_silent = 0;
    for d in &sweeps {
        assert_eq!(d.sets.len(), 1 << d.tools.len(), "{}", d.domain);
        assert!(d.sets[0].down.is_empty() && d.sets[0].reachable);
        for set in &d.sets {
            assert_eq!(set.runs.len(), 3);
            let shr = set.runs.iter().find(|r| r.executor == Executor::Shr).unwrap();
            assert!(shr.correct && !shr.silent, "{} {:?}: {}", d.domain, set.down, shr.problem);
            let react = set.runs.iter().find(|r| r.executor == Executor::React).unwrap();
            assert!(react.correct, "{} {:?}: {}", d.domain, set.down, react.problem);
            let wf = set.runs.iter().find(|r| r.executor == Executor::Static).unwrap();
            static_silent += u32::from(wf.silent);
            if wf.silent {
                assert!(!wf.correct);
            }
        }
    }
    assert!(static_silent > 0);
}

#[test]
fn the_reachability_oracle_reads_joins_and_failures() {
    let domains = scenario::domains().unwrap();
    let ix =
        |g: &shr_core::ToolGraph, ids: &[&str]| ids.iter().map(|i| g.index(i).unwrap()).collect::<Vec<_>>();
    let cs = &domains[0].graph;
    assert!(reachable(cs, &ix(cs, &["stripe", "email"]), cs.goal()));
    assert!(!reachable(cs, &ix(cs, &["stripe", "razorpay"]), cs.goal()));
    assert!(reachable(cs, &ix(cs, &["stripe", "razorpay"]), cs.index("ticket_filed").unwrap()));
    let m = &domains[2].graph;
    let queue = m.index("action_queue").unwrap();
    // Three classifiers left: the quorum holds; two: it does not, but hold-for-review does.
    assert!(reachable(m, &ix(m, &["image_clf", "text_clf"]), queue));
    assert!(!reachable(m, &ix(m, &["image_clf", "text_clf", "history_clf"]), queue));
    assert!(reachable(m, &ix(m, &["image_clf", "text_clf", "history_clf"]), m.goal()));
    assert!(!reachable(m, &ix(m, &["image_clf", "text_clf", "history_clf", "hold_review"]), m.goal()));
}
