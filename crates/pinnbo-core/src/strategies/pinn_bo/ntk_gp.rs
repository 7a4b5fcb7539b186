//! The NTK-PINN Gaussian process (thesis Lemma 5.3.4): the wide PINN's training limit is a
//! GP whose kernel is the NTK at θ0 between values and pde residuals. Observations Y (the
//! standardized field) and the pde's right-hand sides U are jointly regressed:
//!
//! ```text
//! μ(x) = k_xᵀ K̂⁻¹ [Y; U],   σ²(x) = k(x, x) − k_xᵀ K̂⁻¹ k_x,
//! K̂ = [[K_uu + λ I, K_ur], [K_ru, K_rr + λ I]],   k_x = [K(x, X), K(x, Z)]
//! ```
//!
//! with residual features scaled by c_j (module `pinn_bo`) and every block divided by the mean
//! prior variance over the residual points, so that the prior's scale is the standardized
//! observations'. The field is `s f' + μ_y`, so for a
//! linear operator N[f] = g reads N[f'] = (g − N[μ_y]) / s: the residual of the constant
//! function μ_y supplies `N[μ_y] − g` (a network with zero last layer and output bias μ_y
//! is exactly that constant, derivatives included).

use super::information::joint_gram;
use super::{PinnBo, Step, PART};
use crate::acquisition::domain::Domain;
use crate::acquisition::network_search::minimize;
use crate::numerics::cholesky::Spd;
use crate::space::Standardizer;
use crate::strategies::Within;
use crate::strategies::{Diagnostics, StrategyError};
use crate::surrogates::network::column;
use crate::surrogates::neural::to_mat;
use candle_core::Tensor;
use faer::Mat;
use pinnbo_ad::tangent::{gram, gram_diagonal, Factors};
use pinnbo_ad::{Mlp, MlpConfig, Parameterization};
use rand_chacha::ChaCha8Rng;

pub(super) struct NtkPinnGp {
    observed: Factors,
    spd: Spd,
    /// K̂⁻¹ [Y; U].
    alpha: Vec<f64>,
    physics: bool,
}

impl NtkPinnGp {
    pub(super) fn fit(
        bo: &PinnBo,
        observed: Factors,
        k_uu: &Mat<f64>,
        k_ur: &Mat<f64>,
        y: &[f64],
        standardizer: &Standardizer,
    ) -> Result<NtkPinnGp, StrategyError> {
        let u = residual_targets(bo, standardizer)?;
        NtkPinnGp::fit_with(bo, observed, k_uu, k_ur, y, Some(u))
    }

    /// As [`NtkPinnGp::fit`] with the residual rows' targets `u` given; None leaves the
    /// residual rows out (a plain NTK GP on the observations).
    fn fit_with(
        bo: &PinnBo,
        observed: Factors,
        k_uu: &Mat<f64>,
        k_ur: &Mat<f64>,
        y: &[f64],
        u: Option<Vec<f64>>,
    ) -> Result<NtkPinnGp, StrategyError> {
        let physics = u.is_some();
        let scale = 1.0 / bo.prior_variance;
        let lambda = bo.config.lambda;
        let joint = if physics {
            joint_gram(k_uu, k_ur, &bo.k_rr, [scale; 3], lambda)
        } else {
            let none = Mat::zeros(0, 0);
            joint_gram(
                k_uu,
                &Mat::zeros(k_uu.nrows(), 0),
                &none,
                [scale; 3],
                lambda,
            )
        };
        let spd = Spd::new(&joint, "NTK-PINN K̂").within(PART)?;
        let mut targets = y.to_vec();
        targets.extend(u.unwrap_or_default());
        let alpha = spd.solve(&targets);
        Ok(NtkPinnGp {
            observed,
            spd,
            alpha,
            physics,
        })
    }

    /// Mean and standard deviation of the standardized field at raw points `x`.
    fn predict(&self, bo: &PinnBo, x: &Tensor) -> Result<(Vec<f64>, Vec<f64>), StrategyError> {
        let fx = Factors::of_values(&bo.initial, x).within(PART)?;
        let k_xu = to_mat(&gram(&fx, &self.observed).within(PART)?)?;
        let k_xr = if self.physics {
            bo.against_residuals(&fx)?
        } else {
            Mat::zeros(k_xu.nrows(), 0)
        };
        let prior = column(gram_diagonal(&fx)).within(PART)?;
        let (t, r) = (k_xu.ncols(), k_xr.ncols());
        let scale = 1.0 / bo.prior_variance;
        let k = Mat::from_fn(t + r, x.dim(0).within(PART)?, |j, i| {
            scale
                * if j < t {
                    k_xu[(i, j)]
                } else {
                    k_xr[(i, j - t)]
                }
        });
        let explained = self.spd.half_solve_columns(&k);
        let mut mean = Vec::with_capacity(prior.len());
        let mut std = Vec::with_capacity(prior.len());
        for (i, p) in prior.iter().enumerate() {
            mean.push((0..t + r).map(|j| k[(j, i)] * self.alpha[j]).sum());
            let e: f64 = (0..t + r).map(|j| explained[(j, i)].powi(2)).sum();
            std.push((p * scale - e).max(0.0).sqrt());
        }
        Ok((mean, std))
    }

    /// The minimizer of the objective's lower bound `sign μ − ν σ` (standardized), with the
    /// predicted objective there in field units times `sign`.
    pub(super) fn minimize_bound(
        &self,
        bo: &PinnBo,
        nu: f64,
        sign: f64,
        standardizer: &Standardizer,
        rng: &mut ChaCha8Rng,
        domain: &Domain,
    ) -> Result<Step, StrategyError> {
        let d = domain.d;
        let bound = |u: &[f64]| -> candle_core::Result<Vec<f64>> {
            let x = bo.raw_tensor(u, d)?;
            let (mean, std) = self
                .predict(bo, &x)
                .map_err(|e| candle_core::Error::Msg(e.to_string()))?;
            Ok(mean
                .iter()
                .zip(&std)
                .map(|(m, s)| sign * m - nu * s)
                .collect())
        };
        let (unit, lower) = minimize(&bound, None, domain, bo.config.search, rng).within(PART)?;
        let at = bo.raw_tensor(&unit, d).within(PART)?;
        let (mean, std) = self.predict(bo, &at)?;
        Ok(Step {
            unit,
            predicted: sign * standardizer.inverse(mean[0]),
            diagnostics: Diagnostics::default()
                .with("lower_bound", lower)
                .with("sigma", std[0] * standardizer.std),
        })
    }
}

/// `(g − N[μ_y]) / s · c_j` at every residual point, in the order of the residual features.
fn residual_targets(bo: &PinnBo, standardizer: &Standardizer) -> Result<Vec<f64>, StrategyError> {
    let d = bo.lo.len();
    let config = MlpConfig {
        parameterization: Parameterization::HeZeroLast,
        ..MlpConfig::new(d, 1, 1)
    };
    let constant = Mlp::new(config, 0, bo.initial.device()).within(PART)?;
    constant.set_output_bias(standardizer.mean).within(PART)?;
    let mut out = Vec::new();
    for term in &bo.terms {
        let r = column(term.residual.evaluate(&constant, &term.points)).within(PART)?;
        out.extend(r.iter().map(|r| -r / standardizer.std));
    }
    Ok(out.iter().zip(&bo.scales).map(|(r, c)| r * c).collect())
}

#[cfg(test)]
mod tests {
    use super::super::{PinnBoConfig, PinnSurrogate};
    use super::*;
    use candle_core::Device;
    use pinnbo_ad::tangent::jacobian;
    use pinnbo_ad::OperatorRegistry;
    use pinnbo_dsl::{compile, Source};

    /// On a linear model the GP is exact: with targets generated by θ0 + δ linearized
    /// (values φᵀδ at the observed points, residual features c ωᵀδ at the residual points)
    /// and at least p of them, the posterior mean anywhere is φ(x)ᵀδ. This checks the
    /// blocks, the scaling by c and by the prior variance, and the targets' order together.
    #[test]
    fn the_posterior_mean_is_exact_on_the_linearized_network() {
        let text = "problem \"osc\"\nvar x in [0, 3]\nfield f(x)\n\
                    pde d(f, x, 2) + 9*f = 0.4 + 1.8*x^2\nminimize f\n\
                    oracle command \"unused {x}\"\n";
        let problem = compile(&Source::new("osc.pde", text)).unwrap().problem;
        let config = PinnBoConfig {
            surrogate: PinnSurrogate::NtkGp,
            width: 3,
            depth: 1,
            residual_points: 9,
            lambda: 1e-10,
            ..PinnBoConfig::default()
        };
        let bo = PinnBo::new(config, &problem, &OperatorRegistry::new(), 1).unwrap();
        let net = &bo.initial;
        let p = net.parameter_count();
        let delta: Vec<f64> = (0..p)
            .map(|i| ((i * 7 + 3) % 11) as f64 / 11.0 - 0.5)
            .collect();
        let linear = |rows: &Mat<f64>| -> Vec<f64> {
            (0..rows.nrows())
                .map(|r| (0..p).map(|j| rows[(r, j)] * delta[j]).sum())
                .collect()
        };
        let values =
            |x: &Tensor| to_mat(&jacobian(net, || net.forward(x)?.flatten_all()).unwrap()).unwrap();
        let observed = Tensor::new(&[[0.3f64], [1.1], [2.2]], &Device::Cpu).unwrap();
        let y = linear(&values(&observed));
        let term = &bo.terms[0];
        let omega =
            to_mat(&jacobian(net, || term.residual.evaluate(net, &term.points)).unwrap()).unwrap();
        let u: Vec<f64> = linear(&omega)
            .iter()
            .zip(&bo.scales)
            .map(|(v, c)| v * c)
            .collect();
        assert!(y.len() + u.len() >= p);
        let (phi, k_uu, k_ur) = bo.observed_grams(&observed).unwrap();
        let gp = NtkPinnGp::fit_with(&bo, phi, &k_uu, &k_ur, &y, Some(u)).unwrap();
        let probe = Tensor::new(&[[0.0f64], [0.7], [1.9], [3.0]], &Device::Cpu).unwrap();
        let (mean, std) = gp.predict(&bo, &probe).unwrap();
        for (m, truth) in mean.iter().zip(linear(&values(&probe))) {
            assert!(
                (m - truth).abs() < 1e-5 * truth.abs().max(1.0),
                "{m} vs {truth}"
            );
        }
        // Everything is known: no uncertainty left.
        assert!(std.iter().all(|s| *s < 1e-3), "{std:?}");
    }
}
