//! The fault model beyond outages: seed 003's structured error categories (golden event
//! streams), validators catching implicit failures, and the ToolMaze matrix properties.

use serde_json::json;
use shr_core::check_observability;
use shr_core::drive::FnHost;
use shr_core::event::to_json_lines;
use shr_core::{
    Call, Category, Decision, EscalationReason, EscalationRequest, Performed, Session, Status, Task,
    ToolFailure, ToolGraph, ToolResult,
};
use shr_eval::perturb::corrupt::corrupt;
use shr_eval::perturb::world::{Record, EPOCH_MS};
use shr_eval::perturb::{self, Arm, Complexity, Duration, Family, FaultProfile, Mode, Policy, Setup};

/// start -> book (retry 2) | book_alt (cost 3) -> done. `book` validates its output.
fn graph() -> ToolGraph {
    ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},
            {"id":"book","retry":{"attempts":2,"backoff_ms":100},
             "validators":[{"field":"slots","non_empty":true},{"field":"count","min":0}]},
            {"id":"book_alt"},{"id":"done","tool":false}],
           "edges":[{"from":"start","to":"book"},{"from":"start","to":"book_alt","cost":3},
                    {"from":"book","to":"done"},{"from":"book_alt","to":"done"}],
           "start":"start","goal":"done"}"#,
    )
    .unwrap()
}

fn fail(category: Category, transient: bool, message: &str, agent_action: Option<&str>) -> ToolResult {
    ToolResult::Err(ToolFailure {
        category,
        transient,
        message: message.into(),
        agent_action: agent_action.map(String::from),
        latency_ms: 5.0,
    })
}

/// Drives the graph: `book` answers from `script` in turn, `book_alt` always succeeds;
/// escalations get `decision`.
fn drive(graph: ToolGraph, mut script: Vec<ToolResult>, decision: Decision) -> Session {
    script.reverse();
    let mut s = Session::new(graph, Task::default(), 0).unwrap();
    let call = |c: &Call| {
        let result = if c.tool == "book" {
            script.pop().unwrap_or_else(|| ToolResult::ok(json!({"slots": [1], "count": 1}), 5.0))
        } else {
            ToolResult::ok(json!({}), 5.0)
        };
        Performed { result, latency_ms: 10 }
    };
    s.drive(&mut FnHost::new(call, |_: &EscalationRequest| decision.clone()), 0);
    check_observability(s.events()).unwrap();
    s
}

fn golden(name: &str, s: &Session) {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/errors_{name}.jsonl"));
    let got = to_json_lines(s.events());
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "{name} differs from {}", path.display());
}

const ASK_DATE: &str = "The date format was not recognized. Ask the patient to provide the date in Month Day format, for example 'July 15th'.";

#[test]
fn input_error_escalates_with_agent_action_verbatim_and_is_terminal_on_abort() {
    let s = drive(
        graph(),
        vec![fail(Category::Input, false, "invalid_date_format", Some(ASK_DATE))],
        Decision::Abort { message: "asked the patient".into() },
    );
    let req = s.events().iter().find_map(|e| match &e.kind {
        shr_core::EventKind::Escalated { reason, agent_action, .. } => Some((*reason, agent_action.clone())),
        _ => None,
    });
    assert_eq!(req, Some((EscalationReason::Input, Some(ASK_DATE.to_string()))));
    assert_eq!(s.outcome().unwrap().status, Status::Escalated);
    assert_eq!(s.tool_calls(), 1, "terminal escalation: no further tool calls");
    assert_eq!(s.health().state(1), shr_core::BreakerState::Closed, "input errors never trip a breaker");
    golden("input", &s);
}

#[test]
fn transient_service_error_is_retried_then_succeeds() {
    let s = drive(graph(), vec![ToolResult::transient("api_timeout")], Decision::Approve);
    let o = s.outcome().unwrap();
    assert_eq!(o.path, ["start", "book", "done"]);
    assert_eq!(o.retries, 1);
    golden("service_transient", &s);
}

#[test]
fn exhausted_retries_reroute_to_the_alternative() {
    let t = || ToolResult::transient("api_timeout");
    let s = drive(graph(), vec![t(), t(), t()], Decision::Approve);
    let o = s.outcome().unwrap();
    assert_eq!(o.path, ["start", "book_alt", "done"]);
    assert_eq!((o.retries, o.reroutes), (2, 1));
    golden("service_exhausted", &s);
}

#[test]
fn permanent_service_error_skips_retries() {
    let s = drive(
        graph(),
        vec![fail(Category::Service, false, "AccountQuotaExhausted", None)],
        Decision::Approve,
    );
    let o = s.outcome().unwrap();
    assert_eq!((o.retries, o.reroutes), (0, 1));
    assert_eq!(o.path, ["start", "book_alt", "done"]);
}

#[test]
fn policy_error_reroutes_to_an_alternative() {
    let action = "The patient is out-of-network; offer a referral to an in-network provider.";
    let s = drive(
        graph(),
        vec![fail(Category::Policy, false, "out_of_network", Some(action))],
        Decision::Approve,
    );
    assert_eq!(s.outcome().unwrap().path, ["start", "book_alt", "done"]);
    golden("policy_reroute", &s);
}

#[test]
fn policy_error_without_alternative_escalates_with_reason_policy() {
    let g = ToolGraph::from_json(
        r#"{"nodes":[{"id":"start","tool":false},{"id":"book"},{"id":"done","tool":false}],
           "edges":[{"from":"start","to":"book"},{"from":"book","to":"done"}],"start":"start","goal":"done"}"#,
    )
    .unwrap();
    let action = "Let them know they can still be seen but will have higher cost-sharing.";
    let s = drive(
        g,
        vec![fail(Category::Policy, false, "out_of_network", Some(action))],
        Decision::Abort { message: "told the patient".into() },
    );
    let esc = s.events().iter().find_map(|e| match &e.kind {
        shr_core::EventKind::Escalated { reason, agent_action, .. } => Some((*reason, agent_action.clone())),
        _ => None,
    });
    assert_eq!(esc, Some((EscalationReason::Policy, Some(action.to_string()))));
    assert_eq!(s.outcome().unwrap().status, Status::Escalated);
    golden("policy_escalate", &s);
}

#[test]
fn a_result_failing_its_validator_is_an_implicit_failure() {
    let wrong = ToolResult::ok(json!({"slots": [], "count": 0}), 5.0);
    let s = drive(graph(), vec![wrong.clone(), wrong.clone(), wrong], Decision::Approve);
    let implicit = s
        .events()
        .iter()
        .filter(|e| matches!(&e.kind, shr_core::EventKind::ToolFailed { implicit: true, .. }))
        .count();
    assert_eq!(implicit, 3);
    assert_eq!(s.outcome().unwrap().path, ["start", "book_alt", "done"]);
    golden("implicit", &s);
}

/// Families the contract always notices (measured by `detection`, asserted here): on those,
/// an implicit failure is handled exactly like an explicit one.
#[test]
fn detected_families_recover_like_explicit_failures() {
    let generated = perturb::tasks(20, 7);
    let table = perturb::detection(&generated);
    let always: Vec<Family> =
        table.families.iter().filter(|d| d.validators == d.outputs).map(|d| d.family).collect();
    assert!(always.contains(&Family::WrongSign) && always.contains(&Family::Stale), "{always:?}");
    for ts in &generated {
        for task in ts {
            let fault = FaultProfile { target: task.victim.clone(), mode: Mode::P2 };
            let explicit = perturb::run_with(task, &fault, &Setup::default()).flags;
            for &family in &always {
                let setup = Setup { family, ..Setup::default() };
                let fault = FaultProfile { target: task.victim.clone(), mode: Mode::P4 };
                let implicit = perturb::run_with(task, &fault, &setup).flags;
                assert!(implicit.perturbed && implicit.recovered, "{} {family:?}", task.id);
                assert_eq!(implicit.success, explicit.success, "{} {family:?}", task.id);
                if !task.has_alternative {
                    assert!(
                        implicit.escalated && !implicit.success,
                        "{}: must escalate, never continue",
                        task.id
                    );
                }
            }
        }
    }
}

/// Where the contract cannot see a wrong value, SHR completes on wrong data, and the table says
/// so: the undetectable rows count against it.
#[test]
fn undetected_wrong_values_count_against_shr() {
    let generated = perturb::tasks(20, 7);
    let m = perturb::matrix(&generated, Arm::Validators);
    let row = m.rows.iter().position(|r| r.mode == Mode::P4 && r.family == Some(Family::Plausible)).unwrap();
    assert!(m.cells[row].iter().any(|c| c.prr.unwrap() < 1.0), "{:?}", m.cells[row]);
}

/// A fault of k calls is outlasted by a policy with k retries, on the same tool, unless the
/// breaker opens first (3 consecutive failures, the default): then the run reroutes.
#[test]
fn retries_outlast_faults_of_few_calls() {
    let trips = shr_core::BreakerConfig::default().consecutive_failures;
    for seed in 0..200 {
        let task = perturb::generate(Complexity::C1, seed);
        let Duration::Calls(k) = task.duration else { continue };
        let fault = FaultProfile { target: task.victim.clone(), mode: Mode::P1 };
        for policy in Policy::ALL {
            let r = perturb::run_with(&task, &fault, &Setup { policy, ..Setup::default() }).flags;
            if policy.retry().attempts >= k && k < trips {
                assert!(r.success, "{} k={k} {policy:?}", task.id);
                assert_eq!(r.tool_calls, r.optimal_calls + k, "{} k={k} {policy:?}", task.id);
            }
        }
    }
}

#[test]
fn the_ablation_shows_the_implicit_failure_blind_spot() {
    let generated = perturb::tasks(20, 7);
    let with = perturb::matrix(&generated, Arm::Validators);
    let without = perturb::matrix(&generated, Arm::NoValidators);
    for (ri, row) in with.rows.iter().enumerate() {
        for ci in 0..4 {
            let (a, b) = (with.cells[ri][ci], without.cells[ri][ci]);
            if row.mode.implicit() {
                assert!(b.tsr <= a.tsr, "{row:?}: the ablation cannot do better");
                assert_eq!(b.tsr, 0.0, "{row:?}: every family breaks every answer, and nobody looks");
            } else {
                assert_eq!(a.tsr, b.tsr, "{row:?}: explicit failures do not need validators");
            }
        }
    }
}

#[test]
fn every_family_breaks_every_clean_answer_deterministically() {
    let record = Record::draw(3);
    let clean = record.answer(1, EPOCH_MS);
    for family in Family::ALL {
        let (wrong, broken) = corrupt(&clean, family, 11);
        assert!(broken && wrong != clean, "{family:?}");
        assert_eq!(corrupt(&clean, family, 11), (wrong, true), "{family:?}");
    }
}

/// The injector is written without the validators: its source names no module of theirs, and
/// no string or number it holds appears in the contract or in the validators' code.
#[test]
fn the_injector_and_the_validators_share_no_code_or_constants() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let injector = read("src/perturb/corrupt.rs");
    let contract_code = read("src/perturb/contract.rs");
    let contract = read("contracts/record_api.json");
    let validators = read("../core/src/validate.rs");
    for name in ["contract", "validate", "Validator", "judge", "world", "Record"] {
        assert!(
            !injector.lines().any(|l| l.trim_start().starts_with("use") && l.contains(name)),
            "the injector imports `{name}`"
        );
    }
    // The contract module imports the validators and the data file only.
    assert!(!contract_code.contains("corrupt"), "the contract reads the injector");
    let code_of = |text: &str| -> String {
        // Comments and attributes (`#[serde(rename_all = ...)]`) are not knowledge of a tool.
        text.lines()
            .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with("#["))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let literals = |text: &str| -> Vec<String> {
        let text = code_of(text);
        let mut out = Vec::new();
        for (i, part) in text.split('"').enumerate() {
            if i % 2 == 1 && !part.is_empty() {
                out.push(format!("\"{part}\""));
            }
        }
        out
    };
    let numbers = |text: &str| -> Vec<String> {
        code_of(text)
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
            .map(|t| t.trim_matches('.').replace('_', ""))
            .filter(|t| t.chars().next().is_some_and(|c| c.is_ascii_digit()))
            // 0, 1, 2 and 10 (a digit's base, halving) are arithmetic, not knowledge of a tool.
            .filter(|t| !["0", "1", "2", "10", "0.0", "1.0"].contains(&t.as_str()))
            .collect()
    };
    for lit in literals(&injector) {
        assert!(!contract.contains(&lit), "the injector and the contract share {lit}");
        assert!(!code_of(&validators).contains(&lit), "the injector and the validators share {lit}");
    }
    let theirs: Vec<String> = [numbers(&contract), numbers(&validators)].concat();
    for n in numbers(&injector) {
        assert!(!theirs.contains(&n), "the injector and the validators share the number {n}");
    }
}

#[test]
fn generation_is_deterministic() {
    let a = perturb::generate(Complexity::C4, 11);
    let b = perturb::generate(Complexity::C4, 11);
    assert_eq!(a.spec, b.spec);
    assert_eq!(a.victim, b.victim);
    assert_eq!((a.record, a.duration), (b.record, b.duration));
    assert_ne!(perturb::generate(Complexity::C4, 12).spec, a.spec);
}
