//! `shr bench`: runs the 19 scenarios with the three executors and prints the paper's Tables
//! 1-4, each measured figure beside the paper's.

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::scenario::{self, Executor, RunReport, Scenario};

/// The paper's Table 4 (aggregate over the 19 scenarios).
pub struct PaperTotals {
    pub correct: u32,
    pub llm: u32,
    pub tools: u32,
    pub recoveries: u32,
    pub silent: u32,
}

pub fn paper_totals(ex: Executor) -> PaperTotals {
    match ex {
        Executor::Shr => PaperTotals { correct: 19, llm: 9, tools: 66, recoveries: 13, silent: 0 },
        Executor::React => PaperTotals { correct: 19, llm: 123, tools: 93, recoveries: 0, silent: 0 },
        Executor::Static => PaperTotals { correct: 16, llm: 0, tools: 87, recoveries: 24, silent: 3 },
    }
}

/// Every run of every scenario.
#[derive(Serialize)]
pub struct BenchRun {
    pub scenarios: Vec<ScenarioRuns>,
    pub totals: Vec<Totals>,
    /// 1 - SHR's LLM calls / ReAct's, in percent.
    pub llm_call_reduction_pct: f64,
}

#[derive(Serialize)]
pub struct ScenarioRuns {
    pub id: String,
    pub domain: String,
    pub title: String,
    pub paper: shr_eval::scenario::PaperFigures,
    pub shr: RunReport,
    pub react: RunReport,
    #[serde(rename = "static")]
    pub static_: RunReport,
}

#[derive(Serialize, Clone, Copy)]
pub struct Totals {
    pub executor: Executor,
    pub correct: u32,
    pub llm_calls: u32,
    pub tool_calls: u32,
    pub recoveries: u32,
    pub silent_failures: u32,
}

pub fn run_all(pack: &[Scenario]) -> BenchRun {
    let scenarios: Vec<ScenarioRuns> = pack
        .iter()
        .map(|s| ScenarioRuns {
            id: s.id.clone(),
            domain: s.domain.clone(),
            title: s.title.clone(),
            paper: s.paper.clone(),
            shr: scenario::run(s, Executor::Shr),
            react: scenario::run(s, Executor::React),
            static_: scenario::run(s, Executor::Static),
        })
        .collect();
    let totals: Vec<Totals> = Executor::ALL.iter().map(|&ex| totals(&scenarios, ex, None)).collect();
    let (shr, react) = (totals[0].llm_calls as f64, totals[1].llm_calls as f64);
    let reduction = if react > 0.0 { 100.0 * (1.0 - shr / react) } else { 0.0 };
    BenchRun { scenarios, totals, llm_call_reduction_pct: reduction }
}

fn report(s: &ScenarioRuns, ex: Executor) -> &RunReport {
    match ex {
        Executor::Shr => &s.shr,
        Executor::React => &s.react,
        Executor::Static => &s.static_,
    }
}

pub fn totals(runs: &[ScenarioRuns], ex: Executor, domain: Option<&str>) -> Totals {
    let mut t =
        Totals { executor: ex, correct: 0, llm_calls: 0, tool_calls: 0, recoveries: 0, silent_failures: 0 };
    for s in runs.iter().filter(|s| domain.is_none_or(|d| s.domain == d)) {
        let r = report(s, ex);
        t.correct += u32::from(r.correct);
        t.llm_calls += r.llm_calls;
        t.tool_calls += r.tool_calls;
        t.recoveries += r.recoveries;
        t.silent_failures += u32::from(r.silent_failure);
    }
    t
}

fn beside(measured: u32, paper: Option<u32>) -> String {
    match paper {
        Some(p) if p == measured => format!("{measured}"),
        Some(p) => format!("{measured} ({p})"),
        None => format!("{measured}"),
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "Yes"
    } else {
        "No"
    }
}

fn bool_beside(measured: bool, paper: Option<bool>) -> String {
    match paper {
        Some(p) if p != measured => format!("{} ({})", yes_no(measured), yes_no(p)),
        _ => yes_no(measured).to_string(),
    }
}

fn row(out: &mut String, cells: &[String], widths: &[usize]) {
    let line: Vec<String> = cells.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
    let _ = writeln!(out, "| {} |", line.join(" | "));
}

fn table(out: &mut String, title: &str, head: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let _ = writeln!(out, "\n{title}\n");
    row(out, &head.iter().map(|h| h.to_string()).collect::<Vec<_>>(), &widths);
    let _ = writeln!(out, "|{}|", widths.iter().map(|w| "-".repeat(w + 2)).collect::<Vec<_>>().join("|"));
    for r in rows {
        row(out, r, &widths);
    }
}

/// The tables as Markdown text. Measured figures first; the paper's in parentheses where it
/// differs.
pub fn render(run: &BenchRun) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "SHR bench: the 19 scenarios of seed 000, run by three executors on the same mock tools."
    );
    let _ = writeln!(
        out,
        "Each cell is the measured figure; the paper's figure follows in parentheses where it differs."
    );
    let domains = [
        ("customer_support", "Table 1: Customer support (linear pipeline)"),
        ("travel_booking", "Table 2: Travel booking (dependency DAG)"),
        ("content_moderation", "Table 3: Content moderation (parallel fan-out)"),
    ];
    for (domain, title) in domains {
        let head = [
            "Scenario",
            "SHR LLM",
            "ReAct LLM",
            "Static LLM",
            "SHR tools",
            "ReAct tools",
            "SHR recov.",
            "Static silent",
            "Static lost",
            "Correct S/R/W",
        ];
        let rows: Vec<Vec<String>> = run
            .scenarios
            .iter()
            .filter(|s| s.domain == domain)
            .map(|s| {
                let p = &s.paper;
                vec![
                    format!("{}: {}", s.id, s.title),
                    beside(s.shr.llm_calls, p.shr_llm),
                    beside(s.react.llm_calls, p.react_llm),
                    beside(s.static_.llm_calls, p.static_llm),
                    beside(s.shr.tool_calls, p.shr_tools),
                    beside(s.react.tool_calls, p.react_tools),
                    beside(s.shr.recoveries, p.shr_recoveries),
                    bool_beside(s.static_.silent_failure, p.static_silent),
                    beside(s.static_.classifiers_lost, p.static_classifiers_lost),
                    format!("{}/{}/{}", mark(s.shr.correct), mark(s.react.correct), mark(s.static_.correct)),
                ]
            })
            .collect();
        table(&mut out, title, &head, &rows);
    }
    let head = ["Architecture", "Correct", "LLM reasoning", "Tools", "Recovery", "Silent fail"];
    let rows: Vec<Vec<String>> = run
        .totals
        .iter()
        .map(|t| {
            let p = paper_totals(t.executor);
            vec![
                t.executor.name().to_string(),
                format!(
                    "{}/19{}",
                    t.correct,
                    if t.correct == p.correct { String::new() } else { format!(" ({}/19)", p.correct) }
                ),
                beside(t.llm_calls, Some(p.llm)),
                beside(t.tool_calls, Some(p.tools)),
                beside(t.recoveries, Some(p.recoveries)),
                beside(t.silent_failures, Some(p.silent)),
            ]
        })
        .collect();
    table(&mut out, "Table 4: Aggregate over 19 scenarios", &head, &rows);
    let _ = writeln!(
        out,
        "\nLLM-call reduction, SHR vs ReAct: {:.1}% ({} vs {} calls; the paper reports 93%, 9 vs 123).",
        run.llm_call_reduction_pct, run.totals[0].llm_calls, run.totals[1].llm_calls
    );
    let escalated: Vec<&str> =
        run.scenarios.iter().filter(|s| s.shr.llm_calls > 0).map(|s| s.id.as_str()).collect();
    let silent: Vec<&str> =
        run.scenarios.iter().filter(|s| s.static_.silent_failure).map(|s| s.id.as_str()).collect();
    let _ = writeln!(out, "SHR asked the LLM in: {}.", escalated.join(", "));
    let _ = writeln!(out, "Static workflow failed silently in: {}.", silent.join(", "));
    out
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "✓"
    } else {
        "✗"
    }
}
