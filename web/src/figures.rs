//! Story texts say figures (a plan's cost, how many tools failed, how many reroutes, LLM calls);
//! the page states the run's own, not the ones written by hand: each figure a step names is
//! filled from the run at the moment the step is told. Pure functions, no DOM.

use shr_core::event::{Event, EventKind};

/// The run's figures at the moment a story step is told.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    /// The cost of the plan in force (from where execution stands), if one is.
    pub plan_cost: Option<f64>,
    /// Tools down in the scenario.
    pub down: usize,
    /// Distinct tools whose calls failed so far.
    pub failed: usize,
    /// Reroutes around a failed tool so far.
    pub reroutes: usize,
    pub llm_calls: usize,
}

impl Facts {
    pub fn at(events: &[Event], plan_cost: Option<f64>, down: usize) -> Facts {
        let mut failed: Vec<&str> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ToolFailed { tool, .. } => Some(tool.as_str()),
                _ => None,
            })
            .collect();
        failed.sort_unstable();
        failed.dedup();
        let count = |f: &dyn Fn(&EventKind) -> bool| events.iter().filter(|e| f(&e.kind)).count();
        Facts {
            plan_cost,
            down,
            failed: failed.len(),
            reroutes: count(&|k| matches!(k, EventKind::Rerouted { around, .. } if !around.is_empty())),
            llm_calls: count(&|k| matches!(k, EventKind::Escalated { llm_call, .. } if *llm_call > 0)),
        }
    }
}

const WORDS: [&str; 13] =
    ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

/// The number a word or numeral says.
fn number(word: &str) -> Option<usize> {
    let w = word.to_lowercase();
    w.parse().ok().or_else(|| WORDS.iter().position(|x| *x == w)).or((w == "zero").then_some(0))
}

/// `n` as the text wrote its number: a word (capitalized like it) or a numeral.
fn say(n: usize, like: &str) -> String {
    if like.chars().all(|c| c.is_ascii_digit()) {
        return n.to_string();
    }
    let w = WORDS.get(n).map_or_else(|| n.to_string(), |w| w.to_string());
    if like.chars().next().is_some_and(char::is_uppercase) {
        let mut c = w.chars();
        c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or(w)
    } else {
        w
    }
}

/// The text with each figure it states replaced by the run's: "(cost N)" by the plan's cost,
/// "N tools are down", "N failures", "N reroutes", "N LLM calls" (or "no LLM call") by the
/// counts. Words that are not figures are kept as written.
pub fn fill(text: &str, f: &Facts) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    for i in 0..words.len() {
        let Some(n) = number(words[i]) else {
            // "(cost 12)."
            if words[i] == "(cost" {
                if let (Some(next), Some(c)) = (words.get(i + 1), f.plan_cost) {
                    let digits: String =
                        next.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
                    if !digits.is_empty() {
                        out[i + 1] = format!("{}{}", num(c), &next[digits.len()..]);
                    }
                }
            }
            continue;
        };
        let next = |k: usize| words.get(i + k).map(|w| w.trim_end_matches([',', '.', ':', ';']));
        let value = match (next(1), next(2), next(3)) {
            (Some("tools"), Some("are"), Some("down")) => Some(f.down),
            // "two failures healed by routing": the reroutes.
            (Some("failures" | "failure"), Some("healed"), _) => Some(f.reroutes),
            (Some("failures" | "failure"), _, _) => Some(f.failed),
            (Some("reroutes" | "reroute"), _, _) => Some(f.reroutes),
            (Some("LLM"), Some("call" | "calls"), _) => Some(f.llm_calls),
            _ => None,
        };
        let Some(value) = value.filter(|&v| v != n) else { continue };
        out[i] = say(value, words[i]);
        // The noun's number follows the figure's.
        let noun = if next(1) == Some("LLM") { i + 2 } else { i + 1 };
        if let Some(w) = words.get(noun) {
            let bare = w.trim_end_matches([',', '.', ':', ';']);
            let tail = &w[bare.len()..];
            let singular = bare.strip_suffix('s').unwrap_or(bare);
            let fixed =
                if value == 1 || bare == "are" { singular.to_string() } else { format!("{singular}s") };
            if bare != "tools" {
                out[noun] = format!("{fixed}{tail}");
            }
        }
    }
    out.join(" ")
}

/// A number for people: integers without decimals, infinity as ∞.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        "∞".into()
    } else if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.1}")
    }
}
