//! One step of an optimization method: given everything observed so far, propose the next
//! point. The loop (`run/`) owns evaluation, the journal, budgets and resumption.
//!
//! A strategy is a pure function of the history and the step's random stream, so a resumed
//! run replays exactly, except what it declares as [`Strategy::state`] (NeuralBO's warm
//! start): the loop saves that after each proposal and hands it back on resume.
//!
//! Each method is one module; [`registry`] builds one by name from a file's `method` block.
//! Strategies are the only layer that reads the DSL's method tables (`settings.rs` for what
//! several share); the layers below take typed configurations.

pub mod gp_bo;
pub mod gp_hypervolume;
pub mod gp_search;
pub mod neural_bo;
pub mod neural_cbo;
pub mod neural_greedy;
pub mod pde;
pub mod physics_gp;
pub mod pinn_bo;
mod random;
pub mod registry;
pub mod sensed;
mod settings;

#[cfg(test)]
mod in_trust_regions;

pub use crate::diagnostics::Diagnostics;
pub use crate::error::StrategyError;
pub(crate) use crate::error::Within;
pub use crate::history::Observed;
pub use random::RandomSearch;

use crate::space::Space;
use rand_chacha::ChaCha8Rng;

/// A prediction's mean and the ends of an interval of about 95% about it:
/// `(mean, lower, upper)`.
pub type Interval = (f64, f64, f64);

/// The next point and what the strategy wants journaled about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    pub unit: Vec<f64>,
    pub diagnostics: Diagnostics,
    /// The method finds nothing worth evaluating (gp-ei's `stop`): the run ends before this
    /// point, which is not journaled, so a resumed run proposes it again and stops again.
    pub terminate: bool,
}

impl Proposal {
    /// `unit` with nothing to journal about it.
    pub fn at(unit: Vec<f64>) -> Proposal {
        Proposal {
            unit,
            diagnostics: Diagnostics::default(),
            terminate: false,
        }
    }
}

/// What a design problem's model says of its field at one design (`summary.json`'s `field`,
/// the field's picture): the posterior at each sensor's place, of each functional the
/// objective reads, and along the field's coordinates.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FieldReport {
    pub field: String,
    pub sensors: Vec<Posterior>,
    pub functionals: Vec<Posterior>,
    /// The field's coordinates (`coord`), in its declaration's order.
    #[serde(skip)]
    pub coords: Vec<(String, f64, f64)>,
    /// Nodes over the coordinates (each node's values of them) and the posterior's mean and
    /// standard deviation there: 101 along one coordinate, 41 × 41 over two, none beyond.
    #[serde(skip)]
    pub grid: Vec<(Vec<f64>, f64, f64)>,
}

/// A posterior mean and standard deviation, named (`T@0.1`, `maximum(T, x)`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Posterior {
    pub name: String,
    pub mean: f64,
    pub std: f64,
    /// A sensor's index among an evaluation's sensor values and its place; None for a
    /// functional.
    #[serde(skip)]
    pub sensor: Option<(usize, Vec<f64>)>,
}

pub trait Strategy: Send {
    fn name(&self) -> &'static str;

    /// The next point given `history` (at least the initial design, failures excluded).
    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError>;

    /// The known standard deviations of the observations' noise (`noise std ..` without
    /// `added`): a method that models observation noise takes them instead of fitting a
    /// noise level. The others ignore them (NeuralBO reads only whether the values are
    /// exact, for `warp auto`), and `pinnbo check` warns that they do
    /// (`pinnbo_dsl::methods::NOISE_AWARE_METHODS`).
    fn known_noise(&mut self, _noise: &crate::oracle::NoiseModel) {}

    /// What the next proposal depends on beyond the history and its random stream, as bytes
    /// the loop saves with the journal; None for a pure strategy.
    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        Ok(None)
    }

    /// On resume, the state saved after the last journaled proposal (None: nothing saved).
    fn restore(&mut self, _saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        Ok(())
    }

    /// On a design problem with sensors, what the method's model of the field says at the
    /// design `unit`, fitted to `history`; None for a method without one.
    fn field_report(
        &mut self,
        _history: &[Observed],
        _unit: &[f64],
        _rng: &mut ChaCha8Rng,
    ) -> Result<Option<FieldReport>, StrategyError> {
        Ok(None)
    }

    /// The surrogate's mean of the objective (as minimized) at unit-cube `points` with an
    /// interval of about 95% (the mean ± 2 standard deviations, in the values' own units),
    /// as `(mean, lower, upper)`, for pictures; None for a method without a predictive
    /// standard deviation.
    fn predict_interval(
        &mut self,
        _space: &Space,
        _history: &[Observed],
        _points: &[Vec<f64>],
        _rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<Interval>>, StrategyError> {
        Ok(None)
    }

    /// Each constraint's model at unit-cube `points` as intervals of about 95% (one list per
    /// constraint, in the file's order), fitted to `history` without moving the next
    /// proposal's fits; None for a method that models no constraint this way.
    fn predict_constraints(
        &mut self,
        _space: &Space,
        _history: &[Observed],
        _points: &[Vec<f64>],
        _rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<Vec<Interval>>>, StrategyError> {
        Ok(None)
    }

    /// The surrogate's mean of the objective (as minimized) at unit-cube `points`, fitted to
    /// `history`, for pictures; None for a method without one. By default the means of
    /// [`Strategy::predict_interval`]: a method without a standard deviation overrides this.
    fn predict(
        &mut self,
        space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<f64>>, StrategyError> {
        let interval = self.predict_interval(space, history, points, rng)?;
        Ok(interval.map(|v| v.into_iter().map(|(mean, _, _)| mean).collect()))
    }
}
