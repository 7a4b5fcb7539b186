//! A weighted mixture of Gaussian posteriors of the same data, seen through its first two
//! moments: one Gaussian posterior whose mean and covariance are the mixture's exactly. A
//! fit that plugs in one value of an uncertain constant is confident where the constant's
//! other plausible values disagree; averaging over them puts that disagreement into the
//! variance the acquisition reads (the "marginal GP" approximation: Garnett, Osborne and
//! Hennig, 2014). docs/decisions.md "The params' uncertainty in the acquisition".

use super::{GpPosterior, Gradient};
use crate::space::Standardizer;
use faer::Mat;

/// Gaussian posteriors of the same observations (one standardizer) and their weights.
pub struct Mixture<P> {
    components: Vec<(f64, P)>,
}

impl<P: GpPosterior> Mixture<P> {
    /// The mixture of `components` with weights proportional to theirs; None without one of
    /// positive weight.
    pub fn new(components: Vec<(f64, P)>) -> Option<Mixture<P>> {
        let components: Vec<(f64, P)> = (components.into_iter())
            .filter(|(w, _)| *w > 0.0 && w.is_finite())
            .collect();
        let total: f64 = components.iter().map(|(w, _)| w).sum();
        (total > 0.0).then(|| Mixture {
            components: (components.into_iter())
                .map(|(w, p)| (w / total, p))
                .collect(),
        })
    }

    /// How many posteriors the mixture averages.
    pub fn models(&self) -> usize {
        self.components.len()
    }

    /// The heaviest component (the first among equals).
    fn heaviest(&self) -> &P {
        let mut best = &self.components[0];
        for c in &self.components[1..] {
            if c.0 > best.0 {
                best = c;
            }
        }
        &best.1
    }

    /// The mixture's mean and variance from each component's (standardized, prior mean
    /// included): `Σ w (v + (m − m̄)²)`, not `Σ w (v + m²) − m̄²`, which cancels.
    fn moments(&self, each: impl Fn(&P) -> (f64, f64)) -> (f64, f64) {
        let parts: Vec<(f64, (f64, f64))> = (self.components.iter())
            .map(|(w, p)| (*w, each(p)))
            .collect();
        let mean: f64 = parts.iter().map(|(w, (m, _))| w * m).sum();
        let variance = (parts.iter())
            .map(|(w, (m, v))| w * (v + (m - mean).powi(2)))
            .sum();
        (mean, variance)
    }
}

impl<P: GpPosterior> GpPosterior for Mixture<P> {
    /// The weighted mean of the components' prior means.
    fn prior_mean(&self) -> f64 {
        (self.components.iter())
            .map(|(w, p)| w * p.prior_mean())
            .sum()
    }

    fn centred(&self, u: &[f64]) -> (f64, f64) {
        let (mean, variance) = self.moments(|p| p.predict_standardized(u));
        (mean - self.prior_mean(), variance)
    }

    /// Means `Σ w m`, covariance `Σ w (C + (m − m̄)(m − m̄)ᵀ)`.
    fn centred_joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>) {
        let n = points.len();
        let joints: Vec<(Vec<f64>, Mat<f64>)> = (self.components.iter())
            .map(|(_, p)| p.joint(points))
            .collect();
        let weighted = || self.components.iter().map(|(w, _)| *w).zip(&joints);
        let mean: Vec<f64> = (0..n)
            .map(|i| weighted().map(|(w, (m, _))| w * m[i]).sum())
            .collect();
        let cov = Mat::from_fn(n, n, |i, j| {
            weighted()
                .map(|(w, (m, c))| w * (c[(i, j)] + (m[i] - mean[i]) * (m[j] - mean[j])))
                .sum()
        });
        let prior = self.prior_mean();
        (mean.into_iter().map(|m| m - prior).collect(), cov)
    }

    /// The variance's gradient: `Σ w (∂v + 2 (m − m̄) ∂m)` (the `∂m̄` terms sum to 0).
    fn centred_gradient(&self, u: &[f64]) -> Gradient {
        let parts: Vec<(f64, Gradient)> = (self.components.iter())
            .map(|(w, p)| (*w, p.predict_gradient(u)))
            .collect();
        let mean: f64 = parts.iter().map(|(w, g)| w * g.mean).sum();
        let mut out = Gradient {
            mean: mean - self.prior_mean(),
            variance: 0.0,
            d_mean: vec![0.0; u.len()],
            d_variance: vec![0.0; u.len()],
        };
        for (w, g) in &parts {
            let off = g.mean - mean;
            out.variance += w * (g.variance + off * off);
            for a in 0..u.len() {
                out.d_mean[a] += w * g.d_mean[a];
                out.d_variance[a] += w * (g.d_variance[a] + 2.0 * off * g.d_mean[a]);
            }
        }
        out
    }

    fn centred_mean(&self, u: &[f64]) -> f64 {
        let mean: f64 = (self.components.iter())
            .map(|(w, p)| w * p.mean_standardized(u))
            .sum();
        mean - self.prior_mean()
    }

    fn centred_many(&self, points: &[Vec<f64>]) -> Vec<(f64, f64)> {
        let each: Vec<(f64, Vec<(f64, f64)>)> = (self.components.iter())
            .map(|(w, p)| (*w, p.predict_many(points)))
            .collect();
        let prior = self.prior_mean();
        (0..points.len())
            .map(|i| {
                let mean: f64 = each.iter().map(|(w, many)| w * many[i].0).sum();
                let variance = (each.iter())
                    .map(|(w, many)| w * (many[i].1 + (many[i].0 - mean).powi(2)))
                    .sum();
                (mean - prior, variance)
            })
            .collect()
    }

    /// The components share it: they model the same observations.
    fn standardizer(&self) -> &Standardizer {
        self.components[0].1.standardizer()
    }

    /// The weighted mean of the components' noise variances.
    fn noise_variance(&self) -> f64 {
        (self.components.iter())
            .map(|(w, p)| w * p.noise_variance())
            .sum()
    }

    /// The heaviest component's: a length scale is no moment of the predictions.
    fn lengthscales(&self) -> Vec<f64> {
        self.heaviest().lengthscales()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surrogates::assert_predictions_agree;
    use crate::surrogates::gp::{Categorical, GpModel, GpSpec, Hyper, Kernel, Mean, Prior};

    /// Two GPs of the same data at different length scales (so different fitted constant
    /// means): the mixture's mean and variance are the weighted mixture's, its joint
    /// covariance at one point its variance, and its every prediction agrees with the others
    /// and with central differences.
    #[test]
    fn a_mixture_has_the_mixtures_moments() {
        let x: Vec<Vec<f64>> = vec![vec![0.1, 0.2], vec![0.5, 0.9], vec![0.8, 0.4]];
        let y = [0.3, -1.0, 0.7];
        let spec = GpSpec {
            kernel: Kernel::Matern52,
            prior: Prior::None,
            mean: Mean::Constant,
            categorical: Categorical::default(),
        };
        let gp = |l: f64| {
            let hyper = Hyper {
                log_lengthscales: vec![l.ln(); 2],
                log_signal: 0.0,
                log_noise: (1e-2f64).ln(),
            };
            GpModel::with_hyper(&spec, &x, (&y, &[]), hyper).unwrap()
        };
        let (a, b) = (gp(0.2), gp(0.6));
        let u = [0.4, 0.6];
        let ((ma, va), (mb, vb)) = (a.predict_standardized(&u), b.predict_standardized(&u));
        let mixture = Mixture::new(vec![(3.0, gp(0.2)), (1.0, gp(0.6))]).unwrap();
        let mean = 0.75 * ma + 0.25 * mb;
        let variance = 0.75 * (va + ma * ma) + 0.25 * (vb + mb * mb) - mean * mean;
        let (m, v) = mixture.predict_standardized(&u);
        assert!((m - mean).abs() < 1e-12 && (v - variance).abs() < 1e-12);
        let (means, cov) = mixture.joint(&[u.to_vec(), vec![0.9, 0.1]]);
        assert!((means[0] - mean).abs() < 1e-12 && (cov[(0, 0)] - variance).abs() < 1e-12);
        let prior = 0.75 * a.prior_mean() + 0.25 * b.prior_mean();
        assert!((mixture.prior_mean() - prior).abs() < 1e-12);
        assert!(
            (a.prior_mean() - b.prior_mean()).abs() > 1e-6,
            "two different means"
        );
        assert_predictions_agree(&mixture, &u);
        assert!(Mixture::<GpModel>::new(vec![(0.0, gp(0.2))]).is_none());
    }
}
