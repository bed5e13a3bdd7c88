//! Cyclic workflows (seed 004): two example workflows with guarded back edges, deterministic
//! mock worlds that make revisits necessary, control-flow fault injection (with probability
//! `p` the next step is redirected to a random other tool) and the seed's metrics: SR, TC, STR,
//! SRR, delta-TC, and the revisitation statistics ATS, AUS, ASR and unique transitions.

pub mod react;

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use shr_core::graph::{NodeIx, ToolGraph};
use shr_core::rng::SplitMix64;
use shr_core::{
    Call, Decision, EscalationRequest, Host, Performed, Session, SessionConfig, Status, Task, ToolResult,
};
use shr_core::{Millis, Monitors};

/// Which mock world answers the tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum World {
    /// Crafting: each step consumes what the step before produced (a prerequisite chain).
    Prerequisites,
    /// Search places until the object is found, verify, take it (partially observable).
    SearchVerify,
}

/// A cyclic example workflow.
#[derive(Clone, Debug)]
pub struct CyclicExample {
    pub id: &'static str,
    pub graph: ToolGraph,
    pub world: World,
}

/// The two embedded examples.
pub fn examples() -> Vec<CyclicExample> {
    let files = [
        ("prerequisites", World::Prerequisites, include_str!("../../scenarios/cyclic_prerequisites.json")),
        ("search_verify", World::SearchVerify, include_str!("../../scenarios/cyclic_search_verify.json")),
    ];
    files
        .into_iter()
        .filter_map(|(id, world, text)| {
            ToolGraph::from_json(text).ok().map(|graph| CyclicExample { id, graph, world })
        })
        .collect()
}

/// The mock world's state.
#[derive(Clone, Debug)]
struct WorldState {
    world: World,
    inventory: [u32; 4],
    target: u32,
    place: u32,
    searched: bool,
    found: bool,
}

impl WorldState {
    fn new(world: World, rng: &mut SplitMix64) -> Self {
        // The object is in the first or second place searched: nominal runs need at most one
        // revisit of search and verify.
        WorldState {
            world,
            inventory: [0; 4],
            target: 1 + rng.below(2) as u32,
            place: 0,
            searched: false,
            found: false,
        }
    }

    fn call(&mut self, tool: &str) -> Value {
        match self.world {
            World::Prerequisites => {
                let step = ["get_logs", "make_planks", "make_sticks", "craft_pickaxe"]
                    .iter()
                    .position(|t| *t == tool);
                match step {
                    Some(0) => {
                        self.inventory[0] += 1;
                        json!({ "ok": true })
                    }
                    Some(i) if self.inventory[i - 1] > 0 => {
                        self.inventory[i - 1] -= 1;
                        self.inventory[i] += 1;
                        json!({ "ok": true })
                    }
                    _ => json!({ "ok": false }),
                }
            }
            World::SearchVerify => match tool {
                "search" => {
                    self.place = self.place % 3 + 1;
                    self.searched = true;
                    json!({ "place": self.place })
                }
                "verify" => {
                    let fresh = core::mem::replace(&mut self.searched, false);
                    self.found = fresh && self.place == self.target;
                    let status = if !fresh {
                        "lost"
                    } else if self.found {
                        "found"
                    } else {
                        "not_here"
                    };
                    json!({ "found": self.found, "status": status })
                }
                "repair" => {
                    self.place = 0;
                    json!({ "ok": true })
                }
                "take" => json!({ "ok": self.found && self.place == self.target }),
                _ => json!({ "ok": false }),
            },
        }
    }
}

/// One run's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CyclicRun {
    pub success: bool,
    pub tool_calls: u32,
    /// LLM calls: the router's escalations, or each of the ReAct agent's steps.
    pub llm_calls: u32,
    /// Tool completions in order (revisits repeat).
    pub visits: Vec<String>,
    pub redirects: u32,
    pub escalated: bool,
    /// The session's outcome (`None` if it did not finish within the run's step limit).
    #[serde(skip)]
    pub outcome: Option<shr_core::Outcome>,
    /// The session's events, for replay (the visualizer draws visits and revisits from them).
    #[serde(skip)]
    pub events: Vec<shr_core::event::Event>,
    /// The edges the run traversed, in order.
    #[serde(skip)]
    pub edges: Vec<(String, String)>,
    /// Each escalation (budget or thrash) and the answer it got.
    #[serde(skip)]
    pub escalations: Vec<crate::scenario::EscalationRecord>,
}

/// The host of a cyclic run: the mock world, and control-flow faults (with probability `p` a
/// step is redirected to another tool, seed 004).
struct CyclicHost {
    world: WorldState,
    rng: SplitMix64,
    p: f64,
    tools: Vec<NodeIx>,
    redirects: u32,
    escalations: Vec<crate::scenario::EscalationRecord>,
}

impl Host for CyclicHost {
    fn call(&mut self, _: &ToolGraph, call: &Call, _: Millis) -> Performed {
        Performed { result: ToolResult::ok(self.world.call(&call.tool), 10.0), latency_ms: 10 }
    }

    fn escalate(&mut self, _: &ToolGraph, request: &EscalationRequest, _: Millis) -> Decision {
        let stop = Decision::Abort { message: "budget or thrash: stop".into() };
        self.escalations
            .push(crate::scenario::EscalationRecord { request: request.clone(), decision: stop.clone() });
        stop
    }

    fn redirect(&mut self, graph: &ToolGraph, call: &Call, _: Millis) -> Option<String> {
        if !(self.rng.unit() < self.p && self.tools.len() > 1) {
            return None;
        }
        let others: Vec<NodeIx> = self.tools.iter().copied().filter(|&t| graph.id(t) != call.tool).collect();
        let to = *others.get(self.rng.below(others.len() as u64) as usize)?;
        self.redirects += 1;
        Some(graph.id(to).to_string())
    }
}

/// Tool calls a run may make (the router's `tool_budget`; the ReAct agent stops there too).
pub const TOOL_BUDGET: u32 = 30;

/// Runs an example once with redirect probability `p`.
pub fn run(example: &CyclicExample, p: f64, seed: u64) -> CyclicRun {
    let mut rng = SplitMix64::new(seed);
    let world = WorldState::new(example.world, &mut rng);
    let graph = &example.graph;
    let tools: Vec<NodeIx> = (0..graph.node_count()).filter(|&v| graph.node(v).tool).collect();
    let config = SessionConfig { tool_budget: TOOL_BUDGET, ..SessionConfig::default() };
    let mut run = CyclicRun {
        success: false,
        tool_calls: 0,
        llm_calls: 0,
        visits: Vec::new(),
        redirects: 0,
        escalated: false,
        outcome: None,
        events: Vec::new(),
        edges: Vec::new(),
        escalations: Vec::new(),
    };
    let Ok(mut session) = Session::with_parts(graph.clone(), Task::default(), config, Monitors::default(), 0)
    else {
        return run;
    };
    let mut host = CyclicHost { world, rng, p, tools, redirects: 0, escalations: Vec::new() };
    session.drive(&mut host, 0);
    run.redirects = host.redirects;
    run.escalated = !host.escalations.is_empty();
    run.escalations = host.escalations;
    run.success = session.outcome().is_some_and(|o| o.status == Status::Completed);
    run.tool_calls = session.tool_calls();
    run.llm_calls = session.llm_calls();
    run.visits = session
        .completed()
        .filter(|id| graph.index(id).is_some_and(|v| graph.node(v).tool))
        .map(ToString::to_string)
        .collect();
    run.outcome = session.outcome().cloned();
    run.events = session.events().to_vec();
    run.edges = crate::scenario::traversed_ids(graph, session.run());
    run
}

/// Seed 004's metrics over a set of runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CyclicMetrics {
    pub runs: u32,
    /// Success rate.
    pub sr: f64,
    /// Mean tool calls of successful runs.
    pub tc: f64,
    /// SR / TC.
    pub str_: f64,
    /// Average total subtask visits (successful runs).
    pub ats: f64,
    /// Average unique subtasks visited (successful runs).
    pub aus: f64,
    /// Average revisitation, ATS - AUS.
    pub asr: f64,
    /// Mean unique transitions per run (all runs).
    pub ut: f64,
    pub redirects: u32,
    pub escalations: u32,
    /// Mean LLM calls per run (all runs).
    pub llm: f64,
}

impl CyclicMetrics {
    pub fn of(runs: &[CyclicRun]) -> Self {
        let n = runs.len().max(1) as f64;
        let ok: Vec<&CyclicRun> = runs.iter().filter(|r| r.success).collect();
        let k = ok.len().max(1) as f64;
        let sr = ok.len() as f64 / n;
        let tc = ok.iter().map(|r| r.tool_calls as f64).sum::<f64>() / k;
        let ats = ok.iter().map(|r| r.visits.len() as f64).sum::<f64>() / k;
        let aus = ok.iter().map(|r| r.visits.iter().collect::<BTreeSet<_>>().len() as f64).sum::<f64>() / k;
        let ut = runs
            .iter()
            .map(|r| r.visits.windows(2).map(|w| (&w[0], &w[1])).collect::<BTreeSet<_>>().len() as f64)
            .sum::<f64>()
            / n;
        CyclicMetrics {
            runs: runs.len() as u32,
            sr,
            tc,
            str_: if tc > 0.0 { sr / tc } else { 0.0 },
            ats,
            aus,
            asr: ats - aus,
            ut,
            redirects: runs.iter().map(|r| r.redirects).sum(),
            escalations: runs.iter().filter(|r| r.escalated).count() as u32,
            llm: runs.iter().map(|r| f64::from(r.llm_calls)).sum::<f64>() / n,
        }
    }
}

/// Metrics of one example at one fault probability, with retention against `p = 0`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CyclicRow {
    pub example: String,
    /// `SHR` or `ReAct`.
    pub executor: String,
    pub p: f64,
    pub metrics: CyclicMetrics,
    /// SR at `p` / SR at `p = 0`.
    pub srr: f64,
    /// TC at `p` - TC at `p = 0`.
    pub delta_tc: f64,
}

/// Runs both examples at each probability, `runs` seeded runs each, with the router and with
/// the ReAct agent (the same worlds and faults from the same seeds).
pub fn bench(probabilities: &[f64], runs: u32) -> Vec<CyclicRow> {
    let mut rows = Vec::new();
    for ex in examples() {
        for name in ["SHR", "ReAct"] {
            let exec =
                |p: f64, s: u64| if name == "SHR" { run(&ex, p, s) } else { react::run(&ex, p, s).run };
            let measure =
                |p: f64| CyclicMetrics::of(&(0..runs as u64).map(|s| exec(p, s)).collect::<Vec<_>>());
            let nominal = measure(0.0);
            for &p in probabilities {
                let m = if p == 0.0 { nominal } else { measure(p) };
                rows.push(CyclicRow {
                    example: format!("{} ({})", ex.id, ex.graph.name().unwrap_or_default()),
                    executor: name.to_string(),
                    p,
                    metrics: m,
                    srr: if nominal.sr > 0.0 { m.sr / nominal.sr } else { 0.0 },
                    delta_tc: m.tc - nominal.tc,
                });
            }
        }
    }
    rows
}

/// The rows as a Markdown table.
pub fn render(rows: &[CyclicRow]) -> String {
    let mut out = String::from(
        "| Workflow | Executor | p | SR | TC | STR | SRR | dTC | ATS | AUS | ASR | UT | redirects | escalations | LLM calls / run |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let m = &r.metrics;
        out.push_str(&format!(
            "| {} | {} | {:.2} | {:.0}% | {:.2} | {:.3} | {:.3} | {:+.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {:.2} |\n",
            r.example,
            r.executor,
            r.p,
            100.0 * m.sr,
            m.tc,
            m.str_,
            r.srr,
            r.delta_tc,
            m.ats,
            m.aus,
            m.asr,
            m.ut,
            m.redirects,
            m.escalations,
            m.llm
        ));
    }
    out
}
