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

fn pct(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * f64::from(a) / f64::from(b)
    }
}

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
    let (w, h, left, right, top, bottom) = (560.0, 330.0, 50.0, 30.0, 40.0, 70.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let max_p = c.points.iter().map(|p| p.error_rate).fold(0.0f64, f64::max).max(1e-9);
    let x = |p: f64| left + pw * p / max_p;
    let y = |pct: f64| top + ph * (1.0 - pct / 100.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="13" font-weight="bold">An erring LLM: % of runs against the error rate p</text>"#,
        w / 2.0
    );
    for pct in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.1}" y="{3:.1}" text-anchor="end">{pct}%</text>"##,
            y(pct),
            left + pw,
            left - 6.0,
            y(pct) + 4.0
        );
    }
    for p in &c.points {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x(p.error_rate),
            top + ph + 16.0,
            p.error_rate
        );
    }
    let shr_correct = pct(c.shr_correct, c.scenarios);
    let shr_silent = pct(c.shr_silent, c.scenarios);
    type Series<'a> = (&'a str, &'a str, &'a str, Vec<(f64, f64)>);
    let series: [Series; 4] = [
        (
            "ReAct correct",
            "#6a5acd",
            "",
            c.points.iter().map(|p| (p.error_rate, pct(p.correct, p.runs))).collect(),
        ),
        (
            "ReAct silent failures",
            "#6a5acd",
            "5,4",
            c.points.iter().map(|p| (p.error_rate, pct(p.silent, p.runs))).collect(),
        ),
        ("SHR correct", "#1b7f5f", "", c.points.iter().map(|p| (p.error_rate, shr_correct)).collect()),
        (
            "SHR silent failures",
            "#1b7f5f",
            "5,4",
            c.points.iter().map(|p| (p.error_rate, shr_silent)).collect(),
        ),
    ];
    for (i, (name, colour, dash, pts)) in series.iter().enumerate() {
        let line: Vec<String> = pts.iter().map(|&(p, v)| format!("{:.1},{:.1}", x(p), y(v))).collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            line.join(" ")
        );
        for &(p, v) in pts {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"><title>{name}: {v:.1}% at p = {p}</title></circle>"#,
                x(p),
                y(v)
            );
        }
        let lx = left + 260.0 * (i % 2) as f64;
        let ly = h - 30.0 + 16.0 * (i / 2) as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{name}</text>"#,
            lx + 24.0,
            lx + 30.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}
