//! The fit's likelihood: the Gram matrix of every conditioning row with its log ℓ
//! derivatives, the equilibrated factorization, and −log p(y | g) with its gradient
//! (docs/algorithms.md §8).

use super::kernel::{covariance_in, Functional, Scratch};
use super::rows::{ParamSlope, Rows};
use super::{Discrepancy, PdeHyper, PdeModel, Scaling, TargetSpread};
use crate::numerics::cholesky::Spd;
use crate::surrogates::gp::{Kernel, Mean};
use crate::surrogates::{dot, own_at};
use faer::Mat;
use rayon::prelude::*;

/// The kernel at unit signal variance over every pair, and its log ℓ derivatives; and the
/// discrepancy's covariance over the observations, when the model has one.
pub(super) struct Gram {
    pub(super) k: Mat<f64>,
    pub(super) slopes: Vec<Mat<f64>>,
    pub(super) delta: Option<Delta>,
}

/// The discrepancy's block: `s²_δ k_δ(x_i, x_j)` over the observations (the first rows), a
/// Matérn-5/2 kernel with one length scale, and its derivative in log ℓ_δ at unit signal.
pub(super) struct Delta {
    pub(super) s2: f64,
    pub(super) k: Mat<f64>,
    pub(super) slope: Mat<f64>,
}

impl Delta {
    /// The block at `rows`' observations for `h`'s discrepancy (None without one).
    pub(super) fn at(rows: &Rows, h: Option<&Discrepancy>) -> Option<Delta> {
        let h = h?;
        let points: Vec<&[f64]> = (rows.functionals[..rows.observed].iter())
            .map(|f| f.point.as_slice())
            .collect();
        let inv_l2 = (-2.0 * h.log_lengthscale).exp();
        let n = points.len();
        let (mut k, mut slope) = (Mat::zeros(n, n), Mat::zeros(n, n));
        for j in 0..n {
            for i in 0..=j {
                let r2 = inv_l2 * squared_distance(points[i], points[j]);
                let (v, dv) = Kernel::Matern52.eval(r2);
                // ∂r²/∂log ℓ = −2 r².
                let s = -2.0 * r2 * dv;
                (k[(i, j)], k[(j, i)]) = (v, v);
                (slope[(i, j)], slope[(j, i)]) = (s, s);
            }
        }
        Some(Delta {
            s2: h.log_signal.exp(),
            k,
            slope,
        })
    }

    /// `s²_δ k_δ` between rows `i` and `j` of the whole Gram matrix (0 unless both are
    /// observations).
    fn between(&self, i: usize, j: usize) -> f64 {
        let n = self.k.nrows();
        if i < n && j < n {
            self.s2 * self.k[(i, j)]
        } else {
            0.0
        }
    }
}

pub(super) fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

pub(super) fn gram(functionals: &[Functional], inv_l: &[f64], with_slopes: bool) -> Gram {
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
    Gram {
        k,
        slopes,
        delta: None,
    }
}

/// The pieces of the equilibrated model at one set of hyperparameters, over the rows
/// `first..` of the Gram matrix.
pub(super) struct Factored {
    pub(super) first: usize,
    /// The noise variance on each row's diagonal.
    pub(super) noise: Vec<f64>,
    pub(super) scale: Vec<f64>,
    pub(super) spd: Spd,
    /// `Â⁻¹ D (y − c h)` at the constant `c` of [`Factored::centre`] (0 until then).
    pub(super) alpha: Vec<f64>,
    /// `D y`, `D h` and `Â⁻¹ D h`: what moving the constant mean changes.
    y_hat: Vec<f64>,
    h_hat: Vec<f64>,
    inverse_h: Vec<f64>,
}

impl Factored {
    /// `hᵀA⁻¹y` and `hᵀA⁻¹h` over its rows (at constant 0).
    fn along_mean(&self) -> (f64, f64) {
        (
            dot(&self.h_hat, &self.alpha),
            dot(&self.h_hat, &self.inverse_h),
        )
    }

    /// The rows' targets less `c h` against the model's prior ([`TargetSpread`]), `gram` and
    /// `s2` those it was factored from. Computed once for the fitted model, not in the fit's
    /// every evaluation.
    pub(super) fn target_spread(&self, gram: &Gram, s2: f64, c: f64) -> TargetSpread {
        let m = self.scale.len();
        let a = |i, j| equilibrated(gram, self.first, s2, (&self.noise, &self.scale), i, j);
        let diagonal: Vec<f64> = (0..m).map(|i| a(i, i)).collect();
        let correlation_squares: f64 = (0..m)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| a(i, j).powi(2) / (diagonal[i] * diagonal[j]))
            .sum();
        // The constant mean that best explains the targets.
        let rows = || self.y_hat.iter().zip(&self.h_hat).zip(&diagonal);
        let along: f64 = rows().map(|((y, h), v)| y * h / v).sum();
        let norm: f64 = rows().map(|((_, h), v)| h * h / v).sum();
        let c = if norm > 0.0 { along / norm } else { c };
        let squares = rows().map(|((y, h), variance)| (y - c * h).powi(2) / variance);
        TargetSpread {
            mean_square: squares.sum::<f64>() / m.max(1) as f64,
            independent: (m * m) as f64 / correlation_squares,
        }
    }

    /// `alpha` at the prior mean `c` (in place of 0).
    fn centre(&mut self, c: f64) {
        for (a, b) in self.alpha.iter_mut().zip(&self.inverse_h) {
            *a -= c * b;
        }
    }
}

/// `Â_ij = D_i (s² K_ij + δ_ij noise_i) D_j` over the rows `first..` of `gram`: the rows'
/// covariance, equilibrated, from each row's noise and its `D`.
fn equilibrated(
    gram: &Gram,
    first: usize,
    s2: f64,
    (noise, scale): (&[f64], &[f64]),
    i: usize,
    j: usize,
) -> f64 {
    let (p, q) = (first + i, first + j);
    let delta = gram.delta.as_ref().map_or(0.0, |d| d.between(p, q));
    let v = s2 * gram.k[(p, q)] + delta + if i == j { noise[i] } else { 0.0 };
    scale[i] * v * scale[j]
}

/// The model at `h` on the rows `first..` of `gram` at prior mean 0: rows below `observed`
/// are point values with noise σ²_n, the others residual equations with noise as `scaling`
/// says.
pub(super) fn factor(
    gram: &Gram,
    first: usize,
    rows: &Rows,
    h: &PdeHyper,
    scaling: Scaling,
) -> Option<Factored> {
    let (observed, y) = (rows.observed, &rows.y);
    let n = gram.k.nrows();
    let s2 = h.gp.log_signal.exp();
    let rho = h.log_relative.exp();
    let residual_mean =
        (observed..n).map(|j| gram.k[(j, j)]).sum::<f64>() / (n - observed).max(1) as f64;
    let noise: Vec<f64> = (first..n)
        .map(|p| match (p < observed, scaling) {
            (true, _) => rows.noise_at(p, h.gp.log_noise.exp()),
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
        equilibrated(gram, first, s2, (&noise, &scale), i, j)
    });
    let spd = Spd::new(&a, "physics-informed kernel").ok()?;
    let y_hat: Vec<f64> = y[first..].iter().zip(&scale).map(|(v, s)| v * s).collect();
    let alpha = spd.solve(&y_hat);
    let h_hat: Vec<f64> = rows.ones[first..]
        .iter()
        .zip(&scale)
        .map(|(v, s)| v * s)
        .collect();
    let inverse_h = spd.solve(&h_hat);
    alpha.iter().all(|a| a.is_finite()).then_some(Factored {
        first,
        noise,
        scale,
        spd,
        alpha,
        y_hat,
        h_hat,
        inverse_h,
    })
}

/// The model at `h` on every row and on the residual rows alone (without any, None), both
/// centred at the constant prior mean `constant`, and `−log p(y | g)` there.
pub(super) struct Factors {
    pub(super) joint: Factored,
    pub(super) pde: Option<Factored>,
    pub(super) constant: f64,
    /// The negative log likelihood of the observations given the residual rows.
    pub(super) nll: f64,
}

/// [`Factors`] at the constant prior mean that maximizes the observations' likelihood given
/// the pde (0 for [`Mean::Average`]); None where a factorization fails or the likelihood is
/// not sane.
///
/// `−log p(y | g)` is computed from the residual rows' factor `B = L Lᵀ` alone, never as the
/// difference `−log p(y, g) + log p(g)` of two factorizations: with `C = L⁻¹ A_gy` the
/// observations' covariance given the rows is the Schur complement `S = A_yy − CᵀC`, their
/// residual `r = y − Cᵀ L⁻¹ g`, and `−log p(y | g) = ½ rᵀS⁻¹r + ½ log|S| + ½ n log 2π`. At
/// long length scales `log|A|` and `log|B|` are each hundreds of nats, and two factorizations
/// may take different jitters: their difference was once off by 440 nats (docs/decisions.md).
/// The constant mean's optimum is likewise `r_hᵀS⁻¹r_y / r_hᵀS⁻¹r_h` with `r_h` the mean's
/// direction's residual: where the pde fixes the field's level by itself (a value term at
/// every point) that precision vanishes, the observations cannot move the constant, and it
/// stays 0.
pub(super) fn factors(
    gram: &Gram,
    rows: &Rows,
    h: &PdeHyper,
    scaling: Scaling,
    mean: Mean,
) -> Option<Factors> {
    let observed = rows.observed;
    let residual_rows = observed < gram.k.nrows();
    let (joint, pde) = rayon::join(
        || factor(gram, 0, rows, h, scaling),
        || residual_rows.then(|| factor(gram, observed, rows, h, scaling)),
    );
    let (mut joint, mut pde) = match (joint, pde) {
        (Some(joint), None) => (joint, None),
        (Some(joint), Some(Some(pde))) => (joint, Some(pde)),
        _ => return None,
    };
    let s2 = h.gp.log_signal.exp();
    // The observations' rows given the residual rows (all of `joint` without any).
    let given = match &pde {
        Some(pde) => Given::new(gram, s2, &joint, pde, observed)?,
        None => Given::whole(&joint),
    };
    let constant = match mean {
        Mean::Average => 0.0,
        Mean::Constant => {
            let (along, precision) = given.along_mean();
            let whole = joint.along_mean().1;
            if precision > 1e-9 * whole {
                along / precision
            } else {
                0.0
            }
        }
    };
    joint.centre(constant);
    if let Some(p) = pde.as_mut() {
        p.centre(constant);
    }
    let nll = given.nll(constant, &joint.scale[..observed]);
    // The observations' covariance given anything is at least their noise: a likelihood
    // above that bound is rounding, not evidence.
    let noise = h.gp.log_noise.exp();
    let log_noise = |p: usize| (2.0 * std::f64::consts::PI * rows.noise_at(p, noise)).ln();
    let ceiling = -0.5 * (0..observed).map(log_noise).sum::<f64>();
    (nll.is_finite() && -nll <= ceiling + 1e-6 * ceiling.abs().max(1.0)).then_some(Factors {
        joint,
        pde,
        constant,
        nll,
    })
}

/// The observations given the residual rows, equilibrated: the factor of their covariance
/// `S` and their residuals (the values' and the constant mean's direction's).
struct Given {
    s: Spd,
    values: Vec<f64>,
    ones: Vec<f64>,
}

impl Given {
    /// Given the residual rows of `pde` (the rows `observed..` of `joint`'s matrix).
    fn new(
        gram: &Gram,
        s2: f64,
        joint: &Factored,
        pde: &Factored,
        observed: usize,
    ) -> Option<Given> {
        let m = pde.scale.len();
        let entry = |i, j| equilibrated(gram, 0, s2, (&joint.noise, &joint.scale), i, j);
        let cross = Mat::from_fn(m, observed, |a, j| entry(observed + a, j));
        let c = pde.spd.half_solve_columns(&cross);
        let s = Mat::from_fn(observed, observed, |i, j| {
            entry(i, j) - (0..m).map(|a| c[(a, i)] * c[(a, j)]).sum::<f64>()
        });
        let residual = |observations: &[f64], rows: &[f64]| -> Vec<f64> {
            let z = pde.spd.half_solve(rows);
            (0..observed)
                .map(|j| observations[j] - (0..m).map(|a| c[(a, j)] * z[a]).sum::<f64>())
                .collect()
        };
        Some(Given {
            s: Spd::new(&s, "physics-informed kernel given the pde").ok()?,
            values: residual(&joint.y_hat[..observed], &pde.y_hat),
            ones: residual(&joint.h_hat[..observed], &pde.h_hat),
        })
    }

    /// Nothing to condition on: the observations' own rows (`joint`'s, all of them).
    fn whole(joint: &Factored) -> Given {
        Given {
            s: joint.spd.clone(),
            values: joint.y_hat.clone(),
            ones: joint.h_hat.clone(),
        }
    }

    /// `r_hᵀS⁻¹r_y` and `r_hᵀS⁻¹r_h`.
    fn along_mean(&self) -> (f64, f64) {
        let h = self.s.solve(&self.ones);
        (dot(&h, &self.values), dot(&h, &self.ones))
    }

    /// `−log p(y | g)` at the constant mean `c`, `scale` the observations' `D`.
    fn nll(&self, c: f64, scale: &[f64]) -> f64 {
        let centred: Vec<f64> = (self.values.iter().zip(&self.ones))
            .map(|(v, h)| v - c * h)
            .collect();
        let half = self.s.half_solve(&centred);
        0.5 * dot(&half, &half)
            + 0.5 * self.s.log_det()
            + scale.iter().map(|s| -s.ln()).sum::<f64>()
            + 0.5 * scale.len() as f64 * (2.0 * std::f64::consts::PI).ln()
    }
}

/// `cov(N′[f](z_p), row q)` at unit signal for every residual row `p` (`N′` its equation's
/// derivative in one param) and every row `q`: the Gram matrix moves by `s² (G′ + G′ᵀ)`.
pub(super) fn slope_cross(
    functionals: &[Functional],
    slope: &ParamSlope,
    inv_l: &[f64],
) -> Mat<f64> {
    let rows: Vec<Vec<f64>> = (slope.functionals.par_iter())
        .map(|derivative| {
            let mut scratch = Scratch::default();
            (functionals.iter())
                .map(|f| covariance_in(&mut scratch, derivative, f, inv_l, None))
                .collect()
        })
        .collect();
    Mat::from_fn(rows.len(), functionals.len(), |p, q| rows[p][q])
}

/// One param's slope and its [`slope_cross`], with the fitted constant prior mean: what
/// the likelihood's derivative in a param needs beside the Gram matrix.
pub(super) struct ParamMove<'a> {
    pub(super) slope: &'a ParamSlope,
    pub(super) cross: &'a Mat<f64>,
    pub(super) constant: f64,
}

/// The negative log likelihood of `f`'s rows and its gradient in the packed log-parameters:
/// `½ Σ_pq W_pq D_p D_q ∂A_pq/∂θ` with `W = Â⁻¹ − α̂α̂ᵀ`; in a param the targets move too,
/// adding `aᵀ ∂(y − c h)/∂θ` with `a = A⁻¹(y − c h) = D α̂`.
pub(super) fn likelihood_gradient(
    gram: &Gram,
    f: &Factored,
    rows: &Rows,
    h: &PdeHyper,
    scaling: Scaling,
    params: &[ParamMove],
) -> Vec<f64> {
    let observed = rows.observed;
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
    let mut grad = vec![0.0; d + 3 + if gram.delta.is_some() { 2 } else { 0 }];
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
            if let Some(delta) = gram.delta.as_ref().filter(|_| j < observed) {
                grad[d + 3] += weight * delta.s2 * delta.k[(i, j)];
                grad[d + 4] += weight * delta.s2 * delta.slope[(i, j)];
            }
        }
        let wjj = 0.5 * w(j, j);
        let noise = f.noise[j - first];
        if j < observed {
            // An observation with its own noise does not see the model's.
            if own_at(&rows.own_noise, j).is_none() {
                grad[d + 1] += wjj * noise;
            }
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
    let residual_rows = first.max(observed)..n;
    for m in params {
        let cross = |p: usize, q: usize| m.cross[(p - observed, q)];
        let mean_diagonal = (observed..n).map(|j| cross(j, j)).sum::<f64>() / residuals;
        let mut g = 0.0;
        for p in residual_rows.clone() {
            g += (first..n).map(|q| w(p, q) * s2 * cross(p, q)).sum::<f64>();
            // ρ s² k_pp (or its mean) moves with the equation: by 2 ρ s² G′_pp.
            let own = match scaling {
                Scaling::Point => cross(p, p),
                Scaling::Global => mean_diagonal,
            };
            g += w(p, p) * rho * s2 * own;
            let a = f.scale[p - first] * f.alpha[p - first];
            let r = p - observed;
            g += a * (m.slope.targets[r] - m.constant * m.slope.ones[r]);
        }
        grad.push(g);
    }
    grad
}

/// What the fit minimizes, with its gradient: the negative log likelihood of the observations
/// given the pde's equations, `−log p(y | g) = −log p(y, g) + log p(g)`, plus the prior's
/// penalty. The joint likelihood would let the many residual equations outvote the few
/// observations (on the beam it preferred calling the observations noise, docs/decisions.md);
/// conditioned on the pde, the hyperparameters are those under which the pde-informed prior
/// best predicts what was measured.
///
/// The constant prior mean is at its optimum for `theta` ([`factors`]), so the gradient in
/// the other parameters is the one at that constant held fixed.
pub(super) fn objective(
    rows: &Rows,
    slopes: &[ParamSlope],
    model: PdeModel,
    theta: &[f64],
) -> Option<(f64, Vec<f64>)> {
    let h = PdeHyper::unpack(theta, model.discrepancy, slopes.len());
    let inv_l: Vec<f64> = h.gp.log_lengthscales.iter().map(|l| (-l).exp()).collect();
    let mut gram = gram(&rows.functionals, &inv_l, true);
    gram.delta = Delta::at(rows, h.discrepancy.as_ref());
    let Factors {
        joint,
        pde,
        constant,
        nll,
    } = factors(&gram, rows, &h, model.scaling, model.mean)?;
    let crosses: Vec<Mat<f64>> = (slopes.iter())
        .map(|slope| slope_cross(&rows.functionals, slope, &inv_l))
        .collect();
    let moves: Vec<ParamMove> = (slopes.iter().zip(&crosses))
        .map(|(slope, cross)| ParamMove {
            slope,
            cross,
            constant,
        })
        .collect();
    // The two gradients are over different matrices: one on each core.
    let gradient = |f: &Factored| likelihood_gradient(&gram, f, rows, &h, model.scaling, &moves);
    let (mut grad, pde_grad) = rayon::join(|| gradient(&joint), || pde.as_ref().map(gradient));
    let value = nll;
    if let Some(pde_grad) = pde_grad {
        grad.iter_mut().zip(pde_grad).for_each(|(g, p)| *g -= p);
    }
    let prior = model.prior;
    let (penalty, prior_grad) = prior.penalty(&h.gp);
    for (g, p) in grad.iter_mut().zip(prior_grad) {
        *g += p;
    }
    Some((value + penalty, grad))
}

/// [`objective`]'s value alone (no derivatives of the Gram matrix).
pub(super) fn value_only(rows: &Rows, model: PdeModel, h: &PdeHyper) -> Option<f64> {
    let inv_l: Vec<f64> = h.gp.log_lengthscales.iter().map(|l| (-l).exp()).collect();
    let mut gram = gram(&rows.functionals, &inv_l, false);
    gram.delta = Delta::at(rows, h.discrepancy.as_ref());
    let nll = factors(&gram, rows, h, model.scaling, model.mean)?.nll;
    Some(nll + model.prior.penalty(&h.gp).0)
}
