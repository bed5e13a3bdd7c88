//! `shr perturb`: the ToolMaze matrix (NP, P1, P2, and P3/P4 per family of wrong results, by
//! C1-C4) for four arms (contract validators, none, an LLM judge, a ReAct agent with no router),
//! the detection rate per family, and the transient modes under three retry policies.

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::perturb::{self, contract, judge, Arm, Complexity, DetectionTable, Matrix, Mode, PolicyRow};

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

fn opt_pct(x: Option<f64>) -> String {
    x.map_or("-".into(), pct)
}

fn share(part: u32, whole: u32) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * f64::from(part) / f64::from(whole))
}

fn cell(c: &perturb::Metrics) -> String {
    format!("{} / {} / {}", pct(c.tsr), opt_pct(c.prr), opt_pct(c.rc))
}

/// The caption of every TSR / PRR / RC cell.
pub const CELLS: &str = "Cells: TSR / PRR / RC. PRR counts perturbed runs that finished on clean data, or stopped \
with an explicit escalation when no clean path existed. RC is seed 002's formula, (tool calls - calls of the \
unperturbed optimal plan) / that plan's calls, averaged over successful runs (this lab's choice: seed 002 does not \
say over which runs; an unavoidable failed call counts). \"-\": no run was perturbed (PRR) or none succeeded (RC).";

pub fn render(run: &PerturbRun) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ToolMaze-style perturbation: {} generated tasks per complexity (seed {}), one victim tool each.",
        run.tasks_per_complexity, run.seed
    );
    render_detection(&mut out, &run.detection);
    let _ = writeln!(out, "\n{CELLS}");
    render_policies(&mut out, &run.policies);
    render_llm_calls(&mut out, &run.matrices);
    for m in &run.matrices {
        let _ = writeln!(out, "\n{}, one immediate retry, per mode, family and complexity:\n", m.label);
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
    out
}

fn render_detection(out: &mut String, d: &DetectionTable) {
    let _ = writeln!(
        out,
        "\nDetection of wrong results, per family: each task's victim output corrupted once and shown to each arm \
         (Outputs: those the family found something to break in). The validators are the victim's own contract. \
         The LLM judge is a mock with assumed rates, one LLM call of {} ms per output: it misses {:.0}% of \
         plausible wrong values and {:.0}% of every other family, and rejects {:.0}% of clean outputs.\n",
        judge::LATENCY_MS,
        100.0 * judge::PLAUSIBLE_MISS_RATE,
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
    let _ = writeln!(out, "| time per output | | 0 ms | 0 ms | {} ms |", judge::LATENCY_MS);
    let _ = writeln!(
        out,
        "\nContract validators' detection by the victim's contract (caught / wrong outputs; \"-\": the family \
         found nothing to break in that shape):\n"
    );
    let _ = writeln!(out, "| Family | {} |", contract::NAMES.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(contract::NAMES.len()));
    for f in &d.families {
        let cells: Vec<String> = f
            .by_contract
            .iter()
            .map(|&(n, caught)| if n == 0 { "-".into() } else { format!("{caught}/{n}") })
            .collect();
        let _ = writeln!(out, "| {} | {} |", f.family.describe(), cells.join(" | "));
    }
}

fn render_policies(out: &mut String, rows: &[PolicyRow]) {
    let _ = writeln!(
        out,
        "\nTransient faults that last (k calls or t ms, drawn per task) under three retry policies, contract \
         validators, all complexities (P3: all families pooled):\n"
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
            opt_pct(m.prr),
            opt_pct(m.rc),
            m.mean_calls,
            m.mean_ms
        );
    }
}

fn render_llm_calls(out: &mut String, matrices: &[Matrix]) {
    let _ = writeln!(
        out,
        "\nThe arms side by side, one immediate retry, all complexities and families pooled (each cell \
         computed over the pooled runs): TSR / PRR / RC, and LLM calls (the router's escalations and judge \
         verdicts; the ReAct agent's steps, each one completion). The ReAct agent runs its own loop on the \
         same tasks and faults (its catalogue: each step's tools; it notices a wrong result at the LLM \
         judge's stated rates; it retries a transient error as the task's policy allows):\n"
    );
    let labels: Vec<&str> = matrices.iter().map(|m| m.label.as_str()).collect();
    let _ = writeln!(out, "| Mode | {} |", labels.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(matrices.len()));
    for (i, mode) in Mode::ALL.iter().enumerate() {
        let arms: Vec<String> = matrices
            .iter()
            .map(|m| {
                let p = m.pooled.get(i).copied().unwrap_or_default();
                format!("{}, {} LLM calls in {} runs", cell(&p), p.llm_calls, p.runs)
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", mode.name(), arms.join(" | "));
    }
}
