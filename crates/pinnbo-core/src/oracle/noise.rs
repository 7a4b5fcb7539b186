//! Observation noise: the known noise of measurements (`noise std 0.05`), handed to the
//! methods that model it, or synthetic noise added to a benchmark's values as the papers do
//! (`noise added variance 1% of range`). Added noise is applied by the loop to each
//! evaluation with a seeded stream per evaluation, so a resumed run draws the same noise; the
//! clean values are journaled beside the noisy ones.

use super::{Evaluation, Oracle, SetupError};
use crate::numerics::design::{self, Design};
use crate::space::Space;
use pinnbo_dsl::ir::{NoiseKind, NoiseLevel};
use pinnbo_dsl::Problem;
use rand::Rng;
use rand_distr::StandardNormal;

/// Points used to estimate a function's range over the domain for `% of range` noise.
const RANGE_SAMPLES: usize = 4096;

/// Gaussian noise with one standard deviation per function (objective, then constraints).
#[derive(Clone, Debug, PartialEq)]
pub struct NoiseModel {
    pub objective_std: f64,
    pub constraint_std: Vec<f64>,
}

impl NoiseModel {
    /// No noise on any value: what the file's own closed forms and FDM fields return when the
    /// file has no `noise` statement.
    pub fn exact(constraints: usize) -> NoiseModel {
        NoiseModel {
            objective_std: 0.0,
            constraint_std: vec![0.0; constraints],
        }
    }

    /// The problem's `noise` statement resolved to standard deviations. A level relative to
    /// the range is measured on Sobol points, which needs a cheap oracle (closed form or
    /// FDM), never an external command.
    pub fn from_problem(
        problem: &Problem,
        oracle: &mut dyn Oracle,
        cheap: bool,
    ) -> Result<Option<NoiseModel>, SetupError> {
        let Some(noise) = problem.noise else {
            return Ok(None);
        };
        let to_std = |level: f64| match noise.kind {
            NoiseKind::Std => level,
            NoiseKind::Variance => level.sqrt(),
        };
        let k = problem.constraints.len();
        let model = match noise.level {
            NoiseLevel::Absolute(level) => NoiseModel {
                objective_std: to_std(level),
                constraint_std: vec![to_std(level); k],
            },
            NoiseLevel::OfRange(fraction) => {
                if !cheap {
                    return Err(SetupError::Plain(
                        "noise relative to the range needs the range over the domain, which is \
                         only estimated for closed-form and fdm oracles; give an absolute level"
                            .into(),
                    ));
                }
                let space = Space::of(problem);
                let mut lo = vec![f64::INFINITY; k + 1];
                let mut hi = vec![f64::NEG_INFINITY; k + 1];
                for u in design::points(Design::Sobol, RANGE_SAMPLES, problem.dim(), 0) {
                    let Ok(e) = oracle.evaluate(&space.to_box(&u)) else {
                        continue;
                    };
                    for (i, v) in std::iter::once(e.objective())
                        .chain(e.constraints)
                        .enumerate()
                    {
                        if v.is_finite() {
                            lo[i] = lo[i].min(v);
                            hi[i] = hi[i].max(v);
                        }
                    }
                }
                // Variance as a fraction of the range: σ² = fraction · range, the papers' form.
                let std = |i: usize| {
                    let range = if hi[i] > lo[i] { hi[i] - lo[i] } else { 0.0 };
                    to_std(fraction * range)
                };
                NoiseModel {
                    objective_std: std(0),
                    constraint_std: (1..=k).map(std).collect(),
                }
            }
        };
        Ok(Some(model.exact_where_known(problem)))
    }

    /// No noise on a known constraint: pinnbo computes it from its formula.
    fn exact_where_known(mut self, problem: &Problem) -> NoiseModel {
        for (s, c) in self.constraint_std.iter_mut().zip(&problem.constraints) {
            if c.is_known() {
                *s = 0.0;
            }
        }
        self
    }

    /// The evaluation with noise drawn from `rng` added to every value.
    pub fn apply(&self, clean: &Evaluation, rng: &mut impl Rng) -> Evaluation {
        let mut draw = |std: f64| std * rng.sample::<f64, _>(StandardNormal);
        // The objective's draw first, then the constraints', then the sensors' (the
        // streams' order). Other objectives stay: the checker refuses a noise statement with
        // several. Each sensor value has the objective's noise (the same instrument).
        let mut objectives = clean.objectives.clone();
        objectives[0] += draw(self.objective_std);
        let constraints = (clean.constraints.iter().zip(&self.constraint_std))
            .map(|(v, s)| v + draw(*s))
            .collect();
        let sensors = (clean.sensors.iter())
            .map(|v| v + draw(self.objective_std))
            .collect();
        Evaluation {
            sems: Vec::new(),
            objectives,
            constraints,
            sensors,
        }
    }
}
