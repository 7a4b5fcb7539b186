//! What a resumed journal must satisfy before any of it is trusted: every record fits the
//! header and the problem. A record that does not is refused with its line in the file,
//! never passed on to a strategy (a point of the wrong length would reach the surrogates).

use super::journal::{Ask, Phase, Record};
use crate::space::Space;
use pinnbo_dsl::Problem;
use std::collections::HashSet;

/// What the journal's points must fit: the problem, the seed and the run's sequence of
/// slots (imported evaluations, then the initial design, then the strategy's proposals).
pub(super) struct Plan<'a> {
    pub problem: &'a Problem,
    pub space: &'a Space,
    pub seed: u64,
    pub initial: &'a [Vec<f64>],
    pub imported: usize,
}

impl Plan<'_> {
    /// The first defect of `records` (at `lines` of the file) and `asks`, as `line N: what`.
    pub fn check(&self, records: &[Record], lines: &[usize], asks: &[Ask]) -> Result<(), String> {
        let mut answered = HashSet::new();
        for (r, line) in records.iter().zip(lines) {
            let located = |why: String| format!("line {line}: record {}: {why}", r.index);
            if r.rng.seed != self.seed {
                return Err(located(format!(
                    "it was drawn from seed {} at index {}, not from the header's seed {}",
                    r.rng.seed, r.rng.index, self.seed
                )));
            }
            self.point(&r.x).map_err(located)?;
            if r.phase != Phase::Extra {
                if !answered.insert(r.rng.index) {
                    return Err(located(format!("slot {} was evaluated twice", r.rng.index)));
                }
                self.slot(r.rng.index, r.phase, &r.x).map_err(located)?;
            }
            outcome(self.problem, r).map_err(located)?;
        }
        let mut asked = HashSet::new();
        for a in asks {
            let located = |why: String| format!("ask {}: {why}", a.id);
            if !asked.insert(a.id) {
                return Err(located("asked twice".into()));
            }
            self.point(&a.x).map_err(located)?;
            self.slot(a.id, a.phase, &a.x).map_err(located)?;
        }
        Ok(())
    }

    /// The point has the problem's dimension and lies in its bounds.
    fn point(&self, x: &[f64]) -> Result<(), String> {
        point(self.problem, x)
    }

    /// `slot`'s phase is the one the run's sequence gives it, and an initial-design slot holds
    /// the design's point for this seed.
    fn slot(&self, slot: usize, phase: Phase, x: &[f64]) -> Result<(), String> {
        let (imported, initial) = (self.imported, self.initial);
        let expected = match slot {
            i if i < imported => Phase::Import,
            i if i - imported < initial.len() => Phase::Init,
            _ => Phase::Step,
        };
        if phase != expected {
            return Err(format!(
                "slot {slot} has phase {phase:?}, but {imported} evaluation(s) were imported \
                 and the initial design has {} point(s)",
                initial.len()
            ));
        }
        if phase == Phase::Init {
            let design = self.space.to_box(&initial[slot - imported]);
            let same = design
                .iter()
                .zip(x)
                .all(|(a, b)| (a - b).abs() <= 1e-12 * a.abs().max(1.0));
            if !same {
                return Err(format!(
                    "x = {x:?} is not the initial design's point {design:?} for this seed"
                ));
            }
        }
        Ok(())
    }
}

/// `x` has the problem's dimension and lies in its bounds (up to rounding: a journaled value
/// read back, a point converted from the unit cube).
pub(super) fn point(problem: &Problem, x: &[f64]) -> Result<(), String> {
    let d = problem.dim();
    if x.len() != d {
        return Err(format!(
            "x has {} value(s), the problem has {d} variable(s)",
            x.len()
        ));
    }
    match problem.outside_bounds(x).into_iter().next() {
        Some((_, message)) => Err(message),
        None => Ok(()),
    }
}

/// A record holds finite observed values of the right shape, or a failure.
fn outcome(problem: &Problem, r: &Record) -> Result<(), String> {
    match (&r.observed, &r.failure) {
        (Some(e), None) => {
            if !e.objectives.iter().all(|v| v.is_finite())
                || e.constraints.iter().any(|c| !c.is_finite())
                || e.sensors.iter().any(|c| !c.is_finite())
            {
                return Err("an observed value is not a finite number".into());
            }
            let m = problem.constraints.len();
            if e.constraints.len() != m {
                return Err(format!(
                    "{} constraint value(s) observed, the problem has {m}",
                    e.constraints.len()
                ));
            }
            let s = problem.sensor_count();
            if e.sensors.len() != s {
                return Err(format!(
                    "{} sensor value(s) observed, the problem has {s}",
                    e.sensors.len()
                ));
            }
            Ok(())
        }
        (None, Some(_)) => Ok(()),
        _ => Err("it must hold either observed values or a failure".into()),
    }
}
