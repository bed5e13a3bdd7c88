//! `shr perturb`: the ToolMaze matrix (NP, P1, P2, and P3/P4 per family of wrong results, by
//! C1-C4) for three arms (contract validators, none, an LLM judge), the detection rate per
//! family, and the transient modes under three retry policies.

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::perturb::{self, judge, Arm, Complexity, DetectionTable, Matrix, Mode, PolicyRow};

#[derive(Serialize)]
pub struct PerturbRun {
    pub tasks_per_complexity: u32,
    pub seed: u64,
    pub detection: DetectionTable,
    pub policies: Vec<PolicyRow>,
    pub matrices: Vec<Matrix>,
}

pub fn run(tasks: u32, seed: u64) -> PerturbRun {
    let generated = perturb::tasks(tasks, seed);
    PerturbRun {
        tasks_per_complexity: tasks,
        seed,
        detection: perturb::detection(&generated),
        policies: perturb::policies(&generated),
        matrices: Arm::ALL.iter().map(|&arm| perturb::matrix(&generated, arm)).collect(),
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

fn share(part: u32, whole: u32) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * f64::from(part) / f64::from(whole))
}

fn cell(c: &perturb::Metrics) -> String {
    format!("{} / {} / {}", pct(c.tsr), c.prr.map_or("-".into(), pct), pct(c.rc))
}

pub fn render(run: &PerturbRun) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ToolMaze-style perturbation: {} generated tasks per complexity (seed {}), one victim tool each.",
        run.tasks_per_complexity, run.seed
    );
    render_detection(&mut out, &run.detection);
    render_policies(&mut out, &run.policies);
    let _ = writeln!(
        out,
        "\nCells: TSR / PRR / RC, one immediate retry. PRR counts perturbed runs that finished on clean data, \
         or stopped with an explicit escalation when no clean path existed. RC as seed 002 defines it: extra \
         tool calls over the unperturbed optimal plan, over successful runs (an unavoidable failed call counts)."
    );
    for m in &run.matrices {
        let _ = writeln!(out, "\n{}\n", m.label);
        let _ = writeln!(out, "| Mode | {} |", Complexity::ALL.map(|c| format!("{c:?}")).join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(Complexity::ALL.len()));
        for (row, cells) in m.rows.iter().zip(&m.cells) {
            let what = match row.family {
                Some(f) => format!("{} {}: {}", row.mode.name(), row.mode.describe(), f.describe()),
                None => format!("{} {}", row.mode.name(), row.mode.describe()),
            };
            let _ = writeln!(out, "| {what} | {} |", cells.iter().map(cell).collect::<Vec<_>>().join(" | "));
        }
    }
    render_llm_calls(&mut out, &run.matrices);
    out
}

fn render_detection(out: &mut String, d: &DetectionTable) {
    let _ = writeln!(
        out,
        "\nDetection of wrong results, per family: each task's victim output corrupted once and shown to each arm. \
         The LLM judge is a mock with an assumed {:.0}% miss rate and {:.0}% false-alarm rate, one LLM call per output.\n",
        100.0 * judge::MISS_RATE,
        100.0 * judge::FALSE_ALARM_RATE
    );
    let _ = writeln!(out, "| Family | Outputs | Contract validators | No validators | LLM judge |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for f in &d.families {
        let _ = writeln!(
            out,
            "| {} | {} | {} | 0.0% | {} |",
            f.family.describe(),
            f.outputs,
            share(f.validators, f.outputs),
            share(f.judge, f.outputs)
        );
    }
    let _ = writeln!(
        out,
        "| false alarms on clean outputs | {} | {} | 0.0% | {} |",
        d.clean_outputs,
        share(d.validators_false_alarms, d.clean_outputs),
        share(d.judge_false_alarms, d.clean_outputs)
    );
    let _ = writeln!(out, "| LLM calls per output | | 0 | 0 | 1 |");
}

fn render_policies(out: &mut String, rows: &[PolicyRow]) {
    let _ = writeln!(
        out,
        "\nTransient faults that last (k calls or t ms, drawn per task) under three retry policies, contract \
         validators, all complexities (P3: all families):\n"
    );
    let _ = writeln!(out, "| Mode | Retry policy | Runs | TSR | PRR | RC | Tool calls / run | Time / run |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for r in rows {
        let m = &r.metrics;
        let _ = writeln!(
            out,
            "| {} {} | {} | {} | {} | {} | {} | {:.2} | {:.0} ms |",
            r.mode.name(),
            r.mode.describe(),
            r.policy.describe(),
            m.runs,
            pct(m.tsr),
            m.prr.map_or("-".into(), pct),
            pct(m.rc),
            m.mean_calls,
            m.mean_ms
        );
    }
}

fn render_llm_calls(out: &mut String, matrices: &[Matrix]) {
    // The ReAct column prices SHR's own actions at an LLM call per decision; it is a cost model
    // on SHR's run, not the ReAct agent of `shr bench`.
    let _ = writeln!(
        out,
        "\nThe three arms side by side, all complexities and families pooled: TSR / PRR / RC, and LLM calls (escalations \
         and judge verdicts). The last column prices the validators arm's actions at an LLM call per decision \
         (ReAct's cost model on SHR's run, not an independent agent):\n"
    );
    let labels: Vec<&str> = matrices.iter().map(|m| m.label.as_str()).collect();
    let _ = writeln!(out, "| Mode | {} | ReAct cost model, LLM calls |", labels.join(" | "));
    let _ = writeln!(out, "|---|{}---|", "---|".repeat(matrices.len()));
    for mode in Mode::ALL {
        let pooled = |m: &Matrix| -> (Vec<perturb::Metrics>, u32, u32) {
            let cells: Vec<perturb::Metrics> = m
                .rows
                .iter()
                .zip(&m.cells)
                .filter(|(r, _)| r.mode == mode)
                .flat_map(|(_, c)| c.iter().copied())
                .collect();
            let llm = cells.iter().map(|c| c.llm_calls).sum();
            let react = cells.iter().map(|c| c.react_llm_calls).sum();
            (cells, llm, react)
        };
        let arms: Vec<String> = matrices
            .iter()
            .map(|m| {
                let (cells, llm, _) = pooled(m);
                let runs: u32 = cells.iter().map(|c| c.runs).sum();
                let weighted = |f: &dyn Fn(&perturb::Metrics) -> Option<f64>| -> Option<f64> {
                    let (mut sum, mut n) = (0.0, 0u32);
                    for c in &cells {
                        if let Some(x) = f(c) {
                            sum += x * f64::from(c.runs);
                            n += c.runs;
                        }
                    }
                    (n > 0).then(|| sum / f64::from(n))
                };
                let tsr = weighted(&|c| Some(c.tsr)).unwrap_or(0.0);
                let prr = weighted(&|c| c.prr);
                let rc = weighted(&|c| Some(c.rc)).unwrap_or(0.0);
                format!(
                    "{} / {} / {}, {llm} LLM calls in {runs} runs",
                    pct(tsr),
                    prr.map_or("-".into(), pct),
                    pct(rc)
                )
            })
            .collect();
        let react = matrices.first().map_or(0, |m| pooled(m).2);
        let _ = writeln!(out, "| {} | {} | {react} |", mode.name(), arms.join(" | "));
    }
}
