//! What a run's model says beyond its proposals, for pictures and reports: the surrogate of
//! the objective over points, and on a design problem the field at the best design. Each fit
//! takes the picture's own random stream and moves nothing a proposal depends on.

use super::{outputs, stream, Run, RunError, PICTURE};
use crate::space::Space;
use crate::strategies::{Observed, Strategy, StrategyError};
use rand_chacha::ChaCha8Rng;

/// A model's prediction at some points ([`Run::predict`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// The objective's posterior mean and standard deviation, in the file's sense and units.
    pub mean: Vec<f64>,
    pub std: Vec<f64>,
    /// Each constraint's `(mean, std)`, in the file's order; None for a method without
    /// constraint models.
    pub constraints: Option<Vec<(Vec<f64>, Vec<f64>)>>,
    /// The pde's constants as the last step estimated them (empty without any).
    pub parameters: std::collections::BTreeMap<String, super::summary::ParamEstimate>,
}

/// Means and standard deviations from intervals of ±2 sd of values times `sign`.
fn moments(intervals: &[crate::strategies::Interval], sign: f64) -> (Vec<f64>, Vec<f64>) {
    (intervals.iter())
        .map(|(m, lo, hi)| (sign * m, 0.25 * (hi - lo).abs()))
        .unzip()
}

/// The most evaluations a picture's or report's model is refitted to: a few seconds' fit.
pub const MOST_PICTURED: usize = 500;

impl Run {
    /// The method's surrogate mean of the objective (as minimized) at unit-cube `points`,
    /// fitted to every successful evaluation; None for a method without one, or before any
    /// evaluation succeeded.
    pub fn surrogate_mean(&mut self, points: &[Vec<f64>]) -> Result<Option<Vec<f64>>, RunError> {
        self.for_picture(|strategy, space, history, rng| {
            strategy.predict(space, history, points, rng)
        })
    }

    /// As [`Run::surrogate_mean`], with an interval of about 95% about each mean, as
    /// `(mean, lower, upper)`; None for a method without a predictive standard deviation.
    pub fn surrogate_interval(
        &mut self,
        points: &[Vec<f64>],
    ) -> Result<Option<Vec<crate::strategies::Interval>>, RunError> {
        self.for_picture(|strategy, space, history, rng| {
            strategy.predict_interval(space, history, points, rng)
        })
    }

    /// What the method's model says at `points` (each in the problem's coordinates, checked
    /// as a told point is): the objective's mean and standard deviation in the file's sense
    /// and units, each constraint's where the method models them, and the pde's constants
    /// as last estimated. Fitted to every successful evaluation as a picture's model is
    /// (nothing a proposal depends on moves); None for a method without a predictive
    /// standard deviation, or before an evaluation succeeded. With a warp (gp-ei's `warp
    /// auto`), the mean is the warped model's median in the values' units and the standard
    /// deviation a quarter of its interval of about 95%.
    pub fn predict(&mut self, points: &[Vec<f64>]) -> Result<Option<Prediction>, RunError> {
        for x in points {
            super::validate::point(&self.problem, x).map_err(RunError::Refused)?;
        }
        let unit: Vec<Vec<f64>> = points.iter().map(|x| self.space.to_unit(x)).collect();
        let sign = crate::oracle::minimized(&self.problem, 1.0);
        let Some(objective) = self.surrogate_interval(&unit)? else {
            return Ok(None);
        };
        let constraints = self.for_picture(|strategy, space, history, rng| {
            strategy.predict_constraints(space, history, &unit, rng)
        })?;
        let (mean, std) = moments(&objective, sign);
        let mut constraints: Option<Vec<(Vec<f64>, Vec<f64>)>> =
            constraints.map(|all| all.iter().map(|c| moments(c, 1.0)).collect());
        // A known constraint is its formula, exactly.
        for (c, (mean, std)) in (self.problem.constraints.iter())
            .zip(constraints.iter_mut().flatten())
            .filter(|(c, _)| c.is_known())
        {
            *mean = (points.iter())
                .map(|x| pinnbo_dsl::eval::eval_point(&c.expr, x).unwrap_or(f64::NAN))
                .collect();
            *std = vec![0.0; points.len()];
        }
        Ok(Some(Prediction {
            mean,
            std,
            constraints,
            parameters: super::summary::last_parameters(&self.records),
        }))
    }

    /// `predict` asked of the strategy with every successful evaluation (at most
    /// [`MOST_PICTURED`]: pictures and reports cost seconds at any history size) and the picture's own
    /// random stream (a picture's fit moves nothing a proposal depends on); None before any
    /// evaluation succeeded.
    fn for_picture<T>(
        &mut self,
        predict: impl FnOnce(
            &mut dyn Strategy,
            &Space,
            &[Observed],
            &mut ChaCha8Rng,
        ) -> Result<Option<T>, StrategyError>,
    ) -> Result<Option<T>, RunError> {
        let history = self.observed();
        if history.is_empty() {
            return Ok(None);
        }
        if history.len() > MOST_PICTURED {
            return Err(RunError::Refused(format!(
                "{} evaluations, more than the {MOST_PICTURED} a picture refits the model to \
                 (a refit costs the cube of their number); history.csv holds them all",
                history.len()
            )));
        }
        let mut rng = stream(self.config.seed, PICTURE, self.records.len());
        predict(self.strategy.as_mut(), &self.space, &history, &mut rng).map_err(|e| {
            RunError::Strategy {
                method: self.config.method.clone(),
                index: self.records.len(),
                source: Box::new(e),
            }
        })
    }

    /// [`Run::write_outputs`] with, on a design problem with sensors, the model's field at
    /// the best design in `summary.json` ([`Run::field_report`], a fit of the model: what a
    /// finished run writes, not each `tell`), and that report; a model that cannot report
    /// leaves the field out.
    pub fn write_final_outputs(
        &mut self,
    ) -> Result<Option<crate::strategies::FieldReport>, String> {
        let mut summary = self.summary();
        if let Some(best) = &summary.best {
            summary.field = self.field_report_at(&best.x.clone()).ok().flatten();
        }
        outputs::write(&self.dir, &self.problem, &summary, &self.records)
            .map_err(|e| format!("{}: {e}", self.dir.display()))?;
        Ok(summary.field)
    }

    /// What the method's model of the field says at the best design (the picture's own
    /// random stream, as [`Run::surrogate_interval`]); None without sensors, a model of the
    /// field or a best design.
    pub fn field_report(&mut self) -> Result<Option<crate::strategies::FieldReport>, RunError> {
        match self.summary().best {
            Some(best) => self.field_report_at(&best.x),
            None => Ok(None),
        }
    }

    /// [`Run::field_report`] at the design `x` (in the box).
    fn field_report_at(
        &mut self,
        x: &[f64],
    ) -> Result<Option<crate::strategies::FieldReport>, RunError> {
        let unit = self.space.to_unit(x);
        self.for_picture(|strategy, _, history, rng| strategy.field_report(history, &unit, rng))
    }
}
