//! LLM calls and tool calls of SHR at the replay's position; ReAct's and the static workflow's
//! (runs of their own) and every verdict (outcome, correct, silent failure) once it is over.

use leptos::prelude::*;
use shr_core::event::EventKind;
use shr_core::Status;
use shr_eval::scenario::RunReport;

use crate::lanes::{self, Lane};
use crate::model::{Source, View};
use crate::state::Page;
use crate::timeline::Moment;

/// What one row shows.
struct Row {
    key: &'static str,
    name: &'static str,
    /// LLM calls, tool calls, recoveries; or why there are none to show (yet).
    counts: Result<[String; 3], String>,
    outcome: String,
    correct: String,
    silent: Option<bool>,
}

const PENDING: &str = "…";

fn status_text(r: &RunReport) -> String {
    match r.status {
        Status::Completed => format!("reached {}", r.goal),
        Status::Demoted => format!("demoted to {}", r.goal),
        Status::Escalated => "stopped by escalation".into(),
    }
}

/// The verdict columns of a finished run. `judged`: whether "correct" has an expected outcome
/// to be judged against.
fn verdicts(r: &RunReport, judged: bool) -> (String, String, Option<bool>) {
    let correct = match (judged, r.correct) {
        (false, _) => "–",
        (true, true) => "✓ yes",
        (true, false) => "✗ no",
    };
    (status_text(r), correct.into(), Some(r.silent_failure))
}

/// A report of a run that could not start (eval says why in its problems).
fn never_ran(r: &RunReport) -> bool {
    r.status == Status::Escalated && r.tool_calls == 0 && r.llm_calls == 0 && !r.problems.is_empty()
}

/// A finished run's row.
fn totals(key: &'static str, name: &'static str, r: &RunReport, judged: bool) -> Row {
    let (outcome, correct, silent) = verdicts(r, judged);
    let counts = Ok([r.llm_calls, r.tool_calls, r.recoveries].map(|n| n.to_string()));
    Row { key, name, counts, outcome, correct, silent }
}

fn rows(v: &View, m: &Moment, judged: bool, lane: Lane) -> Vec<Row> {
    let mut out = Vec::with_capacity(3);
    // While a baseline is replayed, SHR's run is shown whole.
    if m.finished || lane != Lane::Shr {
        out.push(totals("shr", "Self-Healing Router", &v.shr, judged));
    } else {
        // SHR's counts at the replay's position, from the events that happened.
        let events = super::happened(&v.shr.events, m.events);
        let count = |f: &dyn Fn(&EventKind) -> bool| events.iter().filter(|e| f(&e.kind)).count().to_string();
        let counts = Ok([
            super::llm_calls(events).to_string(),
            count(&|k| matches!(k, EventKind::ToolCalled { .. })),
            count(&|k| matches!(k, EventKind::Rerouted { around, .. } if !around.is_empty())),
        ]);
        let (outcome, correct) = (format!("running{PENDING}"), PENDING.to_string());
        out.push(Row { key: "shr", name: "Self-Healing Router", counts, outcome, correct, silent: None });
    }
    // The baselines are runs of their own, not on this clock: their totals come at the end.
    let react = if v.react_priced { "ReAct (SHR's actions, priced)" } else { "ReAct" };
    let baselines = [("react", react, Some(&v.react)), ("static", "Static workflow", v.workflow.as_ref())];
    for (key, name, report) in baselines {
        let Some(r) = report else { continue };
        let replayed = match key {
            "react" => Lane::React,
            _ => Lane::Static,
        };
        if replayed == lane && !m.finished {
            // The baseline on the clock: its counts at the replay's position.
            let steps = lanes::steps(v, lane);
            let last = steps.get(..m.position.min(steps.len())).and_then(|s| s.last());
            let (llm, tools) = last.map_or((0, 0), |s| (s.llm_calls, s.tool_calls));
            out.push(Row {
                key,
                name,
                counts: Ok([llm.to_string(), tools.to_string(), PENDING.to_string()]),
                outcome: format!("running{PENDING}"),
                correct: PENDING.to_string(),
                silent: None,
            });
            continue;
        }
        let note = if !m.finished && lane == Lane::Shr {
            Some("a run of its own: its totals show at the end of the replay".to_string())
        } else if never_ran(r) {
            Some(format!("did not run: {}", r.problems.join("; ")))
        } else {
            None
        };
        out.push(match note {
            None => totals(key, name, r, judged),
            Some(note) => Row {
                key,
                name,
                counts: Err(note),
                outcome: String::new(),
                correct: String::new(),
                silent: None,
            },
        });
    }
    out
}

const COLUMNS: [&str; 6] = ["LLM calls", "Tool calls", "Recoveries", "Outcome", "Correct", "Silent failure"];

fn row_view(r: Row) -> impl IntoView {
    let [llm, tools, recoveries] = match r.counts {
        Ok(counts) => counts,
        Err(note) => {
            return view! {
                <tr data-testid=format!("row-{}", r.key) class="pending">
                    <th scope="row">{r.name}</th>
                    <td colspan="6">{note}</td>
                </tr>
            }
            .into_any()
        }
    };
    let silent_text = match r.silent {
        None => PENDING,
        Some(true) => "⚠ yes",
        Some(false) => "no",
    };
    view! {
        <tr data-testid=format!("row-{}", r.key) class:silent=r.silent == Some(true)>
            <th scope="row">{r.name}</th>
            <td data-label=COLUMNS[0] data-testid=format!("llm-{}", r.key)>{llm}</td>
            <td data-label=COLUMNS[1] data-testid=format!("tools-{}", r.key)>{tools}</td>
            <td data-label=COLUMNS[2] data-testid=format!("recoveries-{}", r.key)>{recoveries}</td>
            <td data-label=COLUMNS[3]>{r.outcome}</td>
            <td data-label=COLUMNS[4] data-testid=format!("correct-{}", r.key)>{r.correct}</td>
            <td data-label=COLUMNS[5] data-testid=format!("silent-{}", r.key)>{silent_text}</td>
        </tr>
    }
    .into_any()
}

#[component]
pub fn Counters() -> impl IntoView {
    let page = expect_context::<Page>();
    let body = move || {
        let m = page.replay.moment.get();
        // The expected outcome belongs to the scenario's own failures; after clicks, only the
        // mechanism-based checks (silent failure) still apply.
        let judged = page.setup.with(|s| match s.source {
            Source::Pack(_) => s.down.is_none(),
            Source::Imported(_) => false,
            // Their own verdicts: goal reached (cyclic), recovered in seed 002's sense (perturbation).
            Source::Cyclic { .. } | Source::Perturb { .. } => true,
        });
        let lane = page.replay.lane.get();
        let rows = page.view.with(|v| rows(&v.0, &m, judged, lane));
        let missing = page.view.with(|v| v.0.workflow.is_none()).then(|| {
            view! {
                <tr data-testid="row-static">
                    <th scope="row">"Static workflow"</th>
                    <td colspan="6">"no coded workflow for this graph (the paper's scenarios have one)"</td>
                </tr>
            }
        });
        view! { {rows.into_iter().map(row_view).collect_view()} {missing} }
    };
    view! {
        <section class="panel counters">
            <h2>"Same run, three executors"</h2>
            <div class="scroll">
                <table data-testid="counters">
                    <thead>
                        <tr>
                            <th scope="col">"Executor"</th>
                            {COLUMNS.map(|c| {
                                let title = (c == "Correct").then_some(
                                    "Against the scenario's expected outcome; not judged once you change its failures");
                                view! { <th scope="col" title=title>{c}</th> }
                            })}
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </section>
    }
}
