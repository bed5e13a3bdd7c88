//! LLM calls and tool calls of SHR at the replay's position; ReAct's and the static workflow's
//! (runs of their own) and every verdict (outcome, correct, silent failure) once it is over.

use leptos::prelude::*;
use shr_core::event::EventKind;
use shr_core::Status;
use shr_eval::scenario::{RunReport, Scenario};

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
            // A redirect cancels the calls in flight: never made, as the run's total says.
            events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::ToolCalled { .. }))
                .count()
                .saturating_sub(
                    events
                        .iter()
                        .map(|e| match &e.kind {
                            EventKind::Redirected { from, .. } => from.len(),
                            _ => 0,
                        })
                        .sum(),
                )
                .to_string(),
            count(&|k| matches!(k, EventKind::Rerouted { around, .. } if !around.is_empty())),
        ]);
        let (outcome, correct) = (format!("running{PENDING}"), PENDING.to_string());
        out.push(Row { key: "shr", name: "Self-Healing Router", counts, outcome, correct, silent: None });
    }
    // The baselines are runs of their own, not on this clock: their totals come at the end.
    let baselines = [("react", "ReAct", Some(&v.react)), ("static", "Static workflow", v.workflow.as_ref())];
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
            // Said to a visitor: why it could not start, not how eval judged the empty run.
            Some(match key {
                "react" => "The ReAct agent did not run: its prompt needs a catalogue of tools by \
                            capability, and this graph names no stages to build one from."
                    .to_string(),
                _ => format!(
                    "It did not run: {}.",
                    r.problems.first().map_or("no reason given", |p| p.as_str())
                ),
            })
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
            <PaperNote />
        </section>
    }
}

/// Why a count of this run differs from the paper's, by scenario and count (the book's "Where
/// our figures differ from the paper's" in one sentence each).
fn why_differs(id: &str, what: &str) -> &'static str {
    match (id, what) {
        (_, "ReAct LLM calls") => {
            "this ReAct agent asks its LLM once per step; the paper's spends more calls per failure"
        }
        ("S3", "ReAct tool calls") => "it calls the lookup, both payment providers and the manual ticket",
        ("S4", "SHR tool calls") => {
            "the demoted path is the CRM lookup and the approval queue; no third (notification) call is modelled"
        }
        ("S6" | "S7", "SHR LLM calls") => "one escalation is one LLM call, which answers with the demotion",
        ("T3", "SHR tool calls") => "both failed calls (flight, hotel) are counted beside the four bookings",
        ("T4", "ReAct tool calls") => "the budget rule applies before the hotel, so the agent books the flight first",
        ("T5" | "T6", _) => {
            "this run reads the scenario as the repository does (the book: the paper's literal readings), and counts failed calls as calls"
        }
        (m, "SHR tool calls") if m.starts_with('M') => {
            "the action queue needs three classifiers (a quorum join); the paper's topology needs one"
        }
        (m, "ReAct tool calls") if m.starts_with('M') => {
            "this agent calls classifiers until three answered or three can no longer; the paper's calls every one"
        }
        _ => "counted by this implementation's mechanisms (the book: where our figures differ)",
    }
}

/// The paper's figures beside this run's, where they differ: (what, paper, this run, why).
fn paper_differences(v: &View, sc: &Scenario) -> Vec<(&'static str, String, String, &'static str)> {
    let p = &sc.paper;
    let mut out = Vec::new();
    let mut add = |what: &'static str, paper: Option<String>, run: Option<String>| {
        if let (Some(paper), Some(run)) = (paper, run) {
            if paper != run {
                out.push((what, paper, run, why_differs(&sc.id, what)));
            }
        }
    };
    let n = |x: Option<u32>| x.map(|x| x.to_string());
    add("SHR LLM calls", n(p.shr_llm), Some(v.shr.llm_calls.to_string()));
    add("SHR tool calls", n(p.shr_tools), Some(v.shr.tool_calls.to_string()));
    add("SHR recoveries", n(p.shr_recoveries), Some(v.shr.recoveries.to_string()));
    add("ReAct LLM calls", n(p.react_llm), Some(v.react.llm_calls.to_string()));
    add("ReAct tool calls", n(p.react_tools), Some(v.react.tool_calls.to_string()));
    let w = v.workflow.as_ref();
    add("static LLM calls", n(p.static_llm), w.map(|w| w.llm_calls.to_string()));
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    add("static silent failure", p.static_silent.map(yes_no), w.map(|w| yes_no(w.silent_failure)));
    add("static classifiers lost", n(p.static_classifiers_lost), w.map(|w| w.classifiers_lost.to_string()));
    out
}

/// Under the counters: the paper's figures beside this run's where they differ, and why.
#[component]
pub fn PaperNote() -> impl IntoView {
    let page = expect_context::<Page>();
    move || {
        let sc = page.setup.with(|s| match &s.source {
            Source::Pack(sc) if s.down.is_none() && s.probing.is_empty() => Some(sc.clone()),
            _ => None,
        })?;
        let diffs = page.view.with(|v| paper_differences(&v.0, &sc));
        let body = if diffs.is_empty() {
            view! { <p class="small">{format!("Paper vs this run: {}'s counts match the paper's.", sc.id)}</p> }.into_any()
        } else {
            let items = diffs
                .into_iter()
                .map(|(what, paper, run, why)| {
                    view! { <li data-testid="paper-diff">{format!("{what}: paper {paper}, this run {run}; {why}.")}</li> }
                })
                .collect_view();
            view! {
                <p class="small">{format!("Paper vs this run: where {}'s counts differ from the paper's (the run's totals):", sc.id)}</p>
                <ul class="small paper-diffs">{items}</ul>
            }
            .into_any()
        };
        Some(view! { <div class="paper-note" data-testid="paper-note">{body}</div> })
    }
}
