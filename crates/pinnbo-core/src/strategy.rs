//! One step of an optimization method: given everything observed so far, propose the next
//! point. The loop (`run.rs`) owns evaluation, the journal, budgets and resumption.
//!
//! A strategy is a pure function of the history and the step's random stream, so a resumed
//! run replays exactly, except what it declares as [`Strategy::state`] (NeuralBO's warm
//! start): the loop saves that after each proposal and hands it back on resume.

use crate::space::Space;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// What a strategy sees of one past evaluation (successful ones only).
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// The point in `[0, 1]^d`.
    pub unit: Vec<f64>,
    /// The objective as minimized (negated for `maximize`), as observed (with noise).
    pub objective: f64,
    /// Constraint values as observed, feasible when `<= 0`.
    pub constraints: Vec<f64>,
    /// Proposed by the strategy (false: the initial design's).
    pub proposed: bool,
}

impl Observed {
    pub fn is_feasible(&self) -> bool {
        self.constraints.iter().all(|c| *c <= 0.0)
    }
}

/// The next point and what the strategy wants journaled about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    pub unit: Vec<f64>,
    pub diagnostics: Value,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StrategyError(pub String);

pub trait Strategy: Send {
    fn name(&self) -> &'static str;

    /// The next point given `history` (at least the initial design, failures excluded).
    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError>;

    /// What the next proposal depends on beyond the history and its random stream, as bytes
    /// the loop saves with the journal; None for a pure strategy.
    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        Ok(None)
    }

    /// On resume, the state saved after the last journaled proposal (None: nothing saved).
    fn restore(&mut self, _saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        Ok(())
    }

    /// The surrogate's mean of the objective (as minimized) at unit-cube `points`, fitted to
    /// `history`, for pictures; None for a method without one.
    fn predict(
        &mut self,
        _space: &Space,
        _history: &[Observed],
        _points: &[Vec<f64>],
        _rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<f64>>, StrategyError> {
        Ok(None)
    }
}

/// Uniform random search.
pub struct RandomSearch;

impl Strategy for RandomSearch {
    fn name(&self) -> &'static str {
        "random"
    }

    fn propose(
        &mut self,
        space: &Space,
        _history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        use rand::Rng;
        Ok(Proposal {
            unit: (0..space.dim()).map(|_| rng.random::<f64>()).collect(),
            diagnostics: Value::Null,
        })
    }
}
