//! Neural-Greedy (docs/algorithms.md §5): each step draws fresh initial weights θ0 from the
//! step's random stream, fits the network to targets perturbed by N(0, σ²) noise with the
//! pull `σ² ||θ − θ0||²`, and proposes the minimizer of the trained network. The fresh
//! initialization is what explores: the trained network is a random function consistent
//! with the data.
//!
//! Network as in the paper: one hidden tanh layer in the NTK parameterization, hidden biases
//! N(0, γ²) with γ = 1, output bias zero. The initial design plays the part of the paper's
//! random exploration rounds.

use crate::acquisition::network_search::minimize;
use crate::acquisition::Search;
use crate::space::{Space, Standardizer};
use crate::strategies::settings;
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::network::{centred, fit, points_tensor};
use candle_core::Device;
use pinnbo_ad::dense_net::DenseNet;
use pinnbo_ad::device::Hardware;
use pinnbo_ad::train::TrainConfig;
use pinnbo_ad::{Activation, Mlp, MlpConfig, Parameterization};
use pinnbo_dsl::methods::MethodSettings;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

#[derive(Clone, Debug, PartialEq)]
pub struct NeuralGreedyConfig {
    pub width: usize,
    pub depth: usize,
    pub activation: Activation,
    /// σ²: the targets' perturbation variance and the pull's weight (standardized units).
    pub sigma2: f64,
    pub epochs: usize,
    pub lr: f64,
    pub search: Search,
    pub device: Hardware,
}

impl NeuralGreedyConfig {
    pub fn from_settings(s: &MethodSettings) -> NeuralGreedyConfig {
        NeuralGreedyConfig {
            width: s.count("width"),
            depth: s.count("depth"),
            activation: s.choice("activation"),
            sigma2: s.number("lambda"),
            epochs: s.count("epochs"),
            lr: s.number("lr"),
            search: settings::search(s),
            device: s.choice("device"),
        }
    }
}

impl Default for NeuralGreedyConfig {
    fn default() -> Self {
        NeuralGreedyConfig::from_settings(&MethodSettings::defaults("neural-greedy"))
    }
}

pub struct NeuralGreedy {
    pub config: NeuralGreedyConfig,
    /// Where each step's network is trained (opened once: a run's tensors share it).
    device: Device,
}

impl NeuralGreedy {
    pub fn new(config: NeuralGreedyConfig) -> Result<NeuralGreedy, StrategyError> {
        let device = pinnbo_ad::device::open(config.device)?;
        Ok(NeuralGreedy { config, device })
    }
}

/// Where this module's errors arise, for their messages.
const PART: &str = "Neural-Greedy";

impl Strategy for NeuralGreedy {
    fn name(&self) -> &'static str {
        "neural-greedy"
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let d = space.dim();
        let c = &self.config;
        let standardizer =
            Standardizer::fit(&history.iter().map(Observed::objective).collect::<Vec<_>>());
        let noise = c.sigma2.sqrt();
        let y: Vec<f64> = history
            .iter()
            .map(|o| {
                standardizer.forward(o.objective()) + noise * rng.sample::<f64, _>(StandardNormal)
            })
            .collect();
        let x: Vec<Vec<f64>> = history.iter().map(|o| o.unit.clone()).collect();
        let observed = points_tensor(&x, d, &self.device).within(PART)?;
        let config = MlpConfig {
            activation: c.activation,
            parameterization: Parameterization::Ntk,
            bias_std: 1.0,
            ..MlpConfig::new(d, c.width, c.depth)
        };
        let initial = Mlp::new(config, rng.random(), &self.device).within(PART)?;
        let clock = std::time::Instant::now();
        let n = y.len() as f64;
        let training = TrainConfig {
            epochs: c.epochs,
            lr: c.lr,
            lr_decay: 1.0,
            decay_every: 0,
            // Σ (y' − f)² + σ² ||θ − θ0||², divided by n.
            anchor: c.sigma2 / n,
            patience: c.epochs,
            min_improvement: 0.0,
            batch: None,
            residual_batch: None,
            shuffle_seed: 0,
        };
        let (net, report) = fit(initial, None, &observed, y, &training).within(PART)?;
        let train_seconds = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let domain = c.search.domain(history, space);
        let dense = DenseNet::new(&net).within(PART)?;
        let f = |u: &[f64]| Ok(dense.forward(&centred(u)));
        let (unit, predicted) = minimize(&f, None, &domain, c.search, rng).within(PART)?;
        Ok(Proposal {
            unit,
            diagnostics: domain.annotate(Diagnostics {
                predicted: Some(standardizer.inverse(predicted)),
                train_seconds: Some(train_seconds),
                acquisition_seconds: Some(clock.elapsed().as_secs_f64()),
                train_loss: Some(report.final_loss),
                ..Diagnostics::default()
            }),
            terminate: false,
        })
    }
}
