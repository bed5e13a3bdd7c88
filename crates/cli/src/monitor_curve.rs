//! `shr bench --monitor-error-rate P,...`: SHR with intent and risk monitors that err (seeded
//! false positives and false negatives at rate p; `shr_eval::scenario::erring`), over the 19
//! scenarios and the failure sweep, with the intent monitor erring alone, the risk monitor
//! alone, and both. Each run's draws are seeded from `--seed` + the run's seed index, mixed
//! with the scenario (or sweep set) index, so every figure is reproducible.

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::scenario::erring::{self, ErrorEffects, MonitorErrors};
use shr_eval::scenario::Scenario;

/// Which monitors err.
#[derive(Serialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Erring {
    Intent,
    Risk,
    Both,
}

impl Erring {
    const ALL: [Erring; 3] = [Erring::Intent, Erring::Risk, Erring::Both];
    fn name(self) -> &'static str {
        match self {
            Erring::Intent => "intent",
            Erring::Risk => "risk",
            Erring::Both => "intent + risk",
        }
    }
    fn errors(self, p: f64, seed: u64) -> MonitorErrors {
        match self {
            Erring::Intent => MonitorErrors::intent(p, seed),
            Erring::Risk => MonitorErrors::risk(p, seed),
            Erring::Both => MonitorErrors::both(p, seed),
        }
    }
}

/// Runs of one kind (scenarios or sweep sets) at one point.
#[derive(Serialize, Clone, Default, Debug)]
pub struct Tally {
    pub runs: u32,
    pub correct: u32,
    pub silent: u32,
    pub llm_calls: u32,
    /// Runs in which a monitor erred at least once, and those still correct (absorbed).
    pub runs_with_errors: u32,
    pub absorbed_runs: u32,
    pub effects: ErrorEffects,
}

impl Tally {
    fn add(&mut self, correct: bool, silent: bool, llm_calls: u32, fx: &ErrorEffects) {
        self.runs += 1;
        self.correct += u32::from(correct);
        self.silent += u32::from(silent);
        self.llm_calls += llm_calls;
        if fx.injected() > 0 {
            self.runs_with_errors += 1;
            self.absorbed_runs += u32::from(correct);
        }
        self.effects.add(fx);
    }
}

#[derive(Serialize, Clone, Debug)]
pub struct Point {
    pub error_rate: f64,
    pub erring: Erring,
    pub scenarios: Tally,
    pub sweep: Tally,
}

#[derive(Serialize, Clone, Debug)]
pub struct MonitorCurve {
    pub seed: u64,
    pub seeds: u32,
    pub sweep_seeds: u32,
    pub points: Vec<Point>,
}

/// A seed for one run: the base, the seed index and the run's index, mixed.
fn mix(seed: u64, i: u32, k: usize) -> u64 {
    let mut r =
        shr_core::rng::SplitMix64::new(seed ^ (u64::from(i) << 32) ^ (k as u64).wrapping_mul(0x9E37_79B9));
    r.next_u64()
}

pub fn run(pack: &[Scenario], rates: &[f64], seeds: u32, sweep_seeds: u32, seed: u64) -> MonitorCurve {
    let sets = erring::sweep_sets(pack);
    let mut points = Vec::new();
    for &p in rates {
        for erring_kind in Erring::ALL {
            let mut sc = Tally::default();
            let mut sw = Tally::default();
            for i in 0..seeds {
                for (k, s) in pack.iter().enumerate() {
                    let (report, fx) = erring::run_erring(s, &erring_kind.errors(p, mix(seed, i, k)));
                    sc.add(report.correct, erring::is_silent(&report, report.correct), report.llm_calls, &fx);
                }
            }
            for i in 0..sweep_seeds {
                let mut k = 10_000;
                for (task, domain_sets) in &sets {
                    for (down, reachable) in domain_sets {
                        k += 1;
                        let errors = erring_kind.errors(p, mix(seed, i, k));
                        let (report, fx, problem) = erring::run_erring_sweep(task, down, *reachable, &errors);
                        let correct = problem.is_empty();
                        sw.add(correct, erring::is_silent(&report, correct), report.llm_calls, &fx);
                    }
                }
            }
            points.push(Point { error_rate: p, erring: erring_kind, scenarios: sc, sweep: sw });
        }
    }
    MonitorCurve { seed, seeds, sweep_seeds, points }
}

use crate::chart::{self, pct, Frame, Series};

fn per(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        f64::from(a) / f64::from(b)
    }
}

pub fn render(c: &MonitorCurve) -> String {
    let mut out = String::new();
    let head = [
        "p",
        "monitors erring",
        "scenario runs",
        "correct",
        "silent",
        "LLM calls/run",
        "errors (FP/FN)",
        "runs with errors still correct",
        "sweep runs",
        "sweep correct",
        "sweep silent",
        "sweep LLM calls/run",
    ];
    let rows: Vec<Vec<String>> = c
        .points
        .iter()
        .map(|pt| {
            let (s, w) = (&pt.scenarios, &pt.sweep);
            let fx = &s.effects;
            vec![
                format!("{}", pt.error_rate),
                pt.erring.name().to_string(),
                s.runs.to_string(),
                format!("{} ({:.1}%)", s.correct, pct(s.correct, s.runs)),
                format!("{} ({:.1}%)", s.silent, pct(s.silent, s.runs)),
                format!("{:.2}", per(s.llm_calls, s.runs)),
                format!("{}/{}", fx.intent_fp + fx.risk_fp, fx.intent_fn + fx.risk_fn),
                format!("{} of {}", s.absorbed_runs, s.runs_with_errors),
                w.runs.to_string(),
                format!("{} ({:.1}%)", w.correct, pct(w.correct, w.runs)),
                format!("{} ({:.1}%)", w.silent, pct(w.silent, w.runs)),
                format!("{:.2}", per(w.llm_calls, w.runs)),
            ]
        })
        .collect();
    crate::bench::table(
        &mut out,
        &format!(
            "SHR with erring monitors: the {} scenarios x {} seeds and the sweep x {} seeds (from {})",
            c.points.first().map_or(0, |p| p.scenarios.runs / c.seeds.max(1)),
            c.seeds,
            c.sweep_seeds,
            c.seed
        ),
        &head,
        &rows,
    );
    let mut vs = 0;
    let mut won = 0;
    let (mut raised, mut contested, mut displaced) = (0, 0, 0);
    for pt in &c.points {
        for t in [&pt.scenarios, &pt.sweep] {
            vs += t.effects.misread_intent_vs_risk;
            won += t.effects.risk_outbid_misread;
            if pt.erring == Erring::Intent {
                raised += t.effects.misread_raised;
                contested += t.effects.misread_contested;
                displaced += t.effects.misread_displaced;
            }
        }
    }
    let _ = writeln!(
        out,
        "\nThe priority competition, over every row (scenarios and sweep): with the intent monitor erring alone, \
         {raised} misread intent signals were raised; {contested} of them beside a correct signal of another monitor \
         (elsewhere intent only says \"carry on\", so a misread changes nothing), and the correct signal won {} of \
         those ({:.1}% absorbed; {displaced} displaced it). Where a misread intent met a correct risk signal ({vs} \
         decision points, any row), the risk signal won {won} ({:.1}%): a misread intent is outbid when its confidence \
         is under the risk rule's priority (0.95), and wins otherwise. A false positive is a signal the monitor should \
         not raise (a misread intent at a confidence drawn in [0.5, 1), a risk within its bound); a false negative is \
         one it misses. Silent: an incorrect run that still claims success, or one the completion audit catches.",
        contested - displaced,
        pct(contested - displaced, contested),
        pct(won, vs),
    );
    out
}

/// Correct runs and silent failures (% of scenario runs) against the error rate, per erring set.
pub fn svg(c: &MonitorCurve) -> String {
    // Both first, wide and pale, so the risk line it nearly covers shows on top of it.
    let colours = [(Erring::Both, "#8fb3e8"), (Erring::Risk, "#b3261e"), (Erring::Intent, "#c77c0e")];
    let mut series = Vec::new();
    for (kind, colour) in colours {
        for (what, dash, value) in [
            ("correct", "", (|t: &Tally| pct(t.correct, t.runs)) as fn(&Tally) -> f64),
            ("silent", "5,4", |t: &Tally| pct(t.silent, t.runs)),
        ] {
            series.push(Series {
                name: format!("{} erring: {what}", kind.name()),
                colour,
                dash,
                width: if kind == Erring::Both { 5 } else { 2 },
                points: c
                    .points
                    .iter()
                    .filter(|p| p.erring == kind)
                    .map(|p| (p.error_rate, value(&p.scenarios)))
                    .collect(),
            });
        }
    }
    let frame = Frame {
        title: "SHR with erring monitors: % of the 19 scenarios' runs against the error rate p",
        size: (600.0, 360.0),
        bottom: 90.0,
        legend_column: 270.0,
    };
    chart::svg(&frame, &series)
}
