//! Gaussian-process regression on the unit cube: Matérn-5/2 or squared-exponential kernel
//! with one length scale per input, signal and noise variances fitted by maximizing the log
//! marginal likelihood, or the log posterior under [`Prior::DimensionScaled`] (projected
//! L-BFGS on the log-parameters within their bounds, analytic gradient, several seeded
//! starts for the first fit and the previous optimum for every later one).

use crate::numerics::cholesky::Spd;
use crate::numerics::quasi_newton::{self, Stop};
use crate::space::Standardizer;
use crate::surrogates::{
    batch_posterior, dot, joint_posterior, own_at, own_variances, GpPosterior, Gradient,
    KnownNoise, Starts,
};
use faer::Mat;
use pinnbo_dsl::choices;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Matern52,
    SquaredExponential,
}

impl From<choices::Kernel> for Kernel {
    fn from(k: choices::Kernel) -> Kernel {
        match k {
            choices::Kernel::Matern52 => Kernel::Matern52,
            choices::Kernel::Se => Kernel::SquaredExponential,
        }
    }
}

impl Kernel {
    /// `(k, ∂k/∂r²)` at unit signal variance, as a function of the scaled squared distance.
    pub(crate) fn eval(self, r2: f64) -> (f64, f64) {
        match self {
            Kernel::SquaredExponential => {
                let k = (-0.5 * r2).exp();
                (k, -0.5 * k)
            }
            Kernel::Matern52 => {
                let r = r2.sqrt();
                let s5 = 5f64.sqrt() * r;
                let e = (-s5).exp();
                // d/d(r²) of (1 + √5 r + 5r²/3) e^{-√5 r} = -(5/6)(1 + √5 r) e^{-√5 r}
                (
                    (1.0 + s5 + 5.0 * r2 / 3.0) * e,
                    -(5.0 / 6.0) * (1.0 + s5) * e,
                )
            }
        }
    }
}

/// The prior mean of the standardized outputs: where the model returns to away from the
/// data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mean {
    /// A constant, fitted with the hyperparameters: for given ones the likelihood's optimum
    /// in it is the generalized least-squares estimate `1ᵀK⁻¹y / 1ᵀK⁻¹1`, so it is profiled
    /// out of the fit. The observations' average counts every point alike; this estimate
    /// discounts points that the kernel says repeat each other's information, and on a
    /// peaked objective it sits nearer the bulk of the values than the few extreme ones
    /// (docs/decisions.md "A fitted constant mean").
    Constant,
    /// The observations' average (zero in standardized units).
    Average,
}

impl From<choices::Mean> for Mean {
    fn from(m: choices::Mean) -> Mean {
        match m {
            choices::Mean::Constant => Mean::Constant,
            choices::Mean::Average => Mean::Average,
        }
    }
}

impl Mean {
    /// The constant for the factored kernel matrix `spd` and standardized values `y`, and
    /// the weights `K⁻¹(y − c)`.
    fn weights(self, spd: &Spd, y: &[f64]) -> (f64, Vec<f64>) {
        let constant = match self {
            Mean::Average => 0.0,
            Mean::Constant => {
                let k_inv_ones = spd.solve(&vec![1.0; y.len()]);
                dot(&k_inv_ones, y) / k_inv_ones.iter().sum::<f64>()
            }
        };
        let centred: Vec<f64> = y.iter().map(|v| v - constant).collect();
        (constant, spd.solve(&centred))
    }
}

/// The model a plain GP fits: its kernel, its hyperparameters' prior and its mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpSpec {
    pub kernel: Kernel,
    pub prior: Prior,
    pub mean: Mean,
    pub categorical: Categorical,
}

/// Which inputs are categorical: there the kernel's distance is the Hamming one, 0 between
/// equal levels and 1 between any two others, scaled by the input's own fitted length
/// scale — an exchangeable kernel with a fitted weight, since no level is nearer to a
/// second than to a third. The sum of these and the continuous inputs' squared distances
/// is a squared Euclidean distance (each level a vertex of a regular simplex), so the
/// Matérn and squared-exponential kernels of it stay positive definite. A categorical
/// input's unit values are its levels' centres ([`crate::space::Kind::snap`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Categorical(pub Vec<bool>);

impl Categorical {
    fn is(&self, i: usize) -> bool {
        self.0.get(i).copied().unwrap_or(false)
    }

    /// The difference of `a` and `b` in input `i`: 0 or 1 between levels.
    fn gap(&self, i: usize, a: f64, b: f64) -> f64 {
        match self.is(i) {
            true => ((a - b).abs() > 1e-9) as u8 as f64,
            false => a - b,
        }
    }

    /// `Σ_i w_i gap_i(a, b)²` (every kernel evaluation: the plain sum without categorical
    /// inputs).
    fn r2(&self, a: &[f64], b: &[f64], inv_l2: &[f64]) -> f64 {
        if self.0.is_empty() {
            return (a.iter().zip(b).zip(inv_l2))
                .map(|((a, b), w)| (a - b) * (a - b) * w)
                .sum();
        }
        (a.iter().zip(b).zip(inv_l2).enumerate())
            .map(|(i, ((a, b), w))| self.gap(i, *a, *b).powi(2) * w)
            .sum()
    }
}

/// What the hyperparameters are believed before the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prior {
    /// None: maximum likelihood.
    None,
    /// Log-normal length scales whose median grows with the dimension,
    /// log ℓ ~ N(√2 + ½ log d, 3), and a log-normal noise variance, log σ²_n ~ N(−4, 1)
    /// (standardized outputs); the signal variance has none. With 10–40 points in 10-D,
    /// maximum likelihood collapses length scales to their lower bound or pins them at the
    /// upper one; a prior that expects longer scales in higher dimension keeps the model
    /// smooth where the data cannot tell (Hvarfner et al. 2024, the reference GP-BO
    /// library's default). The densities are those of ℓ and σ²_n themselves, as the reference
    /// maximizes them, so the prior's mode is ℓ = exp(μ − 3).
    DimensionScaled,
}

impl From<choices::Prior> for Prior {
    fn from(p: choices::Prior) -> Prior {
        match p {
            choices::Prior::None => Prior::None,
            choices::Prior::DimensionScaled => Prior::DimensionScaled,
        }
    }
}

impl Prior {
    /// −log p(θ) up to a constant, and its gradient, in the log-parameters (length scales,
    /// signal, noise).
    pub(crate) fn penalty(self, h: &Hyper) -> (f64, Vec<f64>) {
        let d = h.log_lengthscales.len();
        let mut grad = vec![0.0; d + 2];
        if self == Prior::None {
            return (0.0, grad);
        }
        // A log-normal density in v = e^θ: −log p = θ + (θ − μ)² / (2 s²) + const.
        let lognormal = |theta: f64, mu: f64, s2: f64| {
            (
                theta + (theta - mu).powi(2) / (2.0 * s2),
                1.0 + (theta - mu) / s2,
            )
        };
        let mu = std::f64::consts::SQRT_2 + 0.5 * (d as f64).ln();
        let mut value = 0.0;
        for (a, theta) in h.log_lengthscales.iter().enumerate() {
            let (v, g) = lognormal(*theta, mu, 3.0);
            value += v;
            grad[a] = g;
        }
        let (v, g) = lognormal(h.log_noise, -4.0, 1.0);
        grad[d + 1] = g;
        (value + v, grad)
    }
}

/// Log-parameters: length scales, signal variance, noise variance.
#[derive(Clone, Debug, PartialEq)]
pub struct Hyper {
    pub log_lengthscales: Vec<f64>,
    pub log_signal: f64,
    pub log_noise: f64,
}

/// Bounds on the log-parameters (inputs in [0, 1], outputs standardized).
const LENGTHSCALE: (f64, f64) = (-4.6, 2.3); // 0.01 .. 10
const SIGNAL: (f64, f64) = (-3.0, 3.0);
const NOISE: (f64, f64) = (-13.8, 0.0); // 1e-6 .. 1
/// When a hyperparameter fit stops: the projected gradient's step below 1e-5 or a relative
/// decrease below 1e-10 (the tolerances of the reference library's quasi-Newton fit).
const FIT_STOP: Stop = Stop {
    iterations: 200,
    gradient: 1e-5,
    decrease: 1e-10,
};
/// Up to this many observations every fit also makes the cold starts (under 0.2 s at
/// d = 10): while the data are few the likelihood has several modes, and the previous
/// step's may not stay the best. Beyond it a cold fit costs seconds and grows as t³, and the
/// fit continues from the previous optimum alone.
const RESTARTS_UNTIL: usize = 200;
/// From the previous step's optimum the fit continues where it left off: one observation
/// more moves the optimum little, and over the steps the optimization goes on at a fraction
/// of a cold fit's cost. It stops once an iteration gains less than a millionth of the
/// objective: from a warm start the rest is digits that change no prediction
/// (docs/decisions.md "Warm-started GP fits").
const WARM_STOP: Stop = Stop {
    iterations: 10,
    decrease: 1e-6,
    ..FIT_STOP
};

pub struct GpModel {
    kernel: Kernel,
    categorical: Categorical,
    pub hyper: Hyper,
    /// The prior mean (standardized units).
    pub constant: f64,
    x: Vec<Vec<f64>>,
    alpha: Vec<f64>,
    spd: Spd,
    pub standardizer: Standardizer,
    /// The negative log marginal likelihood at the fitted parameters (standardized data).
    pub nll: f64,
}

pub use crate::error::GpError;

impl Hyper {
    /// Length scales, then signal and noise: the fit's parameter vector.
    pub fn pack(&self) -> Vec<f64> {
        let mut theta = self.log_lengthscales.clone();
        theta.extend([self.log_signal, self.log_noise]);
        theta
    }

    /// The inverse of [`Hyper::pack`]; None when `v` has no length scale or a non-finite
    /// entry.
    pub fn from_packed(v: &[f64]) -> Option<Hyper> {
        (v.len() > 2 && v.iter().all(|x| x.is_finite())).then(|| Hyper::unpack(v))
    }

    /// [`Hyper::from_packed`] without its checks: `v` holds at least three entries.
    pub(crate) fn unpack(v: &[f64]) -> Hyper {
        let d = v.len() - 2;
        Hyper {
            log_lengthscales: v[..d].to_vec(),
            log_signal: v[d],
            log_noise: v[d + 1],
        }
    }

    /// `1 / l_a²` per input: the weights of the scaled squared distance.
    fn inverse_squared_lengthscales(&self) -> Vec<f64> {
        self.log_lengthscales
            .iter()
            .map(|l| (-2.0 * l).exp())
            .collect()
    }
}

fn covariance(spec: &GpSpec, x: &[Vec<f64>], h: &Hyper, own: &[Option<f64>]) -> Mat<f64> {
    kernel_matrices(spec, x, h, own).0
}

/// Observation `j`'s own noise variance if it has one, else the model's `noise`.
fn noise_at(own: &[Option<f64>], j: usize, noise: f64) -> f64 {
    own_at(own, j).unwrap_or(noise)
}

/// `K` (noise on the diagonal: each observation's own where it has one) and `∂k/∂r²` times
/// the signal variance, on and below the diagonal only (both are symmetric; the Cholesky
/// factorization and the gradient read that triangle), columns in parallel.
fn kernel_matrices(
    spec: &GpSpec,
    x: &[Vec<f64>],
    h: &Hyper,
    own: &[Option<f64>],
) -> (Mat<f64>, Mat<f64>) {
    let inv_l2 = h.inverse_squared_lengthscales();
    let (s2, n2) = (h.log_signal.exp(), h.log_noise.exp());
    let n = x.len();
    let (mut k, mut slope) = (Mat::zeros(n, n), Mat::zeros(n, n));
    k.par_col_iter_mut()
        .zip(slope.par_col_iter_mut())
        .enumerate()
        .for_each(|(j, (mut kc, mut sc))| {
            kc[j] = s2 + noise_at(own, j, n2);
            for i in j + 1..n {
                let r2 = spec.categorical.r2(&x[i], &x[j], &inv_l2);
                let (kv, dk) = spec.kernel.eval(r2);
                (kc[i], sc[i]) = (s2 * kv, s2 * dk);
            }
        });
    (k, slope)
}

/// Negative log marginal likelihood (plus the prior's −log density) and its gradient in the
/// log-parameters. A fitted constant mean is at its optimum for `h`, so the gradient in the
/// other parameters is the one at that constant held fixed.
fn nll_and_gradient(
    spec: &GpSpec,
    x: &[Vec<f64>],
    y: &[f64],
    h: &Hyper,
    own: &[Option<f64>],
) -> Option<(f64, Vec<f64>)> {
    let n = x.len();
    let d = h.log_lengthscales.len();
    let (k, slope) = kernel_matrices(spec, x, h, own);
    let spd = Spd::new(&k, "kernel").ok()?;
    let (constant, alpha) = spec.mean.weights(&spd, y);
    let fit = dot(y, &alpha) - constant * alpha.iter().sum::<f64>();
    let nll = 0.5 * fit + 0.5 * spd.log_det() + 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln();
    // ∂nll/∂θ = ½ tr((K⁻¹ − ααᵀ) ∂K/∂θ), over the lower triangle twice plus the diagonal;
    // each column's share in parallel, summed in column order (the same sum on any number
    // of threads).
    let kinv = spd.inverse();
    let w = |i: usize, j: usize| kinv[(i, j)] - alpha[i] * alpha[j];
    let inv_l2 = h.inverse_squared_lengthscales();
    let noise = h.log_noise.exp();
    let column = |j: usize| {
        let mut grad = vec![0.0; d + 2];
        for i in j + 1..n {
            let wij = w(i, j);
            // The signal's derivative is K itself off the diagonal.
            grad[d] += wij * k[(i, j)];
            // ∂r²/∂log l_a = −2 (Δ_a / l_a)²; with the pair counted twice and the ½: −2.
            let c = -2.0 * wij * slope[(i, j)];
            for a in 0..d {
                let delta = spec.categorical.gap(a, x[i][a], x[j][a]);
                grad[a] += c * delta * delta * inv_l2[a];
            }
        }
        let wjj = w(j, j);
        // The diagonal less its noise is the signal (so written, as the rounding has been).
        grad[d] += 0.5 * wjj * (k[(j, j)] - noise_at(own, j, noise));
        // An observation with its own noise does not see the model's.
        if own_at(own, j).is_none() {
            grad[d + 1] += 0.5 * wjj * noise;
        }
        grad
    };
    let shares: Vec<Vec<f64>> = (0..n).into_par_iter().map(column).collect();
    let mut grad = vec![0.0; d + 2];
    for share in shares {
        grad.iter_mut().zip(share).for_each(|(g, s)| *g += s);
    }
    let (penalty, prior_grad) = spec.prior.penalty(h);
    for (g, p) in grad.iter_mut().zip(prior_grad) {
        *g += p;
    }
    Some((nll + penalty, grad))
}

/// Projected L-BFGS on the log-parameters from `start`, inside their bounds.
fn fit_from(
    spec: &GpSpec,
    x: &[Vec<f64>],
    y: &[f64],
    start: &Hyper,
    stop: Stop,
    (noise, own): ((f64, f64), &[Option<f64>]),
) -> Option<(f64, Hyper)> {
    let d = start.log_lengthscales.len();
    let (lo, hi): (Vec<f64>, Vec<f64>) = (0..d + 2)
        .map(|i| match i {
            _ if i < d => LENGTHSCALE,
            _ if i == d => SIGNAL,
            _ => noise,
        })
        .unzip();
    let objective = |theta: &[f64]| nll_and_gradient(spec, x, y, &Hyper::from_packed(theta)?, own);
    let (value, theta) = quasi_newton::minimize(&objective, &start.pack(), &lo, &hi, stop)?;
    Some((value, Hyper::from_packed(&theta)?))
}

/// A first fit's starts: length scale 0.3, unit signal, noise 1e-3, then `restarts − 1`
/// drawn from `rng`.
fn cold_starts(d: usize, restarts: usize, rng: &mut ChaCha8Rng) -> Vec<Hyper> {
    let mut starts = vec![Hyper {
        log_lengthscales: vec![0.3f64.ln(); d],
        log_signal: 0.0,
        log_noise: 1e-3f64.ln(),
    }];
    for _ in 1..restarts.max(1) {
        starts.push(Hyper {
            log_lengthscales: (0..d).map(|_| rng.random_range(-3.0..1.0)).collect(),
            log_signal: rng.random_range(-1.0..1.0),
            log_noise: rng.random_range(-10.0..-2.0),
        });
    }
    starts
}

impl GpModel {
    /// The mean leave-one-out log density of the standardized observations: each predicted
    /// from the others with these hyperparameters, `(K⁻¹)_ii` from one blocked solve.
    pub fn leave_one_out(&self) -> f64 {
        let n = self.alpha.len();
        let unit = Mat::from_fn(n, n, |i, j| f64::from(i == j));
        let half = self.spd.half_solve_columns(&unit);
        let total: f64 = (0..n)
            .map(|i| {
                let variance = 1.0 / half.col(i).squared_norm_l2();
                crate::surrogates::log_normal_density(self.alpha[i] * variance, variance)
            })
            .sum();
        total / n as f64
    }

    /// Fits a GP to points in `[0, 1]^d` and values (minimized objective), from the previous
    /// optimum when there is one (of the same dimension) and, with at most
    /// [`RESTARTS_UNTIL`] points or none, from `restarts` cold starts: the first at length
    /// scale 0.3, unit signal, noise 1e-3; the others drawn from `rng`. A known noise
    /// level (the values' units) is held fixed instead of fitted, and an observation's own
    /// standard error replaces it there ([`KnownNoise`]).
    pub fn fit(
        spec: &GpSpec,
        x: &[Vec<f64>],
        values: &[f64],
        starts: Starts<Hyper>,
        known_noise: &KnownNoise,
        rng: &mut ChaCha8Rng,
    ) -> Result<GpModel, GpError> {
        if x.is_empty() {
            return Err(GpError::Empty);
        }
        let d = x[0].len();
        let standardizer = Standardizer::fit(values);
        let y: Vec<f64> = values.iter().map(|v| standardizer.forward(*v)).collect();
        let warm = starts
            .previous
            .filter(|h| h.log_lengthscales.len() == d)
            .cloned();
        let cold = match warm.is_none() || x.len() <= RESTARTS_UNTIL {
            true => cold_starts(d, starts.restarts, rng),
            false => Vec::new(),
        };
        let noise = known_noise.bounds(NOISE, x.len(), &standardizer);
        let own = own_variances(&known_noise.sems, &standardizer, NOISE.0.exp());
        let starts: Vec<(Hyper, Stop)> = (warm.into_iter().map(|h| (h, WARM_STOP)))
            .chain(cold.into_iter().map(|h| (h, FIT_STOP)))
            .map(|(h, stop)| {
                let log_noise = h.log_noise.clamp(noise.0, noise.1);
                (Hyper { log_noise, ..h }, stop)
            })
            .collect();
        // The starts in parallel (each fit is sequential), the best chosen in their order, so
        // the result does not depend on the number of threads.
        let fits: Vec<Option<(f64, Hyper)>> = starts
            .into_par_iter()
            .map(|(start, stop)| fit_from(spec, x, &y, &start, stop, (noise, &own)))
            .collect();
        let mut best: Option<(f64, Hyper)> = None;
        for (nll, h) in fits.into_iter().flatten() {
            if best.as_ref().is_none_or(|(b, _)| nll < *b) {
                best = Some((nll, h));
            }
        }
        // Every start failed to factor: fall back to a large noise, which always factors.
        let (nll, hyper) = best.unwrap_or((
            f64::NAN,
            Hyper {
                log_lengthscales: vec![0.3f64.ln(); d],
                log_signal: 0.0,
                log_noise: NOISE.1,
            },
        ));
        // Reported without the prior's penalty: the data's fit alone.
        let nll = nll - spec.prior.penalty(&hyper).0;
        GpModel::conditioned(spec, (x, &y, own), standardizer, hyper, nll)
    }

    /// The posterior under fixed hyperparameters `hyper` given points `x` and values (the
    /// file's units, standardized here) with the observations' own standard errors `sems`
    /// (empty: none): a refit that moves no hyperparameter.
    pub fn with_hyper(
        spec: &GpSpec,
        x: &[Vec<f64>],
        (values, sems): (&[f64], &[Option<f64>]),
        hyper: Hyper,
    ) -> Result<GpModel, GpError> {
        if x.is_empty() {
            return Err(GpError::Empty);
        }
        let standardizer = Standardizer::fit(values);
        let y: Vec<f64> = values.iter().map(|v| standardizer.forward(*v)).collect();
        let own = own_variances(sems, &standardizer, NOISE.0.exp());
        GpModel::conditioned(spec, (x, &y, own), standardizer, hyper, f64::NAN)
    }

    /// This fit's posterior given `x` and `values` (its observations and more: pending
    /// points' stand-ins) with their own standard errors `sems` (empty: none): the same
    /// hyperparameters and standardization, so that what was not observed moves neither.
    pub fn with_more(
        &self,
        spec: &GpSpec,
        x: &[Vec<f64>],
        (values, sems): (&[f64], &[Option<f64>]),
    ) -> Result<GpModel, GpError> {
        let y: Vec<f64> = values
            .iter()
            .map(|v| self.standardizer.forward(*v))
            .collect();
        let (standardizer, hyper) = (self.standardizer, self.hyper.clone());
        let own = own_variances(sems, &standardizer, NOISE.0.exp());
        GpModel::conditioned(spec, (x, &y, own), standardizer, hyper, self.nll)
    }

    /// The posterior under `hyper` given standardized values `y` with their own noise
    /// variances `own`.
    fn conditioned(
        spec: &GpSpec,
        (x, y, own): (&[Vec<f64>], &[f64], Vec<Option<f64>>),
        standardizer: Standardizer,
        hyper: Hyper,
        nll: f64,
    ) -> Result<GpModel, GpError> {
        let spd = Spd::new(&covariance(spec, x, &hyper, &own), "kernel")?;
        let (constant, alpha) = spec.mean.weights(&spd, y);
        Ok(GpModel {
            kernel: spec.kernel,
            categorical: spec.categorical.clone(),
            hyper,
            constant,
            x: x.to_vec(),
            alpha,
            spd,
            standardizer,
            nll,
        })
    }

    fn cross(&self, u: &[f64]) -> Vec<f64> {
        let inv_l2 = self.hyper.inverse_squared_lengthscales();
        let s2 = self.hyper.log_signal.exp();
        self.x
            .iter()
            .map(|xi| s2 * self.kernel.eval(self.categorical.r2(u, xi, &inv_l2)).0)
            .collect()
    }

    /// What was added to the kernel matrix's diagonal to factor it.
    pub fn jitter(&self) -> f64 {
        self.spd.jitter
    }
}

impl GpPosterior for GpModel {
    fn standardizer(&self) -> &Standardizer {
        &self.standardizer
    }

    fn noise_variance(&self) -> f64 {
        self.hyper.log_noise.exp()
    }

    fn lengthscales(&self) -> Vec<f64> {
        self.hyper
            .log_lengthscales
            .iter()
            .map(|l| l.exp())
            .collect()
    }

    fn prior_mean(&self) -> f64 {
        self.constant
    }

    fn centred_gradient(&self, u: &[f64]) -> Gradient {
        let inv_l2 = self.hyper.inverse_squared_lengthscales();
        let s2 = self.hyper.log_signal.exp();
        let d = u.len();
        let mut k = Vec::with_capacity(self.x.len());
        let mut dk = vec![Vec::with_capacity(self.x.len()); d];
        for xi in &self.x {
            let (kv, slope) = self.kernel.eval(self.categorical.r2(u, xi, &inv_l2));
            k.push(s2 * kv);
            // ∂k/∂u_a = s² κ'(r²) · 2 (u_a − x_a) / ℓ_a²; none in a categorical input
            // (a search moves it between levels, never along it).
            for a in 0..d {
                let along = match self.categorical.is(a) {
                    true => 0.0,
                    false => u[a] - xi[a],
                };
                dk[a].push(s2 * slope * 2.0 * along * inv_l2[a]);
            }
        }
        let w = self.spd.solve(&k);
        Gradient::from_cross(&k, &dk, &self.alpha, &w, s2)
    }

    fn centred_mean(&self, u: &[f64]) -> f64 {
        dot(&self.cross(u), &self.alpha)
    }

    fn centred_many(&self, points: &[Vec<f64>]) -> Vec<(f64, f64)> {
        let s2 = self.hyper.log_signal.exp();
        batch_posterior(points, |u| self.cross(u), &self.alpha, &self.spd, s2)
    }

    fn centred(&self, u: &[f64]) -> (f64, f64) {
        let k = self.cross(u);
        let v = self.spd.half_solve(&k);
        let var = self.hyper.log_signal.exp() - v.iter().map(|a| a * a).sum::<f64>();
        (dot(&k, &self.alpha), var.max(0.0))
    }

    fn centred_joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>) {
        let cross: Vec<Vec<f64>> = points.iter().map(|p| self.cross(p)).collect();
        let inv_l2 = self.hyper.inverse_squared_lengthscales();
        let s2 = self.hyper.log_signal.exp();
        joint_posterior(&cross, &self.alpha, &self.spd, |i, j| {
            let r2 = self.categorical.r2(&points[i], &points[j], &inv_l2);
            s2 * self.kernel.eval(r2).0
        })
    }
}

#[cfg(test)]
mod tests;
