//! Replanning policies on generated layered tool graphs (issue 30): one tool on the planned path
//! fails for good, and the run either finds its way from completed work or asks the LLM.
//!
//! ```text
//! cargo run --release -p shr-eval --example replan -- [--trials 1000] [--seed 30]
//! ```
//!
//! Graphs: about 1,000 nodes in layers of 2 to 8 alternative tools, each tool leading to 1 to 3
//! tools of the next layer (the shape agents' tool graphs have). Each trial fails one tool of
//! the initial plan, chosen at random, and runs the task with each policy on the same graph.
//! A second table gives a third of the tools a side effect, half of them with a compensating
//! tool. Printed as Markdown; every figure is counted from the runs.

use serde_json::json;
use shr_core::drive::FnHost;
use shr_core::event::EventKind;
use shr_core::rng::SplitMix64;
use shr_core::{
    Call, Decision, EscalationRequest, Monitors, Performed, ReplanFrom, Session, SessionConfig, Task,
    ToolGraph, ToolResult,
};

fn layered(rng: &mut SplitMix64, side_effects: bool) -> ToolGraph {
    let mut nodes = vec![json!({"id": "s", "tool": false})];
    let mut edges = Vec::new();
    let mut prev = vec!["s".to_string()];
    let mut count = 0;
    let mut layer = 0;
    while count < 1_000 {
        let width = 2 + rng.below(7) as usize;
        let ids: Vec<String> = (0..width).map(|i| format!("l{layer}_{i}")).collect();
        for id in &ids {
            let mut node = json!({"id": id, "base_cost": 1 + rng.below(3)});
            if side_effects && rng.below(3) == 0 {
                node["side_effect"] = json!(true);
                if rng.below(2) == 0 {
                    let undo = format!("undo_{id}");
                    nodes.push(json!({"id": undo}));
                    node["compensate"] = json!(undo);
                }
            }
            nodes.push(node);
        }
        // Every tool of the layer is entered from 1 to 3 tools of the one before.
        for id in &ids {
            let from = 1 + rng.below(3);
            for _ in 0..from {
                let p = &prev[rng.below(prev.len() as u64) as usize];
                let e = json!({"from": p, "to": id, "cost": 1 + rng.below(5)});
                if !edges.contains(&e)
                    && !edges.iter().any(|x: &serde_json::Value| x["from"] == *p && x["to"] == *id)
                {
                    edges.push(e);
                }
            }
        }
        count += width;
        layer += 1;
        prev = ids;
    }
    nodes.push(json!({"id": "g", "tool": false}));
    for p in &prev {
        edges.push(json!({"from": p, "to": "g", "cost": 1}));
    }
    let text = json!({"nodes": nodes, "edges": edges, "start": "s", "goal": "g"}).to_string();
    ToolGraph::from_json(&text).unwrap_or_else(|e| panic!("generated graph refused: {e}"))
}

#[derive(Default)]
struct Tally {
    runs: u32,
    escalations: u32,
    llm_calls: u32,
    completed: u32,
    compensations: u32,
    tool_calls: u32,
}

fn run(graph: &ToolGraph, victim: &str, policy: ReplanFrom, tally: &mut Tally) {
    // Plans run through a couple of hundred layers: the tool budget is not what is measured.
    let config = SessionConfig { replan_from: policy, tool_budget: 100_000, ..SessionConfig::default() };
    let Ok(mut s) = Session::with_parts(graph.clone(), Task::default(), config, Monitors::default(), 0)
    else {
        return;
    };
    let call = |c: &Call| Performed {
        result: if c.tool == victim { ToolResult::outage("down") } else { ToolResult::ok(json!({}), 1.0) },
        latency_ms: 1,
    };
    s.drive(&mut FnHost::new(call, |_: &EscalationRequest| Decision::Abort { message: "stop".into() }), 0);
    let Some(o) = s.outcome() else { return };
    tally.runs += 1;
    tally.llm_calls += o.llm_calls;
    tally.tool_calls += o.tool_calls;
    tally.completed += u32::from(o.status == shr_core::Status::Completed);
    for e in s.events() {
        match e.kind {
            EventKind::Escalated { .. } => tally.escalations += 1,
            EventKind::Compensated { .. } => tally.compensations += 1,
            _ => {}
        }
    }
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let trials = arg("--trials", 1_000) as u32;
    let seed = arg("--seed", 30);
    for side_effects in [false, true] {
        let mut rng = SplitMix64::new(seed ^ u64::from(side_effects));
        let (mut tip, mut completed) = (Tally::default(), Tally::default());
        let mut graph = layered(&mut rng, side_effects);
        for t in 0..trials {
            if t % 50 == 0 {
                graph = layered(&mut rng, side_effects);
            }
            let mut router = shr_core::Router::new(graph.clone());
            let Some(plan) = router.route(graph.start(), graph.goal(), 0) else { continue };
            let tools: Vec<usize> = plan.nodes.iter().copied().filter(|&v| graph.node(v).tool).collect();
            if tools.is_empty() {
                continue;
            }
            let victim = graph.id(tools[rng.below(tools.len() as u64) as usize]).to_string();
            run(&graph, &victim, ReplanFrom::Tip, &mut tip);
            run(&graph, &victim, ReplanFrom::Completed, &mut completed);
        }
        println!(
            "\n{} single failures on layered graphs of about 1,000 nodes{} (seed {seed}):\n",
            tip.runs,
            if side_effects {
                ", a third of the tools with side effects, half of those compensable"
            } else {
                ""
            }
        );
        println!("| policy | escalations | LLM calls | completed | compensations run | tool calls |");
        println!("|---|---:|---:|---:|---:|---:|");
        for (name, t) in [("`tip`", &tip), ("`completed` (default)", &completed)] {
            println!(
                "| {name} | {} ({:.1} per 1,000) | {} | {} | {} | {} |",
                t.escalations,
                1000.0 * f64::from(t.escalations) / f64::from(t.runs.max(1)),
                t.llm_calls,
                t.completed,
                t.compensations,
                t.tool_calls
            );
        }
        println!(
            "\nLLM calls saved by `completed`: {}; extra tool calls: {:+}.",
            tip.llm_calls as i64 - completed.llm_calls as i64,
            completed.tool_calls as i64 - tip.tool_calls as i64
        );
    }
}
