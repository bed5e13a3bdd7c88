//! `shr`: the Self-Healing Router on the command line.
//! `shr bench` reproduces the paper's tables by running the 19 scenarios; `shr route` routes a
//! graph file under given failures; `shr check` validates graph and scenario files.

mod bench;
mod chart;
mod curve;
mod discover;
mod files;
mod monitor_curve;
mod perturb;
mod recovery;
mod sweep;

use std::path::Path;
use std::process::ExitCode;

use shr_core::algo::{Trace, TraceStep};
use shr_core::{Router, ToolGraph};
use shr_eval::scenario::{self, Executor, ReactConfig};

use files::{load_dir, printable, read};

const USAGE: &str = "\
usage:
  shr bench [--json FILE|-] [--events ID] [--scenarios DIR] [--react-error-rate P[,P...]
            [--runs N] [--seed S]] [--sweep [--svg FILE]] [--cyclic [--runs N]]
      Run the 19 scenarios with SHR, ReAct and the static workflow; print Tables 1-4, the
      paper's literal readings beside ours, and Tables 5-6 (from the failure sweep).
      --json FILE   also write every run and the totals as JSON (- for stdout only)
      --events ID   print the SHR event stream of one scenario as JSON lines instead
      --react-trace ID  print the ReAct agent's Thought/Action/Observation steps as JSON lines
      --scenarios DIR  load domain and scenario files from DIR instead of the embedded pack
      --react-error-rate P,...  the ReAct LLM errs at each step with probability P (seeded):
                    Tables 1-4 at the first P, and the curve over every P (--runs seeds each,
                    default 100, from --seed, default 2026)
      --sweep       every subset of each domain's tools down: correct, silent failures and LLM
                    calls per executor (--svg FILE also draws them; with --react-error-rate,
                    --svg FILE draws the curve)
      --cyclic      the two cyclic workflows at fault probability 0, 0.25, 0.5 (seed 004 metrics)
      --monitor-error-rate P,...  SHR with intent and risk monitors that err (false positives
                    and negatives at rate P, seeded): correct, silent and LLM calls over the 19
                    scenarios (--runs seeds, default 20) and the sweep (--sweep-runs seeds,
                    default 3), intent, risk and both erring; --svg FILE draws the curve
  shr route GRAPH.json [--down a,b] [--from ID] [--to ID] [--trace]
      Route a graph file with the given tools failed; print the plan and its cost.
  shr perturb [--tasks N] [--seed S] [--json FILE|-]
      ToolMaze matrix: NP and P1-P4 by C1-C4, for SHR, SHR without validators, and ReAct.
  shr check FILE...
      Validate graph files (and scenario directories); print every problem.
  shr discover --config SERVERS.json [--out DIR] [--measure N] [--refine MODULE]
      Read every tools/list of the config's MCP servers and propose a graph and a gateway
      config with the reason for each grouping and edge (docs/discovery.md); runs the gateway
      package's --discover with Node.
exit status: 0 done; 1 no healthy path (shr route: escalate); 2 invalid input or usage.";

/// Why a command failed, and its exit status: 1 for "no healthy path" (an answer a caller acts
/// on: escalate), 2 for invalid input or usage.
struct Failure {
    code: u8,
    message: String,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure { code: 2, message }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bench") => cmd_bench(&args[1..]),
        Some("route") => cmd_route(&args[1..]),
        Some("check") => cmd_check(&args[1..]),
        Some("perturb") => cmd_perturb(&args[1..]),
        Some("discover") => discover::cmd_discover(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(Failure::from(format!("unknown command `{other}`\n{USAGE}"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { code, message }) => {
            eprintln!("shr: {}", printable(&message));
            ExitCode::from(code)
        }
    }
}

/// `--flag value` options and positional arguments.
struct Args {
    positional: Vec<String>,
    options: Vec<(String, Option<String>)>,
}

impl Args {
    fn parse(args: &[String], takes_value: &[&str], flags: &[&str]) -> Result<Args, String> {
        let mut out = Args { positional: Vec::new(), options: Vec::new() };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if takes_value.contains(&a.as_str()) {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                out.options.push((a.clone(), Some(v.clone())));
            } else if flags.contains(&a.as_str()) {
                out.options.push((a.clone(), None));
            } else if a.starts_with("--") {
                return Err(format!("unknown option `{a}`\n{USAGE}"));
            } else {
                out.positional.push(a.clone());
            }
        }
        Ok(out)
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.options.iter().find(|(k, _)| k == name).and_then(|(_, v)| v.as_deref())
    }

    fn flag(&self, name: &str) -> bool {
        self.options.iter().any(|(k, _)| k == name)
    }
}

/// `--react-error-rate`: probabilities, comma-separated.
fn rates(text: &str) -> Result<Vec<f64>, String> {
    text.split(',')
        .map(|p| match p.trim().parse::<f64>() {
            Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
            _ => Err(format!("--react-error-rate takes probabilities between 0 and 1, not `{p}`")),
        })
        .collect()
}

/// `shr bench --monitor-error-rate P,...` (see `monitor_curve`).
fn cmd_monitor_errors(args: &Args, text: &str) -> Result<(), Failure> {
    let rates = text
        .split(',')
        .map(|p| match p.trim().parse::<f64>() {
            Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
            _ => Err(format!("--monitor-error-rate takes probabilities between 0 and 1, not `{p}`")),
        })
        .collect::<Result<Vec<f64>, String>>()?;
    let number = |name: &str, default: u32| {
        args.value(name).map_or(Ok(default), |v| {
            v.parse::<u32>().map_err(|_| format!("{name} takes a whole number, not `{v}`"))
        })
    };
    let seeds = number("--runs", 20)?.clamp(1, 10_000);
    let sweep_seeds = number("--sweep-runs", 3)?.clamp(0, 1_000);
    let seed = args.value("--seed").map_or(Ok(2026), |v| {
        v.parse::<u64>().map_err(|_| format!("--seed takes a whole number, not `{v}`"))
    })?;
    let pack = match args.value("--scenarios") {
        Some(dir) => load_dir(Path::new(dir))?,
        None => scenario::pack().map_err(|e| e.to_string())?.to_vec(),
    };
    let curve = monitor_curve::run(&pack, &rates, seeds, sweep_seeds, seed);
    if args.value("--json") != Some("-") {
        print!("{}", monitor_curve::render(&curve));
    }
    if let Some(path) = args.value("--svg") {
        std::fs::write(path, monitor_curve::svg(&curve)).map_err(|e| format!("{path}: {e}"))?;
    }
    if let Some(path) = args.value("--json") {
        write_json(path, &curve)?;
    }
    Ok(())
}

fn write_json<T: serde::Serialize>(path: &str, value: &T) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    if path == "-" {
        println!("{text}");
        Ok(())
    } else {
        std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
    }
}

fn cmd_bench(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(
        args,
        &[
            "--json",
            "--events",
            "--react-trace",
            "--scenarios",
            "--runs",
            "--react-error-rate",
            "--seed",
            "--svg",
            "--monitor-error-rate",
            "--sweep-runs",
        ],
        &["--cyclic", "--sweep"],
    )?;
    if let Some(text) = args.value("--monitor-error-rate") {
        return cmd_monitor_errors(&args, text);
    }
    if args.flag("--cyclic") {
        let runs = args
            .value("--runs")
            .map_or(Ok(200), |v| v.parse::<u32>().map_err(|_| format!("--runs takes a number, not `{v}`")))?;
        let rows = shr_eval::cyclic::bench(&[0.0, 0.25, 0.5], runs.clamp(1, 100_000));
        println!("Cyclic workflows under control-flow fault injection ({runs} seeded runs per cell; seed 004 metrics).\n");
        print!("{}", shr_eval::cyclic::render(&rows));
        if let Some(path) = args.value("--json") {
            let text = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
            std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
        }
        return Ok(());
    }
    let pack = match args.value("--scenarios") {
        Some(dir) => load_dir(Path::new(dir))?,
        None => scenario::pack().map_err(|e| e.to_string())?.to_vec(),
    };
    let find = |id: &str| {
        pack.iter()
            .find(|s| s.id.eq_ignore_ascii_case(id))
            .ok_or_else(|| format!("no scenario `{id}` (try S1..S7, T1..T6, M1..M6)"))
    };
    let rates = args.value("--react-error-rate").map(rates).transpose()?;
    let seed = args.value("--seed").map_or(Ok(2026), |v| {
        v.parse::<u64>().map_err(|_| format!("--seed takes a whole number, not `{v}`"))
    })?;
    let react = ReactConfig {
        error_rate: rates.as_ref().and_then(|r| r.first().copied()).unwrap_or(0.0),
        seed,
        ..ReactConfig::default()
    };
    if let Some(id) = args.value("--events") {
        let report = scenario::run(find(id)?, Executor::Shr);
        print!("{}", shr_core::event::to_json_lines(&report.events));
        return Ok(());
    }
    if let Some(id) = args.value("--react-trace") {
        let run = scenario::run_react(find(id)?, &react);
        for step in &run.steps {
            println!("{}", serde_json::to_string(step).map_err(|e| e.to_string())?);
        }
        return Ok(());
    }
    let swept = shr_eval::sweep::sweep(&pack, &react);
    if args.flag("--sweep") {
        let sweeps = swept?;
        let totals = sweep::totals(&sweeps);
        if args.value("--json") != Some("-") {
            print!("{}", sweep::render(&sweeps, &totals));
        }
        if let Some(path) = args.value("--svg") {
            std::fs::write(path, sweep::svg(&totals)).map_err(|e| format!("{path}: {e}"))?;
        }
        if let Some(path) = args.value("--json") {
            #[derive(serde::Serialize)]
            struct SweepJson<'a> {
                totals: &'a [sweep::SweepTotals],
                domains: &'a [shr_eval::sweep::DomainSweep],
            }
            write_json(path, &SweepJson { totals: &totals, domains: &sweeps })?;
        }
        return Ok(());
    }
    // The literal readings vary the embedded scenarios: not run on a directory of one's own.
    let readings = match args.value("--scenarios") {
        Some(_) => Vec::new(),
        None => scenario::literal_readings().map_err(|e| e.to_string())?,
    };
    let run = bench::run_all(&pack, &react, &readings);
    // Tables 5 and 6 need the sweep; a pack it cannot cover still gets Tables 1-4.
    let tables = match &swept {
        Ok(sweeps) if !sweeps.is_empty() => {
            let times = recovery::search_times(&pack, sweeps);
            Some((recovery::table5(sweeps, &times), recovery::table6(sweeps, &times, 0.05)))
        }
        Ok(_) => {
            eprintln!("Tables 5 and 6 not computed: no domain has a failure-free scenario to sweep");
            None
        }
        Err(e) => {
            eprintln!("Tables 5 and 6 not computed: {}", printable(e));
            None
        }
    };
    let curve = match &rates {
        Some(r) => {
            let seeds = args.value("--runs").map_or(Ok(100), |v| {
                v.parse::<u32>().map_err(|_| format!("--runs takes a number, not `{v}`"))
            })?;
            Some(curve::run(&pack, r, seeds.clamp(1, 10_000), seed))
        }
        None => None,
    };
    if let (Some(c), Some(path)) = (&curve, args.value("--svg")) {
        std::fs::write(path, curve::svg(c)).map_err(|e| format!("{path}: {e}"))?;
    }
    if args.value("--json") != Some("-") {
        print!("{}", bench::render(&run));
        if let Some((t5, t6)) = &tables {
            print!("{}", recovery::render(t5, t6));
        }
        if let Some(c) = &curve {
            print!("{}", curve::render(c));
        }
    }
    if let Some(path) = args.value("--json") {
        #[derive(serde::Serialize)]
        struct BenchJson<'a> {
            #[serde(flatten)]
            run: &'a bench::BenchRun,
            #[serde(skip_serializing_if = "Option::is_none")]
            table5: Option<&'a recovery::Table5>,
            #[serde(skip_serializing_if = "Option::is_none")]
            table6: Option<&'a recovery::Table6>,
            #[serde(skip_serializing_if = "Option::is_none")]
            react_error_curve: Option<&'a curve::Curve>,
        }
        write_json(
            path,
            &BenchJson {
                run: &run,
                table5: tables.as_ref().map(|t| &t.0),
                table6: tables.as_ref().map(|t| &t.1),
                react_error_curve: curve.as_ref(),
            },
        )?;
        if path != "-" {
            println!("JSON written to {path}");
        }
    }
    Ok(())
}

fn cmd_route(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(args, &["--down", "--from", "--to"], &["--trace"])?;
    let [path] = args.positional.as_slice() else {
        return Err(format!("route takes one graph file\n{USAGE}").into());
    };
    let graph = ToolGraph::from_json(&read(Path::new(path))?).map_err(|e| format!("{path}: {e}"))?;
    for w in graph.warnings() {
        eprintln!("warning: {}", printable(&w.to_string()));
    }
    let lookup = |id: &str| graph.index(id).ok_or_else(|| format!("unknown node `{id}`"));
    let mut down = Vec::new();
    for id in args.value("--down").unwrap_or("").split(',').filter(|s| !s.is_empty()) {
        let v = lookup(id)?;
        if !graph.node(v).tool {
            return Err(Failure::from(format!("--down: `{id}` is a waypoint, not a tool")));
        }
        down.push(v);
    }
    let from = args.value("--from").map(lookup).transpose()?.unwrap_or(graph.start());
    let to = args.value("--to").map(lookup).transpose()?.unwrap_or(graph.goal());
    // The same router an agent embeds, at clock 0 with the `--down` tools marked down.
    let mut router = Router::new(graph.clone());
    for &v in &down {
        router.mark_down(v, 0);
    }
    let mut trace = Trace::default();
    let plan = router.route_observed(from, to, 0, &mut trace).cloned();
    if args.flag("--trace") {
        for step in &trace.steps {
            match step {
                TraceStep::Settled { node, dist } => {
                    println!("settle {} at {dist}", printable(graph.id(*node)))
                }
                TraceStep::Relaxed { from, to, dist, improved, .. } => {
                    println!(
                        "relax  {} -> {} offers {dist}{}",
                        printable(graph.id(*from)),
                        printable(graph.id(*to)),
                        if *improved { " (best)" } else { "" }
                    )
                }
                TraceStep::Skipped { from, to, .. } => {
                    println!(
                        "skip   {} -> {} (failed tool)",
                        printable(graph.id(*from)),
                        printable(graph.id(*to))
                    )
                }
            }
        }
    }
    match plan {
        Some(p) => {
            println!("plan: {}", printable(&p.ids(&graph).join(" -> ")));
            println!("cost: {}", p.cost);
            Ok(())
        }
        None => Err(Failure {
            code: 1,
            message: format!("no path from `{}` to `{}`: escalate", graph.id(from), graph.id(to)),
        }),
    }
}

fn cmd_perturb(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(args, &["--tasks", "--seed", "--json"], &[])?;
    let num = |name: &str, default: u64| -> Result<u64, String> {
        args.value(name)
            .map_or(Ok(default), |v| v.parse().map_err(|_| format!("{name} takes a whole number, not `{v}`")))
    };
    let tasks = num("--tasks", 50)?.clamp(1, 10_000) as u32;
    let seed = num("--seed", 2026)?;
    let run = perturb::run(tasks, seed);
    let text = serde_json::to_string_pretty(&run).map_err(|e| e.to_string())?;
    match args.value("--json") {
        Some("-") => println!("{text}"),
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
            print!("{}", perturb::render(&run));
        }
        None => print!("{}", perturb::render(&run)),
    }
    Ok(())
}

fn cmd_check(args: &[String]) -> Result<(), Failure> {
    if args.is_empty() {
        return Err(format!("check takes files or directories\n{USAGE}").into());
    }
    let mut bad = 0;
    for a in args {
        let p = Path::new(a);
        let result = if p.is_dir() {
            load_dir(p).map(|s| format!("{} scenarios", s.len()))
        } else {
            read(p).and_then(|t| {
                ToolGraph::from_json(&t)
                    .map(|g| {
                        let mut what = format!("{} nodes, {} edges", g.node_count(), g.edge_count());
                        for w in g.warnings() {
                            what.push_str(&format!("; warning: {w}"));
                        }
                        what
                    })
                    .map_err(|e| e.to_string())
            })
        };
        match result {
            Ok(what) => println!("{}: ok ({})", printable(a), printable(&what)),
            Err(e) => {
                bad += 1;
                println!("{}: {}", printable(a), printable(&e));
            }
        }
    }
    if bad > 0 {
        Err(format!("{bad} file(s) with problems").into())
    } else {
        Ok(())
    }
}
