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

pub mod kernel;

use crate::space::Standardizer;
use crate::surrogates::bounded::{self, Stop};
use crate::surrogates::dense::Spd;
use crate::surrogates::gp::{GpError, Hyper, Prior};
use crate::surrogates::{joint_posterior, GpPosterior, Gradient};
use faer::Mat;
use kernel::{covariance, covariance_in, Functional, Scratch};
use rayon::prelude::*;

/// How the residual equations' noise is set (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scaling {
    Point,
    Global,
}

impl Scaling {
    pub fn from_name(name: &str) -> Option<Scaling> {
        match name {
            "point" => Some(Scaling::Point),
            "global" => Some(Scaling::Global),
            _ => None,
        }
    }
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

/// Log-parameters: the plain GP's, and ρ of the residual equations' noise.
#[derive(Clone, Debug, PartialEq)]
pub struct PdeHyper {
    pub gp: Hyper,
    pub log_relative: f64,
}

impl PdeHyper {
    /// Length scales, signal, noise and ρ, as logs: the form saved between steps.
    pub fn pack(&self) -> Vec<f64> {
        let mut v = self.gp.log_lengthscales.clone();
        v.extend([self.gp.log_signal, self.gp.log_noise, self.log_relative]);
        v
    }

    /// The inverse of [`PdeHyper::pack`]; None when `v` has no length scale or a non-finite
    /// entry.
    pub fn from_packed(v: &[f64]) -> Option<PdeHyper> {
        (v.len() > 3 && v.iter().all(|x| x.is_finite())).then(|| PdeHyper::unpack(v))
    }

    fn unpack(v: &[f64]) -> PdeHyper {
        let d = v.len() - 3;
        PdeHyper {
            gp: Hyper {
                log_lengthscales: v[..d].to_vec(),
                log_signal: v[d],
                log_noise: v[d + 1],
            },
            log_relative: v[d + 2],
        }
    }
}

/// Bounds on the log-parameters. Length scales reach 0.001: a pde's residual points resolve
/// fields that oscillate faster than a few observations could show.
const LENGTHSCALE: (f64, f64) = (-6.9, 2.3);
const SIGNAL: (f64, f64) = (-3.0, 5.0);
const NOISE: (f64, f64) = (-13.8, 0.0);
/// ρ from 1e-10 (the pde exact to rounding) to 0.1.
const RELATIVE: (f64, f64) = (-23.0, -2.3);
/// The grid the fit's starts are chosen from (module docs of [`PdeGp::fit`]).
const RAW_LENGTHSCALES: [f64; 9] = [0.003, 0.006, 0.012, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8];
const RAW_SIGNALS: [f64; 1] = [1.5];
const RAW_RELATIVE: [f64; 1] = [1e-8];
/// Looser than the plain GP's: every evaluation factors a matrix of observations plus
/// residual points, and the optimum moves little between steps (each fit starts from the
/// last).
const FIT_STOP: Stop = Stop {
    iterations: 40,
    gradient: 1e-3,
    decrease: 1e-6,
};
const WARM_STOP: Stop = Stop {
    iterations: 10,
    ..FIT_STOP
};

pub struct PdeGp {
    pub hyper: PdeHyper,
    functionals: Vec<Functional>,
    /// `D`: one over each row's prior standard deviation.
    scale: Vec<f64>,
    alpha: Vec<f64>,
    spd: Spd,
    pub standardizer: Standardizer,
    /// The negative log likelihood of the observations given the pde's equations.
    pub nll: f64,
}

/// The kernel at unit signal variance over every pair, and its log ℓ derivatives.
struct Gram {
    k: Mat<f64>,
    slopes: Vec<Mat<f64>>,
}

fn gram(functionals: &[Functional], inv_l: &[f64], with_slopes: bool) -> Gram {
    let n = functionals.len();
    let d = inv_l.len();
    let width = if with_slopes { d } else { 0 };
    // Row j: its values for i ≤ j, then their slopes (width per pair).
    let rows: Vec<(Vec<f64>, Vec<f64>)> = (0..n)
        .into_par_iter()
        .map(|j| {
            let mut scratch = Scratch::default();
            let mut values = Vec::with_capacity(j + 1);
            let mut slopes = vec![0.0; (j + 1) * width];
            for i in 0..=j {
                let slope = with_slopes.then(|| &mut slopes[i * width..(i + 1) * width]);
                let f = (&functionals[i], &functionals[j]);
                values.push(covariance_in(&mut scratch, f.0, f.1, inv_l, slope));
            }
            (values, slopes)
        })
        .collect();
    let mut k = Mat::zeros(n, n);
    let mut slopes = vec![Mat::zeros(n, n); width];
    for (j, (values, row_slopes)) in rows.into_iter().enumerate() {
        for (i, v) in values.into_iter().enumerate() {
            (k[(i, j)], k[(j, i)]) = (v, v);
            for (a, s) in slopes.iter_mut().enumerate() {
                let gv = row_slopes[i * width + a];
                (s[(i, j)], s[(j, i)]) = (gv, gv);
            }
        }
    }
    Gram { k, slopes }
}

/// The pieces of the equilibrated model at one set of hyperparameters, over the rows
/// `first..` of the Gram matrix.
struct Factored {
    first: usize,
    /// The noise variance on each row's diagonal.
    noise: Vec<f64>,
    scale: Vec<f64>,
    spd: Spd,
    alpha: Vec<f64>,
    nll: f64,
}

/// The model at `h` on the rows `first..` of `gram`: rows below `observed` are point values
/// with noise σ²_n, the others residual equations with noise as `scaling` says.
fn factor(
    gram: &Gram,
    first: usize,
    observed: usize,
    y: &[f64],
    h: &PdeHyper,
    scaling: Scaling,
) -> Option<Factored> {
    let n = gram.k.nrows();
    let s2 = h.gp.log_signal.exp();
    let rho = h.log_relative.exp();
    let residual_mean =
        (observed..n).map(|j| gram.k[(j, j)]).sum::<f64>() / (n - observed).max(1) as f64;
    let noise: Vec<f64> = (first..n)
        .map(|p| match (p < observed, scaling) {
            (true, _) => h.gp.log_noise.exp(),
            (false, Scaling::Point) => rho * s2 * gram.k[(p, p)],
            (false, Scaling::Global) => rho * s2 * residual_mean,
        })
        .collect();
    let scale: Vec<f64> = (first..n)
        .map(|p| 1.0 / (s2 * gram.k[(p, p)]).sqrt())
        .collect();
    if scale.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let m = n - first;
    let a = Mat::from_fn(m, m, |i, j| {
        let v = s2 * gram.k[(first + i, first + j)] + if i == j { noise[i] } else { 0.0 };
        scale[i] * v * scale[j]
    });
    let spd = Spd::new(&a, "physics-informed kernel").ok()?;
    let y_hat: Vec<f64> = y[first..].iter().zip(&scale).map(|(v, s)| v * s).collect();
    let alpha = spd.solve(&y_hat);
    let nll = 0.5 * y_hat.iter().zip(&alpha).map(|(a, b)| a * b).sum::<f64>()
        + 0.5 * spd.log_det()
        + scale.iter().map(|s| -s.ln()).sum::<f64>()
        + 0.5 * m as f64 * (2.0 * std::f64::consts::PI).ln();
    nll.is_finite().then_some(Factored {
        first,
        noise,
        scale,
        spd,
        alpha,
        nll,
    })
}

/// The negative log likelihood of `f`'s rows and its gradient in the packed log-parameters:
/// `½ Σ_pq W_pq D_p D_q ∂A_pq/∂θ` with `W = Â⁻¹ − α̂α̂ᵀ`.
fn likelihood_gradient(
    gram: &Gram,
    f: &Factored,
    observed: usize,
    h: &PdeHyper,
    scaling: Scaling,
) -> Vec<f64> {
    let n = gram.k.nrows();
    let first = f.first;
    let d = h.gp.log_lengthscales.len();
    let s2 = h.gp.log_signal.exp();
    let rho = h.log_relative.exp();
    let inverse = f.spd.inverse();
    let w = |i: usize, j: usize| {
        let (a, b) = (i - first, j - first);
        (inverse[(a, b)] - f.alpha[a] * f.alpha[b]) * f.scale[a] * f.scale[b]
    };
    let residuals = (n - observed).max(1) as f64;
    let mut grad = vec![0.0; d + 3];
    // The residual noise's share of each log ℓ derivative, under `Scaling::Global`.
    let mean_slopes: Vec<f64> = gram
        .slopes
        .iter()
        .map(|s| (observed..n).map(|j| s[(j, j)]).sum::<f64>() / residuals)
        .collect();
    for j in first..n {
        for i in first..=j {
            let weight = if i == j { 0.5 * w(j, j) } else { w(i, j) };
            for (a, slope) in gram.slopes.iter().enumerate() {
                grad[a] += weight * s2 * slope[(i, j)];
            }
            grad[d] += weight * s2 * gram.k[(i, j)];
        }
        let wjj = 0.5 * w(j, j);
        let noise = f.noise[j - first];
        if j < observed {
            grad[d + 1] += wjj * noise;
        } else {
            // ρ s² k_jj (or its mean) moves with ℓ and s² as well.
            for (a, slope) in gram.slopes.iter().enumerate() {
                let own = match scaling {
                    Scaling::Point => slope[(j, j)],
                    Scaling::Global => mean_slopes[a],
                };
                grad[a] += wjj * rho * s2 * own;
            }
            grad[d] += wjj * noise;
            grad[d + 2] += wjj * noise;
        }
    }
    grad
}

/// What the fit minimizes, with its gradient: the negative log likelihood of the observations
/// given the pde's equations, `−log p(y | g) = −log p(y, g) + log p(g)`, plus the prior's
/// penalty. The joint likelihood would let the many residual equations outvote the few
/// observations (on the beam it preferred calling the observations noise, docs/decisions.md);
/// conditioned on the pde, the hyperparameters are those under which the pde-informed prior
/// best predicts what was measured.
fn objective(
    functionals: &[Functional],
    observed: usize,
    y: &[f64],
    prior: Prior,
    scaling: Scaling,
    theta: &[f64],
) -> Option<(f64, Vec<f64>)> {
    let h = PdeHyper::unpack(theta);
    let inv_l: Vec<f64> = h.gp.log_lengthscales.iter().map(|l| (-l).exp()).collect();
    let gram = gram(functionals, &inv_l, true);
    // The two likelihoods factor different matrices: one on each core.
    let part = |first: usize| {
        let f = factor(&gram, first, observed, y, &h, scaling)?;
        Some((f.nll, likelihood_gradient(&gram, &f, observed, &h, scaling)))
    };
    let (joint, pde) = match observed < functionals.len() {
        true => rayon::join(|| part(0), || part(observed)),
        false => (part(0), Some((0.0, vec![0.0; d_all(&h)]))),
    };
    let ((joint, mut grad), (pde, pde_grad)) = (joint?, pde?);
    let value = joint - pde;
    grad.iter_mut().zip(pde_grad).for_each(|(g, p)| *g -= p);
    let (penalty, prior_grad) = prior.penalty(&h.gp);
    for (g, p) in grad.iter_mut().zip(prior_grad) {
        *g += p;
    }
    Some((value + penalty, grad))
}

/// How many log-parameters `h` has.
fn d_all(h: &PdeHyper) -> usize {
    h.gp.log_lengthscales.len() + 3
}

/// [`objective`]'s value alone (no derivatives of the Gram matrix).
fn value_only(rows: &Rows, prior: Prior, scaling: Scaling, h: &PdeHyper) -> Option<f64> {
    let inv_l: Vec<f64> = h.gp.log_lengthscales.iter().map(|l| (-l).exp()).collect();
    let gram = gram(&rows.functionals, &inv_l, false);
    let (observed, y) = (rows.observed, &rows.y);
    let joint = factor(&gram, 0, observed, y, h, scaling)?.nll;
    Some(joint - residual_nll(&gram, observed, y, h, scaling)? + prior.penalty(&h.gp).0)
}

/// The negative log likelihood of the residual equations alone, `−log p(g)`.
fn residual_nll(
    gram: &Gram,
    observed: usize,
    y: &[f64],
    h: &PdeHyper,
    scaling: Scaling,
) -> Option<f64> {
    match observed < gram.k.nrows() {
        true => Some(factor(gram, observed, observed, y, h, scaling)?.nll),
        false => Some(0.0),
    }
}

/// What the model conditions on: the observations' point values first, then the residual
/// equations, with targets for the standardized field.
struct Rows {
    functionals: Vec<Functional>,
    observed: usize,
    y: Vec<f64>,
    standardizer: Standardizer,
}

impl Rows {
    fn new(x: &[Vec<f64>], values: &[f64], residuals: &Residuals) -> Result<Rows, GpError> {
        if x.is_empty() {
            return Err(GpError::Empty);
        }
        let standardizer = Standardizer::fit(values);
        let mut y: Vec<f64> = values.iter().map(|v| standardizer.forward(*v)).collect();
        // N[(f − m)/s] = (g − m c_0)/s for the standardized field.
        y.extend(
            residuals
                .targets
                .iter()
                .zip(&residuals.value_coefficients)
                .map(|(g, c0)| (g - standardizer.mean * c0) / standardizer.std),
        );
        let mut functionals: Vec<Functional> = x.iter().map(|p| Functional::value(p)).collect();
        functionals.extend(residuals.functionals.iter().cloned());
        Ok(Rows {
            functionals,
            observed: x.len(),
            y,
            standardizer,
        })
    }
}

/// What a fit starts from: the previous step's parameters when there are any.
pub struct Starts<'a> {
    pub previous: Option<&'a PdeHyper>,
    pub restarts: usize,
}

impl PdeGp {
    /// Fits the model to observations at unit points `x` (values in the file's units) and to
    /// the pde at `residuals`.
    pub fn fit(
        prior: Prior,
        scaling: Scaling,
        x: &[Vec<f64>],
        values: &[f64],
        residuals: &Residuals,
        starts: Starts,
    ) -> Result<PdeGp, GpError> {
        let rows = Rows::new(x, values, residuals)?;
        let d = x[0].len();
        // The likelihood in the length scales has many local optima when a pde resolves
        // finer detail than the observations: the fit starts from the best `restarts` of a
        // coarse grid (one length scale for all inputs) and the previous step's optimum,
        // ranked by their value.
        let mut raw: Vec<(f64, PdeHyper)> = RAW_LENGTHSCALES
            .iter()
            .flat_map(|l| RAW_SIGNALS.iter().map(move |s| (l, s)))
            .flat_map(|(l, s)| RAW_RELATIVE.iter().map(move |r| (*l, *s, *r)))
            .map(|(l, signal, relative)| PdeHyper {
                gp: Hyper {
                    // Distances between points grow as √d: so do the grid's length scales.
                    log_lengthscales: vec![f64::ln(l * (d as f64).sqrt()); d],
                    log_signal: signal,
                    log_noise: 1e-3f64.ln(),
                },
                log_relative: f64::ln(relative),
            })
            .chain(starts.previous.cloned())
            .filter_map(|h| {
                let value = value_only(&rows, prior, scaling, &h)?;
                Some((value, h))
            })
            .collect();
        // A stable sort: ties keep the grid's order, so the fit is deterministic.
        raw.sort_by(|a, b| a.0.total_cmp(&b.0));
        let candidates: Vec<PdeHyper> = raw
            .into_iter()
            .take(starts.restarts.max(1))
            .map(|(_, h)| h)
            .collect();
        let (lo, hi): (Vec<f64>, Vec<f64>) = (0..d + 3)
            .map(|i| match i {
                _ if i < d => LENGTHSCALE,
                _ if i == d => SIGNAL,
                _ if i == d + 1 => NOISE,
                _ => RELATIVE,
            })
            .unzip();
        let f = |theta: &[f64]| {
            objective(
                &rows.functionals,
                rows.observed,
                &rows.y,
                prior,
                scaling,
                theta,
            )
        };
        // Starts one after another: each fit's Gram rows already run in parallel.
        let mut best: Option<(f64, Vec<f64>)> = None;
        for start in &candidates {
            // From the previous optimum, a few iterations continue last step's fit: over the
            // steps the optimization goes on where it left off, at a fraction of the cost.
            let stop = match Some(start) == starts.previous {
                true => WARM_STOP,
                false => FIT_STOP,
            };
            if let Some((value, theta)) = bounded::minimize(&f, &start.pack(), &lo, &hi, stop) {
                if best.as_ref().is_none_or(|(b, _)| value < *b) {
                    best = Some((value, theta));
                }
            }
        }
        let hyper = match best {
            Some((_, theta)) => PdeHyper::unpack(&theta),
            // No start factored: the pde trusted loosely and a large noise always factor.
            None => PdeHyper {
                gp: Hyper {
                    log_lengthscales: vec![0.2f64.ln(); d],
                    log_signal: 0.0,
                    log_noise: NOISE.1,
                },
                log_relative: RELATIVE.1,
            },
        };
        PdeGp::condition(rows, hyper, scaling)
    }

    /// The posterior at fixed hyperparameters.
    pub fn with_hyper(
        scaling: Scaling,
        x: &[Vec<f64>],
        values: &[f64],
        residuals: &Residuals,
        hyper: PdeHyper,
    ) -> Result<PdeGp, GpError> {
        PdeGp::condition(Rows::new(x, values, residuals)?, hyper, scaling)
    }

    fn condition(rows: Rows, hyper: PdeHyper, scaling: Scaling) -> Result<PdeGp, GpError> {
        let Rows {
            functionals,
            observed,
            y,
            standardizer,
        } = rows;
        let inv_l: Vec<f64> = hyper
            .gp
            .log_lengthscales
            .iter()
            .map(|l| (-l).exp())
            .collect();
        let gram = gram(&functionals, &inv_l, false);
        let f = factor(&gram, 0, observed, &y, &hyper, scaling).ok_or(
            GpError::NotPositiveDefinite(crate::surrogates::dense::NotPositiveDefinite {
                what: "physics-informed kernel",
                n: functionals.len(),
                jitter: f64::NAN,
            }),
        )?;
        let pde_nll = residual_nll(&gram, observed, &y, &hyper, scaling).unwrap_or(f64::NAN);
        Ok(PdeGp {
            hyper,
            functionals,
            scale: f.scale,
            alpha: f.alpha,
            spd: f.spd,
            standardizer,
            nll: f.nll - pde_nll,
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

    pub fn jitter(&self) -> f64 {
        self.spd.jitter
    }

    /// Posterior mean and variance of any functional of the standardized field (the pde's
    /// operator at a fresh point, say).
    pub fn predict_functional(&self, at: &Functional) -> (f64, f64) {
        let inv_l = self.inverse_lengthscales();
        let s2 = self.hyper.gp.log_signal.exp();
        let k = self.cross(at, &inv_l);
        let mean = k.iter().zip(&self.alpha).map(|(a, b)| a * b).sum();
        let v = self.spd.half_solve(&k);
        let prior = s2 * covariance(at, at, &inv_l, None);
        (
            mean,
            (prior - v.iter().map(|a| a * a).sum::<f64>()).max(0.0),
        )
    }
}

impl GpPosterior for PdeGp {
    fn standardizer(&self) -> &Standardizer {
        &self.standardizer
    }

    /// The derivative of the covariance with f(u) along u_a is the covariance with ∂_a f(u).
    fn predict_gradient(&self, u: &[f64]) -> Gradient {
        let inv_l = self.inverse_lengthscales();
        let k = self.cross(&Functional::value(u), &inv_l);
        let dk: Vec<Vec<f64>> = (0..u.len())
            .map(|a| {
                let mut orders = vec![0; u.len()];
                orders[a] = 1;
                let along = Functional {
                    point: u.to_vec(),
                    terms: vec![kernel::Term {
                        orders,
                        coefficient: 1.0,
                    }],
                };
                self.cross(&along, &inv_l)
            })
            .collect();
        let w = self.spd.solve(&k);
        Gradient::from_cross(&k, &dk, &self.alpha, &w, self.hyper.gp.log_signal.exp())
    }

    fn predict_standardized(&self, u: &[f64]) -> (f64, f64) {
        self.predict_functional(&Functional::value(u))
    }

    /// Joint posterior (standardized) at several points: means and covariance.
    fn joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>) {
        let inv_l = self.inverse_lengthscales();
        let s2 = self.hyper.gp.log_signal.exp();
        let cross: Vec<Vec<f64>> = points
            .par_iter()
            .map(|p| self.cross(&Functional::value(p), &inv_l))
            .collect();
        joint_posterior(&cross, &self.alpha, &self.spd, |i, j| {
            let (a, b) = (Functional::value(&points[i]), Functional::value(&points[j]));
            s2 * covariance(&a, &b, &inv_l, None)
        })
    }
}

#[cfg(test)]
mod tests;
