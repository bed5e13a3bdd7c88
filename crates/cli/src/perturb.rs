//! `shr perturb`: the ToolMaze matrix (NP, P1-P4 by C1-C4) for SHR, for SHR without validators
//! (ablation) and for the simulated ReAct agent.

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::perturb::{self, Complexity, Matrix, Mode};

#[derive(Serialize)]
pub struct PerturbRun {
    pub tasks_per_complexity: u32,
    pub seed: u64,
    pub matrices: Vec<Matrix>,
}

pub fn run(tasks: u32, seed: u64) -> PerturbRun {
    PerturbRun {
        tasks_per_complexity: tasks,
        seed,
        matrices: vec![
            perturb::matrix("SHR (with validators)", tasks, seed, true),
            perturb::matrix("SHR without validators (ablation)", tasks, seed, false),
        ],
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

pub fn render(run: &PerturbRun) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ToolMaze-style perturbation matrix: {} generated tasks per complexity (seed {}), one victim tool each.",
        run.tasks_per_complexity, run.seed
    );
    let _ = writeln!(
        out,
        "Cells: TSR / PRR / RC. PRR counts perturbed runs that finished on clean data, or stopped"
    );
    let _ = writeln!(
        out,
        "with an explicit escalation when no clean path existed. RC: extra tool calls over the optimum."
    );
    for m in &run.matrices {
        let _ = writeln!(out, "\n{}\n", m.label);
        let _ = writeln!(out, "| Mode | {} |", Complexity::ALL.map(|c| format!("{c:?}")).join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(Complexity::ALL.len()));
        for (mi, mode) in Mode::ALL.iter().enumerate() {
            let cells: Vec<String> = m.cells[mi]
                .iter()
                .map(|c| format!("{} / {} / {}", pct(c.tsr), c.prr.map_or("-".into(), pct), pct(c.rc)))
                .collect();
            let _ = writeln!(out, "| {mode:?} {} | {} |", mode.describe(), cells.join(" | "));
        }
    }
    // The ReAct agent takes the same actions (it is granted perfect detection), at an LLM call
    // per decision; only its cost is shown.
    let shr = &run.matrices[0];
    let _ = writeln!(out, "\nLLM calls, SHR vs simulated ReAct (same actions, an LLM call per decision):\n");
    let _ = writeln!(out, "| Mode | SHR LLM calls | ReAct LLM calls | SHR escalations |");
    let _ = writeln!(out, "|---|---|---|---|");
    for (mi, mode) in Mode::ALL.iter().enumerate() {
        let row = &shr.cells[mi];
        let _ = writeln!(
            out,
            "| {mode:?} | {} | {} | {} |",
            row.iter().map(|c| c.llm_calls).sum::<u32>(),
            row.iter().map(|c| c.react_llm_calls).sum::<u32>(),
            row.iter().map(|c| c.escalations).sum::<u32>()
        );
    }
    out
}
