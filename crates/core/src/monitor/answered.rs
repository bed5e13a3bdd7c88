//! "This escalation was answered": one record every escalating signal shares, so that a monitor
//! does not raise again what the LLM (or the host) already decided.
//!
//! An escalating [`SignalKind`] says what its answer settles ([`SignalKind::settled_by_answer`],
//! a `match` without a wildcard: a new kind does not compile until its author decides).
//! [`Monitors::run`](super::Monitors::run) drops every signal an answer settled, whichever
//! monitor raised it.

use alloc::vec::Vec;

use super::{Signal, SignalKind};
use crate::graph::NodeIx;

/// What answering a signal's escalation settles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settles {
    /// The signal does not escalate: nothing to answer.
    Nothing,
    /// Risk rule `i`: answered once, it is not raised again in the task.
    RiskRule(usize),
    /// The cycles completed so far: only cycles repeated after the answer count again.
    History,
    /// Nothing the answer can settle: the session enforces it as a hard limit and ends the
    /// task when the escalation budget is spent (the tool-call budget).
    HardLimit,
}

impl SignalKind {
    /// What answering this signal's escalation settles. No wildcard: a new signal kind must say.
    pub fn settled_by_answer(&self) -> Settles {
        match self {
            SignalKind::Intent { .. } | SignalKind::ToolDown { .. } | SignalKind::KnownBad { .. } => {
                Settles::Nothing
            }
            SignalKind::Risk { rule, .. } => Settles::RiskRule(*rule),
            SignalKind::Thrash { .. } => Settles::History,
            SignalKind::Budget { .. } => Settles::HardLimit,
        }
    }
}

/// The escalations a task has had answered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answered {
    /// Risk rules answered, by index.
    rules: Vec<bool>,
    /// The task's completion history before this index was answered as thrashing.
    history_from: usize,
}

impl Answered {
    /// Nothing answered yet, for a graph with `risk_rules` rules.
    pub fn new(risk_rules: usize) -> Answered {
        Answered { rules: alloc::vec![false; risk_rules], history_from: 0 }
    }

    /// How many risk rules it keeps (the graph's).
    pub fn risk_rules(&self) -> usize {
        self.rules.len()
    }

    /// Records that the escalation `signal` raised was answered; `history_len` is the length of
    /// the task's completion history when it was raised.
    pub fn settle(&mut self, signal: &Signal, history_len: usize) {
        match signal.kind.settled_by_answer() {
            Settles::RiskRule(i) => {
                if let Some(a) = self.rules.get_mut(i) {
                    *a = true;
                }
            }
            Settles::History => self.history_from = self.history_from.max(history_len),
            Settles::Nothing | Settles::HardLimit => {}
        }
    }

    /// Whether risk rule `i`'s escalation was answered.
    pub fn rule(&self, i: usize) -> bool {
        self.rules.get(i).copied().unwrap_or(false)
    }

    /// The part of `history` not yet answered as thrashing.
    pub fn history<'h>(&self, history: &'h [NodeIx]) -> &'h [NodeIx] {
        history.get(self.history_from..).unwrap_or(&[])
    }

    /// Whether an answer already settled `signal` (it is then not raised).
    pub fn settles(&self, signal: &Signal) -> bool {
        match signal.kind.settled_by_answer() {
            Settles::RiskRule(i) => self.rule(i),
            // The monitors see only the history after the answer ([`Answered::history`]).
            Settles::History | Settles::Nothing | Settles::HardLimit => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::MonitorKind;
    use alloc::string::ToString;

    fn signal(kind: SignalKind) -> Signal {
        Signal { source: MonitorKind::Risk, priority: 0.9, kind }
    }

    #[test]
    fn an_answered_risk_rule_is_settled_and_others_are_not() {
        let mut a = Answered::new(2);
        let risk = |rule| {
            signal(SignalKind::Risk {
                rule,
                key: "amount".to_string(),
                value: 9.0,
                max: 1.0,
                stage: "pay".to_string(),
            })
        };
        assert!(!a.settles(&risk(0)));
        a.settle(&risk(0), 0);
        assert!(a.settles(&risk(0)) && a.rule(0));
        assert!(!a.settles(&risk(1)));
        // A rule the graph does not have is ignored, never a panic.
        a.settle(&risk(7), 0);
        assert!(!a.rule(7));
    }

    #[test]
    fn an_answered_thrash_hides_the_history_before_it() {
        let mut a = Answered::new(0);
        let thrash = signal(SignalKind::Thrash { cycle: alloc::vec![], repeats: 3 });
        let history = [1, 2, 1, 2, 1, 2, 3];
        a.settle(&thrash, 6);
        assert_eq!(a.history(&history), &[3]);
        // An older mark never moves it back.
        a.settle(&thrash, 2);
        assert_eq!(a.history(&history), &[3]);
        assert_eq!(a.history(&history[..4]), &[] as &[NodeIx]);
    }

    #[test]
    fn non_escalating_signals_settle_nothing() {
        let mut a = Answered::new(1);
        for kind in [
            SignalKind::Intent { intent: "x".to_string() },
            SignalKind::ToolDown { tools: alloc::vec![] },
            SignalKind::KnownBad { tool: "t".to_string() },
            SignalKind::Budget { used: 9, limit: 3 },
        ] {
            let s = signal(kind);
            a.settle(&s, 5);
            assert!(!a.settles(&s));
        }
        assert_eq!(a, Answered::new(1));
    }
}
