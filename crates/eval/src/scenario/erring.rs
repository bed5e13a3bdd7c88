//! Monitors that err (issue 47; seed 000 section 5.4 "Module accuracy": the paper assumes perfect
//! intent and risk monitors). The intent and risk monitors are wrapped with seeded error rates,
//! as the ReAct agent has an LLM error rate, and SHR runs the scenarios and the sweep with them.
//!
//! The error model, each decision drawn from a SplitMix64 stream seeded per run:
//! - **intent, false positive** (`intent_fp`): at a decision point the request is read as an
//!   intent it does not state (`misread`, whether or not it states one), with a confidence drawn
//!   uniformly in [0.5, 1): a classifier that is wrong is not less sure of itself. Intent signals only say "carry on", so such a misread
//!   matters only when it outbids a correct signal (a risk at 0.95, a tool down at 0.99).
//! - **intent, false negative** (`intent_fn`): the request's stated intent is missed (routine,
//!   0.5). One draw decides both: below `intent_fp` a misread, then below `intent_fp +
//!   intent_fn` a miss.
//! - **risk, false positive** (`risk_fp`): before a guarded stage whose value is within bounds,
//!   the risk monitor fires anyway (its rule's priority, the true value beside `max`).
//! - **risk, false negative** (`risk_fn`): a risk signal the monitor should raise is dropped.
//!
//! Every misread signal is recognisable in the event stream (an intent named [`MISREAD`], a
//! risk whose value is within its bound), so the run itself says whether the priority
//! competition absorbed it (another signal won) or it won.

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use serde::Serialize;

use super::{judge, sim, Executor, RunReport, Scenario};
use shr_core::event::EventKind;
use shr_core::monitor::{
    DecisionView, IntentMonitor, MemoryMonitor, Monitor, MonitorKind, Monitors, ProgressMonitor, RiskMonitor,
    Signal, SignalKind, ToolHealthMonitor,
};
use shr_core::{Router, SessionConfig};

/// The intent a misreading intent monitor reports.
pub const MISREAD: &str = "misread";

/// Error rates of the intent and risk monitors, and the seed of their draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MonitorErrors {
    pub intent_fp: f64,
    pub intent_fn: f64,
    pub risk_fp: f64,
    pub risk_fn: f64,
    pub seed: u64,
}

impl MonitorErrors {
    /// Both monitors err at `p`, false positives and false negatives alike.
    pub fn both(p: f64, seed: u64) -> Self {
        MonitorErrors { intent_fp: p, intent_fn: p, risk_fp: p, risk_fn: p, seed }
    }
    /// Only the intent monitor errs.
    pub fn intent(p: f64, seed: u64) -> Self {
        MonitorErrors { intent_fp: p, intent_fn: p, seed, ..Self::default() }
    }
    /// Only the risk monitor errs.
    pub fn risk(p: f64, seed: u64) -> Self {
        MonitorErrors { risk_fp: p, risk_fn: p, seed, ..Self::default() }
    }
}

/// Errors made in one run, counted by the monitors as they make them.
#[derive(Debug, Default)]
struct Tally {
    intent_fp: AtomicU32,
    intent_fn: AtomicU32,
    risk_fp: AtomicU32,
    risk_fn: AtomicU32,
}

/// A SplitMix64 stream behind `&self` (monitors observe through a shared reference).
#[derive(Debug)]
struct Draws(AtomicU64);

impl Draws {
    fn new(seed: u64) -> Self {
        Draws(AtomicU64::new(seed))
    }
    /// A value in [0, 1).
    fn unit(&self) -> f64 {
        let s =
            self.0.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed).wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Debug)]
struct ErringIntent {
    fp: f64,
    fn_: f64,
    draws: Draws,
    tally: Arc<Tally>,
}

impl Monitor for ErringIntent {
    fn kind(&self) -> MonitorKind {
        MonitorKind::Intent
    }
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        let from = out.len();
        IntentMonitor.observe(view, out);
        for s in out.iter_mut().skip(from) {
            let SignalKind::Intent { intent } = &mut s.kind else { continue };
            let stated = intent != "proceed";
            let (draw, confidence) = (self.draws.unit(), self.draws.unit());
            if draw < self.fp {
                *intent = MISREAD.to_string();
                s.priority = 0.5 + 0.5 * confidence;
                self.tally.intent_fp.fetch_add(1, Ordering::Relaxed);
            } else if stated && draw < self.fp + self.fn_ {
                *intent = "proceed".to_string();
                s.priority = shr_core::monitor::priority::ROUTINE;
                self.tally.intent_fn.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

#[derive(Debug)]
struct ErringRisk {
    fp: f64,
    fn_: f64,
    draws: Draws,
    tally: Arc<Tally>,
}

impl Monitor for ErringRisk {
    fn kind(&self) -> MonitorKind {
        MonitorKind::Risk
    }
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        let mut raised = Vec::new();
        RiskMonitor.observe(view, &mut raised);
        for (i, rule) in view.graph.risk_rules().iter().enumerate() {
            if view.answered.rule(i) {
                continue;
            }
            let guarded =
                view.next_tools.iter().any(|&t| view.graph.node(t).stage() == Some(rule.stage.as_str()));
            let Some(value) = view.context.get(&rule.key).and_then(serde_json::Value::as_f64) else {
                continue;
            };
            if !guarded {
                continue;
            }
            let draw = self.draws.unit();
            let truly =
                raised.iter().position(|s| matches!(&s.kind, SignalKind::Risk { rule: r, .. } if *r == i));
            match truly {
                Some(k) if draw < self.fn_ => {
                    raised.remove(k);
                    self.tally.risk_fn.fetch_add(1, Ordering::Relaxed);
                }
                None if draw < self.fp => {
                    raised.push(Signal::risk(i, rule, value));
                    self.tally.risk_fp.fetch_add(1, Ordering::Relaxed);
                }
                _ => {}
            }
        }
        out.extend(raised);
    }
}

/// The default monitors, with the intent and risk monitors erring as `errors` says.
fn erring_monitors(errors: &MonitorErrors, tally: &Arc<Tally>) -> Monitors {
    let stream = |k: u64| Draws::new(errors.seed ^ k.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    Monitors::none()
        .with(Box::new(ErringIntent {
            fp: errors.intent_fp,
            fn_: errors.intent_fn,
            draws: stream(1),
            tally: Arc::clone(tally),
        }))
        .with(Box::new(ErringRisk {
            fp: errors.risk_fp,
            fn_: errors.risk_fn,
            draws: stream(2),
            tally: Arc::clone(tally),
        }))
        .with(Box::new(ToolHealthMonitor))
        .with(Box::new(ProgressMonitor))
        .with(Box::new(MemoryMonitor))
}

/// What the erring monitors did in one run, and what came of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ErrorEffects {
    pub intent_fp: u32,
    pub intent_fn: u32,
    pub risk_fp: u32,
    pub risk_fn: u32,
    /// Misread signals (false positives) raised at decision points.
    pub misread_raised: u32,
    /// Of those, the ones raised beside a correct signal of another kind (a tool down, a
    /// risk...): contested. Elsewhere a misread intent changes nothing (intent says "carry on").
    pub misread_contested: u32,
    /// Contested misreads that won, displacing the correct signal.
    pub misread_displaced: u32,
    /// Decision points where a misread intent met a correct risk signal, and how many of those
    /// the risk signal won (the paper's claim: the competition absorbs the misread).
    pub misread_intent_vs_risk: u32,
    pub risk_outbid_misread: u32,
}

impl ErrorEffects {
    pub fn injected(&self) -> u32 {
        self.intent_fp + self.intent_fn + self.risk_fp + self.risk_fn
    }
    pub fn add(&mut self, o: &ErrorEffects) {
        self.intent_fp += o.intent_fp;
        self.intent_fn += o.intent_fn;
        self.risk_fp += o.risk_fp;
        self.risk_fn += o.risk_fn;
        self.misread_raised += o.misread_raised;
        self.misread_contested += o.misread_contested;
        self.misread_displaced += o.misread_displaced;
        self.misread_intent_vs_risk += o.misread_intent_vs_risk;
        self.risk_outbid_misread += o.risk_outbid_misread;
    }
}

fn misread(s: &Signal) -> bool {
    match &s.kind {
        SignalKind::Intent { intent } => intent == MISREAD,
        SignalKind::Risk { value, max, .. } => value <= max,
        _ => false,
    }
}

/// Reads each decision point (its `SignalRaised` events, then `SignalWon`) for misread signals.
fn effects(report: &RunReport, tally: &Tally) -> ErrorEffects {
    let mut fx = ErrorEffects {
        intent_fp: tally.intent_fp.load(Ordering::Relaxed),
        intent_fn: tally.intent_fn.load(Ordering::Relaxed),
        risk_fp: tally.risk_fp.load(Ordering::Relaxed),
        risk_fn: tally.risk_fn.load(Ordering::Relaxed),
        ..ErrorEffects::default()
    };
    let mut raised: Vec<&Signal> = Vec::new();
    for e in &report.events {
        match &e.kind {
            EventKind::SignalRaised { signal } => raised.push(signal),
            EventKind::SignalWon { signal } => {
                let wrong = raised.iter().filter(|s| misread(s)).count() as u32;
                fx.misread_raised += wrong;
                let correct_other = raised.iter().any(|s| !misread(s) && s.source != MonitorKind::Intent);
                if correct_other {
                    fx.misread_contested += wrong;
                    fx.misread_displaced += u32::from(misread(signal));
                }
                let intent_misread = raised.iter().any(|s| s.source == MonitorKind::Intent && misread(s));
                let true_risk = raised.iter().any(|s| s.source == MonitorKind::Risk && !misread(s));
                if intent_misread && true_risk {
                    fx.misread_intent_vs_risk += 1;
                    fx.risk_outbid_misread += u32::from(signal.source == MonitorKind::Risk);
                }
                raised.clear();
            }
            _ => {}
        }
    }
    fx
}

/// SHR's run of a scenario with erring monitors, unjudged.
fn run_raw(scenario: &Scenario, errors: &MonitorErrors) -> (RunReport, ErrorEffects) {
    let tally = Arc::new(Tally::default());
    let router =
        Router::with_parts(scenario.graph.clone(), SessionConfig::default(), erring_monitors(errors, &tally));
    let mut router = match router {
        Ok(r) => r,
        Err(e) => {
            return (RunReport::failed(scenario, Executor::Shr, e.to_string()), ErrorEffects::default())
        }
    };
    let mut run = match router.start(scenario.task.clone(), 0) {
        Ok(r) => r,
        Err(e) => {
            return (RunReport::failed(scenario, Executor::Shr, e.to_string()), ErrorEffects::default())
        }
    };
    let mut host = sim::ScenarioHost::new(scenario);
    shr_core::drive(&mut router, &mut run, &mut host, 0);
    let report = sim::report_from(scenario, Executor::Shr, &run, host.escalations);
    let fx = effects(&report, &tally);
    (report, fx)
}

/// SHR's run of a scenario with erring monitors, judged against the scenario's expected outcome
/// (an error that changes the outcome makes the run incorrect).
pub fn run_erring(scenario: &Scenario, errors: &MonitorErrors) -> (RunReport, ErrorEffects) {
    let (mut report, fx) = run_raw(scenario, errors);
    judge(scenario, &mut report);
    (report, fx)
}

/// SHR's run of a sweep set (the domain's task with `down` failed) with erring monitors, judged
/// by the sweep's rule given whether the original goal is `reachable`.
pub fn run_erring_sweep(
    task: &Scenario,
    down: &[String],
    reachable: bool,
    errors: &MonitorErrors,
) -> (RunReport, ErrorEffects, String) {
    let s = task.with_down(down);
    let (report, fx) = run_raw(&s, errors);
    let main_goal = s.graph.id(s.graph.goal());
    let problem = crate::sweep::judge(&report, main_goal, reachable);
    (report, fx, problem)
}

/// A silent failure under erring monitors: an incorrect run that still claims success (a refund
/// made that needed approval), or one the completion audit catches.
pub fn is_silent(report: &RunReport, correct: bool) -> bool {
    report.silent_failure || (!correct && report.status == shr_core::Status::Completed)
}

/// One sweep set: the tools down, and whether the original goal is still reachable.
pub type SweepSet = (Vec<String>, bool);

/// The sweep's sets for each domain of the pack: the domain's happy-path task (its first
/// failure-free scenario that completes) and every subset of its tools down, with whether the
/// original goal stays reachable (as [`crate::sweep::sweep`] makes them).
pub fn sweep_sets(pack: &[Scenario]) -> Vec<(Scenario, Vec<SweepSet>)> {
    let mut domains: Vec<&str> = Vec::new();
    for s in pack {
        if !domains.contains(&s.domain.as_str()) {
            domains.push(&s.domain);
        }
    }
    domains
        .into_iter()
        .filter_map(|d| {
            pack.iter().find(|s| {
                s.domain == d && s.failures.is_empty() && s.expected.status == shr_core::Status::Completed
            })
        })
        .filter_map(|task| {
            let g = &task.graph;
            let tools: Vec<usize> = (0..g.node_count()).filter(|&v| g.node(v).tool).collect();
            if tools.len() > crate::sweep::MAX_TOOLS {
                return None;
            }
            let sets = (0u32..(1u32 << tools.len()))
                .map(|mask| {
                    let down: Vec<usize> = tools
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask & (1 << i) != 0)
                        .map(|(_, &v)| v)
                        .collect();
                    let ok = crate::sweep::reachable(g, &down, g.goal());
                    (down.iter().map(|&v| g.id(v).to_string()).collect(), ok)
                })
                .collect();
            Some((task.clone(), sets))
        })
        .collect()
}

/// Why a run differs, for tests: its problems joined.
pub fn problems(report: &RunReport) -> String {
    report.problems.join("; ")
}
