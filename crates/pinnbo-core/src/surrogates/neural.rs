//! The NeuralBO surrogate (docs/algorithms.md §2), shared by NeuralBO and Neural-CBO: a network
//! trained from θ0 on the observations, and the posterior variance of its linearization.
//!
//! The network is `h(x) = sqrt(m) W_L φ(.. φ(W_1 x + b_1) ..)` (ReLU, He initialization,
//! hidden biases N(0, bias_std²), last layer zero so h(·; θ0) = 0). Training minimizes
//! `½ Σ (h − y)² + ½ m λ ||θ − θ0||²`. The variance is
//!
//! ```text
//! σ²(x) = λ gᵀ(λ I + GᵀG/m)⁻¹ g / m = (1/m) [ gᵀg − (Gg)ᵀ (λ m I + G Gᵀ)⁻¹ (Gg) ]
//! ```
//!
//! with g = ∇_θ h(x; θ0) ("static" features; "dynamic" takes them at θ_t) and G the
//! observed points' features. The dual (right) form uses the per-layer Gram formula of
//! `pinnbo_ad::tangent` without p-vectors. Static features at θ0 live in m + 1 dimensions
//! (only the output layer moves), so their primal form is small whatever t: [`Posterior`]
//! uses it. [`primal_variance`] is the p x p form for tests.

use crate::error::{StrategyError, Within};
use crate::history::Observed;
use crate::numerics::cholesky::Spd;
use crate::space::Standardizer;
use crate::surrogates::network::{column, fit, flat_tensor};
use candle_core::{DType, Device, Tensor};
use faer::Mat;
use pinnbo_ad::dense_net::DenseNet;
use pinnbo_ad::sampling::{in_box, Sampling};
use pinnbo_ad::tangent::{gram, gram_diagonal, Factors};
use pinnbo_ad::train::{TrainConfig, TrainReport};
use pinnbo_ad::{Activation, Mlp, MlpConfig, Parameterization};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

/// Where the tangent features are taken: at θ0 (the thesis's choice), or at the trained
/// weights θ_t (NeuralBO's independent draws only).
pub use pinnbo_ad::device::Hardware;
pub use pinnbo_dsl::choices::Features;

#[derive(Clone, Debug, PartialEq)]
pub struct SurrogateConfig {
    pub width: usize,
    pub depth: usize,
    pub activation: Activation,
    /// Hidden biases drawn N(0, bias_std²) at θ0.
    pub bias_std: f64,
    pub lambda: f64,
    pub epochs: usize,
    /// Observations per Adam step (None: full batch).
    pub batch: Option<usize>,
    /// At least this many Adam steps per fit: more epochs while the data are few.
    pub min_steps: usize,
    pub lr: f64,
    pub features: Features,
    /// F32: training in single precision (the candidates' screening always is; the variance, the
    /// refinement and the final comparison stay in double).
    pub dtype: DType,
    /// Where the network is trained (the screening's flat buffers stay on the CPU).
    pub device: Hardware,
}

/// Where this module's errors arise, for their messages.
const PART: &str = "neural surrogate";

/// Where a fit starts.
#[derive(Clone, Copy)]
pub enum FitStart<'a> {
    /// θ0, for the full schedule (the papers' choice).
    Initial,
    /// Earlier trained weights (any dtype), for `steps` Adam steps (whole epochs).
    Warm { net: &'a Mlp, steps: usize },
}

/// Candidates whose variances are computed at once (bounds memory at large t).
pub(crate) const CHUNK: usize = 4096;

/// Seed of the Sobol points the mean prior variance is taken over.
const PRIOR_POINTS_SEED: u64 = 0x0070_7269_6f72;

pub struct NeuralSurrogate {
    pub config: SurrogateConfig,
    /// The network at θ0: rebuilt identically from the run's seed on every construction,
    /// so steps (and resumed runs) start from the same weights.
    initial: Mlp,
    /// θ0 on flat buffers for evaluating draws, in double and single precision.
    dense_initial: DenseNet,
    single_initial: DenseNet,
    /// The mean prior variance `|g(x)|² / m` over 1024 Sobol points: σ² is divided by it,
    /// so that exploration is on the standardized data's scale (docs/decisions.md, "NeuralBO's exploration scale").
    prior: f64,
}

/// The observed points' Gram matrix plus `λ m I`, factored, and a way to get the candidates'
/// Gram blocks against the observed points: the dual form's ingredients.
struct DualForm<'a> {
    spd: Spd,
    cross: Box<CrossGram<'a>>,
}

/// Candidates (centred) to their Gram block against the observed points and their diagonal.
type CrossGram<'a> = dyn Fn(&Tensor) -> Result<(Mat<f64>, Vec<f64>), StrategyError> + 'a;

/// A surrogate trained on one step's observations.
pub struct Posterior<'a> {
    surrogate: &'a NeuralSurrogate,
    /// The network at θ_t: the posterior mean.
    pub net: Mlp,
    /// `net` on flat buffers, in double precision and in single (for screening).
    dense: DenseNet,
    single: DenseNet,
    /// `U = λ I + GᵀG/m` over the static features, factored.
    u: Spd,
    pub report: TrainReport,
    pub train_seconds: f64,
}

impl NeuralSurrogate {
    /// The surrogate at θ0 for `seed`, its network on `device` (the one opened for
    /// `config.device`: every tensor of a run must be on that one device).
    pub fn new(
        config: SurrogateConfig,
        dim: usize,
        seed: u64,
        device: &Device,
    ) -> Result<NeuralSurrogate, StrategyError> {
        let initial = network(&config, dim, seed, device).within(PART)?;
        let single_initial =
            DenseNet::new(&initial.to_dtype(DType::F32).within(PART)?).within(PART)?;
        let mut surrogate = NeuralSurrogate {
            config,
            dense_initial: DenseNet::new(&initial).within(PART)?,
            single_initial,
            initial,
            prior: 1.0,
        };
        let flat = in_box(
            &vec![(0.0, 1.0); dim],
            1024,
            Sampling::Sobol,
            PRIOR_POINTS_SEED,
        );
        let g = surrogate
            .static_features(&flat_tensor(&flat, dim, device).within(PART)?)
            .within(PART)?;
        let total: f64 = column(g.sqr().and_then(|t| t.sum(1)))
            .within(PART)?
            .iter()
            .sum();
        surrogate.prior = (total / (1024.0 * surrogate.config.width as f64)).max(f64::MIN_POSITIVE);
        Ok(surrogate)
    }

    /// The network at θ0 (f64).
    pub(crate) fn initial(&self) -> &Mlp {
        &self.initial
    }

    /// Where the networks are trained, and the points given to them must be.
    pub(crate) fn device(&self) -> &Device {
        self.initial.device()
    }

    fn m(&self) -> f64 {
        self.config.width as f64
    }

    /// Static tangent features at θ0, where the last layer is zero: only the output layer's
    /// weights and bias move, so `g(x) = [c φ(x), s]` with φ the last hidden activations
    /// (`c`, `s` the output layer's factors), `[N, m + 1]`. One forward pass instead of a
    /// traced jet pass and its backward.
    pub(crate) fn static_features(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        static_features_of(&self.initial, x)
    }

    /// Trains the network on the history's standardized objective values (`observed`: its
    /// centred points) from `start`; returns the standardizer to read predictions back.
    pub fn fit_objective(
        &self,
        start: FitStart,
        observed: &Tensor,
        history: &[Observed],
        shuffle_seed: u64,
    ) -> Result<(Posterior<'_>, Standardizer), StrategyError> {
        let values: Vec<f64> = history.iter().map(Observed::objective).collect();
        let standardizer = Standardizer::fit(&values);
        let y = values.iter().map(|v| standardizer.forward(*v)).collect();
        Ok((
            self.fit_from(start, observed, y, shuffle_seed)?,
            standardizer,
        ))
    }

    /// Trains a copy of θ0 on the centred points `observed` and standardized values `y`.
    pub fn fit(
        &self,
        observed: &Tensor,
        y: Vec<f64>,
        shuffle_seed: u64,
    ) -> Result<Posterior<'_>, StrategyError> {
        self.fit_from(FitStart::Initial, observed, y, shuffle_seed)
    }

    /// [`NeuralSurrogate::fit`] from `start`: the loss, its pull toward θ0 included, is the
    /// same either way; only where Adam starts and how many steps it takes differ.
    pub fn fit_from(
        &self,
        start: FitStart,
        observed: &Tensor,
        y: Vec<f64>,
        shuffle_seed: u64,
    ) -> Result<Posterior<'_>, StrategyError> {
        let clock = std::time::Instant::now();
        let n = y.len() as f64;
        let per_epoch = self
            .config
            .batch
            .map_or(1, |b| y.len().div_ceil(b.max(1)))
            .max(1);
        let epochs = match start {
            FitStart::Initial => self
                .config
                .epochs
                .max(self.config.min_steps.div_ceil(per_epoch)),
            FitStart::Warm { steps, .. } => steps.div_ceil(per_epoch),
        };
        let training = TrainConfig {
            epochs,
            lr: self.config.lr,
            lr_decay: 1.0,
            decay_every: 0,
            // ½ Σ (h − y)² + ½ m λ ||θ − θ0||², divided by n.
            anchor: self.m() * self.config.lambda / n,
            patience: usize::MAX,
            min_improvement: 0.0,
            batch: self.config.batch,
            residual_batch: None,
            shuffle_seed,
        };
        let initial = self.initial.to_dtype(self.config.dtype).within(PART)?;
        let (trained, report) = match start {
            FitStart::Initial => fit(initial, None, observed, y, &training),
            FitStart::Warm { net, .. } => {
                let warm = net.to_dtype(self.config.dtype).within(PART)?;
                fit(warm, Some(&initial), observed, y, &training)
            }
        }
        .within(PART)?;
        let single = DenseNet::new(&trained.to_dtype(DType::F32).within(PART)?).within(PART)?;
        let net = trained.to_dtype(DType::F64).within(PART)?;
        let train_seconds = clock.elapsed().as_secs_f64();
        let g = self.static_features(observed).within(PART)?;
        let mut u = to_mat(&g.t().and_then(|t| t.matmul(&g)).within(PART)?)?;
        let p = u.nrows();
        for i in 0..p {
            for j in 0..p {
                u[(i, j)] /= self.m();
            }
            u[(i, i)] += self.config.lambda;
        }
        Ok(Posterior {
            surrogate: self,
            dense: DenseNet::new(&net).within(PART)?,
            net,
            single,
            u: Spd::new(&u, "U").within(PART)?,
            report,
            train_seconds,
        })
    }

    fn factor(&self, k_oo: Mat<f64>) -> Result<Spd, StrategyError> {
        let mut a = k_oo;
        for i in 0..a.nrows() {
            a[(i, i)] += self.config.lambda * self.m();
        }
        Spd::new(&a, "feature Gram").within(PART)
    }

    /// The dual form for static features (θ0) or the general per-layer Gram formula at `net`.
    fn dual_form<'a>(
        &'a self,
        net: Option<&'a Mlp>,
        observed: &Tensor,
    ) -> Result<DualForm<'a>, StrategyError> {
        match net {
            None => {
                let fo = self.static_features(observed).within(PART)?;
                let fo_t = fo.t().within(PART)?;
                let spd = self.factor(to_mat(&fo.matmul(&fo_t).within(PART)?)?)?;
                let cross = move |x: &Tensor| {
                    let fc = self.static_features(x).within(PART)?;
                    let k_co = to_mat(&fc.matmul(&fo_t).within(PART)?)?;
                    Ok((k_co, column(fc.sqr().and_then(|t| t.sum(1))).within(PART)?))
                };
                Ok(DualForm {
                    spd,
                    cross: Box::new(cross),
                })
            }
            Some(net) => {
                let fo = Factors::of_values(net, observed).within(PART)?;
                let spd = self.factor(to_mat(&gram(&fo, &fo).within(PART)?)?)?;
                let cross = move |x: &Tensor| {
                    let fc = Factors::of_values(net, x).within(PART)?;
                    let k_co = to_mat(&gram(&fc, &fo).within(PART)?)?;
                    Ok((k_co, column(gram_diagonal(&fc)).within(PART)?))
                };
                Ok(DualForm {
                    spd,
                    cross: Box::new(cross),
                })
            }
        }
    }

    /// Posterior variances at the candidates (flat unit-cube rows) by the dual form,
    /// divided by the mean prior variance. `net`: dynamic features at those weights; None:
    /// static.
    pub fn dual_variances(
        &self,
        net: Option<&Mlp>,
        observed: &Tensor,
        candidates: &[f64],
        d: usize,
    ) -> Result<Vec<f64>, StrategyError> {
        let dual = self.dual_form(net, observed)?;
        let mut variances = Vec::with_capacity(candidates.len() / d);
        for chunk in candidates.chunks(CHUNK * d) {
            let (k_co, k_cc) = (dual.cross)(&flat_tensor(chunk, d, self.device()).within(PART)?)?;
            // L⁻¹ K_ocᵀ for the chunk at once: one triangular solve with many right sides.
            let solved = dual.spd.half_solve_columns(&k_co.transpose().to_owned());
            for (c, prior) in k_cc.iter().enumerate() {
                let explained: f64 = (0..solved.nrows()).map(|j| solved[(j, c)].powi(2)).sum();
                variances.push(((prior - explained) / self.m()).max(0.0) / self.prior);
            }
        }
        Ok(variances)
    }
}

impl Posterior<'_> {
    /// The trained network's predictions at centred points (rows of a flat `[n, d]` slice).
    pub fn mean(&self, x: &[f64]) -> Vec<f64> {
        self.dense.forward(x)
    }

    /// σ(x) of the static features by the primal form, `sqrt(λ |L⁻¹ g|² / m)`, divided by
    /// the prior's scale.
    pub fn std(&self, x: &Tensor) -> candle_core::Result<Vec<f64>> {
        let s = self.surrogate;
        let g = s.static_features(x)?;
        let rows = to_mat(&g).map_err(|e| candle_core::Error::Msg(e.to_string()))?;
        let solved = self.u.half_solve_columns(&rows.transpose().to_owned());
        Ok((0..solved.ncols())
            .map(|c| {
                let explained: f64 = (0..solved.nrows()).map(|j| solved[(j, c)].powi(2)).sum();
                (s.config.lambda * explained / (s.m() * s.prior)).sqrt()
            })
            .collect())
    }

    /// One weight-space draw ε of the linearized output layer, so that `g(x)ᵀ ε` has the
    /// variance of [`Posterior::std`]² times `scale²`: with `U = L Lᵀ`, ε = U⁻¹ L z has
    /// covariance U⁻¹.
    pub fn draw(&self, scale: f64, rng: &mut ChaCha8Rng) -> Perturbation {
        let s = self.surrogate;
        let l = self.u.lower_factor();
        let p = l.nrows();
        let z: Vec<f64> = (0..p).map(|_| rng.sample(StandardNormal)).collect();
        let lz: Vec<f64> = (0..p)
            .map(|i| (0..=i).map(|j| l[(i, j)] * z[j]).sum())
            .collect();
        let factor = scale * (s.config.lambda / (s.m() * s.prior)).sqrt();
        let epsilon: Vec<f64> = self.u.solve(&lz).iter().map(|e| e * factor).collect();
        // g(x) = [c φ(x), s]: ε as a readout of θ0's last hidden layer.
        let (initial, m) = (&s.initial, p - 1);
        let weight = initial.output_layer_factor();
        Perturbation {
            weights: epsilon[..m].iter().map(|e| e * weight).collect(),
            bias: epsilon[m] * initial.output_scale(),
        }
    }

    /// `g(x)ᵀ ε` at centred points: the drawn deviation from the mean.
    pub fn deviation(&self, drawn: &Perturbation, x: &[f64]) -> Vec<f64> {
        drawn.at(&self.surrogate.dense_initial, x)
    }

    /// `h(x; θ_t) + g(x)ᵀ ε` at centred points: a drawn function.
    pub fn sample(&self, drawn: &Perturbation, x: &[f64]) -> Vec<f64> {
        drawn.added_to(&self.dense, &self.surrogate.dense_initial, x)
    }

    /// [`Posterior::sample`] in single precision, for ranking many candidates: twice the
    /// double-precision rate, and rounding far below the differences that decide a ranking
    /// (the best few are then scored in double).
    pub fn sample_screen(&self, drawn: &Perturbation, x: &[f64]) -> Vec<f64> {
        drawn.added_to(&self.single, &self.surrogate.single_initial, x)
    }
}

/// A weight-space draw ε of the linearized model as a readout of θ0's last hidden layer:
/// `g(x)ᵀ ε = φ0(x)ᵀ weights + bias`.
#[derive(Clone, Debug)]
pub struct Perturbation {
    weights: Vec<f64>,
    bias: f64,
}

impl Perturbation {
    /// `g(x)ᵀ ε` with φ0 from `initial` (θ0 in some precision).
    fn at(&self, initial: &DenseNet, x: &[f64]) -> Vec<f64> {
        initial.project(x, &self.weights, self.bias)
    }

    /// `h(x) + g(x)ᵀ ε` for the trained `net` and θ0 `initial` in one precision.
    fn added_to(&self, net: &DenseNet, initial: &DenseNet, x: &[f64]) -> Vec<f64> {
        let mut values = net.forward(x);
        for (v, e) in values.iter_mut().zip(self.at(initial, x)) {
            *v += e;
        }
        values
    }
}

/// Static features of `initial` (at θ0) at `x`, in the network's precision.
fn static_features_of(initial: &Mlp, x: &Tensor) -> candle_core::Result<Tensor> {
    let phi = (initial.last_hidden(x)? * initial.output_layer_factor())?;
    let bias = (Tensor::ones((x.dim(0)?, 1), phi.dtype(), phi.device())? * initial.output_scale())?;
    Tensor::cat(&[&phi, &bias], 1)
}

pub(crate) fn to_mat(t: &Tensor) -> Result<Mat<f64>, StrategyError> {
    let (r, c) = t.dims2().within(PART)?;
    let v: Vec<f64> = column(Ok(t.clone())).within(PART)?;
    Ok(Mat::from_fn(r, c, |i, j| v[i * c + j]))
}

/// The surrogate at θ0 for `seed`.
fn network(
    config: &SurrogateConfig,
    dim: usize,
    seed: u64,
    device: &Device,
) -> candle_core::Result<Mlp> {
    let mlp = MlpConfig {
        activation: config.activation,
        bias_std: config.bias_std,
        parameterization: Parameterization::HeZeroLast,
        dtype: DType::F64,
        ..MlpConfig::new(dim, config.width, config.depth)
    };
    let mut net = Mlp::new(mlp, seed, device)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surrogates::network::points_tensor;
    use pinnbo_ad::tangent::jacobian;
    use pinnbo_ad::train::{train, Observations};
    use rand::SeedableRng;

    const OBSERVED: [[f64; 2]; 3] = [[0.1, 0.9], [0.4, 0.3], [0.8, 0.6]];
    const QUERIES: [[f64; 2]; 4] = [[0.2, 0.2], [0.5, 0.5], [0.4, 0.3], [0.95, 0.05]];

    fn rows<const N: usize>(points: &[[f64; N]]) -> Vec<Vec<f64>> {
        points.iter().map(|p| p.to_vec()).collect()
    }

    /// The dual (t x t) variance equals the primal (p x p) one on a small network, for
    /// static features (only the last layer moves at θ0) and for trained weights.
    #[test]
    fn dual_and_primal_variances_agree() {
        for features in [Features::Static, Features::Dynamic] {
            let config = SurrogateConfig {
                width: 6,
                depth: 2,
                features,
                ..SurrogateConfig::default()
            };
            let s = NeuralSurrogate::new(config.clone(), 2, 4, &Device::Cpu).unwrap();
            let (xo, xq) = (
                points_tensor(&rows(&OBSERVED), 2, &Device::Cpu).unwrap(),
                points_tensor(&rows(&QUERIES), 2, &Device::Cpu).unwrap(),
            );
            let net = network(&config, 2, 99, &Device::Cpu).unwrap();
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
            let flat: Vec<f64> = QUERIES.concat();
            let dual: Vec<f64> = s
                .dual_variances(Some(&net), &xo, &flat, 2)
                .unwrap()
                .iter()
                .map(|v| v * s.prior)
                .collect();
            let features = |x: &Tensor| {
                let j = jacobian(&net, || net.forward(x)?.flatten_all()).unwrap();
                to_mat(&j).unwrap()
            };
            let primal = primal_variance(
                &features(&xo),
                &features(&xq),
                config.lambda,
                config.width as f64,
            );
            for (a, b) in dual.iter().zip(&primal) {
                assert!(
                    (a - b).abs() < 1e-8 * b.abs().max(1.0),
                    "dual {a}, primal {b}"
                );
            }
            // An observed point is less uncertain than a far one.
            assert!(dual[2] < dual[3], "{dual:?}");
        }
    }

    /// Static features three ways agree: the m+1-dimensional fast path in the dual form, the
    /// general per-layer Gram formula at θ0, and the trained posterior's primal form.
    #[test]
    fn static_features_match_the_general_path() {
        let config = SurrogateConfig {
            width: 16,
            depth: 2,
            ..SurrogateConfig::default()
        };
        let s = NeuralSurrogate::new(config, 2, 8, &Device::Cpu).unwrap();
        let xo = points_tensor(&rows(&OBSERVED), 2, &Device::Cpu).unwrap();
        let flat: Vec<f64> = QUERIES.concat();
        let fast = s.dual_variances(None, &xo, &flat, 2).unwrap();
        let general = s.dual_variances(Some(&s.initial), &xo, &flat, 2).unwrap();
        let posterior = s.fit(&xo, vec![0.3, -1.0, 0.7], 1).unwrap();
        let primal = posterior
            .std(&points_tensor(&rows(&QUERIES), 2, &Device::Cpu).unwrap())
            .unwrap();
        for ((a, b), c) in fast.iter().zip(&general).zip(&primal) {
            assert!((a - b).abs() < 1e-10 * b.abs().max(1.0), "{a} vs {b}");
            assert!(
                (a - c * c).abs() < 1e-10 * a.abs().max(1.0),
                "{a} vs {}",
                c * c
            );
        }
    }

    /// A pathwise draw has the posterior's marginal variance: the empirical variance of
    /// `g(x)ᵀ ε` (evaluated as a readout of θ0's dense last hidden layer) over 4000 draws is
    /// within 10% of σ²(x) (computed from the candle features).
    #[test]
    fn pathwise_draws_have_the_posterior_variance() {
        let config = SurrogateConfig {
            width: 16,
            depth: 2,
            ..SurrogateConfig::default()
        };
        let s = NeuralSurrogate::new(config, 2, 3, &Device::Cpu).unwrap();
        let xo = points_tensor(&rows(&OBSERVED), 2, &Device::Cpu).unwrap();
        let posterior = s.fit(&xo, vec![0.3, -1.0, 0.7], 1).unwrap();
        let xq = points_tensor(&rows(&QUERIES), 2, &Device::Cpu).unwrap();
        let std = posterior.std(&xq).unwrap();
        let centred: Vec<f64> = column(Ok(xq)).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let n = 4000;
        let mut second = vec![0.0; QUERIES.len()];
        for _ in 0..n {
            let e = posterior.draw(2.0, &mut rng);
            let v = posterior.deviation(&e, &centred);
            for (acc, x) in second.iter_mut().zip(v) {
                *acc += x * x / n as f64;
            }
        }
        for (var, s) in second.iter().zip(&std) {
            let expected = 4.0 * s * s;
            assert!(
                (var - expected).abs() < 0.1 * expected,
                "{var} vs {expected}"
            );
        }
    }
}
