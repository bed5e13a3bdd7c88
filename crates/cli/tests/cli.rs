//! The `shr` binary end to end.

use std::process::Command;

fn status(args: &[&str]) -> Option<i32> {
    Command::new(env!("CARGO_BIN_EXE_shr")).args(args).output().expect("run shr").status.code()
}

fn shr(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shr")).args(args).output().expect("run shr");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The cells of the table row that starts with `label`.
fn cells<'a>(out: &'a str, label: &str) -> Vec<&'a str> {
    let line = out
        .lines()
        .find(|l| l.trim_start_matches('|').trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no row `{label}` in\n{out}"));
    line.trim_matches('|').split('|').map(str::trim).collect()
}

#[test]
fn bench_prints_tables_one_to_six_with_the_literal_readings() {
    let (ok, out, _) = shr(&["bench"]);
    assert!(ok);
    for t in ["Table 1", "Table 2", "Table 3", "Table 4", "Table 5", "Table 6", "Literal readings"] {
        assert!(out.contains(t), "{t} missing");
    }
    let n = shr_eval::scenario::PAPER_SCENARIOS.len();
    assert_eq!(cells(&out, "Self-Healing Router ")[1], format!("{n}/{n}"), "{out}");
    let static_correct = format!("16/{n}");
    assert_eq!(cells(&out, "Static workflow ")[1].split(' ').next(), Some(static_correct.as_str()), "{out}");
    assert!(out.contains("SHR asked the LLM in: S3, S4, S6, S7, T4, T5, M3."));
    assert!(out.contains("Static workflow failed silently in: S6, S7, T6."));
    // The literal readings, as rows beside ours: T5 as written needs no LLM call; T6 as written
    // leaves the static workflow a fallback for each failure (not silent); the single-classifier
    // topology is the paper's two SHR tool calls.
    assert_eq!(cells(&out, "T5-lit")[1], "0 (1)");
    assert!(cells(&out, "T6-lit")[7].starts_with("No"), "{out}");
    assert_eq!(cells(&out, "M1-1clf")[4], "2");
    assert!(out.contains("Self-Healing Router (literal readings)"));
    assert!(out.contains("(paper's formula)"));
}

#[test]
fn bench_json_carries_every_run_and_the_reduction() {
    let (ok, out, _) = shr(&["bench", "--json", "-"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let ids: Vec<&str> = v["scenarios"].as_array().unwrap().iter().filter_map(|s| s["id"].as_str()).collect();
    for id in shr_eval::scenario::PAPER_SCENARIOS {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    assert!(v["scenarios"].as_array().unwrap().iter().all(|s| s["pack"] == "paper" || s["pack"] == "extra"));
    assert!(v["llm_call_reduction_pct"].as_f64().unwrap() >= 90.0);
    assert_eq!(v["scenarios"][1]["shr"]["path"][2], "razorpay");
}

#[test]
fn bench_events_prints_json_lines_of_one_scenario() {
    let (ok, out, _) = shr(&["bench", "--events", "S5"]);
    assert!(ok);
    let events: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events[0]["event"], "PathPlanned");
    assert_eq!(events.last().unwrap()["event"], "Finished");
    assert!(events.iter().any(|e| e["event"] == "Rerouted"));
    let (ok, _, err) = shr(&["bench", "--events", "S9"]);
    assert!(!ok);
    assert!(err.contains("no scenario `S9`"), "{err}");
}

#[test]
fn a_scenario_directory_with_a_broken_file_names_the_file_and_field() {
    let dir = std::env::temp_dir().join(format!("shr-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for d in shr_eval::scenario::DOMAINS {
        std::fs::write(dir.join(format!("{}.json", d.name)), d.text).unwrap();
    }
    let s2 = shr_eval::scenario::SCENARIO_FILES[1].1;
    std::fs::write(dir.join("S2.json"), s2).unwrap();
    let (ok, out, _) = shr(&["bench", "--scenarios", dir.to_str().unwrap()]);
    assert!(ok, "a directory with one good scenario runs");
    assert!(out.contains("S2: Stripe down"));
    std::fs::write(
        dir.join("S2.json"),
        s2.replace("\"after_calls\"", "\"after\"")
            .replace("\"tool\": \"stripe\"", "\"tool\": \"stripe\", \"when\": 1"),
    )
    .unwrap();
    let (ok, _, err) = shr(&["bench", "--scenarios", dir.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("S2.json: field `failures`"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn route_reroutes_around_failed_tools_and_escalates_without_a_path() {
    let dir = std::env::temp_dir().join(format!("shr-route-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = serde_json::from_str::<serde_json::Value>(shr_eval::scenario::DOMAINS[0].text).unwrap()
        ["graph"]
        .clone();
    let path = dir.join("cs.json");
    std::fs::write(&path, graph.to_string()).unwrap();
    let p = path.to_str().unwrap();
    let (ok, out, _) = shr(&["route", p, "--down", "stripe,email"]);
    assert!(ok);
    assert!(out.contains("plan: start -> crm -> razorpay -> sms -> refund_done"), "{out}");
    assert!(out.contains("cost: 6"), "the paper's Figure 4 (B)");
    let (ok, _, err) = shr(&["route", p, "--down", "stripe,razorpay"]);
    assert!(!ok);
    assert!(err.contains("no path"), "{err}");
    assert_eq!(status(&["route", p, "--down", "stripe,razorpay"]), Some(1), "no path: 1");
    let (ok, _, err) = shr(&["route", p, "--down", "paypal"]);
    assert!(!ok && err.contains("unknown node `paypal`"), "{err}");
    assert_eq!(status(&["route", p, "--down", "paypal"]), Some(2), "invalid input: 2");
    // A waypoint is not a tool that can be down; a failed start tool is no place to start.
    let (ok, _, err) = shr(&["route", p, "--down", "refund_done"]);
    assert!(!ok && err.contains("`refund_done` is a waypoint, not a tool"), "{err}");
    let (ok, _, err) = shr(&["route", p, "--from", "crm", "--down", "crm"]);
    assert!(!ok && err.contains("no path from `crm`"), "{err}");
    std::fs::write(&path, "{\"nodes\": [").unwrap();
    let (ok, out, _) = shr(&["check", p]);
    assert!(!ok && out.contains("line 1"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn perturb_and_cyclic_print_their_matrices() {
    let (ok, out, _) = shr(&["perturb", "--tasks", "5"]);
    assert!(ok);
    assert!(out.contains("SHR without validators (ablation)"));
    assert!(out.contains("| P4 implicit-permanent: plausible wrong value |"));
    assert!(out.contains("SHR with an LLM judge instead of validators"));
    assert!(out.contains("ReAct agent (its own loop, no router)"), "the independent agent's arm");
    assert!(out.contains("| another entity's record | 20 |"), "{out}");
    assert!(out.contains("| P3 implicit-transient | 3 retries, backoff 100 ms x2, jitter |"));
    let (ok, out, _) = shr(&["bench", "--cyclic", "--runs", "10"]);
    assert!(ok);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("| prerequisites") || l.starts_with("| search_verify")).count(),
        12,
        "both workflows, three fault rates, SHR and the ReAct agent"
    );
    let (ok, _, err) = shr(&["perturb", "--tasks", "many"]);
    assert!(!ok && err.contains("--tasks takes a whole number"), "{err}");
}

/// The book's ToolMaze page shows what `shr perturb` prints: every table row in it is a row of
/// the command's output (the page's own run, defaults: 50 tasks, seed 2026).
#[test]
fn book_perturbation_tables_are_the_command_output() {
    let page = concat!(env!("CARGO_MANIFEST_DIR"), "/../../book/src/evaluation/toolmaze.md");
    let section = std::fs::read_to_string(page).unwrap();
    let (ok, out, _) = shr(&["perturb"]);
    assert!(ok);
    let printed: std::collections::BTreeSet<&str> = out.lines().collect();
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with('|')).collect();
    assert!(rows.len() > 40, "{} table rows", rows.len());
    for row in rows {
        assert!(printed.contains(row), "a row of the page not printed by `shr perturb`:\n{row}");
    }
    // The cells' caption, as printed (the page wraps its lines).
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let caption = out.lines().find(|l| l.starts_with("Cells: TSR / PRR / RC")).expect("the caption");
    assert!(words(&section).contains(&words(caption)), "the page lacks the caption:\n{caption}");
}

/// An id holding a terminal escape sequence is printed escaped; a graph whose costs can
/// overflow is accepted with a warning; a misspelt field names its JSON pointer.
#[test]
fn check_escapes_control_characters_warns_and_names_the_pointer() {
    let dir = std::env::temp_dir().join(format!("shr-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let escape = dir.join("escape.json");
    std::fs::write(
        &escape,
        r#"{"nodes":[{"id":"a\u001b[31m"},{"id":"b"}],"edges":[{"from":"a\u001b[31m","to":"b","cost":1e308},
            {"from":"b","to":"a\u001b[31m","cost":1e308}],"start":"a\u001b[31m","goal":"b","nodez":[]}"#,
    )
    .unwrap();
    let (ok, out, _) = shr(&["check", escape.to_str().unwrap()]);
    assert!(!ok);
    assert!(out.contains("unknown field `nodez`"), "{out}");
    assert!(!out.contains('\u{1b}'), "raw escape printed: {out:?}");
    let overflow = dir.join("overflow.json");
    std::fs::write(
        &overflow,
        r#"{"nodes":[{"id":"a\u001b[31m"},{"id":"b"},{"id":"c"}],"edges":[{"from":"a\u001b[31m","to":"b","cost":1e308},
            {"from":"b","to":"c","cost":1e308}],"start":"a\u001b[31m","goal":"c"}"#,
    )
    .unwrap();
    let (ok, out, _) = shr(&["check", overflow.to_str().unwrap()]);
    assert!(ok, "{out}");
    assert!(out.contains("warning") && out.contains("/edges") && out.contains("overflow"), "{out}");
    let (ok, _, err) = shr(&["route", overflow.to_str().unwrap()]);
    assert!(!ok);
    assert!(!err.contains('\u{1b}') && err.contains("\\u{1b}"), "{err:?}");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"nodes":[{"id":"a"},{"id":"b","retry":{"attemps":2}}],"edges":[],"start":"a","goal":"b"}"#,
    )
    .unwrap();
    let (_, out, _) = shr(&["check", bad.to_str().unwrap()]);
    assert!(out.contains("/nodes/1/retry/attemps"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A FIFO that never ends is refused at the size limit, not read until memory runs out.
#[cfg(unix)]
#[test]
fn check_reads_no_more_than_the_size_limit() {
    let dir = std::env::temp_dir().join(format!("shr-cli-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("endless.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    if !made {
        return;
    }
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&writer_path) {
            let chunk = vec![b' '; 1 << 20];
            // 80 MiB, past the 64 MiB limit; the reader stops early and the pipe breaks.
            for _ in 0..80 {
                if f.write_all(&chunk).is_err() {
                    break;
                }
            }
        }
    });
    let (ok, out, _) = shr(&["check", fifo.to_str().unwrap()]);
    writer.join().unwrap();
    assert!(!ok);
    assert!(out.contains("larger than the 64 MiB limit"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_sweep_prints_every_failure_set_and_draws_the_chart() {
    let svg = std::env::temp_dir().join(format!("shr-sweep-{}.svg", std::process::id()));
    let (ok, out, err) = shr(&["bench", "--sweep", "--svg", svg.to_str().unwrap()]);
    assert!(ok, "{err}");
    for ex in ["Self-Healing Router", "ReAct", "Static workflow"] {
        assert!(out.lines().any(|l| l.starts_with("| all") && l.contains(ex)), "{ex}: {out}");
    }
    let shr_row = out.lines().find(|l| l.starts_with("| all") && l.contains("Self-Healing Router")).unwrap();
    let c: Vec<&str> = shr_row.trim_matches('|').split('|').map(str::trim).collect();
    assert_eq!(c[1], "1408", "128 + 1024 + 256 sets");
    assert_eq!(c[5], "0 (0.0%)", "SHR never fails silently");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.starts_with("<svg") && drawn.contains("Silent failures"));
    std::fs::remove_file(&svg).ok();
    let (ok, out, _) = shr(&["bench", "--sweep", "--json", "-"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["domains"].as_array().unwrap().len(), 3);
}

#[test]
fn bench_react_error_rate_prints_the_curve_and_refuses_bad_rates() {
    let svg = std::env::temp_dir().join(format!("shr-curve-{}.svg", std::process::id()));
    let (ok, out, err) = shr(&[
        "bench",
        "--react-error-rate",
        "0,0.2",
        "--runs",
        "5",
        "--seed",
        "1",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.starts_with("<svg") && drawn.contains("ReAct silent failures"));
    std::fs::remove_file(&svg).ok();
    assert!(out.contains("ReAct with an erring LLM"), "{out}");
    assert_eq!(cells(&out, "0 ")[2], "95 (100.0%)", "p = 0: ReAct is right everywhere");
    let erring = cells(&out, "0.2 ");
    assert_ne!(erring[3], "0 (0.0%)", "p = 0.2: some silent failures");
    let n = shr_eval::scenario::PAPER_SCENARIOS.len();
    assert_eq!(erring[6], format!("{n}/{n}"), "SHR does not depend on p");
    for bad in ["1.5", "x", "-0.1"] {
        assert_eq!(status(&["bench", "--react-error-rate", bad]), Some(2), "{bad}");
    }
    let (ok, out, _) = shr(&["bench", "--react-trace", "S2"]);
    assert!(ok);
    let steps: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[1]["action"]["tool"], "stripe");
    assert_eq!(steps[2]["action"]["tool"], "razorpay");
    assert_eq!(steps[4]["action"]["action"], "finish");
}

/// Held-out: "no path" and invalid input exit differently, as the usage text documents.
#[test]
fn exit_codes_tell_no_path_from_invalid_input() {
    let (_, usage, _) = shr(&["help"]);
    assert!(usage.contains("exit status: 0 done; 1 no healthy path"), "{usage}");
    assert_eq!(status(&["frobnicate"]), Some(2));
    assert_eq!(status(&["bench", "--no-such-option"]), Some(2));
    assert_eq!(status(&["route"]), Some(2));
    assert_eq!(status(&["route", "/nonexistent/graph.json"]), Some(2));
    assert_eq!(status(&["bench", "--events", "S9"]), Some(2));
}
