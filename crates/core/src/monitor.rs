//! Health monitors and priority competition (seed 000, section 2.1).
//!
//! A monitor is a cheap pure function of the decision point (task context, health, progress,
//! the tools about to be called) that raises zero or more priority-scored [`Signal`]s. All
//! monitors run at every decision point; the highest priority wins, ties broken by a fixed
//! monitor order ([`MonitorKind`]'s order). The session acts on the winner only.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::graph::{NodeIx, ToolGraph};
use crate::health::{BreakerState, HealthBook};
use crate::progress::NodeState;
use crate::Millis;

mod answered;
pub use answered::{Answered, Settles};

/// Task context: values monitors read (`amount`, `request`, `known_bad`...).
pub type Context = BTreeMap<String, Value>;

/// The built-in monitors, in tie-break order: on equal priority the earlier one wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MonitorKind {
    /// Risk rules on context values before a guarded stage.
    Risk,
    /// Tools failed or unavailable.
    ToolHealth,
    /// Budgets and repeated cycles.
    Progress,
    /// Tools known to be bad (the task's `known_bad`).
    Memory,
    /// The task's intent, from its request.
    Intent,
}

impl MonitorKind {
    /// Every kind, in tie-break order (a test checks that no variant is left out).
    pub const ALL: [MonitorKind; 5] = [
        MonitorKind::Risk,
        MonitorKind::ToolHealth,
        MonitorKind::Progress,
        MonitorKind::Memory,
        MonitorKind::Intent,
    ];

    /// Its name in words (`"tool health"`), for a page or a table.
    pub fn label(self) -> &'static str {
        match self {
            MonitorKind::Risk => "risk",
            MonitorKind::ToolHealth => "tool health",
            MonitorKind::Progress => "progress",
            MonitorKind::Memory => "memory",
            MonitorKind::Intent => "intent",
        }
    }
}

/// What a signal is about, which decides what the session does if it wins.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SignalKind {
    /// Routine: carry on with the plan.
    Intent {
        /// The keyword that matched.
        intent: String,
    },
    /// A context value crossed a risk threshold before a guarded stage: escalate before acting.
    Risk {
        /// The rule's index in the graph's risk rules.
        rule: usize,
        /// The context key it read.
        key: String,
        /// The value found.
        value: f64,
        /// The rule's threshold.
        max: f64,
        /// The stage about to be entered.
        stage: String,
    },
    /// Tools failed or are unavailable: reweight and reroute.
    ToolDown {
        /// The tools down.
        tools: Vec<String>,
    },
    /// The task's tool-call or visit budget would be exceeded: escalate.
    Budget {
        /// Calls (or visits) used so far.
        used: u32,
        /// The budget.
        limit: u32,
    },
    /// A tool known to be bad (earlier sessions, shared signals) is about to be used: avoid it.
    KnownBad {
        /// The tool.
        tool: String,
    },
    /// The same short cycle of tools keeps repeating: escalate rather than loop.
    Thrash {
        /// The tools of the cycle, in order.
        cycle: Vec<String>,
        /// How many times it repeated.
        repeats: u32,
    },
}

/// One monitor's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    /// The monitor that raised it.
    pub source: MonitorKind,
    /// Its priority: the highest wins.
    pub priority: f64,
    #[serde(flatten)]
    /// What it is about.
    pub kind: SignalKind,
}

impl Signal {
    /// The risk signal of rule `i` (`rule`) for a context `value` above its bound.
    pub fn risk(i: usize, rule: &crate::graph::RiskRule, value: f64) -> Signal {
        Signal {
            source: MonitorKind::Risk,
            priority: rule.priority,
            kind: SignalKind::Risk {
                rule: i,
                key: rule.key.clone(),
                value,
                max: rule.max,
                stage: rule.stage.clone(),
            },
        }
    }
}

/// What monitors see at a decision point.
#[derive(Debug)]
pub struct DecisionView<'a> {
    /// The tool graph.
    pub graph: &'a ToolGraph,
    /// The task's context.
    pub context: &'a Context,
    /// The router's live health.
    pub health: &'a HealthBook,
    /// The clock value of the decision.
    pub now: Millis,
    /// Tools about to be called.
    pub next_tools: &'a [NodeIx],
    /// Tools whose failure was just reported and not yet routed around.
    pub just_failed: &'a [NodeIx],
    /// Each node's state in this task (completed, avoided for good...).
    pub tools: &'a [NodeState],
    /// Tool calls made in this task so far.
    pub tool_calls: u32,
    /// The task's tool-call budget.
    pub tool_budget: u32,
    /// The escalations already answered in this task: [`Monitors::run`] drops the signals they
    /// settle, so a monitor need not look (custom monitors may, to skip work).
    pub answered: &'a Answered,
    /// Tools completed so far in order (revisits repeat), since the last answered thrash
    /// escalation ([`Answered::history`]).
    pub history: &'a [NodeIx],
}

impl DecisionView<'_> {
    /// Whether this task already avoids the tool (failed, refused or known bad).
    pub fn avoids(&self, v: NodeIx) -> bool {
        self.tools.get(v).is_some_and(NodeState::is_avoided)
    }
}

/// A monitor: pure, cheap, and without side effects.
pub trait Monitor: Send + Sync {
    /// Which built-in kind the monitor is (its place in tie-breaks).
    fn kind(&self) -> MonitorKind;
    /// Pushes the signals the monitor raises at this decision point onto `out`.
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>);
}

/// Priorities of the built-in signals (seed 000's figures where it gives them).
pub mod priority {
    /// A tool failed or is unavailable: reroute.
    pub const TOOL_DOWN: f64 = 0.99;
    /// A budget would be exceeded: escalate.
    pub const BUDGET: f64 = 0.97;
    /// A tool known to be bad is next: avoid it.
    pub const KNOWN_BAD: f64 = 0.93;
    /// A cycle keeps repeating: escalate.
    pub const THRASH: f64 = 0.96;
    /// Repeats of the same cycle that count as thrashing.
    pub const THRASH_REPEATS: usize = 3;
    /// Routine signals: carry on.
    pub const ROUTINE: f64 = 0.5;
}

/// Keyword rules on the task's `request` text.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntentMonitor;

impl Monitor for IntentMonitor {
    fn kind(&self) -> MonitorKind {
        MonitorKind::Intent
    }
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        let request = view.context.get("request").and_then(Value::as_str).unwrap_or("");
        let hit = view.graph.intents().iter().find(|r| contains_folded(request, &r.keyword));
        let (intent, priority) = match hit {
            Some(r) => (r.keyword.clone(), r.priority),
            None => ("proceed".to_string(), priority::ROUTINE),
        };
        out.push(Signal { source: MonitorKind::Intent, priority, kind: SignalKind::Intent { intent } });
    }
}

/// Whether `text` contains `word`, both lowercased: by ASCII case folding, without an allocation,
/// when both are ASCII (a decision point's every intent rule, issue 48); `to_lowercase` otherwise.
fn contains_folded(text: &str, word: &str) -> bool {
    if text.is_ascii() && word.is_ascii() {
        let (text, word) = (text.as_bytes(), word.as_bytes());
        return word.is_empty() || text.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    }
    text.to_lowercase().contains(&word.to_lowercase())
}

/// Threshold rules on context values, guarding stages.
#[derive(Clone, Copy, Debug, Default)]
pub struct RiskMonitor;

impl Monitor for RiskMonitor {
    fn kind(&self) -> MonitorKind {
        MonitorKind::Risk
    }
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        for (i, rule) in view.graph.risk_rules().iter().enumerate() {
            if view.answered.rule(i) {
                continue;
            }
            let guarded =
                view.next_tools.iter().any(|&t| view.graph.node(t).stage() == Some(rule.stage.as_str()));
            let Some(value) = view.context.get(&rule.key).and_then(Value::as_f64) else {
                continue;
            };
            if guarded && value > rule.max {
                out.push(Signal::risk(i, rule, value));
            }
        }
    }
}

/// Breaker states and reported failures.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToolHealthMonitor;

impl Monitor for ToolHealthMonitor {
    fn kind(&self) -> MonitorKind {
        MonitorKind::ToolHealth
    }
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        let mut tools: Vec<String> = view.just_failed.iter().map(|&t| view.graph.id(t).to_string()).collect();
        for &t in view.next_tools {
            let down =
                view.health.state(t) == BreakerState::Open || !view.health.weight(t, view.now).is_finite();
            if down && !view.avoids(t) {
                tools.push(view.graph.id(t).to_string());
            }
        }
        if !tools.is_empty() {
            out.push(Signal {
                source: MonitorKind::ToolHealth,
                priority: priority::TOOL_DOWN,
                kind: SignalKind::ToolDown { tools },
            });
        }
    }
}

/// The task's tool-call budget.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProgressMonitor;

impl Monitor for ProgressMonitor {
    fn kind(&self) -> MonitorKind {
        MonitorKind::Progress
    }
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        if let Some(cycle) = repeated_cycle(view.history, priority::THRASH_REPEATS) {
            out.push(Signal {
                source: MonitorKind::Progress,
                priority: priority::THRASH,
                kind: SignalKind::Thrash {
                    cycle: cycle.iter().map(|&v| view.graph.id(v).to_string()).collect(),
                    repeats: priority::THRASH_REPEATS as u32,
                },
            });
        }
        out.extend(budget_signal(view.tool_calls, view.next_tools.len(), view.tool_budget));
    }
}

/// The budget signal when calling `next` more tools after `used` would pass `limit`. The session
/// also enforces it as a hard limit, whatever outbids it in the competition.
pub fn budget_signal(used: u32, next: usize, limit: u32) -> Option<Signal> {
    let after = used.saturating_add(next as u32);
    (next > 0 && after > limit).then_some(Signal {
        source: MonitorKind::Progress,
        priority: priority::BUDGET,
        kind: SignalKind::Budget { used: after, limit },
    })
}

/// The longest cycle (2 to 4 tools) that the end of `history` repeats at least `repeats` times.
pub fn repeated_cycle(history: &[NodeIx], repeats: usize) -> Option<&[NodeIx]> {
    (2..=4).find_map(|len| {
        let need = len * repeats;
        if history.len() < need {
            return None;
        }
        let tail = &history[history.len() - need..];
        let cycle = &tail[..len];
        let distinct = cycle.iter().enumerate().all(|(i, v)| !cycle[..i].contains(v));
        (distinct && tail.chunks(len).all(|c| c == cycle)).then_some(cycle)
    })
}

/// Tools known to be bad from earlier sessions or shared signals (context `known_bad`).
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoryMonitor;

impl Monitor for MemoryMonitor {
    fn kind(&self) -> MonitorKind {
        MonitorKind::Memory
    }
    fn observe(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        let Some(Value::Array(bad)) = view.context.get("known_bad") else {
            return;
        };
        for &t in view.next_tools {
            let id = view.graph.id(t);
            if bad.iter().any(|b| b.as_str() == Some(id)) && !view.avoids(t) {
                out.push(Signal {
                    source: MonitorKind::Memory,
                    priority: priority::KNOWN_BAD,
                    kind: SignalKind::KnownBad { tool: id.to_string() },
                });
            }
        }
    }
}

/// The set of monitors a session runs.
pub struct Monitors {
    monitors: Vec<Box<dyn Monitor>>,
}

impl core::fmt::Debug for Monitors {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.monitors.iter().map(|m| m.kind())).finish()
    }
}

impl Default for Monitors {
    fn default() -> Self {
        Monitors {
            monitors: alloc::vec![
                Box::new(IntentMonitor),
                Box::new(RiskMonitor),
                Box::new(ToolHealthMonitor),
                Box::new(ProgressMonitor),
                Box::new(MemoryMonitor),
            ],
        }
    }
}

impl Monitors {
    /// No monitors at all (routing only).
    pub fn none() -> Self {
        Monitors { monitors: Vec::new() }
    }

    /// Adds a monitor.
    pub fn with(mut self, m: Box<dyn Monitor>) -> Self {
        self.monitors.push(m);
        self
    }

    /// Runs every monitor, then drops the signals an answered escalation settled
    /// ([`Answered::settles`]): no monitor, built-in or not, escalates the same thing twice.
    pub fn run(&self, view: &DecisionView<'_>, out: &mut Vec<Signal>) {
        let from = out.len();
        for m in &self.monitors {
            m.observe(view, out);
        }
        let mut i = from;
        while i < out.len() {
            if view.answered.settles(&out[i]) {
                out.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// The kinds of the monitors, in the order they run.
    pub fn kinds(&self) -> Vec<MonitorKind> {
        self.monitors.iter().map(|m| m.kind()).collect()
    }
}

/// The winning signal: highest priority, ties to the earlier [`MonitorKind`], then to the
/// earlier signal.
pub fn compete(signals: &[Signal]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, s) in signals.iter().enumerate() {
        best = match best {
            None => Some(i),
            Some(b) => {
                let cur = &signals[b];
                let better =
                    s.priority > cur.priority || (s.priority == cur.priority && s.source < cur.source);
                Some(if better { i } else { b })
            }
        };
    }
    best
}

#[cfg(test)]
mod tests {
    use super::contains_folded;

    #[test]
    fn contains_folded_is_contains_of_both_lowercased() {
        let words = ["", "refund", "REFUND", "Réfund", "ß", "x", "und now", "İ"];
        let texts = ["", "Please REFUND now", "réfund", "RÉFUND", "STRASSE ß", "x", "İstanbul", "i̇"];
        for t in texts {
            for w in words {
                let want = t.to_lowercase().contains(&w.to_lowercase());
                assert_eq!(contains_folded(t, w), want, "{t:?} {w:?}");
            }
        }
    }
}
