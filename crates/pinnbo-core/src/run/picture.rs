//! What a run's model says beyond its proposals, for pictures and reports: the surrogate of
//! the objective over points, and on a design problem the field at the best design. Each fit
//! takes the picture's own random stream and moves nothing a proposal depends on.

use super::{outputs, stream, Run, RunError, PICTURE};
use crate::space::Space;
use crate::strategies::{Observed, Strategy, StrategyError};
use rand_chacha::ChaCha8Rng;

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
