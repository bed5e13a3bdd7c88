//! The paper's 19 scenarios: each run is checked against the scenario's expected outcome, the
//! paper's qualitative claims are asserted over the whole pack, and SHR's event stream of each
//! scenario is compared with a checked-in snapshot (`UPDATE_GOLDEN=1` rewrites them).

use std::collections::BTreeSet;

use shr_core::check_observability;
use shr_core::event::{to_json_lines, EventKind};
use shr_core::Status;
use shr_eval::scenario::{self, Domain, Executor, Scenario};

fn pack() -> Vec<Scenario> {
    scenario::pack().map(|p| p.to_vec()).expect("embedded scenario files parse")
}

fn ids(pred: impl Fn(&Scenario) -> bool) -> BTreeSet<String> {
    pack().into_iter().filter(|s| pred(s)).map(|s| s.id).collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn pack_has_the_papers_19_scenarios_in_three_domains() {
    let p = pack();
    // The paper's 19 come first, in its order, tagged as its pack; any scenario after them is ours.
    let got: Vec<&str> = p.iter().take(scenario::PAPER_SCENARIOS.len()).map(|s| s.id.as_str()).collect();
    assert_eq!(got, scenario::PAPER_SCENARIOS);
    assert!(p.iter().take(got.len()).all(|s| s.pack == scenario::Pack::Paper));
    assert!(p.iter().skip(got.len()).all(|s| s.pack == scenario::Pack::Extra));
    let paper: BTreeSet<&str> =
        p.iter().filter(|s| s.pack == scenario::Pack::Paper).map(|s| s.domain.as_str()).collect();
    assert_eq!(paper, BTreeSet::from(["content_moderation", "customer_support", "travel_booking"]));
}

#[test]
fn shr_is_correct_on_every_scenario_with_no_silent_failure() {
    for s in pack() {
        let r = scenario::run(&s, Executor::Shr);
        assert!(r.correct, "{}: {:?}", s.id, r.problems);
        assert!(!r.silent_failure, "{}", s.id);
        assert_eq!(r.path, s.expected.path, "{}", s.id);
        assert_eq!(r.status, s.expected.status, "{}", s.id);
        assert_eq!(r.goal, s.expected.goal, "{}", s.id);
    }
}

#[test]
fn shr_asks_the_llm_exactly_in_s3_s4_s6_s7_t4_t5_m3() {
    let asked = ids(|s| scenario::run(s, Executor::Shr).llm_calls > 0);
    assert_eq!(asked, set(&["S3", "S4", "S6", "S7", "T4", "T5", "M3"]));
    // Every LLM call is an escalation the session made, answered by the mock LLM.
    for s in pack() {
        let r = scenario::run(&s, Executor::Shr);
        let escalated = r.events.iter().filter(|e| matches!(e.kind, EventKind::Escalated { .. })).count();
        assert_eq!(r.llm_calls as usize, escalated, "{}", s.id);
        assert_eq!(r.escalations.len(), escalated, "{}", s.id);
    }
}

#[test]
fn shr_reroutes_without_the_llm_everywhere_else() {
    for s in pack() {
        let r = scenario::run(&s, Executor::Shr);
        let failed = r.events.iter().any(|e| matches!(e.kind, EventKind::ToolFailed { .. }));
        if r.llm_calls == 0 && failed {
            assert!(r.recoveries > 0, "{} had failures but no reroute", s.id);
            assert_eq!(r.status, Status::Completed, "{}", s.id);
        }
    }
}

#[test]
fn moderation_m4_to_m6_end_in_hold_for_review_through_the_graph() {
    for id in ["M4", "M5", "M6"] {
        let s = scenario::get(id).unwrap();
        let r = scenario::run(&s, Executor::Shr);
        assert!(r.path.contains(&"hold_review".to_string()), "{id}: {:?}", r.path);
        assert_eq!(r.llm_calls, 0, "{id}");
        assert_eq!(r.status, Status::Completed, "{id}");
    }
}

#[test]
fn static_workflow_fails_silently_on_exactly_s6_s7_t6() {
    let silent = ids(|s| scenario::run(s, Executor::Static).silent_failure);
    assert_eq!(silent, set(&["S6", "S7", "T6"]));
    let correct = ids(|s| scenario::run(s, Executor::Static).correct);
    assert_eq!(correct.len(), 16);
}

#[test]
fn react_is_correct_everywhere_and_costs_far_more_llm_calls() {
    let (mut shr, mut react) = (0, 0);
    for s in pack() {
        let r = scenario::run(&s, Executor::React);
        assert!(r.correct, "{}: {:?}", s.id, r.problems);
        // One thought per tool call plus the final answer, at the very least.
        assert!(r.llm_calls > r.tool_calls, "{}", s.id);
        shr += scenario::run(&s, Executor::Shr).llm_calls;
        react += r.llm_calls;
    }
    let reduction = 1.0 - shr as f64 / react as f64;
    assert!(reduction >= 0.90, "LLM-call reduction {reduction}");
}

#[test]
fn expected_values_are_asserted_a_wrong_expectation_is_not_correct() {
    let mut s = scenario::get("S2").unwrap();
    s.expected.path =
        vec!["start".into(), "crm".into(), "stripe".into(), "email".into(), "refund_done".into()];
    let r = scenario::run(&s, Executor::Shr);
    assert!(!r.correct);
    let mut s = scenario::get("S3").unwrap();
    s.expected.escalations[0].demoted_to = Some("notice_queued".into());
    assert!(!scenario::run(&s, Executor::Shr).correct, "an escalation is not correct by itself");
}

#[test]
fn observability_holds_on_every_scenario_and_executor_run() {
    for s in pack() {
        let r = scenario::run(&s, Executor::Shr);
        check_observability(&r.events).unwrap_or_else(|b| panic!("{}: {b:?}", s.id));
        assert!(matches!(r.events.last().map(|e| &e.kind), Some(EventKind::Finished { .. })), "{}", s.id);
    }
}

#[test]
fn same_scenario_same_events() {
    for s in pack() {
        let a = to_json_lines(&scenario::run(&s, Executor::Shr).events);
        let b = to_json_lines(&scenario::run(&s, Executor::Shr).events);
        assert_eq!(a, b, "{}", s.id);
    }
}

#[test]
fn golden_event_streams() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for s in pack() {
        let got = to_json_lines(&scenario::run(&s, Executor::Shr).events);
        let path = dir.join(format!("{}.jsonl", s.id));
        if update {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", path.display()));
        assert_eq!(got, want, "{} differs from its snapshot {}", s.id, path.display());
    }
}

fn domains() -> Vec<Domain> {
    scenario::domains().unwrap()
}

#[test]
fn a_broken_scenario_file_names_the_file_and_the_field() {
    let good = scenario::SCENARIO_FILES[1].1;
    let cases = [
        (good.replace("\"stripe\"", "\"strpe\""), "failures[0].tool"),
        (good.replace("\"completed\"", "\"finished\""), "expected"),
        (good.replace("\"domain\"", "\"domian\""), "domian"),
        (good.replace("\"customer_support\"", "\"support\""), "domain"),
        (good.replacen('{', "", 1), "(json)"),
    ];
    for (text, field) in cases {
        let e = Scenario::from_json("S2-broken.json", &text, &domains()).unwrap_err();
        assert_eq!(e.file, "S2-broken.json");
        assert_eq!(e.field, field, "{e}");
        assert!(e.to_string().starts_with("S2-broken.json: field `"), "{e}");
    }
}

#[test]
fn a_broken_domain_file_names_the_field() {
    let good = scenario::DOMAINS[0].text;
    let e = Domain::from_json(
        "cs",
        "cs.json",
        &good.replace("\"fallback\": \"razorpay\"", "\"fallback\": \"paypal\""),
    )
    .unwrap_err();
    assert_eq!(e.field, "workflow.steps[1].fallback");
    let e = Domain::from_json("cs", "cs.json", &good.replace("\"cost\": 2}", "\"cost\": -2}")).unwrap_err();
    assert_eq!(e.field, "graph");
    assert!(e.message.contains("negative"), "{e}");
}
