//! `shr bench --sweep`: the failure-combination sweep as a table and an SVG chart.

use std::fmt::Write as _;

use serde::Serialize;
use shr_eval::scenario::Executor;
use shr_eval::sweep::{DomainSweep, SweepRecord};

/// The run of executor `ex` among a failure set's runs (what the sweep table and Tables 5 and 6
/// read of each set).
pub(crate) fn record(runs: &[SweepRecord], ex: Executor) -> Option<&SweepRecord> {
    runs.iter().find(|r| r.executor == ex)
}

/// One executor's totals over a domain's sets (or all of them).
#[derive(Serialize, Clone)]
pub struct SweepTotals {
    pub domain: String,
    pub executor: Executor,
    pub sets: u32,
    pub reachable: u32,
    pub correct: u32,
    pub silent: u32,
    pub llm_calls: u32,
    pub tool_calls: u32,
}

pub fn totals(sweeps: &[DomainSweep]) -> Vec<SweepTotals> {
    let mut out = Vec::new();
    let groups: Vec<(String, Vec<&DomainSweep>)> = sweeps
        .iter()
        .map(|d| (d.domain.clone(), vec![d]))
        .chain(std::iter::once(("all".to_string(), sweeps.iter().collect())))
        .collect();
    for (name, group) in groups {
        for ex in Executor::ALL {
            let mut t = SweepTotals {
                domain: name.clone(),
                executor: ex,
                sets: 0,
                reachable: 0,
                correct: 0,
                silent: 0,
                llm_calls: 0,
                tool_calls: 0,
            };
            for set in group.iter().flat_map(|d| &d.sets) {
                let Some(r) = record(&set.runs, ex) else { continue };
                t.sets += 1;
                t.reachable += u32::from(set.reachable);
                t.correct += u32::from(r.correct);
                t.silent += u32::from(r.silent);
                t.llm_calls += r.llm_calls;
                t.tool_calls += r.tool_calls;
            }
            out.push(t);
        }
    }
    out
}

fn pct(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * f64::from(a) / f64::from(b)
    }
}

pub fn render(sweeps: &[DomainSweep], totals: &[SweepTotals]) -> String {
    let mut out = String::new();
    let described: Vec<String> =
        sweeps.iter().map(|d| format!("{} ({} tools, task {})", d.domain, d.tools.len(), d.task)).collect();
    let _ = writeln!(
        out,
        "Failure-combination sweep: every subset of each domain's tools down from the start: {}.",
        described.join("; ")
    );
    let _ = writeln!(
        out,
        "A run is correct when it completes the goal if the goal can still be derived from the tools left up, and \
         otherwise demotes honestly or escalates; a silent failure claims a goal it has no valid derivation of."
    );
    let head = [
        "Domain",
        "Sets",
        "Goal reachable",
        "Executor",
        "Correct",
        "Silent failures",
        "LLM calls",
        "Tool calls",
    ];
    let rows: Vec<Vec<String>> = totals
        .iter()
        .map(|t| {
            vec![
                t.domain.clone(),
                t.sets.to_string(),
                t.reachable.to_string(),
                t.executor.name().to_string(),
                format!("{} ({:.1}%)", t.correct, pct(t.correct, t.sets)),
                format!("{} ({:.1}%)", t.silent, pct(t.silent, t.sets)),
                t.llm_calls.to_string(),
                t.tool_calls.to_string(),
            ]
        })
        .collect();
    crate::bench::table(&mut out, "", &head, &rows);
    let wrong: Vec<String> = sweeps
        .iter()
        .flat_map(|d| {
            d.sets.iter().flat_map(move |s| {
                s.runs.iter().filter(|r| !r.correct && r.executor != Executor::Static).map(move |r| {
                    format!("{} {} down [{}]: {}", r.executor.name(), d.domain, s.down.join(","), r.problem)
                })
            })
        })
        .collect();
    if !wrong.is_empty() {
        let _ = writeln!(out, "\nSHR and ReAct runs judged incorrect ({}):", wrong.len());
        for w in wrong.iter().take(20) {
            let _ = writeln!(out, "- {w}");
        }
        if wrong.len() > 20 {
            let _ = writeln!(out, "- ... and {} more (all in --json)", wrong.len() - 20);
        }
    }
    out
}

const COLOURS: [(Executor, &str); 3] =
    [(Executor::Shr, "#1b7f5f"), (Executor::React, "#6a5acd"), (Executor::Static, "#d2691e")];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Three panels (correct, silent failures, LLM calls per run), a group of bars per domain.
pub fn svg(totals: &[SweepTotals]) -> String {
    let sets = totals.iter().filter(|t| t.domain == "all").map(|t| t.sets).max().unwrap_or(0);
    let mut domains: Vec<&str> = Vec::new();
    for t in totals {
        if !domains.contains(&t.domain.as_str()) {
            domains.push(&t.domain);
        }
    }
    type Metric = (&'static str, fn(&SweepTotals) -> f64, &'static str);
    let metrics: [Metric; 3] = [
        ("Correct runs (% of failure sets)", |t| pct(t.correct, t.sets), "%"),
        ("Silent failures (% of failure sets)", |t| pct(t.silent, t.sets), "%"),
        (
            "LLM calls per run",
            |t| if t.sets == 0 { 0.0 } else { f64::from(t.llm_calls) / f64::from(t.sets) },
            "",
        ),
    ];
    let (pw, ph, top, bottom, left) = (330.0, 300.0, 50.0, 70.0, 40.0);
    let width = pw * metrics.len() as f64 + 20.0;
    let height = ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" text-anchor="end" fill="#555">{sets} failure sets: every subset of each domain's tools down (shr bench --sweep)</text>"##,
        width - 12.0,
        height - 12.0
    );
    for (m, (title, value, unit)) in metrics.iter().enumerate() {
        let x0 = 10.0 + pw * m as f64;
        let max = totals.iter().map(value).fold(0.0f64, f64::max);
        let scale_max = if *unit == "%" { 100.0 } else { (max * 1.15).max(1.0) };
        let plot_h = ph - top - bottom;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="24" text-anchor="middle" font-size="13" font-weight="bold">{}</text>"#,
            x0 + pw / 2.0,
            esc(title)
        );
        let base = top + plot_h;
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{base}" x2="{}" y2="{base}" stroke="#333"/>"##,
            x0 + left,
            x0 + pw - 10.0
        );
        let group_w = (pw - left - 20.0) / domains.len() as f64;
        let bar_w = group_w / 4.0;
        for (g, d) in domains.iter().enumerate() {
            let gx = x0 + left + group_w * g as f64;
            for (b, (ex, colour)) in COLOURS.iter().enumerate() {
                let Some(t) = totals.iter().find(|t| t.domain == *d && t.executor == *ex) else { continue };
                let v = value(t);
                let h = plot_h * v / scale_max;
                let x = gx + bar_w * (b as f64 + 0.5);
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{colour}"><title>{} {}: {v:.1}{unit}</title></rect>"#,
                    base - h,
                    bar_w - 2.0,
                    esc(ex.name()),
                    esc(d)
                );
                let label = if *unit == "%" { format!("{v:.0}") } else { format!("{v:.1}") };
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9">{label}</text>"#,
                    x + (bar_w - 2.0) / 2.0,
                    base - h - 3.0
                );
            }
            // One word a line: the groups are narrow.
            for (l, word) in d.split('_').enumerate() {
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                    gx + group_w / 2.0,
                    base + 16.0 + 13.0 * l as f64,
                    esc(word)
                );
            }
        }
    }
    for (i, (ex, colour)) in COLOURS.iter().enumerate() {
        let x = 20.0 + 200.0 * i as f64;
        let y = height - 12.0;
        let _ = writeln!(s, r#"<rect x="{x}" y="{}" width="12" height="12" fill="{colour}"/>"#, y - 10.0);
        let _ = writeln!(s, r#"<text x="{}" y="{y}">{}</text>"#, x + 18.0, esc(ex.name()));
    }
    s.push_str("</svg>\n");
    s
}
