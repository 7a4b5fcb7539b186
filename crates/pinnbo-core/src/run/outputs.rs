//! The run's files besides the journal: `summary.json` and `history.csv` (one row per
//! evaluation with the best-so-far feasible value).

use crate::oracle::minimized;
use crate::run::journal::Record;
use crate::run::Summary;
use pinnbo_dsl::Problem;
use std::fmt::Write as _;
use std::path::Path;

/// The best feasible objective (file's sense, noise-free when noise is added) after each
/// evaluation; `None` until one exists.
pub fn best_so_far(problem: &Problem, records: &[Record]) -> Vec<Option<f64>> {
    let mut best: Option<f64> = None;
    records
        .iter()
        .map(|r| {
            // Noise-free values when the problem adds noise, as in the summary.
            if let Some(e) = r.truth() {
                if e.is_feasible() {
                    let better = best
                        .is_none_or(|b| minimized(problem, e.objective) < minimized(problem, b));
                    if better {
                        best = Some(e.objective);
                    }
                }
            }
            best
        })
        .collect()
}

pub fn history_csv(problem: &Problem, records: &[Record]) -> String {
    let mut out = String::from("index,phase");
    for c in &problem.coords {
        let _ = write!(out, ",{}", c.name);
    }
    out += ",objective,clean_objective";
    for c in &problem.constraints {
        let _ = write!(out, ",{}", c.name);
    }
    out += ",best_so_far,propose_seconds,evaluate_seconds,failure\n";
    let cell = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for (r, best) in records.iter().zip(best_so_far(problem, records)) {
        let _ = write!(out, "{},{:?}", r.index, r.phase);
        for v in &r.x {
            let _ = write!(out, ",{v}");
        }
        let observed = r.observed.as_ref();
        let _ = write!(
            out,
            ",{},{}",
            cell(observed.map(|e| e.objective)),
            cell(r.clean.as_ref().map(|e| e.objective))
        );
        for k in 0..problem.constraints.len() {
            let _ = write!(out, ",{}", cell(observed.map(|e| e.constraints[k])));
        }
        let failure = r.failure.as_deref().unwrap_or("").replace(['"', '\n'], "'");
        let _ = writeln!(
            out,
            ",{},{},{},\"{failure}\"",
            cell(best),
            r.propose_seconds,
            r.evaluate_seconds
        );
    }
    out
}

/// Writes `summary.json` and `history.csv` into `dir`, each whole or not at all.
pub fn write(
    dir: &Path,
    problem: &Problem,
    summary: &Summary,
    records: &[Record],
) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(summary).expect("serializable");
    super::atomic::write(&dir.join("summary.json"), (json + "\n").as_bytes())?;
    super::atomic::write(
        &dir.join("history.csv"),
        history_csv(problem, records).as_bytes(),
    )
}
