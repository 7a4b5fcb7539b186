//! The models strategies fit to the history: Gaussian processes, and the neural surrogates
//! with what they share.

pub mod field_objective;
pub mod gp;
pub mod mixture;
pub(crate) mod network;
pub mod neural;
pub mod pde_gp;
pub(crate) mod saved_network;

use crate::space::Standardizer;
use faer::Mat;
use rayon::prelude::*;

/// `a · b`.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `log N(error; 0, variance)`: a prediction's log density of what was observed, `error` the
/// observation less the predicted mean.
pub(crate) fn log_normal_density(error: f64, variance: f64) -> f64 {
    -0.5 * ((2.0 * std::f64::consts::PI * variance).ln() + error * error / variance)
}

/// What a hyperparameter fit starts from: the previous step's optimum when there is one,
/// and how many starts a fit without one makes.
pub struct Starts<'a, H> {
    pub previous: Option<&'a H>,
    pub restarts: usize,
}

/// What an acquisition asks of a fitted Gaussian model of the objective.
pub trait GpPosterior: Sync {
    /// The prior mean of the standardized field, a constant: each prediction below is the
    /// posterior of the field less it ([`GpPosterior::centred`] and the like) plus it.
    fn prior_mean(&self) -> f64;

    /// Mean and variance at `u` of the standardized field less its prior mean.
    fn centred(&self, u: &[f64]) -> (f64, f64);

    /// [`GpPosterior::centred`] jointly at several points: means and covariance.
    fn centred_joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>);

    /// [`GpPosterior::centred`] with the gradients of mean and variance in `u`.
    fn centred_gradient(&self, u: &[f64]) -> Gradient;

    /// The mean alone of [`GpPosterior::centred`]: a dot product, without the variance's solve.
    fn centred_mean(&self, u: &[f64]) -> f64;

    /// [`GpPosterior::centred`] at many points, as [`batch_posterior`] computes them: what
    /// an acquisition's screening of thousands of candidates asks.
    fn centred_many(&self, points: &[Vec<f64>]) -> Vec<(f64, f64)>;

    fn standardizer(&self) -> &Standardizer;

    /// The observations' noise variance, standardized units (fitted, or known).
    fn noise_variance(&self) -> f64;

    /// The kernel's length scale along each unit-cube coordinate.
    fn lengthscales(&self) -> Vec<f64>;

    /// Mean and variance of the latent function at `u`, standardized units.
    fn predict_standardized(&self, u: &[f64]) -> (f64, f64) {
        let (mean, variance) = self.centred(u);
        (self.prior_mean() + mean, variance)
    }

    /// Joint posterior (standardized) at several points: means and covariance.
    fn joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>) {
        let (means, cov) = self.centred_joint(points);
        let m = self.prior_mean();
        (means.into_iter().map(|mean| m + mean).collect(), cov)
    }

    /// Mean and variance at `u` (standardized) with their gradients in `u`.
    fn predict_gradient(&self, u: &[f64]) -> Gradient {
        let g = self.centred_gradient(u);
        Gradient {
            mean: self.prior_mean() + g.mean,
            ..g
        }
    }

    /// The mean alone at `u` (standardized).
    fn mean_standardized(&self, u: &[f64]) -> f64 {
        self.prior_mean() + self.centred_mean(u)
    }

    /// Means and variances (standardized) at many points.
    fn predict_many(&self, points: &[Vec<f64>]) -> Vec<(f64, f64)> {
        let m = self.prior_mean();
        let many = self.centred_many(points);
        many.into_iter().map(|(mean, v)| (m + mean, v)).collect()
    }

    /// The mean alone in the data's units.
    fn predict_mean(&self, u: &[f64]) -> f64 {
        self.standardizer().inverse(self.mean_standardized(u))
    }

    /// The predictive mean and variance of an observation at `u`, noise included, in the
    /// data's units.
    fn predictive(&self, u: &[f64]) -> (f64, f64) {
        let (mean, variance) = self.predict_standardized(u);
        let s = self.standardizer();
        (
            s.inverse(mean),
            (variance + self.noise_variance()) * s.std.powi(2),
        )
    }

    /// Mean and standard deviation in the data's units.
    fn predict(&self, u: &[f64]) -> (f64, f64) {
        in_units(self.standardizer(), self.predict_standardized(u))
    }

    /// [`GpPosterior::predict`] at many points, by [`GpPosterior::predict_many`].
    fn predict_batch(&self, points: &[Vec<f64>]) -> Vec<(f64, f64)> {
        let s = self.standardizer();
        let many = self.predict_many(points);
        many.into_iter().map(|p| in_units(s, p)).collect()
    }
}

/// A standardized mean and variance as the data's mean and standard deviation.
fn in_units(s: &Standardizer, (mean, variance): (f64, f64)) -> (f64, f64) {
    (s.inverse(mean), variance.sqrt() * s.std)
}

/// Points per block of [`batch_posterior`]: a block's cross-covariances are solved against
/// the factor in one pass over it, and enough blocks remain to share the threads.
const BATCH_BLOCK: usize = 128;

/// Means `k·alpha` and variances `prior − |L⁻¹k|²` at many points from their
/// cross-covariances with the conditioning rows (`cross`), the weights, the factor and the
/// prior variance. With thousands of rows the factor does not fit in cache, and a solve per
/// point would stream it once per point; a block's triangular solve with many right-hand
/// sides streams it once per block. Blocks run in parallel; the result does not depend on
/// the number of threads.
pub(crate) fn batch_posterior(
    points: &[Vec<f64>],
    cross: impl Fn(&[f64]) -> Vec<f64> + Sync,
    alpha: &[f64],
    spd: &crate::numerics::cholesky::Spd,
    prior: f64,
) -> Vec<(f64, f64)> {
    points
        .par_chunks(BATCH_BLOCK)
        .flat_map_iter(|block| {
            let crosses: Vec<Vec<f64>> = block.iter().map(|p| cross(p)).collect();
            let columns = Mat::from_fn(alpha.len(), block.len(), |i, j| crosses[j][i]);
            let half = spd.half_solve_columns(&columns);
            let squared = |j: usize| half.col(j).iter().map(|v| v * v).sum::<f64>();
            (0..block.len())
                .map(|j| (dot(&crosses[j], alpha), (prior - squared(j)).max(0.0)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The joint posterior at several points from their cross-covariances with the conditioning
/// rows (`cross[i]`), the weights `alpha`, the factor of the conditioning covariance and the
/// prior covariance between the points: means `k·alpha`, covariance `prior − (L⁻¹k_i)·(L⁻¹k_j)`.
pub(crate) fn joint_posterior(
    cross: &[Vec<f64>],
    alpha: &[f64],
    spd: &crate::numerics::cholesky::Spd,
    prior: impl Fn(usize, usize) -> f64,
) -> (Vec<f64>, Mat<f64>) {
    let means = cross.iter().map(|k| dot(k, alpha)).collect();
    // All points' solves in one pass over the factor (see `batch_posterior`).
    let half = spd.half_solve_columns(&Mat::from_fn(alpha.len(), cross.len(), |i, j| cross[j][i]));
    let n = cross.len();
    let cov = Mat::from_fn(n, n, |i, j| {
        let product: f64 = half
            .col(i)
            .iter()
            .zip(half.col(j).iter())
            .map(|(a, b)| a * b)
            .sum();
        prior(i, j) - product
    });
    (means, cov)
}

/// A prediction and its gradient in the point (standardized units).
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient {
    pub mean: f64,
    pub variance: f64,
    pub d_mean: Vec<f64>,
    pub d_variance: Vec<f64>,
}

impl Gradient {
    /// From the cross-covariances `k` of the point with the conditioning rows, their
    /// derivatives `dk[a]` along each input, the weights `alpha = A⁻¹ y`, `w = A⁻¹ k` and
    /// the prior variance: the mean is `k·alpha`, the variance `prior − k·w`, so
    /// `∂mean = ∂k·alpha` and `∂variance = −2 ∂k·w`.
    pub(crate) fn from_cross(
        k: &[f64],
        dk: &[Vec<f64>],
        alpha: &[f64],
        w: &[f64],
        prior: f64,
    ) -> Gradient {
        Gradient {
            mean: dot(k, alpha),
            variance: (prior - dot(k, w)).max(0.0),
            d_mean: dk.iter().map(|g| dot(g, alpha)).collect(),
            d_variance: dk.iter().map(|g| -2.0 * dot(g, w)).collect(),
        }
    }
}

/// Every way a model predicts at `u` agrees: the gradient's mean and variance, the mean
/// alone and the batched prediction (among other points) with the pointwise one; the
/// gradient against central differences.
#[cfg(test)]
pub(crate) fn assert_predictions_agree(model: &dyn GpPosterior, u: &[f64]) {
    let g = model.predict_gradient(u);
    let (m, v) = model.predict_standardized(u);
    assert!((g.mean - m).abs() < 1e-10 && (g.variance - v).abs() < 1e-10);
    assert!((model.mean_standardized(u) - m).abs() < 1e-10);
    // Enough other points for several blocks, `u` in the last.
    let mut points: Vec<Vec<f64>> = (0..2 * BATCH_BLOCK + 5)
        .map(|i| u.iter().map(|c| (c + 0.37 * i as f64) % 1.0).collect())
        .collect();
    points.push(u.to_vec());
    let many = model.predict_many(&points);
    for (p, (bm, bv)) in points.iter().zip(&many) {
        let (pm, pv) = model.predict_standardized(p);
        assert!((bm - pm).abs() < 1e-10 && (bv - pv).abs() < 1e-10, "{p:?}");
    }
    let h = 1e-6;
    for a in 0..u.len() {
        let at = |s: f64| {
            let mut p = u.to_vec();
            p[a] += s;
            model.predict_standardized(&p)
        };
        let (up, down) = (at(h), at(-h));
        let (dm, dv) = ((up.0 - down.0) / (2.0 * h), (up.1 - down.1) / (2.0 * h));
        assert!(
            (dm - g.d_mean[a]).abs() < 1e-5 * dm.abs().max(1.0),
            "mean {a}: {} vs {dm}",
            g.d_mean[a]
        );
        assert!(
            (dv - g.d_variance[a]).abs() < 1e-5 * dv.abs().max(1.0),
            "variance {a}: {} vs {dv}",
            g.d_variance[a]
        );
    }
}

/// What is known of the observations' noise, in the values' own units: a level stated for
/// all of them (`noise std`), and each observation's own standard error where one was told
/// (`tell --sem`, Ax's `(mean, sem)`). A told standard error replaces the model's noise at
/// that observation (stated or fitted); the others keep it. When every observation has one,
/// nothing is left for a noise parameter to explain, and it is held at its floor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KnownNoise {
    pub std: Option<f64>,
    /// One entry per observation (in the fit's order), None where none was told; may be
    /// empty.
    pub sems: Vec<Option<f64>>,
}

impl KnownNoise {
    /// Only a level, the same for every observation (None: fitted).
    pub fn level(std: Option<f64>) -> KnownNoise {
        KnownNoise {
            std,
            sems: Vec::new(),
        }
    }

    /// Whether every one of `n` observations carries its own standard error.
    pub(crate) fn all_told(&self, n: usize) -> bool {
        n > 0 && self.sems.len() == n && self.sems.iter().all(Option::is_some)
    }

    /// The bounds of the log noise variance: `bounds`, or with a known level that level
    /// standardized at both ends, clamped into `bounds` (a noise-free measurement keeps the
    /// floor that keeps the kernel matrix factorable); held at the floor when every one of
    /// `n` observations carries its own.
    pub(crate) fn bounds(
        &self,
        bounds: (f64, f64),
        n: usize,
        standardizer: &Standardizer,
    ) -> (f64, f64) {
        if self.all_told(n) {
            return (bounds.0, bounds.0);
        }
        match self.std {
            Some(std) => {
                let fixed = (2.0 * (std / standardizer.std).ln()).clamp(bounds.0, bounds.1);
                (fixed, fixed)
            }
            None => bounds,
        }
    }
}

/// Observation `j`'s own noise (variance or standard error) in `own`, if it has one (`own`
/// may be shorter than the observations, or empty).
pub(crate) fn own_at(own: &[Option<f64>], j: usize) -> Option<f64> {
    own.get(j).copied().flatten()
}

/// Told standard errors `sems` as noise variances in the units `standardizer` gives the
/// values, no smaller than `floor` (what keeps a kernel matrix factorable); None where none
/// was told.
pub(crate) fn own_variances(
    sems: &[Option<f64>],
    standardizer: &Standardizer,
    floor: f64,
) -> Vec<Option<f64>> {
    (sems.iter())
        .map(|s| s.map(|s| (s / standardizer.std).powi(2).max(floor)))
        .collect()
}
