//! The drift benchmark (issue 47): a tool whose latency drifts up and back down, and whether
//! routes follow it without oscillating.
//!
//! Two alternatives from `s` to `g`: `fast` (base cost 1), 100 ms until request 500, rising to
//! 400 ms by request 1500, back to 100 ms from 2000 to 2500; `steady` (base cost 1.5), 150 ms.
//! Every latency is multiplied by seeded noise in [0.85, 1.15). One request every 100 ms of
//! virtual time; each request is routed, the chosen tool answers, and its latency is recorded;
//! every 20th request also samples the other tool (a canary call), so a tool routed around is
//! still seen. The same telemetry goes to three routers:
//! - **live weights only**: the router of today: the graph's costs times the live weight, whose
//!   latency factor is the rolling mean of the last 20 calls against the first latency seen;
//! - **learned costs**: the same, and a `CostLearner` with its defaults (half-life 10 calls,
//!   hysteresis 20%, at most one change every 10 calls of a tool) adjusting the costs within
//!   bounds [0.5, 5]; the learned cost carries the latency of the tools it adjusts (their live
//!   latency factor is 1);
//! - **learned, no hysteresis**: the same with hysteresis 0 and no dwell.
//!
//!
//! `cargo run --release -p shr-eval --example drift [-- --svg FILE]` prints the table (markdown)
//! and draws the chart.

use shr_core::event::EventKind;
use shr_core::health::costs::{CostBounds, CostConfig, CostLearner};
use shr_core::health::Observation;
use shr_core::rng::SplitMix64;
use shr_core::{Router, ToolGraph};
use std::fmt::Write as _;

const REQUESTS: u32 = 3000;
const WINDOW: u32 = 100;
const CANARY_EVERY: u32 = 10;
const FLAP_WITHIN: u32 = 100;

fn graph() -> ToolGraph {
    ToolGraph::from_json(
        r#"{"nodes":[{"id":"s","tool":false},{"id":"fast"},{"id":"steady","base_cost":1.5},{"id":"g","tool":false}],
        "edges":[{"from":"s","to":"fast"},{"from":"s","to":"steady"},{"from":"fast","to":"g","cost":0},{"from":"steady","to":"g","cost":0}],
        "start":"s","goal":"g"}"#,
    )
    .expect("the drift graph")
}

/// The true latency of `fast` at request `i` (before noise).
fn fast_ms(i: u32) -> f64 {
    let i = f64::from(i);
    match i {
        i if i < 500.0 => 100.0,
        i if i < 1500.0 => 100.0 + 300.0 * (i - 500.0) / 1000.0,
        i if i < 2000.0 => 400.0,
        i if i < 2500.0 => 400.0 - 300.0 * (i - 2000.0) / 500.0,
        _ => 100.0,
    }
}
const STEADY_MS: f64 = 150.0;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Live,
    Learned,
    LearnedNoHysteresis,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::Live, Mode::Learned, Mode::LearnedNoHysteresis];
    fn name(self) -> &'static str {
        match self {
            Mode::Live => "live weights only",
            Mode::Learned => "learned costs",
            Mode::LearnedNoHysteresis => "learned, no hysteresis",
        }
    }
    fn colour(self) -> &'static str {
        match self {
            Mode::Live => "#c77c0e",
            Mode::Learned => "#1b7f5f",
            Mode::LearnedNoHysteresis => "#b3261e",
        }
    }
}

struct Outcome {
    mode: Mode,
    /// Share of each window's requests routed to `fast`.
    share_fast: Vec<f64>,
    switches: u32,
    flaps: u32,
    on_faster: u32,
    served_ms: f64,
    adjustments: u32,
}

fn run(mode: Mode, seed: u64) -> Outcome {
    let g = graph();
    let (fast, steady) = (g.index("fast").expect("fast"), g.index("steady").expect("steady"));
    let mut router = Router::new(g.clone());
    let config = match mode {
        Mode::LearnedNoHysteresis => CostConfig { hysteresis: 0.0, dwell: 0, ..CostConfig::default() },
        _ => CostConfig::default(),
    };
    let mut learner = CostLearner::new(&g, config).expect("config");
    for v in [fast, steady] {
        learner.set_bounds(v, CostBounds { min: 0.5, max: 5.0 }).expect("bounds");
    }
    let learning = matches!(mode, Mode::Learned | Mode::LearnedNoHysteresis);
    let mut noise = SplitMix64::new(seed);
    let mut out = Outcome {
        mode,
        share_fast: Vec::new(),
        switches: 0,
        flaps: 0,
        on_faster: 0,
        served_ms: 0.0,
        adjustments: 0,
    };
    let (mut last, mut last_switch): (Option<usize>, Option<u32>) = (None, None);
    let mut in_window = 0;
    for i in 0..REQUESTS {
        let now = u64::from(i) * 100;
        let plan = router.route(g.start(), g.goal(), now).map(|p| p.nodes.clone()).unwrap_or_default();
        let chosen = if plan.contains(&fast) { fast } else { steady };
        let truth = |v: usize| if v == fast { fast_ms(i) } else { STEADY_MS };
        let mut sample = |v: usize, router: &mut Router, learner: &mut CostLearner| {
            let ms = truth(v) * (0.85 + 0.3 * noise.unit());
            router.record(v, Observation::Success { latency_ms: ms }, now);
            if learning {
                learner.observe(v, ms, true, None);
            }
            ms
        };
        out.served_ms += sample(chosen, &mut router, &mut learner);
        if i % CANARY_EVERY == 0 {
            let other = if chosen == fast { steady } else { fast };
            sample(other, &mut router, &mut learner);
        }
        if learning {
            let events = router.adjust_costs(&mut learner, now);
            out.adjustments +=
                events.iter().filter(|e| matches!(e.kind, EventKind::CostAdjusted { .. })).count() as u32;
        }
        out.on_faster += u32::from(truth(chosen) <= truth(if chosen == fast { steady } else { fast }));
        if last.is_some_and(|l| l != chosen) {
            out.switches += 1;
            if last_switch.is_some_and(|at| i - at < FLAP_WITHIN) {
                out.flaps += 1;
            }
            last_switch = Some(i);
        }
        last = Some(chosen);
        in_window += u32::from(chosen == fast);
        if (i + 1) % WINDOW == 0 {
            out.share_fast.push(f64::from(in_window) / f64::from(WINDOW));
            in_window = 0;
        }
    }
    out
}

fn svg(outcomes: &[Outcome]) -> String {
    let (w, h, left, right, top) = (680.0, 500.0, 60.0, 20.0, 40.0);
    let pw = w - left - right;
    let (lat_h, share_top, share_h) = (130.0, 230.0, 150.0);
    let x = |i: f64| left + pw * i / f64::from(REQUESTS);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="13" font-weight="bold">A tool's latency drifts: the true latencies, and the share of requests routed to it</text>"#,
        w / 2.0
    );
    // Top: true latencies (ms).
    let ly = |ms: f64| top + lat_h * (1.0 - ms / 450.0);
    for ms in [0.0, 150.0, 300.0, 450.0] {
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.1}" y="{3:.1}" text-anchor="end">{ms} ms</text>"##,
            ly(ms),
            left + pw,
            left - 6.0,
            ly(ms) + 4.0
        );
    }
    let fast: Vec<String> =
        (0..=REQUESTS).step_by(50).map(|i| format!("{:.1},{:.1}", x(f64::from(i)), ly(fast_ms(i)))).collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#333" stroke-width="2"/>"##,
        fast.join(" ")
    );
    let _ = writeln!(
        s,
        r##"<line x1="{left}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#333" stroke-width="2" stroke-dasharray="2,3"/>"##,
        ly(STEADY_MS),
        left + pw
    );
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">fast (true latency)</text>"#, x(1550.0), ly(410.0));
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">steady, 150 ms</text>"#, x(2600.0), ly(165.0));
    // Bottom: share of each window routed to fast.
    let sy = |v: f64| share_top + share_h * (1.0 - v);
    for v in [0.0, 0.5, 1.0] {
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.1}" y="{3:.1}" text-anchor="end">{4}%</text>"##,
            sy(v),
            left + pw,
            left - 6.0,
            sy(v) + 4.0,
            v * 100.0
        );
    }
    for i in (0..=REQUESTS).step_by(500) {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{i}</text>"#,
            x(f64::from(i)),
            sy(0.0) + 16.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">request (one per 100 ms); lower panel: share of each 100 requests routed to fast</text>"#,
        left + pw / 2.0,
        sy(0.0) + 32.0
    );
    for (k, o) in outcomes.iter().enumerate() {
        let pts: Vec<String> = o
            .share_fast
            .iter()
            .enumerate()
            .map(|(j, v)| {
                format!("{:.1},{:.1}", x(f64::from(j as u32 * WINDOW + WINDOW / 2)), sy(*v) - 1.5 * k as f64)
            })
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
            pts.join(" "),
            o.mode.colour()
        );
        let lx = left;
        let ly = h - 56.0 + 16.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="2"/><text x="{}" y="{}">{}: {} switches, {} flaps</text>"#,
            lx + 24.0,
            o.mode.colour(),
            lx + 30.0,
            ly + 4.0,
            o.mode.name(),
            o.switches,
            o.flaps
        );
    }
    s.push_str("</svg>\n");
    s
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let svg_path = args.iter().position(|a| a == "--svg").and_then(|k| args.get(k + 1));
    let outcomes: Vec<Outcome> = Mode::ALL.iter().map(|&m| run(m, 2026)).collect();
    println!("A tool's latency drifts ({REQUESTS} requests, one per 100 ms; `fast` 100 -> 400 ms from request 500 to 1500, back to 100 ms by 2500; `steady` 150 ms; noise x[0.85, 1.15), seed 2026; a canary call to the other tool every {CANARY_EVERY} requests).\n");
    println!("| router | route switches | flaps (back within {FLAP_WITHIN} requests) | requests on the faster tool | mean latency served | cost changes (events) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for o in &outcomes {
        println!(
            "| {} | {} | {} | {:.1}% | {:.0} ms | {} |",
            o.mode.name(),
            o.switches,
            o.flaps,
            100.0 * f64::from(o.on_faster) / f64::from(REQUESTS),
            o.served_ms / f64::from(REQUESTS),
            if matches!(o.mode, Mode::Learned | Mode::LearnedNoHysteresis) {
                o.adjustments.to_string()
            } else {
                "-".into()
            }
        );
    }
    const SEEDS: u64 = 20;
    println!("\nOver {SEEDS} seeds (2026 to {}):\n", 2026 + SEEDS - 1);
    println!("| router | route switches (mean) | flaps (total) | runs with a flap | requests on the faster tool (mean) |");
    println!("|---|---:|---:|---:|---:|");
    for mode in Mode::ALL {
        let runs: Vec<Outcome> = (0..SEEDS).map(|k| run(mode, 2026 + k)).collect();
        let n = runs.len() as f64;
        println!(
            "| {} | {:.1} | {} | {} of {SEEDS} | {:.1}% |",
            mode.name(),
            runs.iter().map(|o| f64::from(o.switches)).sum::<f64>() / n,
            runs.iter().map(|o| o.flaps).sum::<u32>(),
            runs.iter().filter(|o| o.flaps > 0).count(),
            runs.iter().map(|o| 100.0 * f64::from(o.on_faster) / f64::from(REQUESTS)).sum::<f64>() / n,
        );
    }
    if let Some(path) = svg_path {
        if let Err(e) = std::fs::write(path, svg(&outcomes)) {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
