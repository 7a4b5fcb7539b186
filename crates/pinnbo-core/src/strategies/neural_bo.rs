//! NeuralBO: Thompson sampling with a neural network's tangent features (docs/algorithms.md §2).
//!
//! Each step trains the surrogate (`neural_surrogate`) on all observations, from θ0 (the
//! papers') or warm from the previous step's network for a few steps, and draws
//! `f̃(x) ~ N(h(x; θ_t), ν² σ²(x))`, proposing its minimizer. The paper draws
//! independently at each point of a candidate set; the default draws one function (a
//! weight-space sample of the linearized model, with the same marginals), which can be
//! minimized by gradient refinement between candidates.

use crate::acquisition::network_search::minimize;
use crate::acquisition::Search;
use crate::numerics::warp::PowerWarp;
use crate::space::Space;
use crate::strategies::settings;
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::network::{centred, flat_tensor, history_points};
use crate::surrogates::neural::{Features, FitStart, NeuralSurrogate, SurrogateConfig, CHUNK};
use crate::surrogates::saved_network::{network_bytes, network_from_bytes};
use pinnbo_ad::Mlp;
use pinnbo_dsl::choices::Warp;
use pinnbo_dsl::methods::MethodSettings;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rayon::prelude::*;

pub use pinnbo_dsl::choices::{Draw, Start};

#[derive(Clone, Debug, PartialEq)]
pub struct NeuralBoConfig {
    pub surrogate: SurrogateConfig,
    pub nu: f64,
    /// Candidates, and whether the pathwise sample's best are refined (independent draws
    /// never are).
    pub search: Search,
    pub draw: Draw,
    pub start: Start,
    /// Adam steps of a warm start (whole epochs, so at least one epoch).
    pub warm_steps: usize,
    /// How the objective's values are modelled (`warp`).
    pub warp: Warp,
}

impl NeuralBoConfig {
    pub fn from_settings(s: &MethodSettings) -> NeuralBoConfig {
        NeuralBoConfig {
            surrogate: SurrogateConfig {
                features: s.choice("features"),
                ..settings::surrogate(s)
            },
            nu: s.number("nu"),
            search: settings::search(s),
            draw: s.choice("draw"),
            start: s.choice("start"),
            warm_steps: s.count("warm_steps"),
            warp: s.choice("warp"),
        }
    }
}

impl Default for NeuralBoConfig {
    fn default() -> Self {
        NeuralBoConfig::from_settings(&MethodSettings::defaults("neural-bo"))
    }
}

pub struct NeuralBo {
    pub config: NeuralBoConfig,
    surrogate: NeuralSurrogate,
    /// The last proposal's trained network (f64), where a warm start begins.
    previous: Option<Mlp>,
    /// The observations' known noise standard deviation (0: exact values), which `warp
    /// auto` reads.
    known_std: Option<f64>,
}

/// Where this module's errors arise, for their messages.
const PART: &str = "NeuralBO";

impl NeuralBo {
    pub fn new(config: NeuralBoConfig, dim: usize, seed: u64) -> Result<NeuralBo, StrategyError> {
        let device = pinnbo_ad::device::open(config.surrogate.device)?;
        let surrogate = NeuralSurrogate::new(config.surrogate.clone(), dim, seed, &device)?;
        Ok(NeuralBo {
            config,
            surrogate,
            previous: None,
            known_std: None,
        })
    }

    /// `history` with its objective's values warped as `warp` chooses (the transform fitted
    /// to the observations, fantasies left out), and the transform: the network is trained
    /// on the warped values, and its predictions are read back through the inverse. The warp
    /// is increasing, so the Thompson sample's minimizer is the same point in either units.
    fn warped(&self, history: &[Observed]) -> (Vec<Observed>, PowerWarp) {
        let choose = |values: &[f64]| PowerWarp::chosen(self.config.warp, self.known_std, values);
        let (warped, warps) = crate::history::warped(history, choose);
        (
            warped,
            warps.first().copied().unwrap_or(PowerWarp::Identity),
        )
    }

    /// Where the next fit starts.
    fn start(&self) -> FitStart<'_> {
        match (&self.previous, self.config.start) {
            (Some(net), Start::Previous) => FitStart::Warm {
                net,
                steps: self.config.warm_steps,
            },
            _ => FitStart::Initial,
        }
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
        let (history, warp) = self.warped(history);
        let mean = objective_mean_at(
            &self.surrogate,
            self.start(),
            space.dim(),
            &history,
            points,
            rng,
        )?;
        Ok(Some(mean.into_iter().map(|m| warp.inverse(m)).collect()))
    }

    fn known_noise(&mut self, noise: &crate::oracle::NoiseModel) {
        self.known_std = Some(noise.objective_std);
    }

    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        match (&self.previous, self.config.start) {
            (Some(net), Start::Previous) => network_bytes(net).map(Some).within(PART),
            _ => Ok(None),
        }
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        if self.config.start != Start::Previous {
            return Ok(());
        }
        let bytes = saved.ok_or_else(|| {
            StrategyError::unusable(
                PART,
                "it is missing, and `start previous` trains on from the network saved there",
            )
        })?;
        self.previous = Some(network_from_bytes(self.surrogate.initial(), &bytes).within(PART)?);
        Ok(())
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let d = space.dim();
        let observed = history_points(history, d, self.surrogate.device()).within(PART)?;
        let (warped, warp) = self.warped(history);
        let (posterior, standardizer) =
            self.surrogate
                .fit_objective(self.start(), &observed, &warped, rng.random())?;
        let read = |v: f64| warp.inverse(standardizer.inverse(v));
        let clock = std::time::Instant::now();
        let nu = self.config.nu;
        let dynamic = self.config.surrogate.features == Features::Dynamic;
        let draw = if dynamic {
            Draw::Independent
        } else {
            self.config.draw
        };
        let domain = self.config.search.domain(history, space);
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
                minimize(&f, Some(&screen), &domain, self.config.search, rng).within(PART)?
            }
        };
        let predicted = posterior.mean(&centred(&unit))[0];
        let at = flat_tensor(&unit, d, self.surrogate.device()).within(PART)?;
        let sigma = posterior.std(&at).within(PART)?[0];
        let (loss, epochs, train_seconds) = (
            posterior.report.final_loss,
            posterior.report.epochs,
            posterior.train_seconds,
        );
        if self.config.start == Start::Previous {
            self.previous = Some(posterior.net);
        }
        Ok(Proposal {
            unit,
            diagnostics: domain.annotate(
                Diagnostics {
                    predicted: Some(read(predicted)),
                    train_seconds: Some(train_seconds),
                    acquisition_seconds: Some(clock.elapsed().as_secs_f64()),
                    train_loss: Some(loss),
                    epochs: Some(epochs as u64),
                    ..Diagnostics::default()
                }
                .with("sample", read(sample))
                // The model's units: the values' own only when they are not warped.
                .with("sigma", sigma * standardizer.std)
                .with_some("warp", warp.exponent()),
            ),
            terminate: false,
        })
    }
}

/// A surrogate's mean of the objective at unit-cube `points` after fitting it to `history`.
pub(crate) fn objective_mean_at(
    surrogate: &NeuralSurrogate,
    start: FitStart,
    d: usize,
    history: &[Observed],
    points: &[Vec<f64>],
    rng: &mut ChaCha8Rng,
) -> Result<Vec<f64>, StrategyError> {
    let observed = history_points(history, d, surrogate.device()).within(PART)?;
    let (posterior, standardizer) =
        surrogate.fit_objective(start, &observed, history, rng.random())?;
    let mean = posterior.mean(&centred(&points.concat()));
    Ok(mean.iter().map(|m| standardizer.inverse(*m)).collect())
}
