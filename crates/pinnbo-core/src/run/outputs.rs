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

/// Writes `summary.json` and `history.csv` into `dir`, each whole or not at all; an error
/// names the file.
pub fn write(
    dir: &Path,
    problem: &Problem,
    summary: &Summary,
    records: &[Record],
) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(summary).expect("serializable");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        super::atomic::write(&path, text.as_bytes())
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    };
    write("summary.json", json + "\n")?;
    write("history.csv", history_csv(problem, records))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{atomic, summarize, RunConfig};
    use pinnbo_dsl::{compile, Source};

    /// A failed write names the file, and leaves the old one whole.
    #[test]
    fn a_failed_write_names_the_file() {
        let problem = compile(&Source::new("p.pde", "var x in [0, 1]\nminimize x^2\n"))
            .unwrap()
            .problem;
        let summary = summarize(&problem, &RunConfig::from_problem(&problem), &[]);
        let dir = std::env::temp_dir().join(format!("pinnbo-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("summary.json");
        std::fs::write(&target, "old").unwrap();
        // A folder where the temporary file would go makes the write fail.
        std::fs::create_dir_all(atomic::temporary(&target)).unwrap();
        let e = write(&dir, &problem, &summary, &[]).unwrap_err();
        assert!(
            e.to_string().starts_with(&target.display().to_string()),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
