//! Evaluations made before the run (`pinnbo solve --import FILE.csv`): a CSV with one column
//! per variable (by name; a categorical variable's levels by name), `objective` (with
//! several objectives, one per objective by name), one per constraint (by name), and one per
//! sensor value (`T@0.1`, as `history.csv` heads it), in the file's own units and sense. Every row is checked (columns, numbers, bounds) before the run starts,
//! and a defect is reported at its line and column; the rows become the journal's first
//! records, phase `import`, kept exactly as given.

use crate::oracle::Evaluation;
use pinnbo_dsl::Problem;
use std::path::Path;

/// The most of an import read: a million rows of twenty columns.
const MAX_IMPORT_BYTES: u64 = 256 << 20;

/// One evaluation made earlier: where, and what was measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub x: Vec<f64>,
    pub values: Evaluation,
}

/// The rows of the CSV at `path`, checked against `problem`; the error is located
/// (`FILE:LINE:COLUMN: what`).
pub fn read(problem: &Problem, path: &Path) -> Result<Vec<Imported>, String> {
    let shown = path.display();
    let bytes = pinnbo_dsl::source::read_bounded(path, MAX_IMPORT_BYTES)
        .map_err(|e| format!("{shown}: {e}"))?;
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let header = reader
        .headers()
        .map_err(|e| format!("{shown}:1: {e}"))?
        .clone();
    let column = |name: &str| header.iter().position(|h| h.trim() == name);
    let objectives = problem.objective_names();
    let wanted: Vec<String> = (problem.coords.iter().map(|c| c.name.clone()))
        .chain(objectives.iter().cloned())
        .chain(problem.constraints.iter().map(|c| c.name.clone()))
        .chain(problem.sensor_names())
        .collect();
    let mut positions = Vec::with_capacity(wanted.len());
    for name in &wanted {
        positions.push(column(name).ok_or_else(|| {
            format!(
                "{shown}:1: no column `{name}`; the header needs {}",
                wanted.join(", ")
            )
        })?);
    }
    // A column named twice: which of the two holds the values is anyone's guess.
    let twice = (header.iter().enumerate()).find(|(k, h)| {
        header
            .iter()
            .take(*k)
            .any(|earlier| earlier.trim() == h.trim())
    });
    if let Some((k, name)) = twice {
        return Err(format!(
            "{shown}:1:{}: the column `{}` is named twice",
            k + 1,
            name.trim()
        ));
    }
    if let Some((k, extra)) =
        (header.iter().enumerate()).find(|(_, h)| !wanted.iter().any(|w| w == h.trim()))
    {
        return Err(format!(
            "{shown}:1:{}: `{extra}` is not a variable, `objective`, a constraint or a sensor of {}",
            k + 1,
            problem.name
        ));
    }
    let d = problem.coords.len();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("{shown}: {e}"))?;
        let line = record.position().map_or(0, |p| p.line());
        let mut values = Vec::with_capacity(wanted.len());
        for (j, (name, &k)) in wanted.iter().zip(&positions).enumerate() {
            let at = format!("{shown}:{line}:{}", k + 1);
            let cell = record.get(k).unwrap_or("").trim();
            let v: f64 = match problem.coords.get(j).filter(|c| c.is_categorical()) {
                Some(c) => c.level_value(cell).map_err(|e| format!("{at}: {e}"))?,
                None => cell
                    .parse()
                    .map_err(|_| format!("{at}: `{name}` must be a number, found `{cell}`"))?,
            };
            if !v.is_finite() {
                return Err(format!("{at}: `{name}` must be finite, found `{cell}`"));
            }
            values.push(v);
        }
        if let Some((i, message)) = problem.outside_bounds(&values[..d]).into_iter().next() {
            return Err(format!("{shown}:{line}:{}: {message}", positions[i] + 1));
        }
        let m = objectives.len();
        let k = d + m + problem.constraints.len();
        rows.push(Imported {
            x: values[..d].to_vec(),
            values: Evaluation {
                sems: Vec::new(),
                objectives: values[d..d + m].to_vec(),
                constraints: values[d + m..k].to_vec(),
                sensors: values[k..].to_vec(),
            },
        });
    }
    Ok(rows)
}
