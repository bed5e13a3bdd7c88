//! The ReAct baseline on the cyclic workflows: an agent with a loop of its own, never the router.
//!
//! Its prompt holds the workflow as written: each tool, and which tool comes next after which
//! observation (the guards, in words), in the description's order; no costs. Each step is one
//! LLM call (Thought and Action), the tool's result its Observation; the final answer is one
//! more. The mock LLM's rule: after an observation from a tool, take the first way on from that
//! tool whose condition the observation meets, and call its tool; at the goal, answer. The same
//! control-flow faults as the router's runs (with probability `p` a call is redirected to another
//! tool, seed 004) hit it: the observation names the tool that ran, and the agent goes on from
//! there. It stops and says so past the tool budget the router's runs have (30 calls), or when
//! no way on is met.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use shr_core::graph::{NodeIx, ToolGraph};
use shr_core::rng::SplitMix64;
use shr_core::{Call, Host, Status};

use super::{CyclicExample, CyclicHost, CyclicRun, WorldState, TOOL_BUDGET};
use crate::scenario::react::{ReactAction, ReactRun, ReactStep};
use crate::scenario::{Executor, RunReport};

/// A ReAct run of a cyclic workflow: seed 004's record, and the report with its steps.
#[derive(Clone, Debug)]
pub struct ReactCyclicRun {
    pub run: CyclicRun,
    pub react: ReactRun,
}

/// The first way on from `u` whose condition `output` meets (none given: every way is met).
fn way_on(graph: &ToolGraph, u: NodeIx, output: Option<&serde_json::Value>) -> Option<usize> {
    graph.out_edges(u).iter().map(|&e| e as usize).find(|&e| match (graph.guard(e), output) {
        (Some(g), Some(out)) => g.holds(out),
        (Some(_), None) => false,
        (None, _) => true,
    })
}

/// Runs `example` once with the ReAct agent and redirect probability `p`; the world and the
/// faults are drawn from `seed` as for the router's run.
pub fn run(example: &CyclicExample, p: f64, seed: u64) -> ReactCyclicRun {
    let mut rng = SplitMix64::new(seed);
    let world = WorldState::new(example.world, &mut rng);
    let graph = &example.graph;
    let tools: Vec<NodeIx> = (0..graph.node_count()).filter(|&v| graph.node(v).tool).collect();
    let mut host = CyclicHost { world, rng, p, tools, redirects: 0, escalations: Vec::new() };
    let mut steps: Vec<ReactStep> = Vec::new();
    let (mut visits, mut edges) = (Vec::new(), Vec::new());
    let mut at = graph.start();
    let mut output: Option<serde_json::Value> = None;
    let mut thought = String::from("Follow the workflow from its start.");
    let mut reached = false;
    while visits.len() < TOOL_BUDGET as usize {
        let Some(e) = way_on(graph, at, output.as_ref()) else { break };
        let next = graph.edge(e).to;
        edges.push((graph.id(at).to_string(), graph.id(next).to_string()));
        if next == graph.goal() {
            reached = true;
            break;
        }
        if !graph.node(next).tool {
            (at, output) = (next, None);
            continue;
        }
        let asked = graph.id(next).to_string();
        let call_id = format!("react-{seed}:{asked}:{}", visits.len() + 1);
        let call =
            Call { tool: asked.clone(), attempt: 1, not_before: 0, delay_ms: 0, call_id, timeout_ms: 0 };
        let ran = host.redirect(graph, &call, 0).unwrap_or_else(|| asked.clone());
        let result = host.world.call(&ran);
        let observation =
            if ran == asked { result.to_string() } else { format!("({ran} ran instead) {result}") };
        steps.push(ReactStep {
            llm_call: steps.len() as u32 + 1,
            thought: core::mem::take(&mut thought),
            action: ReactAction::Call {
                tool: asked,
                capability: graph.node(next).stage().unwrap_or("").to_string(),
            },
            observation: Some(observation),
            error: None,
        });
        visits.push(ran.clone());
        at = graph.index(&ran).unwrap_or(next);
        thought = format!("`{ran}` answered {result}: take the way on that this meets.");
        output = Some(result);
    }
    let status = if reached { Status::Completed } else { Status::Escalated };
    steps.push(ReactStep {
        llm_call: steps.len() as u32 + 1,
        thought: if reached { String::from("The workflow is done: answer.") } else { thought },
        action: ReactAction::Finish {
            goal: graph.id(graph.goal()).to_string(),
            status,
            message: (!reached).then(|| String::from("no way on, or the tool budget is spent")),
        },
        observation: None,
        error: None,
    });
    let run = CyclicRun {
        success: reached,
        tool_calls: visits.len() as u32,
        llm_calls: steps.len() as u32,
        visits: visits.clone(),
        redirects: host.redirects,
        escalated: !reached,
        outcome: None,
        events: Vec::new(),
        edges,
        escalations: Vec::new(),
    };
    let mut path = alloc::vec![graph.id(graph.start()).to_string()];
    path.extend(visits);
    if reached {
        path.push(graph.id(graph.goal()).to_string());
    }
    let report = RunReport {
        scenario: example.id.to_string(),
        executor: Executor::React,
        status,
        goal: if reached { graph.id(graph.goal()).to_string() } else { String::new() },
        path,
        llm_calls: steps.len() as u32,
        tool_calls: run.tool_calls,
        recoveries: 0,
        classifiers_lost: 0,
        silent_failure: false,
        correct: reached,
        problems: Vec::new(),
        escalations: Vec::new(),
        events: Vec::new(),
        edges: Vec::new(),
    };
    ReactCyclicRun { run, react: ReactRun { report, steps } }
}
