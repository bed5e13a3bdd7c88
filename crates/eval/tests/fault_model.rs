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
use shr_eval::perturb::{
    self, contract, template, Arm, Complexity, Duration, Family, FaultProfile, Mode, Policy, Setup,
};

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

/// Families the victim's contract always notices (measured by `detection`, asserted here): on
/// those, an implicit failure is handled exactly like an explicit one.
#[test]
fn detected_families_recover_like_explicit_failures() {
    let generated = perturb::tasks(20, 7);
    let table = perturb::detection(&generated);
    let always: Vec<Family> =
        table.families.iter().filter(|d| d.validators == d.outputs).map(|d| d.family).collect();
    assert!(always.contains(&Family::Empty) && always.contains(&Family::WrongEntity), "{always:?}");
    for ts in &generated {
        for task in ts {
            let fault = FaultProfile { target: task.victim.clone(), mode: Mode::P2 };
            let explicit = perturb::run_with(task, &fault, &Setup::default()).flags;
            for &family in &always {
                let setup = Setup { family, ..Setup::default() };
                let fault = FaultProfile { target: task.victim.clone(), mode: Mode::P4 };
                let implicit = perturb::run_with(task, &fault, &setup).flags;
                // A family with nothing to break in the victim's shape (a lookup has no list to
                // truncate) leaves the run unperturbed.
                let clean = task.record.answer(task.contract_of(&task.victim), 0, EPOCH_MS);
                if !corrupt(&clean, family, 0).1 {
                    assert!(!implicit.perturbed && implicit.success, "{} {family:?}", task.id);
                    continue;
                }
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
    let table = perturb::detection(&generated);
    let plausible = table.families.iter().find(|d| d.family == Family::Plausible).unwrap();
    assert!(plausible.validators < plausible.outputs, "{plausible:?}");
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

/// A fault of t ms: an immediate retry comes back within one call's latency, a backed-off retry
/// later, so backoff outlasts more of them. Each retry of the backoff policy goes out no sooner
/// than the immediate one would, and a fault of t ms is a prefix of time, so where the immediate
/// retry succeeds the backoff succeeds too; over all tasks, backoff succeeds strictly more.
#[test]
fn backoff_outlasts_timed_faults_that_one_retry_does_not() {
    let (mut timed, mut one, mut backoff) = (0, 0, 0);
    for complexity in Complexity::ALL {
        for seed in 0..100 {
            let task = perturb::generate(complexity, seed);
            let Duration::Millis(t) = task.duration else { continue };
            timed += 1;
            let fault = FaultProfile { target: task.victim.clone(), mode: Mode::P1 };
            let run = |policy| perturb::run_with(&task, &fault, &Setup { policy, ..Setup::default() }).flags;
            let (a, b) = (run(Policy::OneRetry), run(Policy::Backoff));
            assert!(a.perturbed && b.perturbed, "{} t={t}", task.id);
            assert!(!a.success || b.success, "{} t={t}: one retry succeeds where backoff fails", task.id);
            one += u32::from(a.success);
            backoff += u32::from(b.success);
        }
    }
    assert!(timed > 100, "{timed} timed faults");
    assert!(backoff > one, "TSR on {timed} timed faults: backoff {backoff}, one retry {one}");
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
                // Every perturbed run hands over wrong data, and nobody looks.
                assert!(b.prr.is_none_or(|p| p == 0.0), "{row:?}: {b:?}");
            } else {
                assert_eq!(a.tsr, b.tsr, "{row:?}: explicit failures do not need validators");
            }
        }
    }
}

#[test]
fn every_contract_parses_and_every_template_names_known_contracts() {
    for name in contract::NAMES {
        let c = contract::load(name).unwrap_or_else(|| panic!("contracts/{name}.json does not parse"));
        assert!(!c.validators.is_empty() && !c.contract.is_empty(), "{name}");
        for v in &c.validators {
            v.check_spec().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    let mut used = std::collections::BTreeSet::new();
    for complexity in Complexity::ALL {
        let t = template::of(complexity).unwrap_or_else(|| panic!("tasks/perturb.json lacks {complexity:?}"));
        for stage in t.branches.iter().flatten() {
            assert!(contract::NAMES.contains(&stage.as_str()), "{complexity:?}: unknown contract {stage}");
            used.insert(stage.clone());
        }
    }
    assert_eq!(used.len(), contract::NAMES.len(), "every contract is some stage's");
}

/// Every tool declares its own contract's validators, and its clean answers keep that contract.
#[test]
fn each_tool_declares_and_keeps_its_own_contract() {
    let mut shapes = std::collections::BTreeSet::new();
    for complexity in Complexity::ALL {
        for seed in 0..30 {
            let task = perturb::generate(complexity, seed);
            let graph = ToolGraph::from_spec(task.spec.clone()).unwrap();
            let context = task.record.context().into_iter().collect();
            for node in task.spec.nodes.iter().filter(|n| n.tool) {
                let name = task.contract_of(&node.id);
                assert_eq!(node.validators, contract::validators(name), "{} {}", task.id, node.id);
                let answer = task.answer(&graph, &node.id, EPOCH_MS);
                let scope = shr_core::validate::Scope { context: &context, now: EPOCH_MS + 50 };
                shr_core::validate::check_all(&node.validators, &answer, &scope)
                    .unwrap_or_else(|e| panic!("{} {} ({name}): {e:?}", task.id, node.id));
                shapes.insert(name.to_string());
            }
        }
    }
    assert_eq!(shapes.len(), contract::NAMES.len());
}

/// Every family either breaks a clean answer or says it found nothing to break (a lookup has no
/// list to truncate); each breaks some contract's answers; all of it deterministically.
#[test]
fn every_family_breaks_what_it_can_deterministically() {
    let record = Record::draw(3);
    for family in Family::ALL {
        let mut broke = 0;
        for name in contract::NAMES {
            let clean = record.answer(name, 1, EPOCH_MS);
            let (wrong, broken) = corrupt(&clean, family, 11);
            assert_eq!(broken, wrong != clean, "{family:?} {name}");
            assert_eq!(corrupt(&clean, family, 11), (wrong, broken), "{family:?} {name}");
            broke += u32::from(broken);
        }
        assert!(broke > 0, "{family:?} breaks nothing");
    }
}

#[test]
fn recovery_cost_is_undefined_without_a_successful_run() {
    let generated = perturb::tasks(10, 7);
    let m = perturb::matrix(&generated, Arm::NoValidators);
    for (row, cells) in m.rows.iter().zip(&m.cells) {
        for c in cells {
            assert_eq!(c.rc.is_none(), c.tsr == 0.0, "{row:?}: {c:?}");
        }
    }
}

/// Every table reads the same runs the same way: the arms table's pooled cells are `Metrics::of`
/// over the pooled runs, so they equal the retry-policy table's one-retry rows.
#[test]
fn pooled_metrics_agree_across_tables() {
    let generated = perturb::tasks(6, 7);
    let m = perturb::matrix(&generated, Arm::Validators);
    for row in perturb::policies(&generated).iter().filter(|r| r.policy == Policy::OneRetry) {
        let i = Mode::ALL.iter().position(|&mode| mode == row.mode).unwrap();
        assert_eq!(m.pooled[i], row.metrics, "{:?}", row.mode);
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
