//! The models strategies fit to the history: Gaussian processes, and the neural surrogates
//! with what they share.

pub(crate) mod bounded;
pub(crate) mod dense;
pub mod gp;
pub(crate) mod network;
pub mod neural;
pub mod pde_gp;

use crate::space::Standardizer;
use faer::Mat;

/// What an acquisition asks of a fitted Gaussian model of the objective.
pub trait GpPosterior: Sync {
    /// Mean and variance of the latent function at `u`, standardized units.
    fn predict_standardized(&self, u: &[f64]) -> (f64, f64);

    /// Joint posterior (standardized) at several points: means and covariance.
    fn joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>);

    fn standardizer(&self) -> &Standardizer;

    /// Mean and variance at `u` (standardized) with their gradients in `u`.
    fn predict_gradient(&self, u: &[f64]) -> Gradient;

    /// Mean and standard deviation in the data's units.
    fn predict(&self, u: &[f64]) -> (f64, f64) {
        let (m, v) = self.predict_standardized(u);
        let s = self.standardizer();
        (s.inverse(m), v.sqrt() * s.std)
    }
}

/// The joint posterior at several points from their cross-covariances with the conditioning
/// rows (`cross[i]`), the weights `alpha`, the factor of the conditioning covariance and the
/// prior covariance between the points: means `k·alpha`, covariance `prior − (L⁻¹k_i)·(L⁻¹k_j)`.
pub(crate) fn joint_posterior(
    cross: &[Vec<f64>],
    alpha: &[f64],
    spd: &dense::Spd,
    prior: impl Fn(usize, usize) -> f64,
) -> (Vec<f64>, Mat<f64>) {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let means = cross.iter().map(|k| dot(k, alpha)).collect();
    let half: Vec<Vec<f64>> = cross.iter().map(|k| spd.half_solve(k)).collect();
    let n = cross.len();
    let cov = Mat::from_fn(n, n, |i, j| prior(i, j) - dot(&half[i], &half[j]));
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
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        Gradient {
            mean: dot(k, alpha),
            variance: (prior - dot(k, w)).max(0.0),
            d_mean: dk.iter().map(|g| dot(g, alpha)).collect(),
            d_variance: dk.iter().map(|g| -2.0 * dot(g, w)).collect(),
        }
    }
}

/// The gradient of a model's mean and variance against central differences.
#[cfg(test)]
pub(crate) fn assert_gradient_matches(model: &dyn GpPosterior, u: &[f64]) {
    let g = model.predict_gradient(u);
    let (m, v) = model.predict_standardized(u);
    assert!((g.mean - m).abs() < 1e-10 && (g.variance - v).abs() < 1e-10);
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
