//! `shr bench --monitor-error-rate` (issue 47) end to end: the table, its reproducibility from
//! the seed, and a clear error for a bad rate.

use std::process::Command;

fn shr(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shr")).args(args).output().expect("run shr");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn the_curve_prints_correct_silent_and_llm_calls_per_rate_and_monitor() {
    let args = ["bench", "--monitor-error-rate", "0,0.2", "--runs", "5", "--sweep-runs", "1"];
    let (code, out, err) = shr(&args);
    assert_eq!(code, Some(0), "{err}");
    let n = shr_eval::scenario::PAPER_SCENARIOS.len();
    assert!(out.contains(&format!("SHR with erring monitors: the {n} scenarios x 5 seeds")), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| 0")).collect();
    assert_eq!(rows.len(), 6, "{out}");
    assert!(rows[0].contains("95 (100.0%)"), "rate 0 is perfect: {}", rows[0]);
    assert!(out.contains("The priority competition"));
    let (_, again, _) = shr(&args);
    assert_eq!(out, again, "the same seed gives the same figures");
}

#[test]
fn a_bad_rate_is_a_clear_error() {
    let (code, _, err) = shr(&["bench", "--monitor-error-rate", "1.5"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--monitor-error-rate takes probabilities between 0 and 1, not `1.5`"), "{err}");
}
