//! The panels beside the graph: the route in words, the three executors' counters, the
//! escalation the LLM would get, the monitors' competition, and the event log of the SHR run.

use leptos::prelude::*;
use shr_core::event::{Event, EventKind};
use shr_core::monitor::{MonitorKind, Signal, SignalKind};
use shr_core::{Decision, Status};
use shr_eval::scenario::RunReport;

use crate::model::{num, Source};
use crate::state::Page;

/// The route now, or why there is none.
#[component]
pub fn RouteSummary() -> impl IntoView {
    let page = expect_context::<Page>();
    // What the run did, not a fresh search over the final failures.
    let text = move || {
        page.view.with(|v| {
            let (g, run) = (&v.0.graph, &v.0.shr);
            let label = |id: &str| g.index(id).map_or_else(|| id.to_string(), |n| g.node(n).label.clone());
            let names: Vec<String> = run.path.iter().map(|id| label(id)).collect();
            let cost: f64 =
                v.0.run_edges().iter().map(|&e| g.edge(e).cost * g.node(g.edge(e).to).base_cost).sum();
            match run.status {
                Status::Completed => format!("Route: {} (cost {})", names.join(" → "), num(cost)),
                Status::Demoted => format!(
                    "No healthy path to {}: the LLM demoted the goal to {}. Route: {}",
                    g.node(g.goal()).label,
                    label(&run.goal),
                    names.join(" → ")
                ),
                Status::Escalated => format!(
                    "No healthy path to {}: the run stopped with an escalation after {}.",
                    g.node(g.goal()).label,
                    names.join(" → ")
                ),
            }
        })
    };
    let no_path = move || page.view.with(|v| v.0.shr.status != Status::Completed);
    view! {
        <section class="panel route-summary" class:no-path=no_path aria-live="polite">
            <p data-testid="route">{text}</p>
        </section>
    }
}

fn status_text(r: &RunReport) -> String {
    match r.status {
        Status::Completed => format!("reached {}", r.goal),
        Status::Demoted => format!("demoted to {}", r.goal),
        Status::Escalated => "stopped by escalation".into(),
    }
}

/// LLM calls and tool calls of SHR beside ReAct and the static workflow, on the same run.
#[component]
pub fn Counters() -> impl IntoView {
    let page = expect_context::<Page>();
    let rows = move || {
        let v = page.view.get().0;
        // The expected outcome belongs to the scenario's own failures; after clicks, only the
        // mechanism-based checks (silent failure) still apply.
        let judged = page.setup.with(|s| match s.source {
            Source::Pack(_) => s.down.is_none(),
            Source::Imported(_) => false,
            // Their own verdicts: goal reached (cyclic), recovered in seed 002's sense (perturbation).
            Source::Cyclic { .. } | Source::Perturb { .. } => true,
        });
        let mut rows = vec![
            ("shr", "Self-Healing Router", Some(v.shr.clone())),
            ("react", "ReAct", Some(v.react.clone())),
        ];
        rows.push(("static", "Static workflow", v.workflow.clone()));
        rows.into_iter()
            .map(|(key, name, report)| match report {
                Some(r) => {
                    let correct = if !judged {
                        "–".to_string()
                    } else if r.correct {
                        "✓ yes".into()
                    } else {
                        "✗ no".into()
                    };
                    let silent = if r.silent_failure { "⚠ yes" } else { "no" };
                    view! {
                        <tr data-testid=format!("row-{key}") class:silent=r.silent_failure>
                            <th scope="row">{name}</th>
                            <td data-testid=format!("llm-{key}")>{r.llm_calls}</td>
                            <td data-testid=format!("tools-{key}")>{r.tool_calls}</td>
                            <td>{r.recoveries}</td>
                            <td>{status_text(&r)}</td>
                            <td>{correct}</td>
                            <td data-testid=format!("silent-{key}")>{silent}</td>
                        </tr>
                    }
                    .into_any()
                }
                None => view! {
                    <tr data-testid=format!("row-{key}")>
                        <th scope="row">{name}</th>
                        <td colspan="6">"no coded workflow for this graph (the paper's scenarios have one)"</td>
                    </tr>
                }
                .into_any(),
            })
            .collect_view()
    };
    view! {
        <section class="panel counters">
            <h2>"Same run, three executors"</h2>
            <div class="scroll">
                <table data-testid="counters">
                    <thead>
                        <tr>
                            <th scope="col">"Executor"</th>
                            <th scope="col">"LLM calls"</th>
                            <th scope="col">"Tool calls"</th>
                            <th scope="col">"Recoveries"</th>
                            <th scope="col">"Outcome"</th>
                            <th scope="col" title="Against the scenario's expected outcome; not judged once you change its failures">"Correct"</th>
                            <th scope="col">"Silent failure"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}

fn decision_text(d: &Decision) -> String {
    match d {
        Decision::Demote { goal } => format!("demote the goal to {goal}"),
        Decision::Approve => "approve and carry on".into(),
        Decision::Abort { message } => format!("abort: {message}"),
        Decision::HandOff { to } => format!("hand off to {to}"),
    }
}

/// What the LLM is asked when no path exists (or a risk wins), and what the mock LLM answers.
#[component]
pub fn Escalations() -> impl IntoView {
    let page = expect_context::<Page>();
    let items = move || {
        let v = page.view.get().0;
        v.shr
            .escalations
            .iter()
            .enumerate()
            .map(|(i, rec)| {
                let request = serde_json::to_string_pretty(&rec.request).unwrap_or_default();
                let reason = serde_json::to_value(rec.request.reason)
                    .ok()
                    .and_then(|x| x.as_str().map(String::from))
                    .unwrap_or_default();
                view! {
                    <article class="escalation" data-testid="escalation">
                        <h3>{format!("LLM call {}: escalation, reason ", i + 1)}<code data-testid="escalation-reason">{reason}</code></h3>
                        <p class="small">"The request the LLM gets:"</p>
                        <pre data-testid="escalation-request">{request}</pre>
                        <p data-testid="escalation-decision">
                            "Mock LLM decision: " <strong>{decision_text(&rec.decision)}</strong>
                        </p>
                    </article>
                }
            })
            .collect_view()
    };
    let none = move || page.view.with(|v| v.0.shr.escalations.is_empty());
    view! {
        <section class="panel escalations">
            <h2>"Escalations"</h2>
            <Show when=none>
                <p class="small">"None: every failure was handled by rerouting, without the LLM."</p>
            </Show>
            {items}
        </section>
    }
}

/// One decision point of the run: every signal raised, and the winner.
#[derive(Clone, Debug, PartialEq)]
struct DecisionPoint {
    seq: u32,
    signals: Vec<Signal>,
    winner: Signal,
}

fn decision_points(events: &[Event]) -> Vec<DecisionPoint> {
    let mut out = Vec::new();
    let mut raised = Vec::new();
    for e in events {
        match &e.kind {
            EventKind::SignalRaised { signal } => raised.push(signal.clone()),
            EventKind::SignalWon { signal } => out.push(DecisionPoint {
                seq: e.seq,
                signals: std::mem::take(&mut raised),
                winner: signal.clone(),
            }),
            _ => {}
        }
    }
    out
}

const MONITORS: [(MonitorKind, &str); 5] = [
    (MonitorKind::Risk, "risk"),
    (MonitorKind::ToolHealth, "tool health"),
    (MonitorKind::Progress, "progress"),
    (MonitorKind::Memory, "memory"),
    (MonitorKind::Intent, "intent"),
];

fn signal_text(s: &Signal) -> String {
    match &s.kind {
        SignalKind::Intent { intent } => format!("intent “{intent}”: follow the plan"),
        SignalKind::Risk { key, value, max, stage, .. } => {
            format!("{key} = {} exceeds {} before {stage}: escalate before acting", num(*value), num(*max))
        }
        SignalKind::ToolDown { tools } => format!("{} down: reweight and reroute", tools.join(", ")),
        SignalKind::Budget { used, limit } => format!("budget {used}/{limit}: escalate"),
        SignalKind::KnownBad { tool } => format!("{tool} known bad: avoid it"),
        SignalKind::Thrash { cycle, repeats } => {
            format!("cycle {} repeated {repeats}×: escalate", cycle.join(" → "))
        }
    }
}

/// Each monitor's signal at a decision point as a priority bar; the winner is marked.
#[component]
pub fn MonitorPanel() -> impl IntoView {
    let page = expect_context::<Page>();
    let points = Memo::new(move |_| page.view.with(|v| decision_points(&v.0.shr.events)));
    // The decision at or before the picked event; by default the run's key moment: the first
    // decision a monitor other than intent won (a risk, a tool down, a budget), else the last.
    let index = move || {
        points.with(|ps| {
            let last = ps.len().saturating_sub(1);
            match page.picked.get() {
                None => ps
                    .iter()
                    .position(|p| !matches!(p.winner.kind, SignalKind::Intent { .. }))
                    .unwrap_or(last),
                Some(seq) => ps.iter().rposition(|p| p.seq <= seq).unwrap_or(0),
            }
        })
    };
    let go = move |delta: isize| {
        let i = index() as isize + delta;
        points.with_untracked(|ps| {
            if let Some(p) = usize::try_from(i).ok().and_then(|i| ps.get(i)) {
                page.picked.set(Some(p.seq));
            }
        });
    };
    let bars = move || {
        let i = index();
        points.with(|ps| {
            let Some(p) = ps.get(i) else {
                return view! { <p class="small">"No decision point in this run."</p> }.into_any();
            };
            MONITORS
                .iter()
                .map(|&(kind, name)| {
                    let best = p
                        .signals
                        .iter()
                        .filter(|s| s.source == kind)
                        .max_by(|a, b| a.priority.total_cmp(&b.priority))
                        .cloned();
                    let won = best.as_ref().is_some_and(|s| *s == p.winner);
                    let priority = best.as_ref().map_or(0.0, |s| s.priority);
                    let text = best.as_ref().map_or_else(|| "quiet".to_string(), signal_text);
                    let width = format!("width: {:.0}%", priority * 100.0);
                    view! {
                        <li class="monitor" class:winner=won data-testid=format!("monitor-{}", name.replace(' ', "-"))>
                            <span class="name">{name}{if won { " ★ wins" } else { "" }}</span>
                            <span class="bar" role="meter" aria-valuemin="0" aria-valuemax="1" aria-valuenow=priority
                                aria-label=format!("{name} priority")>
                                <span class="fill" style=width></span>
                            </span>
                            <span class="priority">{format!("{priority:.2}")}</span>
                            <span class="what">{text}</span>
                        </li>
                    }
                })
                .collect_view()
                .into_any()
        })
    };
    let position =
        move || points.with(|ps| format!("decision {} of {}", (index() + 1).min(ps.len()), ps.len()));
    view! {
        <section class="panel monitors">
            <h2>"Monitors"</h2>
            <div class="decision-nav">
                <button aria-label="Previous decision" on:click=move |_| go(-1)>"◀"</button>
                <span data-testid="decision">{position}</span>
                <button aria-label="Next decision" on:click=move |_| go(1)>"▶"</button>
            </div>
            <ul class="bars">{bars}</ul>
        </section>
    }
}

/// An event as a log line: (kind class, text).
fn log_line(e: &EventKind) -> Option<(&'static str, String)> {
    Some(match e {
        EventKind::PathPlanned { plan } => {
            ("plan", format!("planned {} (cost {})", plan.nodes.join(" → "), num(plan.cost)))
        }
        EventKind::SignalRaised { .. } => return None,
        EventKind::SignalWon { signal } => {
            ("signal", format!("{:?} monitor wins: {}", signal.source, signal_text(signal)))
        }
        EventKind::ToolCalled { tool, attempt } => (
            "call",
            if *attempt > 1 { format!("call {tool} (attempt {attempt})") } else { format!("call {tool}") },
        ),
        EventKind::ToolSucceeded { tool, latency_ms } => {
            ("ok", format!("{tool} succeeded in {} ms", num(*latency_ms)))
        }
        EventKind::ToolFailed { tool, message, implicit, transient, category, .. } => {
            let kind = match (implicit, transient) {
                (true, _) => "implicit: its output failed a validator",
                (false, true) => "transient",
                (false, false) => "permanent",
            };
            ("failed", format!("{tool} failed ({category:?}, {kind}): {message}"))
        }
        EventKind::Reweighted { tool, weight } => {
            ("weight", format!("{tool} reweighted to {}", num(*weight)))
        }
        EventKind::Rerouted { to_plan, around, .. } => (
            "reroute",
            format!(
                "rerouted around {}: {}",
                if around.is_empty() { "slow tools".into() } else { around.join(", ") },
                to_plan.nodes.join(" → ")
            ),
        ),
        EventKind::Retried { tool, attempt, .. } => ("retry", format!("retry {tool} (attempt {attempt})")),
        EventKind::BreakerChanged { tool, from, to } => {
            ("breaker", format!("{tool} breaker {from:?} → {to:?}"))
        }
        // llm_call 0: the escalation budget is spent, so the task stops without asking the LLM.
        EventKind::Escalated { reason, goal, llm_call: 0, .. } => {
            ("escalate", format!("escalated ({reason:?}) on {goal}: escalation budget spent, no LLM call"))
        }
        EventKind::Escalated { reason, goal, llm_call, .. } => {
            ("escalate", format!("escalated ({reason:?}) on {goal}: LLM call #{llm_call}"))
        }
        EventKind::GoalDemoted { from, to } => ("demote", format!("goal demoted from {from} to {to}")),
        EventKind::Revisited { tool, visit } => ("call", format!("revisit {tool} (visit {visit})")),
        EventKind::Redirected { to, .. } => ("failed", format!("redirected to {to}")),
        EventKind::Finished { status, goal, .. } => ("finished", format!("finished: {status:?} at {goal}")),
        // An event kind newer than this page: the log names it.
        other => ("signal", other.name().to_string()),
    })
}

/// The SHR run's events, in order. Picking one shows its decision in the monitor panel.
#[component]
pub fn EventLog() -> impl IntoView {
    let page = expect_context::<Page>();
    let lines = move || {
        let v = page.view.get().0;
        v.shr
            .events
            .iter()
            .filter_map(|e| log_line(&e.kind).map(|(class, text)| (e.seq, e.kind.name(), class, text)))
            .map(|(seq, name, class, text)| {
                let picked = move || page.picked.get() == Some(seq);
                view! {
                    <li class=format!("ev {class}") class:picked=picked data-event=name>
                        <button on:click=move |_| page.picked.set(Some(seq))>
                            <span class="seq">{seq}</span>
                            <span class="kind">{name}</span>
                            <span class="text">{text}</span>
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <section class="panel log">
            <h2>"Event log (SHR run)"</h2>
            <ol data-testid="events">{lines}</ol>
        </section>
    }
}
