//! What a resumed journal must satisfy before any of it is trusted: every record fits the
//! header and the problem. A record that does not is refused with its line in the file,
//! never passed on to a strategy (a point of the wrong length would reach the surrogates).

use super::journal::{Phase, Record};
use crate::space::Space;
use pinnbo_dsl::Problem;

/// The first defect of `records` (the journal's lines 2, 3, ...), as `LINE: what`.
pub(super) fn records(
    problem: &Problem,
    space: &Space,
    seed: u64,
    initial: &[Vec<f64>],
    imported: usize,
    records: &[Record],
) -> Result<(), String> {
    for r in records {
        record(problem, space, seed, initial, imported, r).map_err(|why| {
            // The header is line 1 and records follow in index order.
            format!("line {}: record {}: {why}", r.index + 2, r.index)
        })?;
    }
    Ok(())
}

fn record(
    problem: &Problem,
    space: &Space,
    seed: u64,
    initial: &[Vec<f64>],
    imported: usize,
    r: &Record,
) -> Result<(), String> {
    let d = space.dim();
    if r.x.len() != d {
        return Err(format!(
            "x has {} value(s), the problem has {d} variable(s)",
            r.x.len()
        ));
    }
    let (lo, hi) = (problem.lower(), problem.upper());
    for (k, v) in r.x.iter().enumerate() {
        let slack = 1e-9 * (hi[k] - lo[k]).abs().max(1.0);
        if !v.is_finite() || *v < lo[k] - slack || *v > hi[k] + slack {
            return Err(format!(
                "x[{k}] = {v} is outside the bounds [{}, {}] of `{}`",
                lo[k], hi[k], problem.coords[k].name
            ));
        }
    }
    if r.rng.seed != seed || r.rng.index != r.index {
        return Err(format!(
            "it was drawn from seed {} at index {}, not from the header's seed {seed}",
            r.rng.seed, r.rng.index
        ));
    }
    // Imported records lead (`imported` counts them), then the design, then the steps.
    let expected_phase = match r.index {
        i if i < imported => Phase::Import,
        i if i - imported < initial.len() => Phase::Init,
        _ => Phase::Step,
    };
    if r.phase != expected_phase {
        return Err(format!(
            "its phase is {:?}, but {imported} evaluation(s) were imported and the initial \
             design has {} point(s)",
            r.phase,
            initial.len()
        ));
    }
    if r.phase == Phase::Init {
        let design = space.to_box(&initial[r.index - imported]);
        let same = design
            .iter()
            .zip(&r.x)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * a.abs().max(1.0));
        if !same {
            return Err(format!(
                "x = {:?} is not the initial design's point {design:?} for this seed",
                r.x
            ));
        }
    }
    match (&r.observed, &r.failure) {
        (Some(e), None) => {
            if !e.objective.is_finite() || e.constraints.iter().any(|c| !c.is_finite()) {
                return Err("an observed value is not a finite number".into());
            }
            let m = problem.constraints.len();
            if e.constraints.len() != m {
                return Err(format!(
                    "{} constraint value(s) observed, the problem has {m}",
                    e.constraints.len()
                ));
            }
            Ok(())
        }
        (None, Some(_)) => Ok(()),
        _ => Err("it must hold either observed values or a failure".into()),
    }
}
