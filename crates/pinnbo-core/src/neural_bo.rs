//! NeuralBO: Thompson sampling with a neural network's tangent features (ALGORITHMS.md §2).
//!
//! Each step trains the surrogate (`neural_surrogate`) from θ0 on all observations and
//! draws `f̃(x) ~ N(h(x; θ_t), ν² σ²(x))`, proposing its minimizer. The paper draws
//! independently at each point of a candidate set; the default draws one function (a
//! weight-space sample of the linearized model, with the same marginals), which can be
//! minimized by gradient refinement between candidates.

use crate::acquisition::Search;
use crate::neural::{centred, flat_tensor, history_points, minimize};
use crate::neural_surrogate::{Features, NeuralSurrogate, SurrogateConfig, CHUNK};
use crate::space::Space;
use crate::strategy::{Observed, Proposal, Strategy, StrategyError};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rayon::prelude::*;
use serde_json::json;

/// How the Thompson sample is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draw {
    /// One weight-space draw of the linearized model: a function with the paper's marginals
    /// N(h(x), ν²σ²(x)), minimized over Sobol candidates and refined by gradient steps.
    Pathwise,
    /// The paper's: independent N(h(x), ν²σ²(x)) at each candidate, the smallest taken.
    Independent,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NeuralBoConfig {
    pub surrogate: SurrogateConfig,
    pub nu: f64,
    /// Candidates, and whether the pathwise sample's best are refined (independent draws
    /// never are).
    pub search: Search,
    pub draw: Draw,
}

impl Default for NeuralBoConfig {
    fn default() -> Self {
        NeuralBoConfig {
            surrogate: SurrogateConfig::default(),
            nu: 1.0,
            search: Search {
                candidates: 10_000,
                ..Search::default()
            },
            draw: Draw::Pathwise,
        }
    }
}

pub struct NeuralBo {
    pub config: NeuralBoConfig,
    surrogate: NeuralSurrogate,
}

fn failed(e: impl std::fmt::Display) -> StrategyError {
    StrategyError(format!("NeuralBO: {e}"))
}

impl NeuralBo {
    pub fn new(config: NeuralBoConfig, dim: usize, seed: u64) -> Result<NeuralBo, StrategyError> {
        let surrogate = NeuralSurrogate::new(config.surrogate.clone(), dim, seed)?;
        Ok(NeuralBo { config, surrogate })
    }
}

impl Strategy for NeuralBo {
    fn name(&self) -> &'static str {
        "neural-bo"
    }

    fn predict(
        &mut self,
        space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<f64>>, StrategyError> {
        let mean = objective_mean_at(&self.surrogate, space.dim(), history, points, rng)?;
        Ok(Some(mean))
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let d = space.dim();
        let observed = history_points(history, d).map_err(failed)?;
        let (posterior, standardizer) =
            self.surrogate
                .fit_objective(&observed, history, rng.random())?;
        let clock = std::time::Instant::now();
        let nu = self.config.nu;
        let dynamic = self.config.surrogate.features == Features::Dynamic;
        let draw = if dynamic {
            Draw::Independent
        } else {
            self.config.draw
        };
        let domain = self.config.search.domain(history, d);
        let (unit, sample) = match draw {
            Draw::Independent => {
                let seed = rng.random::<u64>();
                let flat = domain.candidates(self.config.search.candidates, seed);
                let net = dynamic.then_some(&posterior.net);
                let variance = self.surrogate.dual_variances(net, &observed, &flat, d)?;
                let mean: Vec<f64> = flat
                    .par_chunks(CHUNK * d)
                    .flat_map_iter(|chunk| posterior.mean(&centred(chunk)))
                    .collect();
                let mut best = (0, f64::INFINITY);
                for (at, mu) in mean.into_iter().enumerate() {
                    let z: f64 = rng.sample(StandardNormal);
                    let sample = mu + nu * variance[at].sqrt() * z;
                    if sample < best.1 {
                        best = (at, sample);
                    }
                }
                (flat[best.0 * d..(best.0 + 1) * d].to_vec(), best.1)
            }
            Draw::Pathwise => {
                let drawn = posterior.draw(nu, rng);
                let f = |u: &[f64]| Ok(posterior.sample(&drawn, &centred(u)));
                let screen = |u: &[f64]| Ok(posterior.sample_screen(&drawn, &centred(u)));
                minimize(&f, Some(&screen), &domain, self.config.search, rng).map_err(failed)?
            }
        };
        let predicted = posterior.mean(&centred(&unit))[0];
        let at = flat_tensor(&unit, d).map_err(failed)?;
        let sigma = posterior.std(&at).map_err(failed)?[0];
        Ok(Proposal {
            unit,
            diagnostics: domain.annotate(json!({
                "sample": standardizer.inverse(sample),
                "predicted": standardizer.inverse(predicted),
                "sigma": sigma * standardizer.std,
                "train_loss": posterior.report.final_loss,
                "epochs": posterior.report.epochs,
                "train_seconds": posterior.train_seconds,
                "acquisition_seconds": clock.elapsed().as_secs_f64(),
            })),
        })
    }
}

/// A surrogate's mean of the objective at unit-cube `points` after fitting it to `history`.
pub(crate) fn objective_mean_at(
    surrogate: &NeuralSurrogate,
    d: usize,
    history: &[Observed],
    points: &[Vec<f64>],
    rng: &mut ChaCha8Rng,
) -> Result<Vec<f64>, StrategyError> {
    let observed = history_points(history, d).map_err(failed)?;
    let (posterior, standardizer) = surrogate.fit_objective(&observed, history, rng.random())?;
    let mean = posterior.mean(&centred(&points.concat()));
    Ok(mean.iter().map(|m| standardizer.inverse(*m)).collect())
}
