//! The ReAct baseline is an agent of its own: its counts come from its loop over a tool
//! catalogue, never from SHR's session, and change when its policy does while SHR's do not.

use shr_core::Status;
use shr_eval::scenario::react::{Order, PolicyError, ReactAction};
use shr_eval::scenario::{self, Executor, ReactConfig, RunReport, Scenario};

fn pack() -> Vec<Scenario> {
    scenario::pack().map(|p| p.to_vec()).expect("embedded scenario files parse")
}

fn counts(r: &RunReport) -> (u32, u32, Vec<String>) {
    (r.llm_calls, r.tool_calls, r.path.clone())
}

#[test]
fn react_source_never_touches_the_router() {
    let src = [include_str!("../src/scenario/react/mod.rs"), include_str!("../src/scenario/react/spec.rs")]
        .concat();
    let code: String =
        src.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    for banned in [
        "Router",
        "Session",
        "drive",
        "run_shr",
        "sim::",
        "Dijkstra",
        "algo::",
        ".cost",
        "out_edges",
        "in_edges",
    ] {
        assert!(!code.contains(banned), "react.rs uses `{banned}`");
    }
}

#[test]
fn react_counts_change_with_its_policy_and_shrs_do_not() {
    let mut changed = Vec::new();
    for s in pack() {
        let shr_before = scenario::run(&s, Executor::Shr);
        let ours = scenario::run_react(&s, &ReactConfig::default()).report;
        let reversed =
            scenario::run_react(&s, &ReactConfig { order: Order::Reversed, ..ReactConfig::default() }).report;
        if counts(&ours) != counts(&reversed) {
            changed.push(s.id.clone());
        }
        // The same scenario with the catalogue listed backwards: another prompt for ReAct,
        // nothing at all for SHR.
        let mut listed_backwards = s.clone();
        if let Some(spec) = &mut listed_backwards.react {
            spec.tools.reverse();
        }
        let backwards = scenario::run_react(&listed_backwards, &ReactConfig::default()).report;
        assert_eq!(
            counts(&backwards),
            counts(&reversed),
            "{}: the order of the catalogue is the policy's order",
            s.id
        );
        let shr_after = scenario::run(&listed_backwards, Executor::Shr);
        assert_eq!(counts(&shr_before), counts(&shr_after), "{}", s.id);
        assert_eq!(shr_before.events, shr_after.events, "{}", s.id);
    }
    // S2: Stripe down. Catalogue order tries Stripe first (a failure, one more call); reversed
    // order takes Razorpay first and never meets the failure.
    assert!(changed.contains(&"S2".to_string()), "{changed:?}");
    let s2 = scenario::get("S2").unwrap();
    let ours = scenario::run_react(&s2, &ReactConfig::default()).report;
    let reversed =
        scenario::run_react(&s2, &ReactConfig { order: Order::Reversed, ..ReactConfig::default() }).report;
    assert_eq!((ours.tool_calls, ours.llm_calls), (4, 5));
    assert_eq!((reversed.tool_calls, reversed.llm_calls), (3, 4));
    assert!(ours.correct && reversed.correct);
}

#[test]
fn react_steps_are_thought_action_observation_one_llm_call_each() {
    for s in pack() {
        let run = scenario::run_react(&s, &ReactConfig::default());
        let r = &run.report;
        assert_eq!(r.llm_calls as usize, run.steps.len(), "{}", s.id);
        let calls = run.steps.iter().filter(|st| matches!(st.action, ReactAction::Call { .. })).count();
        assert_eq!(r.tool_calls as usize, calls, "{}", s.id);
        assert!(run.steps.iter().all(|st| !st.thought.is_empty()), "{}", s.id);
        for (i, st) in run.steps.iter().enumerate() {
            assert_eq!(st.llm_call as usize, i + 1);
            match &st.action {
                ReactAction::Call { .. } => assert!(st.observation.is_some(), "{}", s.id),
                ReactAction::Finish { goal, status, .. } => {
                    assert_eq!(i + 1, run.steps.len(), "{}: finish is the last step", s.id);
                    assert_eq!((goal, *status), (&r.goal, r.status), "{}", s.id);
                }
            }
        }
        assert_eq!(r.recoveries, 0, "every ReAct recovery is reasoned");
        assert!(r.events.is_empty(), "no SHR events in a ReAct report");
    }
}

#[test]
fn after_a_failure_react_reasons_about_a_provider_of_the_same_capability() {
    let run = scenario::run_react(&scenario::get("S7").unwrap(), &ReactConfig::default());
    let actions: Vec<(&str, &str)> = run
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            ReactAction::Call { tool, capability } => Some((tool.as_str(), capability.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        actions,
        [
            ("crm", "lookup"),
            ("stripe", "payment"),
            ("razorpay", "payment"),
            ("email", "notify"),
            ("sms", "notify")
        ]
    );
    assert!(run.steps[2].thought.contains("`stripe` failed"), "{}", run.steps[2].thought);
    let last = run.steps.last().unwrap();
    assert!(
        matches!(&last.action, ReactAction::Finish { goal, status: Status::Demoted, .. } if goal == "notice_queued")
    );
    // The demotion came from the domain's decision table, the one SHR's escalations use.
    assert_eq!(run.report.escalations.len(), 1);
    assert_eq!(run.report.escalations[0].request.reason, shr_core::EscalationReason::NoPath);
}

#[test]
fn react_at_error_rate_zero_is_the_default_and_errors_are_seeded() {
    for s in pack() {
        let a = scenario::run_react(&s, &ReactConfig { error_rate: 0.0, seed: 99, ..ReactConfig::default() });
        assert_eq!(a.report, scenario::run(&s, Executor::React), "{}", s.id);
        let cfg = ReactConfig { error_rate: 0.3, seed: 7, ..ReactConfig::default() };
        assert_eq!(
            scenario::run_react(&s, &cfg),
            scenario::run_react(&s, &cfg),
            "{}: same seed, same run",
            s.id
        );
    }
}

#[test]
fn an_erring_llm_fails_silently_and_is_judged_for_it() {
    let mut kinds = std::collections::BTreeSet::new();
    let (mut silent, mut runs) = (0, 0);
    for seed in 0..40 {
        for s in pack() {
            let run =
                scenario::run_react(&s, &ReactConfig { error_rate: 0.3, seed, ..ReactConfig::default() });
            runs += 1;
            kinds.extend(run.steps.iter().filter_map(|st| st.error));
            if run.report.silent_failure {
                silent += 1;
                assert!(!run.report.correct, "{} seed {seed}: a silent failure is never correct", s.id);
            }
        }
    }
    assert!(silent > 0 && silent < runs, "{silent} of {runs}");
    assert_eq!(
        kinds,
        [PolicyError::WrongTool, PolicyError::EarlyDone, PolicyError::ForgetFailure].into_iter().collect(),
        "every kind of error happens"
    );
}

#[test]
fn early_done_claims_the_goal_without_its_steps_a_silent_failure() {
    // Find a seed whose first error on S1 declares the refund done early.
    let s1 = scenario::get("S1").unwrap();
    let run = (0..500)
        .map(|seed| {
            scenario::run_react(&s1, &ReactConfig { error_rate: 0.5, seed, ..ReactConfig::default() })
        })
        .find(|r| r.steps.first().and_then(|s| s.error) == Some(PolicyError::EarlyDone))
        .expect("some seed errs at the first step");
    assert_eq!(run.report.tool_calls, 0);
    assert_eq!(run.report.status, Status::Completed);
    assert!(run.report.silent_failure);
    assert!(!run.report.correct);
}

#[test]
fn a_catalogue_naming_a_missing_tool_is_refused_with_its_field() {
    let text = scenario::DOMAINS[0]
        .text
        .replace("\"tool\": \"crm\", \"description\"", "\"tool\": \"crn\", \"description\"");
    let e = scenario::Domain::from_json("customer_support", "customer_support.json", &text).unwrap_err();
    assert_eq!(e.field, "react.tools[0].tool", "{e}");
    let text = scenario::DOMAINS[0].text.replace("\"before\": \"payment\"", "\"before\": \"paymnet\"");
    let e = scenario::Domain::from_json("customer_support", "customer_support.json", &text).unwrap_err();
    assert_eq!(e.field, "react.policies[0].before", "{e}");
    let text = scenario::DOMAINS[0].text.replace("\"capability\": \"payment\"}", "\"capability\": \"pay\"}");
    let e = scenario::Domain::from_json("customer_support", "customer_support.json", &text).unwrap_err();
    assert!(e.field.starts_with("react.goals[") || e.field.starts_with("mock_llm["), "{e}");
}

#[test]
fn an_imported_graph_gets_a_catalogue_from_its_stages_or_none() {
    let domain = scenario::domains().unwrap().remove(0);
    let imported = Scenario::from_graph(domain.graph.clone());
    let r = scenario::run(&imported.with_down(&["stripe".into()]), Executor::React);
    assert_eq!(r.status, Status::Completed);
    assert_eq!(r.path, ["start", "crm", "razorpay", "email", "refund_done"]);
    assert!(r.correct, "{:?}", r.problems);
    let bare = shr_core::ToolGraph::from_json(
        r#"{"nodes":[{"id":"a","tool":false},{"id":"t"},{"id":"b","tool":false}],
            "edges":[{"from":"a","to":"t"},{"from":"t","to":"b"}],"start":"a","goal":"b"}"#,
    )
    .unwrap();
    let r = scenario::run(&Scenario::from_graph(bare), Executor::React);
    assert!(!r.correct);
    assert_eq!(r.llm_calls, 0);
    assert!(r.problems[0].contains("no tool catalogue"), "{:?}", r.problems);
}

#[test]
fn literal_readings_give_the_outcomes_the_paper_does_not_report() {
    let readings = scenario::literal_readings().unwrap();
    let get = |id: &str| readings.iter().find(|r| r.scenario.id == id).unwrap_or_else(|| panic!("{id}"));
    // T5 as written: hotel and car down, each with a backup: rerouted, no LLM call.
    let t5 = scenario::run(&get("T5-lit").scenario, Executor::Shr);
    assert!(t5.correct, "{:?}", t5.problems);
    assert_eq!((t5.llm_calls, t5.status), (0, Status::Completed));
    // T6 as written: one failure a stage, each with its coded fallback: the static workflow is
    // not silent.
    let t6 = scenario::run(&get("T6-lit").scenario, Executor::Static);
    assert!(t6.correct && !t6.silent_failure, "{:?}", t6.problems);
    // The single-classifier topology: one classifier and the queue, the paper's 2 tools.
    let m1 = scenario::run(&get("M1-1clf").scenario, Executor::Shr);
    assert_eq!(m1.tool_calls, 2);
    for r in &readings {
        for ex in Executor::ALL {
            let run = scenario::run(&r.scenario, ex);
            assert!(run.correct, "{} {ex:?}: {:?}", r.scenario.id, run.problems);
        }
    }
}
