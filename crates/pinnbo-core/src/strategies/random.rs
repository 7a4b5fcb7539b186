//! Uniform random search: the floor every method must beat.

use super::{Diagnostics, Observed, Proposal, Strategy, StrategyError};
use crate::space::Space;
use rand_chacha::ChaCha8Rng;

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
            diagnostics: Diagnostics::default(),
            terminate: false,
        })
    }
}
