//! Arbitrary sequences of session operations on a small arbitrary graph.
//!
//! The host is hostile: it reports tools that were never called (or do not exist), reports
//! twice, answers escalations that were never asked, demotes to unknown goals, lets the clock go
//! backwards or jump to the end of time. The session must never panic, never ask the host to
//! wait with nothing in flight, never call a tool it routed around, keep its budgets, and when
//! it finishes keep the DESIGN section 7 invariants (observability, no silent skipped step).
//! The same input must give the same events (determinism).
#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use shr_core::audit_completion;
use shr_core::check_observability;
use shr_core::event::{to_json_lines, EventKind};
use shr_core::{
    Action, BreakerConfig, Category, Decision, Monitors, Session, SessionConfig, Status, Task, ToolGraph,
};

#[path = "session_ops/input.rs"]
mod input;
use input::*;

/// What the host knows, to check the session against.
struct Host {
    now: u64,
    in_flight: BTreeSet<String>,
    /// Tools the session routed around (failed or refused, not retried): never called again.
    avoided: BTreeSet<String>,
    redirected: bool,
    start: usize,
}

impl Host {
    fn tick(&mut self, c: Clock) -> u64 {
        self.now = match c {
            Clock::Same => self.now,
            Clock::Advance(d) => self.now.saturating_add(d as u64),
            Clock::AdvanceBig(d) => self.now.saturating_add(d as u64),
            Clock::Back(d) => self.now.saturating_sub(d as u64),
            Clock::Jump(t) => t,
        };
        self.now
    }
}

fn check_events(s: &Session) {
    let mut last = 0;
    for (i, e) in s.events().iter().enumerate() {
        assert_eq!(e.seq as usize, i, "event seq out of order");
        assert!(e.at >= last, "event clock went backwards: {} after {last}", e.at);
        last = e.at;
    }
}

fn next(s: &mut Session, h: &mut Host, graph: &ToolGraph, config: &SessionConfig) -> Action {
    let action = s.next(h.now);
    check_events(s);
    match &action {
        Action::Wait => assert!(!h.in_flight.is_empty(), "asked to wait with nothing in flight"),
        Action::Pause { until } => assert!(*until > h.now, "paused until a time already passed"),
        Action::CallTools { calls } => {
            assert!(!calls.is_empty(), "CallTools with no call");
            for c in calls {
                assert!(graph.index(&c.tool).is_some_and(|v| graph.node(v).tool), "called a non-tool");
                assert!(h.in_flight.insert(c.tool.clone()), "called {} while in flight", c.tool);
                if !h.redirected {
                    assert!(!h.avoided.contains(&c.tool), "called {} after routing around it", c.tool);
                }
            }
            if !h.redirected {
                assert!(s.tool_calls() <= config.tool_budget, "tool budget exceeded");
            }
            check_observability(s.events()).unwrap();
        }
        Action::Escalate { .. } => {
            assert!(s.escalation().is_some());
            check_observability(s.events()).unwrap();
        }
        Action::Finished { outcome } => {
            assert!(s.llm_calls() <= config.escalation_budget, "escalation budget exceeded");
            check_observability(s.events()).unwrap();
            assert_ne!(outcome.message.as_deref(), Some("session made no progress"), "endless loop cut");
            let finished = s.events().iter().filter(|e| matches!(e.kind, EventKind::Finished { .. })).count();
            assert_eq!(finished, 1, "Finished events");
            assert!(matches!(s.events().last().map(|e| &e.kind), Some(EventKind::Finished { .. })));
            // The executed path is completed work in completion order; the rest was abandoned.
            let all: Vec<&str> = s.completed().collect();
            let mut rest = all.iter();
            assert!(
                outcome.path.iter().all(|p| rest.any(|d| d == p)),
                "path {:?} is not completed work in order {all:?}",
                outcome.path
            );
            if outcome.status != Status::Escalated && !h.redirected {
                let done: Vec<usize> = outcome.path.iter().filter_map(|id| graph.index(id)).collect();
                let goal = graph.index(&outcome.goal).unwrap();
                let start = h.start;
                if let Err(e) = audit_completion(graph, start, &done, goal) {
                    panic!("{:?} with a required step missing: {e}", outcome.status);
                }
            }
            if outcome.status == Status::Completed {
                assert_eq!(outcome.goal, outcome.original_goal);
            }
        }
    }
    action
}

fn report(s: &mut Session, h: &mut Host, tool: &str, r: ResultGen) {
    let before = s.events().len();
    match s.report(tool, result(r), h.now) {
        Ok(()) => {
            assert!(h.in_flight.remove(tool), "report of {tool} accepted while not in flight");
            let new = &s.events()[before..];
            let routed_around = new.iter().any(|e| matches!(&e.kind, EventKind::ToolFailed { tool: t, category, .. } if t == tool && *category != Category::Input))
                && !new.iter().any(|e| matches!(&e.kind, EventKind::Retried { tool: t, .. } if t == tool));
            if routed_around {
                h.avoided.insert(tool.to_string());
            }
        }
        Err(shr_core::SessionError::Finished) => assert!(s.is_finished()),
        Err(_) => {
            assert!(!h.in_flight.contains(tool) || s.is_finished(), "refused a report of {tool} in flight")
        }
    }
    check_events(s);
}

fn run(input: &Input) -> Option<String> {
    let graph = graph(input);
    let n = graph.node_count();
    let mut context = shr_core::Context::new();
    if let Some((_, amount)) = input.risk {
        context.insert("amount".into(), json!(amount as f64 * 2.0));
    }
    if !input.known_bad.is_empty() {
        let bad: Vec<Value> = input.known_bad.iter().take(4).map(|&b| json!(node_or_ghost(b, n))).collect();
        context.insert("known_bad".into(), Value::Array(bad));
    }
    if let Some((_, hit)) = input.intent {
        context.insert("request".into(), json!(if hit { "Please REFUND order 7" } else { "hello" }));
    }
    let task = Task {
        id: None,
        goal: input.task_goal.map(|g| node_or_ghost(g, n)),
        start: input.task_start.map(|g| node_or_ghost(g, n)),
        context,
    };
    let mut breaker = BreakerConfig::default();
    if let Some((consecutive, min_calls, cooldown, probes, window)) = input.breaker {
        breaker.consecutive_failures = consecutive as u32 % 5;
        breaker.min_calls = min_calls as u32 % 6;
        breaker.cooldown_ms = cooldown as u64 * 100;
        breaker.half_open_probes = probes as u32 % 3;
        breaker.window_calls = window as usize % 8;
        breaker.failure_rate = [0.0, 0.5, 1.0][(window / 8) as usize % 3];
    }
    let config = SessionConfig {
        tool_budget: input.tool_budget as u32 % 40,
        escalation_budget: input.escalation_budget as u32 % 6,
        visit_budget: input.visit_budget as u32 % 6,
        breaker,
        ..SessionConfig::default()
    };
    let Ok(mut s) =
        Session::with_parts(graph.clone(), task.clone(), config, Monitors::default(), input.start_clock)
    else {
        let goal_ok = task.goal.as_ref().is_none_or(|g| graph.index(g).is_some());
        let start_ok = task.start.as_ref().is_none_or(|g| graph.index(g).is_some());
        assert!(!(goal_ok && start_ok && config.check().is_ok()), "a valid task was refused");
        return None;
    };
    let start = task.start.as_ref().and_then(|id| graph.index(id)).unwrap_or(graph.start());
    let mut h = Host {
        now: input.start_clock,
        in_flight: BTreeSet::new(),
        avoided: BTreeSet::new(),
        redirected: false,
        start,
    };

    for op in input.ops.iter().take(200) {
        match *op {
            Op::Next(c) => {
                h.tick(c);
                next(&mut s, &mut h, &graph, &config);
            }
            Op::ReportCall { pick, result, clock } => {
                h.tick(clock);
                let tool = if h.in_flight.is_empty() {
                    node_or_ghost(pick, n)
                } else {
                    h.in_flight.iter().nth(pick as usize % h.in_flight.len()).unwrap().clone()
                };
                report(&mut s, &mut h, &tool, result);
            }
            Op::ReportNode { node, result, clock } => {
                h.tick(clock);
                report(&mut s, &mut h, &node_or_ghost(node, n), result);
            }
            Op::ReportAll { result, clock } => {
                h.tick(clock);
                let all: Vec<String> = h.in_flight.iter().cloned().collect();
                for tool in all {
                    report(&mut s, &mut h, &tool, result);
                }
            }
            Op::Resolve { decision, clock } => {
                h.tick(clock);
                let had = s.escalation().is_some();
                let was_finished = s.is_finished();
                let d = match decision {
                    DecisionGen::Demote(g) => Decision::Demote { goal: node_or_ghost(g, n) },
                    DecisionGen::Approve => Decision::Approve,
                    DecisionGen::Abort => Decision::Abort { message: "fuzz abort".into() },
                    DecisionGen::HandOff => Decision::HandOff { to: "a person".into() },
                };
                let unknown = matches!(&d, Decision::Demote { goal } if graph.index(goal).is_none());
                let r = s.resolve_escalation(d, h.now);
                if was_finished {
                    assert!(r.is_err(), "a finished session accepted a decision");
                } else if !had {
                    assert!(r.is_err(), "resolved an escalation that was never asked");
                } else if unknown {
                    assert!(
                        r.is_err() && s.escalation().is_some(),
                        "unknown goal accepted or lost escalation"
                    );
                } else {
                    assert!(r.is_ok());
                }
                check_events(&s);
            }
            Op::Redirect { node, clock } => {
                h.tick(clock);
                let tool = node_or_ghost(node, n);
                let finished = s.is_finished();
                match s.redirect(&tool, h.now) {
                    Ok(call) => {
                        h.redirected = true;
                        h.in_flight.clear();
                        h.in_flight.insert(call.tool);
                    }
                    Err(_) => {
                        if !finished && graph.index(&tool).is_some() {
                            // Cancelled everything and dispatched nothing.
                            h.redirected = true;
                            h.in_flight.clear();
                        }
                    }
                }
                check_events(&s);
            }
        }
        if s.is_finished() {
            // Terminal: nothing more is accepted and next keeps saying Finished.
            assert!(matches!(s.next(h.now), Action::Finished { .. }));
            assert!(s
                .report("n0", result(ResultGen::Ok { ok_field: None, count: 1, latency: 9 }), h.now)
                .is_err());
            assert!(s.resolve_escalation(Decision::Approve, h.now).is_err());
        }
    }

    // A well-behaved host finishes the task: every call succeeds, escalations are aborted.
    for _ in 0..500 {
        h.tick(Clock::Advance(10));
        match next(&mut s, &mut h, &graph, &config) {
            Action::CallTools { .. } | Action::Wait | Action::Pause { .. } => {
                let all: Vec<String> = h.in_flight.iter().cloned().collect();
                for tool in all {
                    report(
                        &mut s,
                        &mut h,
                        &tool,
                        ResultGen::Ok { ok_field: Some(true), count: 1, latency: 9 },
                    );
                }
            }
            Action::Escalate { .. } => {
                s.resolve_escalation(Decision::Abort { message: "fuzz: give up".into() }, h.now).unwrap();
            }
            Action::Finished { .. } => return Some(to_json_lines(s.events())),
        }
    }
    panic!("the session did not finish under a well-behaved host");
}

fuzz_target!(|input: Input| {
    let a = run(&input);
    let b = run(&input);
    assert_eq!(a, b, "same input, different events");
});
