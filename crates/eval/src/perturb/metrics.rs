//! What a perturbation run measures, over many runs: seed 002's TSR, PRR and RC per cell of the
//! mode (x family) by complexity matrix, the detection rate of each arm per family, and the
//! transient modes under each retry policy.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::judge::Judge;
use super::world::EPOCH_MS;
use super::{
    contract, corrupt, generate, run_with, Arm, Complexity, Family, FaultProfile, GeneratedTask, Mode,
    Policy, RunFlags, Setup,
};

/// TSR, PRR and RC over a set of runs (seed 002's definitions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub runs: u32,
    /// Task success rate: runs that reached the goal on clean data.
    pub tsr: f64,
    /// Perturbation recovery rate: perturbed runs that recovered (finished clean, or stopped
    /// explicitly when no clean path existed). `None` when no run was perturbed.
    pub prr: Option<f64>,
    /// Recovery cost: (tool calls - calls of the unperturbed optimal plan) / calls of that plan
    /// (seed 002's formula), averaged over the runs that succeeded (this lab's choice: seed 002
    /// does not say over which runs). An unavoidable failed call counts: a transient fault
    /// costs at least one call more than the optimum. `None` when no run succeeded.
    pub rc: Option<f64>,
    pub llm_calls: u32,
    /// Runs that escalated.
    pub escalations: u32,
    /// Mean tool calls per run.
    pub mean_calls: f64,
    /// Mean simulated time per run, ms.
    pub mean_ms: f64,
}

impl Metrics {
    pub fn of(runs: &[RunFlags]) -> Metrics {
        let n = runs.len() as u32;
        if n == 0 {
            return Metrics::default();
        }
        let perturbed: Vec<&RunFlags> = runs.iter().filter(|r| r.perturbed).collect();
        let finished: Vec<&RunFlags> = runs.iter().filter(|r| r.success).collect();
        let rc = (!finished.is_empty()).then(|| {
            finished
                .iter()
                .map(|r| (r.tool_calls as f64 - r.optimal_calls as f64) / r.optimal_calls.max(1) as f64)
                .sum::<f64>()
                / finished.len() as f64
        });
        Metrics {
            runs: n,
            tsr: runs.iter().filter(|r| r.success).count() as f64 / n as f64,
            prr: if perturbed.is_empty() {
                None
            } else {
                Some(perturbed.iter().filter(|r| r.recovered).count() as f64 / perturbed.len() as f64)
            },
            rc,
            llm_calls: runs.iter().map(|r| r.llm_calls).sum(),
            escalations: runs.iter().filter(|r| r.escalated).count() as u32,
            mean_calls: runs.iter().map(|r| f64::from(r.tool_calls)).sum::<f64>() / f64::from(n),
            mean_ms: runs.iter().map(|r| r.elapsed_ms as f64).sum::<f64>() / f64::from(n),
        }
    }
}

/// A row of the matrix: a mode, and for implicit modes the family of wrong results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub mode: Mode,
    pub family: Option<Family>,
}

impl Row {
    /// NP, P1, P2, then P3 and P4 once per family.
    pub fn all() -> Vec<Row> {
        let mut rows: Vec<Row> =
            [Mode::NP, Mode::P1, Mode::P2].map(|mode| Row { mode, family: None }).to_vec();
        for mode in [Mode::P3, Mode::P4] {
            rows.extend(Family::ALL.map(|f| Row { mode, family: Some(f) }));
        }
        rows
    }
}

/// The mode (x family) by C1-C4 matrix for one arm.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Matrix {
    pub label: String,
    pub arm: Arm,
    pub rows: Vec<Row>,
    /// `cells[row][complexity]`
    pub cells: Vec<Vec<Metrics>>,
    /// Per mode of [`Mode::ALL`], complexities and families pooled: `Metrics::of` over all of
    /// the mode's runs, so its PRR counts perturbed runs and its RC successful runs.
    pub pooled: Vec<Metrics>,
}

/// `tasks` generated tasks per complexity, seeds `seed..seed + tasks`.
pub fn tasks(tasks: u32, seed: u64) -> Vec<Vec<GeneratedTask>> {
    Complexity::ALL.iter().map(|&c| (0..u64::from(tasks)).map(|i| generate(c, seed + i)).collect()).collect()
}

fn runs(ts: &[GeneratedTask], mode: Mode, setup: &Setup) -> Vec<RunFlags> {
    ts.iter().map(|t| run_with(t, &FaultProfile { target: t.victim.clone(), mode }, setup).flags).collect()
}

/// Runs every row of the matrix on the generated tasks for one arm (one immediate retry).
pub fn matrix(generated: &[Vec<GeneratedTask>], arm: Arm) -> Matrix {
    let rows = Row::all();
    let mut by_mode: Vec<Vec<RunFlags>> = Mode::ALL.iter().map(|_| Vec::new()).collect();
    let cells = rows
        .iter()
        .map(|row| {
            let setup =
                Setup { arm, policy: Policy::OneRetry, family: row.family.unwrap_or(Family::WrongSign) };
            let pool = &mut by_mode[Mode::ALL.iter().position(|&m| m == row.mode).unwrap_or(0)];
            generated
                .iter()
                .map(|ts| {
                    let flags = runs(ts, row.mode, &setup);
                    let cell = Metrics::of(&flags);
                    pool.extend(flags);
                    cell
                })
                .collect()
        })
        .collect();
    let pooled = by_mode.iter().map(|flags| Metrics::of(flags)).collect();
    Matrix { label: arm.describe().to_string(), arm, rows, cells, pooled }
}

/// How often an arm notices one family of wrong results, checked on the victims' outputs
/// directly (no run around them).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Detection {
    pub family: Family,
    /// Victim outputs the family found something to break in.
    pub outputs: u32,
    /// Wrong outputs the victim's contract validators reject.
    pub validators: u32,
    /// Wrong outputs the mock LLM judge rejects (one LLM call each).
    pub judge: u32,
    /// Per contract of [`contract::NAMES`]: (wrong outputs, rejected by the validators).
    pub by_contract: Vec<(u32, u32)>,
}

/// Detection per family over every generated task's victim, plus (family `None`) false alarms
/// on clean outputs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DetectionTable {
    pub families: Vec<Detection>,
    pub clean_outputs: u32,
    pub validators_false_alarms: u32,
    pub judge_false_alarms: u32,
}

pub fn detection(generated: &[Vec<GeneratedTask>]) -> DetectionTable {
    let all: Vec<&GeneratedTask> = generated.iter().flatten().collect();
    // The victim's clean output as it leaves the tool, and whether its own contract rejects
    // `output` when it arrives one call latency later.
    let victim = |t: &GeneratedTask| t.record.answer(t.contract_of(&t.victim), 0, EPOCH_MS);
    let rejects = |t: &GeneratedTask, output: &Value| {
        let checks = contract::validators(t.contract_of(&t.victim));
        let context = t.record.context().into_iter().collect();
        let scope = shr_core::validate::Scope { context: &context, now: EPOCH_MS + 50 };
        shr_core::validate::check_all(&checks, output, &scope).is_err()
    };
    let families = Family::ALL
        .iter()
        .map(|&family| {
            let mut d = Detection {
                family,
                outputs: 0,
                validators: 0,
                judge: 0,
                by_contract: contract::NAMES.iter().map(|_| (0, 0)).collect(),
            };
            for t in &all {
                let (wrong, broken) = corrupt::corrupt(&victim(t), family, t.seed);
                if !broken {
                    continue;
                }
                let caught = rejects(t, &wrong);
                d.outputs += 1;
                d.validators += u32::from(caught);
                d.judge += u32::from(Judge::new(t.seed ^ family as u64).rejects(Some(family)));
                let kind = contract::NAMES.iter().position(|&n| n == t.contract_of(&t.victim));
                if let Some(slot) = kind.and_then(|k| d.by_contract.get_mut(k)) {
                    slot.0 += 1;
                    slot.1 += u32::from(caught);
                }
            }
            d
        })
        .collect();
    let clean_outputs = all.len() as u32;
    let validators_false_alarms = all.iter().filter(|t| rejects(t, &victim(t))).count() as u32;
    let judge_false_alarms = all.iter().filter(|t| Judge::new(t.seed).rejects(None)).count() as u32;
    DetectionTable { families, clean_outputs, validators_false_alarms, judge_false_alarms }
}

/// A transient mode under one retry policy, pooled over complexities (and families for P3).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PolicyRow {
    pub mode: Mode,
    pub policy: Policy,
    pub metrics: Metrics,
}

/// P1 and P3 under each retry policy, with the contract's validators.
pub fn policies(generated: &[Vec<GeneratedTask>]) -> Vec<PolicyRow> {
    let mut out = Vec::new();
    for mode in [Mode::P1, Mode::P3] {
        for policy in Policy::ALL {
            let families: &[Family] = if mode == Mode::P3 { &Family::ALL } else { &[Family::WrongSign] };
            let mut flags = Vec::new();
            for &family in families {
                let setup = Setup { arm: Arm::Validators, policy, family };
                for ts in generated {
                    flags.extend(runs(ts, mode, &setup));
                }
            }
            out.push(PolicyRow { mode, policy, metrics: Metrics::of(&flags) });
        }
    }
    out
}
