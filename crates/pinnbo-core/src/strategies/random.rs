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
        Ok(Proposal {
            unit: space.uniform_point(rng),
            diagnostics: Diagnostics::default(),
            terminate: false,
        })
    }
}
