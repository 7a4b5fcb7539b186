//! NeuralBO: Thompson sampling with a neural network's tangent features (ALGORITHMS.md §2).
//!
//! The surrogate is `h(x) = sqrt(m) W_L φ(.. φ(W_1 x))` (ReLU, He initialization, last layer
//! zero so h(·; θ0) = 0). Each step trains it from θ0 on all observations with the pull
//! `½ m λ ||θ − θ0||²`, and draws `f̃(x) ~ N(h(x; θ_t), ν² σ²(x))` independently on a Sobol
//! candidate set, taking the smallest. The variance is the dual (t x t) form
//!
//! ```text
//! σ²(x) = λ gᵀ(λ I + GᵀG/m)⁻¹ g / m = (1/m) [ gᵀg − (Gg)ᵀ (λ m I + G Gᵀ)⁻¹ (Gg) ]
//! ```
//!
//! with g = ∇_θ h(x; θ0) ("static" features; "dynamic" takes them at θ_t) and G the
//! observed points' features, computed by the per-layer Gram formula of
//! `pinnbo_ad::tangent` without p-vectors; [`primal_variance`] is the p x p form for tests.

use crate::dense::Spd;
use crate::space::Space;
use crate::space::Standardizer;
use crate::strategy::{Observed, Proposal, Strategy, StrategyError};
use candle_core::{DType, Device, Tensor};
use faer::Mat;
use pinnbo_ad::sampling::{in_box, Sampling};
use pinnbo_ad::tangent::{gram, gram_diagonal, Factors};
use pinnbo_ad::train::{train, Observations, TrainConfig};
use pinnbo_ad::{Activation, Mlp, MlpConfig, Parameterization};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Features {
    /// Tangent features at the initial weights θ0 (the thesis's choice).
    Static,
    /// At the trained weights θ_t.
    Dynamic,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NeuralBoConfig {
    pub width: usize,
    pub depth: usize,
    pub activation: Activation,
    pub lambda: f64,
    pub nu: f64,
    pub epochs: usize,
    pub lr: f64,
    pub candidates: usize,
    pub features: Features,
}

impl Default for NeuralBoConfig {
    fn default() -> Self {
        NeuralBoConfig {
            width: 100,
            depth: 2,
            activation: Activation::Relu,
            lambda: 0.01,
            nu: 1.0,
            epochs: 100,
            // Adam's steps are not scaled by the gradient: with the sqrt(m) output factor
            // the papers' 1e-3 oscillates at width 500 (training loss above the data's
            // variance); 1e-4 fits.
            lr: 1e-4,
            candidates: 10_000,
            features: Features::Static,
        }
    }
}

pub struct NeuralBo {
    config: NeuralBoConfig,
    /// The network at θ0: rebuilt identically on every construction from the run's seed,
    /// so steps (and resumed runs) start from the same weights.
    initial: Mlp,
    seed: u64,
}

fn failed(e: impl std::fmt::Display) -> StrategyError {
    StrategyError(format!("NeuralBO: {e}"))
}

/// Inputs as the networks see them: the unit cube mapped to [-1, 1].
fn centred(u: &[f64]) -> Vec<f64> {
    u.iter().map(|v| 2.0 * v - 1.0).collect()
}

fn points_tensor(rows: &[Vec<f64>], d: usize) -> candle_core::Result<Tensor> {
    let flat: Vec<f64> = rows.iter().flat_map(|r| centred(r)).collect();
    Tensor::from_vec(flat, (rows.len(), d), &Device::Cpu)
}

impl NeuralBo {
    pub fn new(config: NeuralBoConfig, dim: usize, seed: u64) -> Result<NeuralBo, StrategyError> {
        let initial = network(&config, dim, seed).map_err(failed)?;
        Ok(NeuralBo {
            config,
            initial,
            seed,
        })
    }

    /// Posterior variances (unscaled by ν) at `candidates` given the observed points, by the
    /// dual form, with the tangent features of `net` from the per-layer Gram formula.
    pub fn dual_variance(
        &self,
        net: &Mlp,
        observed: &Tensor,
        candidates: &Tensor,
    ) -> Result<(Vec<f64>, f64), StrategyError> {
        let fo = Factors::of_values(net, observed).map_err(failed)?;
        let fc = Factors::of_values(net, candidates).map_err(failed)?;
        let k_oo = to_mat(&gram(&fo, &fo).map_err(failed)?)?;
        let k_co = to_mat(&gram(&fc, &fo).map_err(failed)?)?;
        let k_cc: Vec<f64> = gram_diagonal(&fc)
            .and_then(|t| t.to_vec1())
            .map_err(failed)?;
        self.variance_from_grams(k_oo, &k_co, &k_cc)
    }

    /// As [`NeuralBo::dual_variance`] for the static features at θ0, where the last layer is
    /// zero: only the output layer's weights and bias move, so `g(x) = [c φ(x), s]` with φ
    /// the last hidden activations (`c`, `s` the output layer's factors). One forward pass
    /// instead of a traced jet pass and its backward.
    pub fn static_variance(
        &self,
        observed: &Tensor,
        candidates: &Tensor,
    ) -> Result<(Vec<f64>, f64), StrategyError> {
        let features = |x: &Tensor| -> candle_core::Result<Tensor> {
            let phi = (self.initial.last_hidden(x)? * self.initial.output_layer_factor())?;
            let bias = (Tensor::ones((x.dim(0)?, 1), phi.dtype(), phi.device())?
                * self.initial.output_scale())?;
            Tensor::cat(&[&phi, &bias], 1)
        };
        let (fo, fc) = (
            features(observed).map_err(failed)?,
            features(candidates).map_err(failed)?,
        );
        let k_oo = to_mat(&fo.matmul(&fo.t().map_err(failed)?).map_err(failed)?)?;
        let k_co = to_mat(&fc.matmul(&fo.t().map_err(failed)?).map_err(failed)?)?;
        let k_cc: Vec<f64> = fc
            .sqr()
            .and_then(|t| t.sum(1))
            .and_then(|t| t.to_vec1())
            .map_err(failed)?;
        self.variance_from_grams(k_oo, &k_co, &k_cc)
    }

    /// `(1/m) [k(x,x) − k_xᵀ (λ m I + K)⁻¹ k_x]` for each candidate row of `k_co`, and the
    /// mean prior variance `(1/m) k(x,x)` over the candidates.
    fn variance_from_grams(
        &self,
        k_oo: Mat<f64>,
        k_co: &Mat<f64>,
        k_cc: &[f64],
    ) -> Result<(Vec<f64>, f64), StrategyError> {
        let m = self.config.width as f64;
        let t = k_oo.nrows();
        let mut a = k_oo;
        for i in 0..t {
            a[(i, i)] += self.config.lambda * m;
        }
        let spd = Spd::new(&a, "feature Gram").map_err(failed)?;
        // L⁻¹ K_ocᵀ for all candidates at once: one triangular solve with many right sides.
        let solved = spd.half_solve_columns(&k_co.transpose().to_owned());
        let posterior = (0..k_cc.len())
            .map(|c| {
                let explained: f64 = (0..t).map(|j| solved[(j, c)] * solved[(j, c)]).sum();
                ((k_cc[c] - explained) / m).max(0.0)
            })
            .collect();
        let prior_mean = k_cc.iter().sum::<f64>() / (m * k_cc.len().max(1) as f64);
        Ok((posterior, prior_mean.max(f64::MIN_POSITIVE)))
    }
}

fn to_mat(t: &Tensor) -> Result<Mat<f64>, StrategyError> {
    let (r, c) = t.dims2().map_err(failed)?;
    let v: Vec<f64> = t
        .to_dtype(DType::F64)
        .and_then(|t| t.flatten_all())
        .and_then(|t| t.to_vec1())
        .map_err(failed)?;
    Ok(Mat::from_fn(r, c, |i, j| v[i * c + j]))
}

/// The surrogate at θ0 for `seed`.
fn network(config: &NeuralBoConfig, dim: usize, seed: u64) -> candle_core::Result<Mlp> {
    let mlp = MlpConfig {
        activation: config.activation,
        parameterization: Parameterization::HeZeroLast,
        ..MlpConfig::new(dim, config.width, config.depth)
    };
    let mut net = Mlp::new(mlp, seed, &Device::Cpu)?;
    net.set_output_scale((config.width as f64).sqrt());
    Ok(net)
}

/// The primal (p x p) variance `λ gᵀ U⁻¹ g / m`, `U = λ I + GᵀG/m`, from explicit feature
/// rows (G `[t, p]`, g `[n, p]`): the reference the dual form is tested against.
pub fn primal_variance(g_observed: &Mat<f64>, g: &Mat<f64>, lambda: f64, m: f64) -> Vec<f64> {
    let p = g_observed.ncols();
    let mut u = Mat::from_fn(p, p, |i, j| if i == j { lambda } else { 0.0 });
    for r in 0..g_observed.nrows() {
        for i in 0..p {
            for j in 0..p {
                u[(i, j)] += g_observed[(r, i)] * g_observed[(r, j)] / m;
            }
        }
    }
    let spd = Spd::new(&u, "U").expect("λ I + GᵀG/m is positive definite");
    (0..g.nrows())
        .map(|r| {
            let row: Vec<f64> = (0..p).map(|i| g[(r, i)]).collect();
            let v = spd.half_solve(&row);
            lambda * v.iter().map(|x| x * x).sum::<f64>() / m
        })
        .collect()
}

impl Strategy for NeuralBo {
    fn name(&self) -> &'static str {
        "neural-bo"
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let d = space.dim();
        let standardizer =
            Standardizer::fit(&history.iter().map(|o| o.objective).collect::<Vec<_>>());
        let x: Vec<Vec<f64>> = history.iter().map(|o| o.unit.clone()).collect();
        let y: Vec<f64> = history
            .iter()
            .map(|o| standardizer.forward(o.objective))
            .collect();
        let observed = points_tensor(&x, d).map_err(failed)?;
        let clock = std::time::Instant::now();
        // Train from θ0 (a fresh copy of the initial network) on every observation.
        let net = network(&self.config, d, self.seed).map_err(failed)?;
        let n = history.len() as f64;
        let m = self.config.width as f64;
        let data = Observations {
            points: observed.clone(),
            values: Tensor::from_vec(y, history.len(), &Device::Cpu).map_err(failed)?,
        };
        let report = train(
            &net,
            Some(&data),
            &[],
            &TrainConfig {
                epochs: self.config.epochs,
                lr: self.config.lr,
                lr_decay: 1.0,
                decay_every: 0,
                // ½ Σ (h − y)² + ½ m λ ||θ − θ0||², divided by n: mean + (m λ / n) ||θ − θ0||².
                anchor: m * self.config.lambda / n,
                patience: self.config.epochs,
                min_improvement: 0.0,
            },
        )
        .map_err(failed)?;
        let train_seconds = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let seed = rng.random::<u64>();
        let flat = in_box(
            &vec![(0.0, 1.0); d],
            self.config.candidates,
            Sampling::Sobol,
            seed,
        );
        let rows: Vec<Vec<f64>> = flat.chunks(d).map(<[f64]>::to_vec).collect();
        let candidates = points_tensor(&rows, d).map_err(failed)?;
        let variance = match self.config.features {
            Features::Static => self.static_variance(&observed, &candidates)?,
            Features::Dynamic => self.dual_variance(&net, &observed, &candidates)?,
        };
        // Exploration on the data's scale: σ² divided by its prior mean over the candidates
        // (ν = 1 then explores about one standard deviation of the observations). Unscaled,
        // the prior variance is about |φ(x)|², far above the standardized data's 1, and the
        // samples drown the mean (see docs/ARCHITECTURE.md).
        let (variance, prior_mean) = variance;
        let variance: Vec<f64> = variance.iter().map(|v| v / prior_mean).collect();
        let mean: Vec<f64> = net
            .forward(&candidates)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1())
            .map_err(failed)?;
        let acquisition_seconds = clock.elapsed().as_secs_f64();
        let mut best = (0, f64::INFINITY);
        for (i, (mu, var)) in mean.iter().zip(&variance).enumerate() {
            let z: f64 = rng.sample(StandardNormal);
            let sample = mu + self.config.nu * var.sqrt() * z;
            if sample < best.1 {
                best = (i, sample);
            }
        }
        Ok(Proposal {
            unit: rows[best.0].clone(),
            diagnostics: json!({
                "sample": standardizer.inverse(best.1),
                "predicted": standardizer.inverse(mean[best.0]),
                "sigma": variance[best.0].sqrt() * standardizer.std,
                "train_loss": report.final_loss,
                "epochs": report.epochs,
                "train_seconds": train_seconds,
                "acquisition_seconds": acquisition_seconds,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pinnbo_ad::tangent::jacobian;

    /// The dual (t x t) variance equals the primal (p x p) one on a small network, for
    /// static features (only the last layer moves at θ0) and for trained weights.
    #[test]
    fn dual_and_primal_variances_agree() {
        for features in [Features::Static, Features::Dynamic] {
            let config = NeuralBoConfig {
                width: 6,
                depth: 2,
                features,
                ..NeuralBoConfig::default()
            };
            let bo = NeuralBo::new(config.clone(), 2, 4).unwrap();
            let observed = vec![vec![0.1, 0.9], vec![0.4, 0.3], vec![0.8, 0.6]];
            let queries = vec![
                vec![0.2, 0.2],
                vec![0.5, 0.5],
                vec![0.4, 0.3],
                vec![0.95, 0.05],
            ];
            let (xo, xq) = (
                points_tensor(&observed, 2).unwrap(),
                points_tensor(&queries, 2).unwrap(),
            );
            let net = network(&config, 2, 99).unwrap();
            if features == Features::Dynamic {
                // Move every layer off θ0 so all of them carry features.
                let data = Observations {
                    points: xo.clone(),
                    values: Tensor::new(&[1.0f64, -0.5, 0.3], &Device::Cpu).unwrap(),
                };
                let cfg = TrainConfig {
                    epochs: 50,
                    lr: 0.01,
                    ..TrainConfig::default()
                };
                train(&net, Some(&data), &[], &cfg).unwrap();
            }
            let dual = bo.dual_variance(&net, &xo, &xq).unwrap().0;
            let rows = |x: &Tensor| {
                let j = jacobian(&net, || net.forward(x)?.flatten_all()).unwrap();
                to_mat(&j).unwrap()
            };
            let primal =
                primal_variance(&rows(&xo), &rows(&xq), config.lambda, config.width as f64);
            for (a, b) in dual.iter().zip(&primal) {
                assert!(
                    (a - b).abs() < 1e-8 * b.abs().max(1.0),
                    "{features:?}: dual {a}, primal {b}"
                );
            }
            // An observed point is less uncertain than a far one.
            assert!(dual[2] < dual[3], "{dual:?}");
        }
    }

    /// The static fast path (last hidden layer only) equals the general Gram formula at θ0.
    #[test]
    fn static_features_match_the_general_path() {
        let config = NeuralBoConfig {
            width: 16,
            depth: 2,
            ..NeuralBoConfig::default()
        };
        let bo = NeuralBo::new(config, 3, 8).unwrap();
        let observed = vec![vec![0.1, 0.9, 0.5], vec![0.4, 0.3, 0.2]];
        let queries = vec![
            vec![0.2, 0.2, 0.2],
            vec![0.7, 0.5, 0.9],
            vec![0.4, 0.3, 0.2],
        ];
        let (xo, xq) = (
            points_tensor(&observed, 3).unwrap(),
            points_tensor(&queries, 3).unwrap(),
        );
        let (fast, fast_prior) = bo.static_variance(&xo, &xq).unwrap();
        let (general, general_prior) = bo.dual_variance(&bo.initial, &xo, &xq).unwrap();
        assert!((fast_prior - general_prior).abs() < 1e-10 * general_prior);
        for (a, b) in fast.iter().zip(&general) {
            assert!((a - b).abs() < 1e-10 * b.abs().max(1.0), "{a} vs {b}");
        }
    }
}
