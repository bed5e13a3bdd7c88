//! `shr bench`: runs the 19 scenarios with the three executors and prints the paper's Tables
//! 1-4, each measured figure beside the paper's, then the paper's literal readings beside ours
//! and Tables 5 and 6 ([`crate::recovery`]).

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::scenario::{self, Executor, Pack, ReactConfig, RunReport, Scenario, DOMAINS, PAPER_SCENARIOS};

/// The paper's Table 4 (aggregate over its 19 scenarios, [`PAPER_SCENARIOS`]).
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
    /// The ReAct agent's settings (error rate 0 unless `--react-error-rate`).
    pub react: ReactConfig,
    pub scenarios: Vec<ScenarioRuns>,
    pub totals: Vec<Totals>,
    /// 1 - SHR's LLM calls / ReAct's, in percent.
    pub llm_call_reduction_pct: f64,
    /// The paper's literal readings (embedded pack only).
    pub literal: Vec<ReadingRuns>,
    /// Table 4 with each literal reading in place of the scenario it reads.
    pub literal_totals: Vec<Totals>,
}

/// A literal reading's runs, beside the scenario it reads.
#[derive(Serialize)]
pub struct ReadingRuns {
    pub of: String,
    pub why: String,
    pub runs: ScenarioRuns,
}

#[derive(Serialize, Clone)]
pub struct ScenarioRuns {
    pub id: String,
    pub domain: String,
    /// The paper's pack (compared with the paper) or one of our own (its own table).
    pub pack: Pack,
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

fn runs_of(s: &Scenario, react: &ReactConfig) -> ScenarioRuns {
    ScenarioRuns {
        id: s.id.clone(),
        domain: s.domain.clone(),
        pack: s.pack,
        title: s.title.clone(),
        paper: s.paper.clone(),
        shr: scenario::run(s, Executor::Shr),
        react: scenario::run_react(s, react).report,
        static_: scenario::run(s, Executor::Static),
    }
}

/// Runs the pack; with `readings`, the paper's literal readings too.
pub fn run_all(pack: &[Scenario], react: &ReactConfig, readings: &[scenario::Reading]) -> BenchRun {
    let scenarios: Vec<ScenarioRuns> = pack.iter().map(|s| runs_of(s, react)).collect();
    // The paper's comparisons run over the paper's pack only.
    let paper: Vec<ScenarioRuns> = scenarios.iter().filter(|s| s.pack == Pack::Paper).cloned().collect();
    let sums: Vec<Totals> = Executor::ALL.iter().map(|&ex| totals(&paper, ex, None)).collect();
    let (shr, react_llm) = (sums[0].llm_calls as f64, sums[1].llm_calls as f64);
    let reduction = if react_llm > 0.0 { 100.0 * (1.0 - shr / react_llm) } else { 0.0 };
    let literal: Vec<ReadingRuns> = readings
        .iter()
        .map(|r| ReadingRuns { of: r.of.clone(), why: r.why.clone(), runs: runs_of(&r.scenario, react) })
        .collect();
    let literal_totals = if literal.is_empty() {
        Vec::new()
    } else {
        // Each scenario, or the last reading of it (one reading per scenario in the pack).
        let swapped: Vec<ScenarioRuns> = paper
            .iter()
            .map(|s| match literal.iter().rev().find(|r| r.of == s.id) {
                Some(r) => r.runs.clone(),
                None => s.clone(),
            })
            .collect();
        Executor::ALL.iter().map(|&ex| totals(&swapped, ex, None)).collect()
    };
    BenchRun {
        react: *react,
        scenarios,
        totals: sums,
        llm_call_reduction_pct: reduction,
        literal,
        literal_totals,
    }
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

pub(crate) fn table(out: &mut String, title: &str, head: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    if title.is_empty() {
        let _ = writeln!(out);
    } else {
        let _ = writeln!(out, "\n{title}\n");
    }
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
        "SHR bench: the {} scenarios of seed 000, run by three executors on the same mock tools.",
        PAPER_SCENARIOS.len()
    );
    let _ = writeln!(
        out,
        "Each cell is the measured figure; the paper's figure follows in parentheses where it differs."
    );
    let paper = |s: &&ScenarioRuns| s.pack == Pack::Paper;
    for d in DOMAINS {
        let Some(table_no) = d.paper_table else { continue };
        let rows: Vec<Vec<String>> = run
            .scenarios
            .iter()
            .filter(paper)
            .filter(|s| s.domain == d.name)
            .map(|s| scenario_row(s, format!("{}: {}", s.id, s.title)))
            .collect();
        table(&mut out, &format!("{table_no}: {}", d.title), &SCENARIO_HEAD, &rows);
    }
    let extra: Vec<Vec<String>> = run
        .scenarios
        .iter()
        .filter(|s| s.pack == Pack::Extra)
        .map(|s| {
            let domain = scenario::domain_file(&s.domain).map_or(s.domain.as_str(), |d| d.title);
            scenario_row(s, format!("{}: {} ({domain})", s.id, s.title))
        })
        .collect();
    if !extra.is_empty() {
        table(&mut out, "Scenarios of our own (not in the paper, not in Table 4)", &SCENARIO_HEAD, &extra);
    }
    let head = ["Architecture", "Correct", "LLM reasoning", "Tools", "Recovery", "Silent fail"];
    let n = run.scenarios.iter().filter(paper).count();
    let mut rows: Vec<Vec<String>> = run.totals.iter().map(|t| total_row(t, t.executor.name(), n)).collect();
    for t in &run.literal_totals {
        rows.push(total_row(t, &format!("{} (literal readings)", t.executor.name()), n));
    }
    table(&mut out, &format!("Table 4: Aggregate over {n} scenarios"), &head, &rows);
    let _ = writeln!(
        out,
        "\nLLM-call reduction, SHR vs ReAct: {:.1}% ({} vs {} calls; the paper reports 93%, 9 vs 123).",
        run.llm_call_reduction_pct, run.totals[0].llm_calls, run.totals[1].llm_calls
    );
    let escalated: Vec<&str> =
        run.scenarios.iter().filter(paper).filter(|s| s.shr.llm_calls > 0).map(|s| s.id.as_str()).collect();
    let silent: Vec<&str> = run
        .scenarios
        .iter()
        .filter(paper)
        .filter(|s| s.static_.silent_failure)
        .map(|s| s.id.as_str())
        .collect();
    let _ = writeln!(out, "SHR asked the LLM in: {}.", escalated.join(", "));
    let _ = writeln!(out, "Static workflow failed silently in: {}.", silent.join(", "));
    if !run.literal_totals.is_empty() {
        let _ = writeln!(
            out,
            "Literal readings rows: the same totals with T5, T6 and M1-M6 read as the paper writes them (table below)."
        );
    }
    if run.react.error_rate > 0.0 {
        let _ = writeln!(
            out,
            "ReAct ran with error rate {} (seed {}): each LLM step errs with that probability.",
            run.react.error_rate, run.react.seed
        );
    }
    if !run.literal.is_empty() {
        let mut rows = Vec::new();
        for r in &run.literal {
            if let Some(ours) = run.scenarios.iter().find(|s| s.id == r.of) {
                rows.push(scenario_row(ours, format!("{}: {} (ours)", ours.id, ours.title)));
            }
            rows.push(scenario_row(&r.runs, format!("{}: {}", r.runs.id, r.runs.title)));
        }
        table(
            &mut out,
            "Literal readings: the paper's T5, T6 and moderation topology as written, beside ours",
            &SCENARIO_HEAD,
            &rows,
        );
    }
    out
}

const SCENARIO_HEAD: [&str; 10] = [
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

fn scenario_row(s: &ScenarioRuns, label: String) -> Vec<String> {
    let p = &s.paper;
    vec![
        label,
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
}

fn total_row(t: &Totals, label: &str, n: usize) -> Vec<String> {
    let p = paper_totals(t.executor);
    vec![
        label.to_string(),
        format!(
            "{}/{n}{}",
            t.correct,
            if t.correct == p.correct {
                String::new()
            } else {
                format!(" ({}/{})", p.correct, PAPER_SCENARIOS.len())
            }
        ),
        beside(t.llm_calls, Some(p.llm)),
        beside(t.tool_calls, Some(p.tools)),
        beside(t.recoveries, Some(p.recoveries)),
        beside(t.silent_failures, Some(p.silent)),
    ]
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "✓"
    } else {
        "✗"
    }
}
