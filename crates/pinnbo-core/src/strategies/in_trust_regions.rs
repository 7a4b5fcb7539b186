//! The neural methods keep their proposals in the trust region above 20 dimensions.

use crate::acquisition::trust_region::{TrustRegion, INITIAL_SIDE};
use crate::acquisition::Search;
use crate::history::Observed;
use crate::numerics::design::{points, Design};
use crate::space::Space;
use crate::strategies::neural_bo::{NeuralBo, NeuralBoConfig};
use crate::strategies::neural_greedy::{NeuralGreedy, NeuralGreedyConfig};
use crate::strategies::Strategy;
use crate::surrogates::neural::SurrogateConfig;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const D: usize = 30;

fn history() -> Vec<Observed> {
    points(Design::Sobol, 12, D, 5)
        .into_iter()
        .map(|unit| {
            Observed::initial(
                unit.iter().map(|u| (u - 0.3).powi(2)).sum(),
                Vec::new(),
                unit,
            )
        })
        .collect()
}

fn assert_inside(strategy: &mut dyn Strategy) {
    let history = history();
    let space = Space::linear(vec![0.0; D], vec![1.0; D]);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let proposal = strategy.propose(&space, &history, &mut rng).unwrap();
    let region = TrustRegion::after(&history).unwrap();
    for (u, (lo, hi)) in proposal.unit.iter().zip(region.bounds()) {
        assert!(lo <= *u && *u <= hi, "{} left the region", strategy.name());
    }
    assert_eq!(proposal.diagnostics.region_side, Some(INITIAL_SIDE));
}

#[test]
fn neural_bo_and_neural_greedy_propose_inside_the_region() {
    let search = Search {
        candidates: 256,
        ..Search::default()
    };
    let surrogate = SurrogateConfig {
        width: 32,
        min_steps: 50,
        ..SurrogateConfig::default()
    };
    let config = NeuralBoConfig {
        surrogate,
        search,
        ..NeuralBoConfig::default()
    };
    assert_inside(&mut NeuralBo::new(config, D, 1).unwrap());
    let config = NeuralGreedyConfig {
        width: 32,
        epochs: 50,
        search,
        ..NeuralGreedyConfig::default()
    };
    assert_inside(&mut NeuralGreedy::new(config).unwrap());
}
