//! A Gaussian process conditioned on a linear pde as well as on the observations
//! (docs/algorithms.md §8): the field and the pde's operator applied to it are jointly
//! Gaussian, so the posterior given `f(x_i) + ε_i = y_i` and `N[f](z_j) = g(z_j)` at residual
//! points is ordinary conditioning, with the covariances of [`kernel`].
//!
//! Each residual equation is trusted up to a relative error: its noise variance is
//! `ρ · Var N[f](z_j)` under the prior (`Scaling::Point`), so multiplying an equation by any
//! non-zero factor, as a coefficient with a pole does, leaves the posterior unchanged, and no
//! few points near a pole can dominate. `Scaling::Global` uses one noise variance for every
//! equation, `ρ` times their mean prior variance, for comparison.
//!
//! Length scales, signal, observation noise and ρ are fitted by maximizing the joint marginal
//! likelihood (with the plain GP's prior when asked), so the residual points inform the length
//! scales as well as the observations do. Everything is computed in an equilibrated form
//! `Â = D A D` with `D = diag(1/√prior variance)`: an identity for any `D`, which keeps the
//! Cholesky factor of rows whose variances differ by many orders of magnitude accurate.

mod fit;
pub mod kernel;
mod likelihood;
#[cfg(test)]
mod likelihood_tests;
pub mod params;
mod profile;
mod rows;
mod spread;
mod target_spread;
#[cfg(test)]
mod target_spread_tests;
pub mod warp;

use crate::numerics::cholesky::Spd;
use crate::numerics::moments::mean_and_deviation;
use crate::space::Standardizer;
use crate::surrogates::gp::{GpError, Hyper, Kernel, Mean, Prior};
use crate::surrogates::{
    batch_posterior, dot, joint_posterior, log_normal_density, GpPosterior, Gradient,
};
use faer::Mat;
use kernel::{covariance, covariance_in, Functional, Scratch};
use likelihood::{factors, gram, squared_distance, Delta};
pub use params::ParamEquations;
pub use profile::Profile;
use rayon::prelude::*;
use rows::Rows;
pub use spread::{moved, ParamSpread};
pub use target_spread::TargetSpread;

/// How the residual equations' noise is set (module docs).
pub use pinnbo_dsl::choices::PdeScaling as Scaling;

/// The model physics-gp fits: the hyperparameters' prior, the residual equations' noise and
/// the prior mean (a constant, fitted as for the plain GP, moves each residual equation by
/// its coefficient of `f` itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdeModel {
    pub prior: Prior,
    pub scaling: Scaling,
    pub mean: Mean,
    /// Whether the observations are the field plus a discrepancy the pde does not govern
    /// ([`Discrepancy`]).
    pub discrepancy: bool,
}

/// The pde at its residual points, in unit coordinates: `N[f](z_j) = target_j`.
#[derive(Clone, Debug)]
pub struct Residuals {
    pub functionals: Vec<Functional>,
    /// `g(z_j)` in the field's units.
    pub targets: Vec<f64>,
    /// The coefficient of `f` itself at each point (the standardized field's mean moves the
    /// target by it).
    pub value_coefficients: Vec<f64>,
}

impl Residuals {
    /// No equation: the model is a plain GP with this module's kernel.
    pub fn none() -> Residuals {
        Residuals {
            functionals: Vec::new(),
            targets: Vec::new(),
            value_coefficients: Vec::new(),
        }
    }

    /// Every equation times `factor` (coefficients, target and coefficient of `f` alike).
    pub fn scaled(mut self, factor: f64) -> Residuals {
        for f in &mut self.functionals {
            f.terms.iter_mut().for_each(|t| t.coefficient *= factor);
        }
        self.targets.iter_mut().for_each(|g| *g *= factor);
        self.value_coefficients
            .iter_mut()
            .for_each(|c| *c *= factor);
        self
    }

    /// The same equations for `−f`: a linear operator gives `N[−f] = −g`.
    pub fn negated(mut self) -> Residuals {
        self.targets.iter_mut().for_each(|g| *g = -*g);
        self
    }
}

/// Log-parameters: the plain GP's, ρ of the residual equations' noise, and the
/// discrepancy's; and the pde's params, each in the coordinate it is fitted in (its log for
/// a `log` param).
#[derive(Clone, Debug, PartialEq)]
pub struct PdeHyper {
    pub gp: Hyper,
    pub log_relative: f64,
    pub discrepancy: Option<Discrepancy>,
    pub params: Vec<f64>,
}

/// What the pde does not explain (Kennedy and O'Hagan): the observations are `f + δ + ε`
/// with `f` conditioned on the pde and `δ` a Matérn-5/2 GP of its own amplitude and length
/// scale, which the pde does not govern. A right pde leaves `δ`'s amplitude at its floor; a
/// wrong one hands the data to `δ`.
#[derive(Clone, Debug, PartialEq)]
pub struct Discrepancy {
    pub log_signal: f64,
    pub log_lengthscale: f64,
}

impl PdeHyper {
    /// Length scales, signal, noise, ρ and the discrepancy's signal and length scale, as
    /// logs, then the params: the form saved between steps.
    pub fn pack(&self) -> Vec<f64> {
        let mut v = self.gp.pack();
        v.push(self.log_relative);
        if let Some(delta) = &self.discrepancy {
            v.extend([delta.log_signal, delta.log_lengthscale]);
        }
        v.extend(&self.params);
        v
    }

    /// The inverse of [`PdeHyper::pack`] for a model with or without a discrepancy and with
    /// `params` params; None when `v` has no length scale or a non-finite entry.
    pub fn from_packed(v: &[f64], discrepancy: bool, params: usize) -> Option<PdeHyper> {
        let least = if discrepancy { 6 } else { 4 } + params;
        (v.len() >= least && v.iter().all(|x| x.is_finite()))
            .then(|| PdeHyper::unpack(v, discrepancy, params))
    }

    pub(crate) fn unpack(v: &[f64], discrepancy: bool, params: usize) -> PdeHyper {
        let (v, params) = v.split_at(v.len() - params);
        let (v, delta) = match discrepancy {
            true => {
                let (v, delta) = v.split_at(v.len() - 2);
                let delta = Discrepancy {
                    log_signal: delta[0],
                    log_lengthscale: delta[1],
                };
                (v, Some(delta))
            }
            false => (v, None),
        };
        let (gp, relative) = v.split_at(v.len() - 1);
        PdeHyper {
            gp: Hyper::unpack(gp),
            log_relative: relative[0],
            discrepancy: delta,
            params: params.to_vec(),
        }
    }
}

pub struct PdeGp {
    pub hyper: PdeHyper,
    functionals: Vec<Functional>,
    /// `D`: one over each row's prior standard deviation.
    scale: Vec<f64>,
    alpha: Vec<f64>,
    spd: Spd,
    /// The prior mean of the standardized field.
    pub constant: f64,
    pub standardizer: Standardizer,
    /// The negative log likelihood of the observations given the pde's equations.
    pub nll: f64,
    /// The residual equations' targets against the fitted prior (None without the pde).
    pub target_spread: Option<TargetSpread>,
    /// How many of the conditioning rows are observations (they come first).
    observed: usize,
    /// The params' uncertainty, in the coordinates they are fitted in (the values are
    /// `hyper.params`); empty without params.
    pub param_spread: ParamSpread,
}

impl PdeGp {
    /// The posterior at fixed hyperparameters (`model.prior` is not used), the observations'
    /// own standard errors `sems` (empty: none) replacing the model's noise where told.
    pub fn with_hyper(
        model: PdeModel,
        x: &[Vec<f64>],
        (values, sems): (&[f64], &[Option<f64>]),
        residuals: &Residuals,
        hyper: PdeHyper,
    ) -> Result<PdeGp, GpError> {
        let rows = Rows::new(x, values, residuals)?.with_sems(sems);
        PdeGp::condition(rows, hyper, model)
    }

    /// This fit's posterior given `x` and `values` (its observations and more: pending
    /// points' stand-ins, with their own standard errors `sems`) and the pde at `residuals`:
    /// the same hyperparameters, params and standardization, so that what was not observed
    /// moves none of them.
    pub fn with_more(
        &self,
        model: PdeModel,
        x: &[Vec<f64>],
        (values, sems): (&[f64], &[Option<f64>]),
        residuals: &Residuals,
    ) -> Result<PdeGp, GpError> {
        self.with_more_at(self.hyper.clone(), model, x, (values, sems), residuals)
    }

    /// [`PdeGp::with_more`] at other hyperparameters and params `hyper` (a point of a
    /// param's profile), `residuals` the equations at its params: the same standardization.
    pub fn with_more_at(
        &self,
        hyper: PdeHyper,
        model: PdeModel,
        x: &[Vec<f64>],
        (values, sems): (&[f64], &[Option<f64>]),
        residuals: &Residuals,
    ) -> Result<PdeGp, GpError> {
        let rows = Rows::standardized(x, values, residuals, self.standardizer)?.with_sems(sems);
        let gp = PdeGp::condition(rows, hyper, model)?;
        Ok(PdeGp {
            nll: self.nll,
            target_spread: self.target_spread,
            param_spread: self.param_spread.clone(),
            ..gp
        })
    }

    fn condition(rows: Rows, hyper: PdeHyper, model: PdeModel) -> Result<PdeGp, GpError> {
        let inv_l: Vec<f64> = hyper
            .gp
            .log_lengthscales
            .iter()
            .map(|l| (-l).exp())
            .collect();
        let mut gram = gram(&rows.functionals, &inv_l, false);
        gram.delta = Delta::at(&rows, hyper.discrepancy.as_ref());
        let factored = factors(&gram, &rows, &hyper, model.scaling, model.mean).ok_or(
            GpError::NotPositiveDefinite(crate::numerics::cholesky::NotPositiveDefinite {
                what: "physics-informed kernel",
                n: rows.functionals.len(),
                jitter: f64::NAN,
            }),
        )?;
        let (f, constant) = (factored.joint, factored.constant);
        let s2 = hyper.gp.log_signal.exp();
        Ok(PdeGp {
            hyper,
            observed: rows.observed,
            functionals: rows.functionals,
            scale: f.scale,
            alpha: f.alpha,
            spd: f.spd,
            constant,
            standardizer: rows.standardizer,
            nll: factored.nll,
            target_spread: (factored.pde).map(|p| p.target_spread(&gram, s2, constant)),
            param_spread: ParamSpread::default(),
        })
    }

    fn inverse_lengthscales(&self) -> Vec<f64> {
        self.hyper
            .gp
            .log_lengthscales
            .iter()
            .map(|l| (-l).exp())
            .collect()
    }

    /// `D k(at, ·)`: the equilibrated covariances of a functional with every conditioning row.
    fn cross(&self, at: &Functional, inv_l: &[f64]) -> Vec<f64> {
        let s2 = self.hyper.gp.log_signal.exp();
        let mut scratch = Scratch::default();
        let rows = self.functionals.iter().zip(&self.scale);
        rows.map(|(f, s)| s * s2 * covariance_in(&mut scratch, at, f, inv_l, None))
            .collect()
    }

    /// [`PdeGp::cross`] for what is observed, `f + δ`, at `u` (`along` a coordinate: its
    /// derivative along it there): the discrepancy adds its covariance with the observations.
    fn cross_observed(&self, u: &[f64], along: Option<usize>, inv_l: &[f64]) -> Vec<f64> {
        let at = match along {
            None => Functional::value(u),
            Some(a) => {
                let mut orders = vec![0; u.len()];
                orders[a] = 1;
                Functional {
                    point: u.to_vec(),
                    terms: vec![kernel::Term {
                        orders,
                        coefficient: 1.0,
                    }],
                }
            }
        };
        let mut k = self.cross(&at, inv_l);
        if let Some(delta) = &self.hyper.discrepancy {
            let s2 = delta.log_signal.exp();
            let inv_l2 = (-2.0 * delta.log_lengthscale).exp();
            let observations = self.functionals.iter().zip(&self.scale).take(self.observed);
            for (i, (f, scale)) in observations.enumerate() {
                let r2 = inv_l2 * squared_distance(u, &f.point);
                let (value, slope) = Kernel::Matern52.eval(r2);
                let covariance = match along {
                    None => value,
                    // ∂k/∂u_a = ∂k/∂r² · 2 (u_a − x_a) / ℓ².
                    Some(a) => slope * 2.0 * (u[a] - f.point[a]) * inv_l2,
                };
                k[i] += scale * s2 * covariance;
            }
        }
        k
    }

    /// The prior variance of what is observed at a point, noise left out: the field's signal
    /// and the discrepancy's.
    fn observed_prior(&self) -> f64 {
        let delta = (self.hyper.discrepancy.as_ref()).map_or(0.0, |d| d.log_signal.exp());
        self.hyper.gp.log_signal.exp() + delta
    }

    /// How much of the fitted signal at the observations the pde does not explain (0 without
    /// a discrepancy): the variance over the observations of the discrepancy's posterior
    /// mean, as a share of its own and the field's. Posterior means leave the noise out, so
    /// noise the fit explains as noise is no discrepancy; a ratio of prior variances would
    /// be, and it compares the discrepancy with the field's prior, most of which a pde pins.
    pub fn discrepancy_share(&self) -> f64 {
        let Some(delta) = &self.hyper.discrepancy else {
            return 0.0;
        };
        let (s2, inv_l2) = (delta.log_signal.exp(), (-2.0 * delta.log_lengthscale).exp());
        let inv_l = self.inverse_lengthscales();
        let observations = &self.functionals[..self.observed];
        // The posterior means are cross-covariances times `alpha`: the field's with every
        // row, the discrepancy's with the observations' rows only (as `cross_observed`).
        let weights: Vec<f64> = (self.scale.iter().zip(&self.alpha))
            .take(self.observed)
            .map(|(scale, a)| s2 * scale * a)
            .collect();
        let (carried, field): (Vec<f64>, Vec<f64>) = observations
            .iter()
            .map(|at| {
                let carried: f64 = (observations.iter().zip(&weights))
                    .map(|(x, w)| {
                        let r2 = inv_l2 * squared_distance(&at.point, &x.point);
                        w * Kernel::Matern52.eval(r2).0
                    })
                    .sum();
                (carried, dot(&self.cross(at, &inv_l), &self.alpha))
            })
            .unzip();
        let (carried, field) = (mean_and_deviation(&carried).1, mean_and_deviation(&field).1);
        let total = carried.powi(2) + field.powi(2);
        match total > 0.0 {
            true => carried.powi(2) / total,
            false => 0.0,
        }
    }

    /// How many residual equations the model is conditioned on (0 without the pde).
    pub fn residual_rows(&self) -> usize {
        self.functionals.len() - self.observed
    }

    pub fn jitter(&self) -> f64 {
        self.spd.jitter
    }

    /// The mean leave-one-out log predictive density of the observations (standardized), each
    /// predicted from the others and every residual equation at the fitted hyperparameters
    /// and constant: with `A⁻¹` the inverse of all rows' covariance and `r` the centred
    /// targets, observation `i`'s held-out variance is `1 / (A⁻¹)_ii` and its error
    /// `(A⁻¹ r)_i / (A⁻¹)_ii`.
    pub fn leave_one_out(&self) -> f64 {
        // A⁻¹ = D Â⁻¹ D, `alpha` is Â⁻¹ D r, and (Â⁻¹)_ii = |L⁻¹ e_i|²: one blocked solve
        // for every observation's column.
        let unit = Mat::from_fn(self.alpha.len(), self.observed, |i, j| f64::from(i == j));
        let half = self.spd.half_solve_columns(&unit);
        let total: f64 = (0..self.observed)
            .map(|i| {
                let precision = self.scale[i].powi(2) * half.col(i).squared_norm_l2();
                let variance = 1.0 / precision;
                let error = self.scale[i] * self.alpha[i] * variance;
                log_normal_density(error, variance)
            })
            .sum();
        total / self.observed as f64
    }

    /// Posterior mean and variance of any functional of the standardized field (the pde's
    /// operator at a fresh point, say).
    pub fn predict_functional(&self, at: &Functional) -> (f64, f64) {
        let (mean, variance) = self.centred_functional(at);
        (self.constant * at.value_coefficient() + mean, variance)
    }

    /// [`PdeGp::predict_functional`] less the prior mean's share.
    fn centred_functional(&self, at: &Functional) -> (f64, f64) {
        let inv_l = self.inverse_lengthscales();
        let s2 = self.hyper.gp.log_signal.exp();
        let k = self.cross(at, &inv_l);
        let v = self.spd.half_solve(&k);
        let prior = s2 * covariance(at, at, &inv_l, None);
        (
            dot(&k, &self.alpha),
            (prior - v.iter().map(|a| a * a).sum::<f64>()).max(0.0),
        )
    }
}

impl GpPosterior for PdeGp {
    fn standardizer(&self) -> &Standardizer {
        &self.standardizer
    }

    fn noise_variance(&self) -> f64 {
        self.hyper.gp.log_noise.exp()
    }

    fn lengthscales(&self) -> Vec<f64> {
        self.hyper
            .gp
            .log_lengthscales
            .iter()
            .map(|l| l.exp())
            .collect()
    }

    fn prior_mean(&self) -> f64 {
        self.constant
    }

    /// The derivative of the covariance with f(u) along u_a is the covariance with ∂_a f(u)
    /// (and with δ's, [`PdeGp::cross_observed`]).
    fn centred_gradient(&self, u: &[f64]) -> Gradient {
        let inv_l = self.inverse_lengthscales();
        let k = self.cross_observed(u, None, &inv_l);
        let dk: Vec<Vec<f64>> = (0..u.len())
            .map(|a| self.cross_observed(u, Some(a), &inv_l))
            .collect();
        let w = self.spd.solve(&k);
        Gradient::from_cross(&k, &dk, &self.alpha, &w, self.observed_prior())
    }

    fn centred(&self, u: &[f64]) -> (f64, f64) {
        let inv_l = self.inverse_lengthscales();
        let at = Functional::value(u);
        let k = self.cross_observed(u, None, &inv_l);
        let v = self.spd.half_solve(&k);
        let delta = (self.hyper.discrepancy.as_ref()).map_or(0.0, |d| d.log_signal.exp());
        let prior = self.hyper.gp.log_signal.exp() * covariance(&at, &at, &inv_l, None) + delta;
        (
            dot(&k, &self.alpha),
            (prior - v.iter().map(|a| a * a).sum::<f64>()).max(0.0),
        )
    }

    fn centred_mean(&self, u: &[f64]) -> f64 {
        let k = self.cross_observed(u, None, &self.inverse_lengthscales());
        dot(&k, &self.alpha)
    }

    /// The value's prior variance is the same at every point (stationary kernels).
    fn centred_many(&self, points: &[Vec<f64>]) -> Vec<(f64, f64)> {
        let inv_l = self.inverse_lengthscales();
        let cross = |u: &[f64]| self.cross_observed(u, None, &inv_l);
        batch_posterior(points, cross, &self.alpha, &self.spd, self.observed_prior())
    }

    fn centred_joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>) {
        let inv_l = self.inverse_lengthscales();
        let s2 = self.hyper.gp.log_signal.exp();
        let cross: Vec<Vec<f64>> = points
            .par_iter()
            .map(|p| self.cross_observed(p, None, &inv_l))
            .collect();
        let delta = self.hyper.discrepancy.as_ref();
        joint_posterior(&cross, &self.alpha, &self.spd, |i, j| {
            let (a, b) = (Functional::value(&points[i]), Functional::value(&points[j]));
            let field = s2 * covariance(&a, &b, &inv_l, None);
            field
                + delta.map_or(0.0, |d| {
                    let r2 =
                        (-2.0 * d.log_lengthscale).exp() * squared_distance(&points[i], &points[j]);
                    d.log_signal.exp() * Kernel::Matern52.eval(r2).0
                })
        })
    }
}

#[cfg(test)]
mod tests;
