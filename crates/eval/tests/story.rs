//! The page's teaching material: every scenario story is told at events SHR's run really has,
//! in order; the static workflow's moves replay its run (S6's skipped step and claimed
//! success); ReAct's trace has one step per LLM call.

use shr_eval::scenario::{self, story, Executor, WorkflowMove};

#[test]
fn every_story_step_is_told_at_an_event_of_the_run_in_order() {
    let mut told = 0;
    for sc in scenario::pack().unwrap() {
        if sc.story.is_empty() {
            continue;
        }
        let run = scenario::run(sc, Executor::Shr);
        let at = story::anchors(&sc.story, &run.events);
        let mut last = None;
        for (i, a) in at.iter().enumerate() {
            let a = a.unwrap_or_else(|| panic!("{}: story[{i}] `{}` never happens", sc.id, sc.story[i].at));
            assert!(a >= last, "{}: story[{i}] is told before the step it follows", sc.id);
            last = a;
        }
        told += 1;
    }
    // The first-visit tour: S1 -> S2 -> S6 -> S4.
    for id in ["S1", "S2", "S6", "S4"] {
        assert!(!scenario::get(id).unwrap().story.is_empty(), "{id} has no story");
    }
    assert_eq!(told, scenario::pack().unwrap().len(), "every scenario has its story");
}

#[test]
fn a_malformed_story_is_refused_with_the_field_named() {
    let domains = scenario::domains().unwrap();
    let base = serde_json::json!({
        "id": "X", "domain": "customer_support", "title": "x", "context": {}, "failures": [],
        "expected": {"status": "completed", "goal": "refund_done", "path": [], "escalations": []},
    });
    let bad = [
        (serde_json::json!([{"at": "start", "text": "a"}]), "story"),
        (
            serde_json::json!([{"at": "start", "text": "a"}, {"at": "failed:nope", "text": "b"}, {"at": "finished", "text": "c"}]),
            "story[1].at",
        ),
        (
            serde_json::json!([{"at": "start", "text": "a"}, {"at": "whenever", "text": "b"}, {"at": "finished", "text": "c"}]),
            "story[1].at",
        ),
        (
            serde_json::json!([{"at": "start", "text": "a", "highlight": ["crm->email"]}, {"at": "planned", "text": "b"}, {"at": "finished", "text": "c"}]),
            "story[0].highlight[0]",
        ),
        (
            serde_json::json!([{"at": "start", "text": "a", "show": "llm"}, {"at": "planned", "text": "b"}, {"at": "finished", "text": "c"}]),
            "story[0].show",
        ),
        (
            serde_json::json!([{"at": "start", "text": "a", "colour": "red"}, {"at": "planned", "text": "b"}, {"at": "finished", "text": "c"}]),
            "story",
        ),
    ];
    for (story, field) in bad {
        let mut doc = base.clone();
        doc["story"] = story;
        let e = scenario::Scenario::from_json("X.json", &doc.to_string(), &domains).unwrap_err();
        assert_eq!(e.field, field, "{e}");
    }
}

#[test]
fn s6_static_workflow_skips_the_notice_and_still_claims_success() {
    let (report, moves) = scenario::run_static_traced(&scenario::get("S6").unwrap());
    assert!(report.silent_failure);
    assert!(moves.iter().any(|m| matches!(m, WorkflowMove::Call { tool, ok: false, fallback_from: Some(from) } if tool == "sms" && from == "email")));
    assert!(moves
        .iter()
        .any(|m| matches!(m, WorkflowMove::Skip { tools, .. } if tools.contains(&"email".to_string()))));
    assert_eq!(moves.last(), Some(&WorkflowMove::Report { goal: "refund_done".into(), silent: true }));
    let calls = moves.iter().filter(|m| matches!(m, WorkflowMove::Call { .. })).count() as u32;
    assert_eq!(calls, report.tool_calls);
}

#[test]
fn react_has_one_recorded_step_per_llm_call() {
    for sc in scenario::pack().unwrap() {
        let run = scenario::run_react(sc, &Default::default());
        assert_eq!(run.steps.len() as u32, run.report.llm_calls, "{}", sc.id);
        for (i, s) in run.steps.iter().enumerate() {
            assert_eq!(s.llm_call, i as u32 + 1, "{}", sc.id);
        }
    }
}
