//! Soak: many sessions on random graphs, with random failures and recoveries, through the
//! session API only. Every session must finish without a panic and keep the DESIGN section 7
//! invariants; memory must stay flat (resident size at the end within 10% of the size after the
//! first 10,000 sessions). Seeded and deterministic: the same seed gives the same digest.
//!
//! ```text
//! cargo run --release -p shr-eval --example soak -- --sessions 1000000 [--seed 1] [--every 100000]
//! ```
//!
//! Not part of the test command (it runs for minutes); its result is in ROBUSTNESS.md. Exits
//! non-zero on any breach, and names the session (and seed) that breached first.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::json;
use shr_core::audit_completion;
use shr_core::check_observability;
use shr_core::event::EventKind;
use shr_core::rng::SplitMix64;
use shr_core::{Action, Decision, Run, SessionConfig, Status, ToolGraph, ToolResult};

#[path = "soak/world.rs"]
mod world;
use world::{call, task, Group};

/// Resident size is compared after this many sessions (the issue's figure).
const WARM: u64 = 10_000;
/// Host steps allowed per session before it counts as stuck.
const MAX_STEPS: u32 = 20_000;
/// Consecutive sessions that share one router (graph, limits, health, clock).
const ROUTER_SESSIONS: u64 = 32;

/// The session running now, for the panic hook (the release profile aborts on panic).
static CURRENT: AtomicU64 = AtomicU64::new(u64::MAX);

struct Args {
    sessions: u64,
    seed: u64,
    every: u64,
    /// Runs this one session and prints its graph and events (to reproduce a breach).
    only: Option<u64>,
}

fn args() -> Result<Args, String> {
    let mut a = Args { sessions: 1_000_000, seed: 1, every: 100_000, only: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            let v = it.next().ok_or_else(|| format!("{name} needs a value"))?;
            v.replace('_', "").parse().map_err(|_| format!("{name}: `{v}` is not a number"))
        };
        match flag.as_str() {
            "--sessions" => a.sessions = value("--sessions")?,
            "--seed" => a.seed = value("--seed")?,
            "--every" => a.every = value("--every")?.max(1),
            "--only" => a.only = Some(value("--only")?),
            "-h" | "--help" => {
                return Err("usage: soak [--sessions N] [--seed S] [--every N] [--only SESSION]".into());
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(a)
}

/// VmRSS of this process in KiB (0 where /proc is not there).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

#[derive(Default)]
struct Totals {
    completed: u64,
    demoted: u64,
    escalated: u64,
    tool_calls: u64,
    failures: u64,
    retries: u64,
    reroutes: u64,
    llm_calls: u64,
    /// Breakers that closed again (recoveries through half-open probes).
    recoveries: u64,
    /// Escalation events by reason (no_path, risk, budget, policy, input).
    reasons: [u64; 5],
    events: u64,
    observability_checks: u64,
    completion_audits: u64,
    refused_bad_ops: u64,
    /// Times a run was told to pause (another run held what it needed).
    pauses: u64,
    digest: u64,
}

/// A breach of an invariant in one session.
struct Breach {
    session: u64,
    what: String,
}

fn fold(digest: u64, x: u64) -> u64 {
    // FNV-1a over 64-bit words: an order-sensitive fingerprint of the outcomes.
    (digest ^ x).wrapping_mul(0x100_0000_01B3)
}

/// One session's host: performs its calls (random outcomes), answers its escalations, now and
/// then misbehaves. Several of them share a router at once (a wave), their steps interleaved.
struct SoakHost {
    i: u64,
    rng: SplitMix64,
    run: Run,
    start: usize,
    fail_rate: f64,
    in_flight: Vec<String>,
    demoted: bool,
    steps: u32,
    dump: bool,
}

impl SoakHost {
    /// Starts session `i` on the group's router. With `dump`, prints the graph and the task.
    fn new(i: u64, seed: u64, group: &mut Group, dump: bool) -> Result<SoakHost, String> {
        let mut rng = SplitMix64::new(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let graph = group.router.graph();
        let task = task(&mut rng, graph);
        let start = task.start.as_deref().and_then(|id| graph.index(id)).unwrap_or(graph.start());
        if dump {
            println!("{}\n{task:?}\n{:?}", graph.to_json(), group.router.config());
        }
        // Tasks arrive seconds to minutes apart: breakers opened by earlier ones cool down.
        group.now += rng.below(90_000);
        let run = group.router.start(task, group.now).map_err(|e| format!("session refused: {e}"))?;
        let fail_rate = [0.0, 0.1, 0.25, 0.5][rng.below(4) as usize];
        Ok(SoakHost { i, rng, run, start, fail_rate, in_flight: Vec::new(), demoted: false, steps: 0, dump })
    }

    /// One host step on the shared router and clock: `Ok(true)` once the session has finished
    /// and passed its checks.
    fn step(&mut self, group: &mut Group, totals: &mut Totals) -> Result<bool, String> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(format!("not finished after {MAX_STEPS} host steps"));
        }
        let (router, rng, s) = (&mut group.router, &mut self.rng, &mut self.run);
        let nodes = router.graph().node_count() as u64;
        // Time passes; now and then long enough for breakers to cool down and quotas to refill.
        group.now += if rng.below(50) == 0 { 60_000 + rng.below(3_600_000) } else { 1 + rng.below(200) };
        let now = group.now;
        // Hostile host moves, about one step in a hundred: each must be refused, not panic.
        if rng.below(100) == 0 {
            let refused = match rng.below(3) {
                0 => router.report(s, "no-such-tool", ToolResult::ok(json!({}), 1.0), now).is_err(),
                1 => {
                    let id = router.graph().id(rng.below(nodes) as usize).to_string();
                    self.in_flight.contains(&id)
                        || router.report(s, &id, ToolResult::ok(json!({}), 1.0), now).is_err()
                }
                _ => {
                    s.escalation().is_some() || router.resolve_escalation(s, Decision::Approve, now).is_err()
                }
            };
            if !refused {
                return Err("a bad report or decision was accepted".into());
            }
            totals.refused_bad_ops += 1;
        }
        // Report a call in flight two times in three (in any order), else ask what to do.
        if !self.in_flight.is_empty() && rng.below(3) != 0 {
            let tool = self.in_flight.swap_remove(rng.below(self.in_flight.len() as u64) as usize);
            // Now and then the host's clock is behind the session's: held, never reordered.
            let at = if rng.below(20) == 0 { now.saturating_sub(500) } else { now };
            return match router.report(s, &tool, call(rng, self.fail_rate), at) {
                Ok(()) => Ok(false),
                // The task ended with this call still out (goal reached on another branch, or
                // aborted): the late report is refused, as it should be.
                Err(shr_core::SessionError::Finished) if s.is_finished() => Ok(false),
                Err(e) => Err(format!("report of {tool} refused: {e}")),
            };
        }
        match router.next(s, now).map_err(|e| format!("next refused: {e}"))? {
            Action::CallTools { calls } => {
                if calls.is_empty() {
                    return Err("CallTools with no call".into());
                }
                for c in calls {
                    if self.in_flight.contains(&c.tool) {
                        return Err(format!("{} called while in flight", c.tool));
                    }
                    group.now = group.now.saturating_add(c.delay_ms);
                    self.in_flight.push(c.tool);
                }
            }
            Action::Wait => {
                if self.in_flight.is_empty() {
                    return Err("asked to wait with nothing in flight".into());
                }
            }
            Action::Pause { until } => {
                if until <= now {
                    return Err("paused until a time already passed".into());
                }
                totals.pauses += 1;
            }
            Action::Escalate { .. } => {
                let d = match rng.below(10) {
                    0..=2 => Decision::Approve,
                    3..=5 if !self.demoted => {
                        self.demoted = true;
                        Decision::Demote { goal: router.graph().id(rng.below(nodes) as usize).into() }
                    }
                    9 => Decision::HandOff { to: "a person".into() },
                    _ => Decision::Abort { message: "soak: stop".into() },
                };
                router.resolve_escalation(s, d, now).map_err(|e| format!("decision refused: {e}"))?;
            }
            Action::Finished { outcome } => {
                if self.dump {
                    print!("{}", shr_core::event::to_json_lines(s.events()));
                }
                check(s, router.graph(), self.start, router.config(), &outcome, totals)?;
                totals.digest = fold(
                    fold(fold(totals.digest, outcome.status as u64), outcome.tool_calls as u64),
                    s.events().len() as u64,
                );
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Hands back the places its calls still hold (reported late, as a real host's would be).
    fn settle_late_calls(&mut self, group: &mut Group) {
        for tool in self.in_flight.drain(..) {
            let _ = group.router.report(&mut self.run, &tool, ToolResult::ok(json!({}), 1.0), group.now);
        }
    }
}

/// Runs sessions `ids` on the group's router at once, their host steps interleaved at random;
/// `failed(i, why)` hears of each breach. With `dump`, prints that session's graph and events.
fn wave(
    ids: std::ops::Range<u64>,
    seed: u64,
    group: &mut Group,
    totals: &mut Totals,
    dump: Option<u64>,
    failed: &mut impl FnMut(u64, String),
) {
    let mut order = SplitMix64::new(seed ^ ids.start.wrapping_mul(0xA076_1D64_78BD_642F));
    let mut hosts = Vec::new();
    for i in ids {
        CURRENT.store(i, Ordering::Relaxed);
        match SoakHost::new(i, seed, group, dump == Some(i)) {
            Ok(h) => hosts.push(h),
            Err(why) => failed(i, why),
        }
    }
    let mut done: Vec<SoakHost> = Vec::new();
    while !hosts.is_empty() {
        let k = order.below(hosts.len() as u64) as usize;
        CURRENT.store(hosts[k].i, Ordering::Relaxed);
        match hosts[k].step(group, totals) {
            Ok(false) => {}
            Ok(true) => done.push(hosts.swap_remove(k)),
            Err(why) => {
                failed(hosts[k].i, why);
                let mut h = hosts.swap_remove(k);
                let _ = group.router.abandon(&mut h.run, "soak: breach", group.now);
                done.push(h);
            }
        }
    }
    for mut h in done {
        h.settle_late_calls(group);
    }
}

/// Sessions `first..end` of one group: waves of the group's width, one after another.
fn run_group(
    first: u64,
    end: u64,
    seed: u64,
    totals: &mut Totals,
    dump: Option<u64>,
    failed: &mut impl FnMut(u64, String),
) {
    let mut g = group(first, seed);
    let mut i = first;
    while i < end {
        let to = (i + g.width).min(end);
        wave(i..to, seed, &mut g, totals, dump, failed);
        i = to;
    }
}

/// The router of session `i`'s group.
fn group(i: u64, seed: u64) -> Group {
    let group = i / ROUTER_SESSIONS;
    Group::new(&mut SplitMix64::new(seed.rotate_left(17) ^ group.wrapping_mul(0xD1B5_4A32_D192_ED03)))
}

/// The invariants of a finished session.
fn check(
    s: &Run,
    graph: &ToolGraph,
    start: usize,
    config: &SessionConfig,
    outcome: &shr_core::Outcome,
    totals: &mut Totals,
) -> Result<(), String> {
    let events = s.events();
    // Every ToolFailed is followed by Retried, Rerouted or Escalated.
    check_observability(events)
        .map_err(|b| format!("ToolFailed of {} (seq {}) unanswered", b.tool, b.seq))?;
    totals.observability_checks += 1;
    // A success has no required step missing.
    if outcome.status != Status::Escalated {
        let goal = graph.index(&outcome.goal).ok_or("outcome names an unknown goal")?;
        audit_completion(graph, start, s.completion(), goal)
            .map_err(|e| format!("{:?} with a step missing: {e}", outcome.status))?;
        totals.completion_audits += 1;
    }
    if outcome.message.as_deref() == Some("session made no progress") {
        return Err("the endless-loop guard ended the session".into());
    }
    if outcome.tool_calls > config.tool_budget || outcome.llm_calls > config.escalation_budget {
        return Err(format!(
            "budgets exceeded: {} tool calls, {} LLM calls",
            outcome.tool_calls, outcome.llm_calls
        ));
    }
    let mut last = 0;
    for (k, e) in events.iter().enumerate() {
        if e.seq as usize != k || e.at < last {
            return Err(format!("event {k} out of order"));
        }
        last = e.at;
        match e.kind {
            EventKind::BreakerChanged { to: shr_core::BreakerState::Closed, .. } => totals.recoveries += 1,
            EventKind::Escalated { reason, .. } => totals.reasons[reason as usize] += 1,
            _ => {}
        }
    }
    let finished = events.iter().filter(|e| matches!(e.kind, EventKind::Finished { .. })).count();
    if finished != 1 || !matches!(events.last().map(|e| &e.kind), Some(EventKind::Finished { .. })) {
        return Err("Finished is not the one last event".into());
    }
    match outcome.status {
        Status::Completed => totals.completed += 1,
        Status::Demoted => totals.demoted += 1,
        Status::Escalated => totals.escalated += 1,
    }
    totals.tool_calls += outcome.tool_calls as u64;
    totals.failures += outcome.failures as u64;
    totals.retries += outcome.retries as u64;
    totals.reroutes += outcome.reroutes as u64;
    totals.llm_calls += outcome.llm_calls as u64;
    totals.events += events.len() as u64;
    Ok(())
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() -> ExitCode {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("soak: {e}");
            return ExitCode::from(2);
        }
    };
    let seed = a.seed;
    if let Some(i) = a.only {
        // The sessions before it in its router's group made the health it starts from, and the
        // sessions of its wave ran beside it.
        let first = i - i % ROUTER_SESSIONS;
        let mut totals = Totals::default();
        let mut result = Ok(());
        run_group(first, i + 1, seed, &mut totals, Some(i), &mut |j, why| {
            if j == i {
                result = Err(why);
            }
        });
        println!("soak: session {i} (seed {seed}): {}", result.as_ref().err().map_or("ok", String::as_str));
        return if result.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    std::panic::set_hook(Box::new(move |info| {
        let i = CURRENT.load(Ordering::Relaxed);
        eprintln!("soak: PANIC in session {i} (seed {seed}): {info}");
    }));
    println!("soak: {} sessions, seed {seed}; {ROUTER_SESSIONS} a router, 1 to 8 at once", a.sessions);
    let t0 = Instant::now();
    let mut totals = Totals { digest: 0xCBF2_9CE4_8422_2325, ..Totals::default() };
    let mut breaches: Vec<Breach> = Vec::new();
    let mut breach_count = 0u64;
    let mut rss_warm = None;
    let mut first = 0;
    while first < a.sessions {
        let end = (first + ROUTER_SESSIONS).min(a.sessions);
        run_group(first, end, seed, &mut totals, None, &mut |i, what| {
            breach_count += 1;
            if breaches.len() < 10 {
                breaches.push(Breach { session: i, what });
            }
        });
        for done in first + 1..=end {
            if done == WARM {
                rss_warm = Some(rss_kib());
            }
            if done % a.every == 0 || done == a.sessions {
                println!(
                    "soak: {done:>9} sessions  {:>7.1}s  {:>8.0}/s  rss {:>6.1} MiB  completed {} demoted {} escalated {}  breaches {breach_count}",
                    t0.elapsed().as_secs_f64(),
                    done as f64 / t0.elapsed().as_secs_f64(),
                    mib(rss_kib()),
                    totals.completed,
                    totals.demoted,
                    totals.escalated,
                );
            }
        }
        first = end;
    }
    let secs = t0.elapsed().as_secs_f64();
    let rss_end = rss_kib();
    let t = &totals;
    println!(
        "soak: done: {} sessions in {secs:.1}s ({:.0} sessions/s)",
        a.sessions,
        a.sessions as f64 / secs
    );
    println!(
        "soak: outcomes: completed {}, demoted {}, escalated {}; tool calls {}, failures {}, retries {}, reroutes {}, \
         LLM calls {}, breaker recoveries {}, events {}",
        t.completed, t.demoted, t.escalated, t.tool_calls, t.failures, t.retries, t.reroutes, t.llm_calls,
        t.recoveries, t.events
    );
    let r = t.reasons;
    println!(
        "soak: escalations: no_path {}, risk {}, budget {}, policy {}, input {}",
        r[0], r[1], r[2], r[3], r[4]
    );
    println!(
        "soak: checks: observability {}, completion audits {}, hostile host moves refused {}, pauses {}; breaches {breach_count}",
        t.observability_checks, t.completion_audits, t.refused_bad_ops, t.pauses
    );
    println!("soak: digest {:016x} (same seed and count, same digest)", t.digest);
    let mut ok = breach_count == 0;
    for b in &breaches {
        eprintln!("soak: BREACH in session {} (seed {seed}): {}", b.session, b.what);
    }
    match rss_warm {
        Some(warm) if warm > 0 => {
            let ratio = rss_end as f64 / warm as f64;
            let flat = ratio <= 1.10;
            println!(
                "soak: memory: rss {warm} KiB ({:.1} MiB) after {WARM} sessions, {rss_end} KiB ({:.1} MiB) \
                 at the end ({:+.1}%): {}",
                mib(warm),
                mib(rss_end),
                (ratio - 1.0) * 100.0,
                if flat { "flat (within 10%)" } else { "GREW more than 10%" }
            );
            ok &= flat;
        }
        _ => println!("soak: memory: not checked (fewer than {WARM} sessions, or no /proc)"),
    }
    println!("soak: {}", if ok { "PASS" } else { "FAIL" });
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
