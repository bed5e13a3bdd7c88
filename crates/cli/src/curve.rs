//! `shr bench --react-error-rate P,...`: the ReAct agent's correctness and silent failures as its
//! LLM errs more often. Each scenario runs once per seed (`seed`, `seed + 1`, ...); SHR takes no
//! error rate, so its figures are one run of each scenario, the same at every p.

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::scenario::{self, Executor, ReactConfig, Scenario};

#[derive(Serialize, Clone)]
pub struct CurvePoint {
    pub error_rate: f64,
    /// Scenario runs: scenarios x seeds.
    pub runs: u32,
    pub correct: u32,
    pub silent: u32,
    pub llm_calls: u32,
    pub tool_calls: u32,
    /// Steps that erred.
    pub errors: u32,
}

#[derive(Serialize, Clone)]
pub struct Curve {
    pub seed: u64,
    pub seeds: u32,
    pub points: Vec<CurvePoint>,
    /// SHR over the same scenarios (one run each).
    pub shr_correct: u32,
    pub shr_silent: u32,
    pub scenarios: u32,
}

pub fn run(pack: &[Scenario], rates: &[f64], seeds: u32, seed: u64) -> Curve {
    let points = rates
        .iter()
        .map(|&p| {
            let mut pt = CurvePoint {
                error_rate: p,
                runs: 0,
                correct: 0,
                silent: 0,
                llm_calls: 0,
                tool_calls: 0,
                errors: 0,
            };
            for i in 0..seeds {
                let cfg = ReactConfig {
                    error_rate: p,
                    seed: seed.wrapping_add(u64::from(i)),
                    ..ReactConfig::default()
                };
                for s in pack {
                    let run = scenario::run_react(s, &cfg);
                    pt.runs += 1;
                    pt.correct += u32::from(run.report.correct);
                    pt.silent += u32::from(run.report.silent_failure);
                    pt.llm_calls += run.report.llm_calls;
                    pt.tool_calls += run.report.tool_calls;
                    pt.errors += run.steps.iter().filter(|st| st.error.is_some()).count() as u32;
                }
            }
            pt
        })
        .collect();
    let shr: Vec<_> = pack.iter().map(|s| scenario::run(s, Executor::Shr)).collect();
    Curve {
        seed,
        seeds,
        points,
        shr_correct: shr.iter().filter(|r| r.correct).count() as u32,
        shr_silent: shr.iter().filter(|r| r.silent_failure).count() as u32,
        scenarios: pack.len() as u32,
    }
}

use crate::chart::{self, pct, Frame, Series};

pub fn render(c: &Curve) -> String {
    let mut out = String::new();
    let head = [
        "LLM error rate p",
        "ReAct runs",
        "ReAct correct",
        "ReAct silent failures",
        "ReAct LLM calls/run",
        "Steps that erred",
        "SHR correct (any p)",
        "SHR silent (any p)",
    ];
    let rows: Vec<Vec<String>> = c
        .points
        .iter()
        .map(|p| {
            let per_run = if p.runs == 0 { 0.0 } else { f64::from(p.llm_calls) / f64::from(p.runs) };
            vec![
                format!("{}", p.error_rate),
                p.runs.to_string(),
                format!("{} ({:.1}%)", p.correct, pct(p.correct, p.runs)),
                format!("{} ({:.1}%)", p.silent, pct(p.silent, p.runs)),
                format!("{per_run:.2}"),
                p.errors.to_string(),
                format!("{}/{}", c.shr_correct, c.scenarios),
                c.shr_silent.to_string(),
            ]
        })
        .collect();
    crate::bench::table(
        &mut out,
        &format!(
            "ReAct with an erring LLM: the {} scenarios x {} seeds (from {}) at each error rate",
            c.scenarios, c.seeds, c.seed
        ),
        &head,
        &rows,
    );
    let _ = writeln!(
        out,
        "\nAn erring step calls a tool lacking the capability it needs, declares the goal met early, or forgets that the \
         last step failed (uniformly among those that apply); every run is judged like the rest (expected outcome, \
         completion audit)."
    );
    out
}

/// Correct runs and silent failures (% of runs) against the error rate, ReAct beside SHR.
pub fn svg(c: &Curve) -> String {
    let shr_correct = pct(c.shr_correct, c.scenarios);
    let shr_silent = pct(c.shr_silent, c.scenarios);
    let line = |name: &str, colour, dash, value: &dyn Fn(&CurvePoint) -> f64| Series {
        name: name.to_string(),
        colour,
        dash,
        width: 2,
        points: c.points.iter().map(|p| (p.error_rate, value(p))).collect(),
    };
    let series = [
        line("ReAct correct", "#6a5acd", "", &|p| pct(p.correct, p.runs)),
        line("ReAct silent failures", "#6a5acd", "5,4", &|p| pct(p.silent, p.runs)),
        line("SHR correct", "#1b7f5f", "", &|_| shr_correct),
        line("SHR silent failures", "#1b7f5f", "5,4", &|_| shr_silent),
    ];
    let frame = Frame {
        title: "An erring LLM: % of runs against the error rate p",
        size: (560.0, 330.0),
        bottom: 70.0,
        legend_column: 260.0,
    };
    chart::svg(&frame, &series)
}
