//! The run's files besides the journal: `summary.json` and `history.csv` (one row per
//! evaluation with the best-so-far feasible value, or with several objectives the
//! hypervolume so far).

use crate::oracle::{minimized, minimized_objectives};
use crate::run::journal::Record;
use crate::run::Summary;
use pinnbo_dsl::Problem;
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
                        .is_none_or(|b| minimized(problem, e.objective()) < minimized(problem, b));
                    if better {
                        best = Some(e.objective());
                    }
                }
            }
            best
        })
        .collect()
}

/// The run's progress after each evaluation: the best so far ([`best_so_far`]), or with
/// several objectives the hypervolume so far.
pub fn progress_so_far(problem: &Problem, records: &[Record]) -> Vec<Option<f64>> {
    match problem.is_multi_objective() {
        true => super::front::hypervolume_so_far(problem, records),
        false => best_so_far(problem, records),
    }
}

/// The last evaluation (from 1) that moved the run on: a better feasible value, or with
/// several objectives a feasible point that no earlier one dominates or equals (it entered
/// the front); 0 when none did. Comparisons only, no hypervolume: every summary asks it.
pub fn last_improvement(problem: &Problem, records: &[Record]) -> usize {
    let mut earlier: Vec<Vec<f64>> = Vec::new();
    let mut last = 0;
    for (i, r) in records.iter().enumerate() {
        let Some(e) = r.truth().filter(|e| e.is_feasible()) else {
            continue;
        };
        let p = minimized_objectives(problem, e);
        let new = match problem.is_multi_objective() {
            true => !(earlier.iter()).any(|q| *q == p || crate::numerics::pareto::dominates(q, &p)),
            false => earlier.first().is_none_or(|q| p[0] < q[0]),
        };
        if new {
            last = i + 1;
            // With one objective only the best so far is kept.
            match problem.is_multi_objective() {
                true => earlier.push(p),
                false => earlier = vec![p],
            }
        }
    }
    last
}

pub fn history_csv(problem: &Problem, records: &[Record]) -> String {
    let several = problem.is_multi_objective();
    let mut header = vec!["index".to_string(), "phase".to_string()];
    header.extend(problem.coords.iter().map(|c| c.name.clone()));
    match several {
        true => header.extend(problem.objective_names()),
        false => header.extend(["objective".into(), "clean_objective".into()]),
    }
    // Told standard errors, a column per objective, only in a run that was told any.
    let told_sems =
        (records.iter().flat_map(|r| &r.observed)).any(|e| e.sems.iter().any(Option::is_some));
    if told_sems {
        match several {
            true => header.extend(problem.objective_names().iter().map(|n| format!("sem_{n}"))),
            false => header.push("sem".into()),
        }
    }
    header.extend(problem.constraints.iter().map(|c| c.name.clone()));
    let sensors = problem.sensor_names();
    header.extend(sensors.iter().cloned());
    let progress = match several {
        true => "hypervolume",
        false => "best_so_far",
    };
    header.extend([progress, "propose_seconds", "evaluate_seconds", "failure"].map(String::from));
    let progress = progress_so_far(problem, records);
    let m = problem.objectives().count();
    let rows = records.iter().zip(progress).map(|(r, best)| {
        let observed = r.observed.as_ref();
        let mut row = vec![r.index.to_string(), r.phase.name().to_string()];
        row.extend((problem.coords.iter().zip(&r.x)).map(|(c, v)| c.show(*v)));
        match several {
            true => row
                .extend((0..m).map(|k| cell(observed.and_then(|e| e.objectives.get(k).copied())))),
            false => {
                row.push(cell(observed.map(|e| e.objective())));
                row.push(cell(r.clean.as_ref().map(|e| e.objective())));
            }
        }
        if told_sems {
            row.extend((0..m).map(|k| cell(observed.and_then(|e| e.sem(k)))));
        }
        row.extend(
            (0..problem.constraints.len()).map(|k| cell(observed.map(|e| e.constraints[k]))),
        );
        row.extend(
            (0..sensors.len()).map(|k| cell(observed.and_then(|e| e.sensors.get(k).copied()))),
        );
        row.extend([
            cell(best),
            r.propose_seconds.to_string(),
            r.evaluate_seconds.to_string(),
            r.failure.clone().unwrap_or_default(),
        ]);
        row
    });
    csv_document(&header, rows)
}

/// A number, or an empty cell for none.
pub fn cell(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// A CSV document: the header, then the rows, each cell quoted where it must be (the `csv`
/// crate), so a name or a message holding a comma, a quote or a line break stays one cell.
pub fn csv_document(header: &[String], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    // Into memory, the writer has no I/O to fail; its bytes are the cells' UTF-8.
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in std::iter::once(header.to_vec()).chain(rows) {
        writer.write_record(&row).expect("writing into memory");
    }
    let bytes = writer.into_inner().expect("flushing into memory");
    String::from_utf8(bytes).expect("UTF-8 cells")
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
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let target = dir.join("summary.json");
        std::fs::write(&target, "old").unwrap();
        // A folder where the temporary file would go makes the write fail.
        std::fs::create_dir_all(atomic::temporary(&target)).unwrap();
        let e = write(dir, &problem, &summary, &[]).unwrap_err();
        assert!(
            e.to_string().starts_with(&target.display().to_string()),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    }

    /// A cell with a comma, a quote or a line break (a program's error message) reads back
    /// as one cell, unaltered.
    #[test]
    fn every_cell_reads_back_whole() {
        let header = ["index", "failure"].map(String::from);
        let message = "exit 1: \"bad\" input, line 2\nsee log";
        let text = csv_document(&header, [vec!["0".into(), message.into()]]);
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(&rows[0][1], message);
        assert_eq!(reader.headers().unwrap(), vec!["index", "failure"]);
    }
}
