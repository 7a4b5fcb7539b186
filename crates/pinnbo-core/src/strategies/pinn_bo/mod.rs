//! PINN-BO (docs/algorithms.md §4): the surrogate is a physics-informed network trained on the
//! observations and on the problem's pde at fixed residual points; each step proposes the
//! minimizer of the trained network, whose output scale ν_t grows with the information the
//! observations carry beyond what the pde already told:
//!
//! ```text
//! ν_t = B + R̃ sqrt(2 γ_t − 2 I(f; Y_t; U_r) + log(1/δ))
//! ```
//!
//! with γ_t the information gain of the observed points, `½ logdet(I + K_uu/λ1)` (the maximum
//! information gain of the thesis is not computable), and I the interaction information of
//! Lemma 5.3.6 in dual form, from the NTK-PINN Gram blocks at θ0 (`interaction_information`).
//!
//! Residuals are in the pde's units, observations in the field's. One constant converts them:
//! `c² = mean |φ(z)|² / mean |ω(z)|²` over the residual points at θ0 (φ, ω the tangent
//! features of h and of N[h]). The residual features enter the Gram blocks as `c ω` and the
//! residual loss is weighted `λ_r c²`, so neither term's units decide the balance (the
//! thesis beam's coefficient has poles where |ω| reaches 1e10).
//!
//! The network (NTK parameterization, smooth activation) takes raw coordinates, with the map
//! of the box onto [-1, 1]^d folded into its first layer, so its jets are derivatives in the
//! pde's own coordinates. It predicts the field in the file's units: output scale `s ν_t`
//! (s the observations' standard deviation) and output bias starting at their mean.

use crate::acquisition::trust_region::Domain;
use crate::acquisition::Search;
use crate::space::{Space, Standardizer};
use crate::strategies::methods::choice;
use crate::strategies::physics::objective_field;
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::dense::Spd;
use crate::surrogates::network::{column, minimize};
use crate::surrogates::neural::to_mat;
use candle_core::{Device, Tensor};
use faer::Mat;
use pinnbo_ad::collocation::{residual_terms, CollocationConfig};
use pinnbo_ad::sampling::Sampling;
use pinnbo_ad::tangent::{gram, gram_diagonal, Factors};
use pinnbo_ad::train::{train, Observations, ResidualTerm, TrainConfig};
use pinnbo_ad::{Activation, Mlp, MlpConfig, OperatorRegistry, Parameterization};
use pinnbo_dsl::ir::Sense;
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand_chacha::ChaCha8Rng;

mod ntk_gp;

/// PINN-BO's surrogate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surrogate {
    /// The trained physics-informed network, minimized (the thesis's algorithm).
    Pinn,
    /// The NTK-PINN Gaussian process of Lemma 5.3.4, its lower bound `μ − ν_t σ` minimized.
    NtkGp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PinnBoConfig {
    pub surrogate: Surrogate,
    pub width: usize,
    pub depth: usize,
    pub activation: Activation,
    /// λ1 = λ2 of the information terms.
    pub lambda: f64,
    pub residual_points: usize,
    /// Weight of the pde's mean squared residual against the data's.
    pub lambda_r: f64,
    pub sampling: Sampling,
    pub epochs: usize,
    pub lr: f64,
    pub lr_decay: f64,
    /// A fixed ν instead of ν_t.
    pub nu: Option<f64>,
    /// B, R̃ and δ of ν_t.
    pub norm_bound: f64,
    pub noise_scale: f64,
    pub delta: f64,
    pub search: Search,
}

impl PinnBoConfig {
    pub fn from_settings(s: &MethodSettings) -> PinnBoConfig {
        PinnBoConfig {
            surrogate: choice(s, "surrogate", |n| match n {
                "pinn" => Some(Surrogate::Pinn),
                "ntk-gp" => Some(Surrogate::NtkGp),
                _ => None,
            }),
            width: s.count("width"),
            depth: s.count("depth"),
            activation: choice(s, "activation", Activation::from_name),
            lambda: s.number("lambda"),
            residual_points: s.count("residual_points"),
            lambda_r: s.number("lambda_r"),
            sampling: choice(s, "sampling", |n| match n {
                "sobol" => Some(Sampling::Sobol),
                "uniform" => Some(Sampling::Uniform),
                _ => None,
            }),
            epochs: s.count("epochs"),
            lr: s.number("lr"),
            lr_decay: s.number("lr_decay"),
            nu: s.computed_number("nu"),
            norm_bound: 1.0,
            // R̃ = sqrt((R1/λ1)² + (R2/λ2)²) with R1 = R2 = 0.1 and λ = 1: standardized
            // observations with noise around a tenth of their spread.
            noise_scale: 0.1 * std::f64::consts::SQRT_2,
            delta: 0.1,
            search: Search::from_settings(s),
        }
    }
}

impl Default for PinnBoConfig {
    fn default() -> Self {
        PinnBoConfig::from_settings(&MethodSettings::defaults("pinn-bo"))
    }
}

pub struct PinnBo {
    pub config: PinnBoConfig,
    sense: Sense,
    /// θ0 (output scale 1): the Gram blocks are taken here, training starts from a copy.
    initial: Mlp,
    /// The pde at its residual points (fixed for the run).
    terms: Vec<ResidualTerm>,
    /// Their features at θ0 and `logdet(I + K_rr/λ2)`, computed once.
    residual_features: Vec<Factors>,
    /// c²: residual units to field units (module docs).
    units: f64,
    /// The mean prior variance `|φ(z)|²` over the residual points: the NTK-PINN GP's kernel
    /// is divided by it, so that its prior matches the standardized observations.
    prior_variance: f64,
    k_rr: Mat<f64>,
    logdet_rr: f64,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

/// Where this module's errors arise, for their messages.
const PART: &str = "PINN-BO";

/// `(γ, I)`: the information gain `½ logdet(I + K_uu/λ1)` and the interaction information
/// `½ [logdet(I + K_uu/λ1) + logdet(I + K_rr/λ2) − logdet(I + K̂)]`, K̂ the joint block
/// matrix `[[K_uu/λ1, K_ur/√(λ1λ2)], [K_ru/√(λ1λ2), K_rr/λ2]]` (Sylvester's identity turns
/// the thesis's p x p determinants into these).
pub fn interaction_information(
    k_uu: &Mat<f64>,
    k_ur: &Mat<f64>,
    k_rr: &Mat<f64>,
    lambda1: f64,
    lambda2: f64,
) -> Result<(f64, f64), StrategyError> {
    let logdet_rr = logdet_shifted(k_rr, lambda2)?;
    interaction_with(k_uu, k_ur, k_rr, logdet_rr, lambda1, lambda2)
}

/// `logdet(I + K/λ)`.
fn logdet_shifted(k: &Mat<f64>, lambda: f64) -> Result<f64, StrategyError> {
    let n = k.nrows();
    let a = Mat::from_fn(n, n, |i, j| {
        k[(i, j)] / lambda + if i == j { 1.0 } else { 0.0 }
    });
    Ok(Spd::new(&a, "I + K/λ").within(PART)?.log_det())
}

/// `[[a K_uu, b K_ur], [b K_ru, c K_rr]] + diagonal · I`, `[a, b, c] = scales`.
fn joint_gram(
    k_uu: &Mat<f64>,
    k_ur: &Mat<f64>,
    k_rr: &Mat<f64>,
    scales: [f64; 3],
    diagonal: f64,
) -> Mat<f64> {
    let (t, r) = (k_uu.nrows(), k_rr.nrows());
    Mat::from_fn(t + r, t + r, |i, j| {
        let k = match (i < t, j < t) {
            (true, true) => scales[0] * k_uu[(i, j)],
            (true, false) => scales[1] * k_ur[(i, j - t)],
            (false, true) => scales[1] * k_ur[(j, i - t)],
            (false, false) => scales[2] * k_rr[(i - t, j - t)],
        };
        k + if i == j { diagonal } else { 0.0 }
    })
}

fn interaction_with(
    k_uu: &Mat<f64>,
    k_ur: &Mat<f64>,
    k_rr: &Mat<f64>,
    logdet_rr: f64,
    lambda1: f64,
    lambda2: f64,
) -> Result<(f64, f64), StrategyError> {
    let cross = 1.0 / (lambda1 * lambda2).sqrt();
    let joint = joint_gram(k_uu, k_ur, k_rr, [1.0 / lambda1, cross, 1.0 / lambda2], 1.0);
    let logdet_uu = logdet_shifted(k_uu, lambda1)?;
    let logdet_joint = Spd::new(&joint, "I + K̂").within(PART)?.log_det();
    let gamma = 0.5 * logdet_uu;
    Ok((gamma, 0.5 * (logdet_uu + logdet_rr - logdet_joint)))
}

impl PinnBo {
    /// PINN-BO for `problem`, whose objective must be one field of all the variables with a
    /// pde; `operators` are the library user's (empty for `.pde` files alone).
    pub fn new(
        config: PinnBoConfig,
        problem: &Problem,
        operators: &OperatorRegistry,
        seed: u64,
    ) -> Result<PinnBo, StrategyError> {
        let d = problem.dim();
        let field = objective_field(problem, "PINN-BO")?;
        let mlp = MlpConfig {
            activation: config.activation,
            parameterization: Parameterization::Ntk,
            ..MlpConfig::new(d, config.width, config.depth)
        };
        let initial = Mlp::new(mlp, seed, &Device::Cpu).within(PART)?;
        let (lo, hi) = (problem.lower(), problem.upper());
        initial.normalize_inputs(&lo, &hi).within(PART)?;
        let collocation = CollocationConfig {
            sampling: config.sampling,
            pde_weight: config.lambda_r,
            ..CollocationConfig::sobol(config.residual_points, 0, seed ^ 0x7265_7369_6475)
        };
        let (mut terms, _dropped) =
            residual_terms(problem, field, &initial, &collocation, operators, false)
                .within(PART)?;
        let residual_features = terms
            .iter()
            .map(|t| Factors::of_residual(&initial, &t.residual, &t.points))
            .collect::<candle_core::Result<Vec<_>>>()
            .within(PART)?;
        let (mut value_norm, mut residual_norm) = (0.0, 0.0);
        for (term, omega) in terms.iter().zip(&residual_features) {
            let phi = Factors::of_values(&initial, &term.points).within(PART)?;
            value_norm += column(gram_diagonal(&phi))
                .within(PART)?
                .iter()
                .sum::<f64>();
            residual_norm += column(gram_diagonal(omega))
                .within(PART)?
                .iter()
                .sum::<f64>();
        }
        let units = if residual_norm > 0.0 && residual_norm.is_finite() {
            value_norm / residual_norm
        } else {
            1.0
        };
        for term in &mut terms {
            term.weight *= units;
        }
        let mut k_rr = block_gram(&residual_features, &residual_features)?;
        for v in k_rr.col_iter_mut().flat_map(|c| c.iter_mut()) {
            *v *= units;
        }
        let logdet_rr = logdet_shifted(&k_rr, config.lambda)?;
        Ok(PinnBo {
            sense: problem.objective.sense,
            initial,
            terms,
            residual_features,
            units,
            prior_variance: value_norm / k_rr.nrows().max(1) as f64,
            k_rr,
            logdet_rr,
            lo,
            hi,
            config,
        })
    }

    /// The observed points' features (raw coordinates) and their Gram blocks: K_uu, and
    /// K_ur against the residual points (residual features scaled by c).
    fn observed_grams(
        &self,
        observed: &Tensor,
    ) -> Result<(Factors, Mat<f64>, Mat<f64>), StrategyError> {
        let phi = Factors::of_values(&self.initial, observed).within(PART)?;
        let k_uu = block_gram(std::slice::from_ref(&phi), std::slice::from_ref(&phi))?;
        let k_ur = self.against_residuals(&phi)?;
        Ok((phi, k_uu, k_ur))
    }

    /// The Gram block of value features against the residual points' (scaled by c).
    fn against_residuals(&self, phi: &Factors) -> Result<Mat<f64>, StrategyError> {
        let mut k = block_gram(std::slice::from_ref(phi), &self.residual_features)?;
        for v in k.col_iter_mut().flat_map(|c| c.iter_mut()) {
            *v *= self.units.sqrt();
        }
        Ok(k)
    }

    /// `(ν_t, γ_t, I)` from the Gram blocks of the observed points.
    fn nu(&self, k_uu: &Mat<f64>, k_ur: &Mat<f64>) -> Result<(f64, f64, f64), StrategyError> {
        let lambda = self.config.lambda;
        let (gamma, info) =
            interaction_with(k_uu, k_ur, &self.k_rr, self.logdet_rr, lambda, lambda)?;
        let c = &self.config;
        let nu = c.nu.unwrap_or_else(|| {
            let inside = (2.0 * gamma - 2.0 * info + (1.0 / c.delta).ln()).max(0.0);
            c.norm_bound + c.noise_scale * inside.sqrt()
        });
        Ok((nu, gamma, info))
    }

    fn raw_tensor(&self, unit: &[f64], d: usize) -> candle_core::Result<Tensor> {
        let raw: Vec<f64> = unit
            .chunks(d)
            .flat_map(|u| {
                u.iter()
                    .zip(self.lo.iter().zip(&self.hi))
                    .map(|(v, (l, h))| l + v * (h - l))
            })
            .collect();
        Tensor::from_vec(raw, (unit.len() / d, d), &Device::Cpu)
    }

    /// The observed field values in the file's units (the pde holds for them), their
    /// standardizer, and the observed points in raw coordinates.
    fn observed_field(
        &self,
        history: &[Observed],
        d: usize,
    ) -> Result<(Vec<f64>, Standardizer, Tensor), StrategyError> {
        let sign = self.minimized_sign();
        let field: Vec<f64> = history.iter().map(|o| sign * o.objective).collect();
        let standardizer = Standardizer::fit(&field);
        let flat: Vec<f64> = history.iter().flat_map(|o| o.unit.clone()).collect();
        let observed = self.raw_tensor(&flat, d).within(PART)?;
        Ok((field, standardizer, observed))
    }

    /// The field as minimized: negated for `maximize`.
    fn minimized_sign(&self) -> f64 {
        match self.sense {
            Sense::Minimize => 1.0,
            Sense::Maximize => -1.0,
        }
    }
}

/// The Gram matrix of two lists of feature sets, blocks side by side.
fn block_gram(rows: &[Factors], cols: &[Factors]) -> Result<Mat<f64>, StrategyError> {
    let blocks: Vec<Vec<Mat<f64>>> = rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|c| to_mat(&gram(r, c).within(PART)?))
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let heights: Vec<usize> = blocks.iter().map(|row| row[0].nrows()).collect();
    let widths: Vec<usize> = blocks[0].iter().map(Mat::ncols).collect();
    let mut out = Mat::zeros(heights.iter().sum(), widths.iter().sum());
    let mut top = 0;
    for (row, h) in blocks.iter().zip(&heights) {
        let mut left = 0;
        for (block, w) in row.iter().zip(&widths) {
            for i in 0..*h {
                for j in 0..*w {
                    out[(top + i, left + j)] = block[(i, j)];
                }
            }
            left += w;
        }
        top += h;
    }
    Ok(out)
}

impl Strategy for PinnBo {
    fn name(&self) -> &'static str {
        "pinn-bo"
    }

    fn predict(
        &mut self,
        space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        _rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<f64>>, StrategyError> {
        let d = space.dim();
        let sign = self.minimized_sign();
        let (field, standardizer, observed) = self.observed_field(history, d)?;
        let (_, k_uu, k_ur) = self.observed_grams(&observed)?;
        let (nu, _, _) = self.nu(&k_uu, &k_ur)?;
        let (net, _) = self.train_pinn(observed, field, &standardizer, nu)?;
        let at = self.raw_tensor(&points.concat(), d).within(PART)?;
        let values = column(net.forward(&at)).within(PART)?;
        Ok(Some(values.iter().map(|v| sign * v).collect()))
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let d = space.dim();
        let sign = self.minimized_sign();
        let (field, standardizer, observed) = self.observed_field(history, d)?;
        let clock = std::time::Instant::now();
        let (phi, k_uu, k_ur) = self.observed_grams(&observed)?;
        let (nu, gamma, info) = self.nu(&k_uu, &k_ur)?;
        let info_seconds = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let domain = self.config.search.domain(history, d);
        let step = match self.config.surrogate {
            Surrogate::Pinn => self.pinn_step(observed, field, &standardizer, nu, rng, &domain)?,
            Surrogate::NtkGp => {
                let y: Vec<f64> = field.iter().map(|v| standardizer.forward(*v)).collect();
                let gp = ntk_gp::NtkPinnGp::fit(self, phi, &k_uu, &k_ur, &y, &standardizer)?;
                gp.minimize_bound(self, nu, sign, &standardizer, rng, &domain)?
            }
        };
        let diagnostics = Diagnostics {
            predicted: Some(sign * step.predicted),
            ..step.diagnostics
        }
        .with("nu", nu)
        .with("information_gain", gamma)
        .with("interaction_information", info)
        .with("information_seconds", info_seconds)
        .with("seconds", clock.elapsed().as_secs_f64());
        Ok(Proposal {
            unit: step.unit,
            diagnostics: domain.annotate(diagnostics),
        })
    }
}

/// What a surrogate's step found: the point, the predicted objective there (as minimized),
/// and what it wants journaled.
struct Step {
    unit: Vec<f64>,
    predicted: f64,
    diagnostics: Diagnostics,
}

impl PinnBo {
    /// The PINN trained from θ0 with output scale s ν_t on the observed field values.
    fn train_pinn(
        &self,
        observed: Tensor,
        field: Vec<f64>,
        standardizer: &Standardizer,
        nu: f64,
    ) -> Result<(Mlp, Diagnostics), StrategyError> {
        let clock = std::time::Instant::now();
        let mut net = self.initial.deep_copy().within(PART)?;
        let scale = standardizer.std * nu;
        net.set_output_scale(scale);
        net.set_output_bias(standardizer.mean / scale)
            .within(PART)?;
        let n = field.len();
        let data = Observations {
            points: observed,
            values: Tensor::from_vec(field, n, &Device::Cpu).within(PART)?,
        };
        let c = &self.config;
        let training = TrainConfig {
            epochs: c.epochs,
            lr: c.lr,
            lr_decay: c.lr_decay,
            decay_every: 100,
            anchor: 0.0,
            patience: 200,
            min_improvement: 1e-3,
            batch: None,
            shuffle_seed: 0,
        };
        let report = train(&net, Some(&data), &self.terms, &training).within(PART)?;
        let diagnostics = Diagnostics {
            train_seconds: Some(clock.elapsed().as_secs_f64()),
            train_loss: Some(report.final_loss),
            epochs: Some(report.epochs as u64),
            ..Diagnostics::default()
        }
        .with("restored_best", report.restored_best);
        Ok((net, diagnostics))
    }

    /// The PINN surrogate's step: its minimizer.
    fn pinn_step(
        &self,
        observed: Tensor,
        field: Vec<f64>,
        standardizer: &Standardizer,
        nu: f64,
        rng: &mut ChaCha8Rng,
        domain: &Domain,
    ) -> Result<Step, StrategyError> {
        let d = domain.d;
        let sign = self.minimized_sign();
        let (net, diagnostics) = self.train_pinn(observed, field, standardizer, nu)?;
        let f = |u: &[f64]| column(self.raw_tensor(u, d).and_then(|x| net.forward(&x)? * sign));
        let (unit, predicted) = minimize(&f, None, domain, self.config.search, rng).within(PART)?;
        Ok(Step {
            unit,
            predicted,
            diagnostics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pinnbo_ad::tangent::jacobian;
    use pinnbo_dsl::{compile, Source};

    const PROBLEM: &str = "problem \"tiny\"\nvar x in [0, 2]\nfield f(x)\n\
        pde dxx(f) + x * f = x\nminimize f\noracle command \"unused {x}\"\n";

    fn problem() -> Problem {
        compile(&Source::new("tiny.pde", PROBLEM)).unwrap().problem
    }

    /// `½ logdet(I + AᵀA/λ)`-style determinants in the p-dimensional (primal) form.
    fn logdet_primal(blocks: &[(&Mat<f64>, f64)], p: usize) -> f64 {
        let mut a = Mat::from_fn(p, p, |i, j| if i == j { 1.0 } else { 0.0 });
        for (features, lambda) in blocks {
            for r in 0..features.nrows() {
                for i in 0..p {
                    for j in 0..p {
                        a[(i, j)] += features[(r, i)] * features[(r, j)] / lambda;
                    }
                }
            }
        }
        Spd::new(&a, "primal").unwrap().log_det()
    }

    /// The dual (t + N_r)-sized interaction information equals the thesis's p-dimensional
    /// determinant formula on a tiny network, and is non-negative.
    #[test]
    fn interaction_information_matches_the_determinant_formula() {
        let config = PinnBoConfig {
            width: 3,
            depth: 1,
            residual_points: 5,
            ..PinnBoConfig::default()
        };
        let bo = PinnBo::new(config, &problem(), &OperatorRegistry::new(), 2).unwrap();
        let x = Tensor::new(&[[0.1f64], [0.9], [1.7]], &Device::Cpu).unwrap();
        let (_, k_uu, k_ur) = bo.observed_grams(&x).unwrap();
        let (lambda1, lambda2) = (0.5, 2.0);
        let (gamma, info) =
            interaction_information(&k_uu, &k_ur, &bo.k_rr, lambda1, lambda2).unwrap();

        let net = &bo.initial;
        let jac = |f: &dyn Fn() -> candle_core::Result<Tensor>| {
            to_mat(&jacobian(net, f).unwrap()).unwrap()
        };
        let big_phi = jac(&|| net.forward(&x)?.flatten_all());
        let term = &bo.terms[0];
        let big_omega = jac(&|| term.residual.evaluate(net, &term.points)? * bo.units.sqrt());
        let p = net.parameter_count();
        assert_eq!(big_phi.ncols(), p);
        let (uu, rr) = (
            logdet_primal(&[(&big_phi, lambda1)], p),
            logdet_primal(&[(&big_omega, lambda2)], p),
        );
        let joint = logdet_primal(&[(&big_phi, lambda1), (&big_omega, lambda2)], p);
        let expected = 0.5 * (uu + rr - joint);
        assert!(
            (gamma - 0.5 * uu).abs() < 1e-8 * uu.abs().max(1.0),
            "{gamma} vs {}",
            0.5 * uu
        );
        assert!(
            (info - expected).abs() < 1e-8 * expected.abs().max(1.0),
            "{info} vs {expected}"
        );
        assert!(
            info > 0.0,
            "the observations and the pde share information: {info}"
        );
    }

    /// An objective that is not a field of all the variables is refused with the reason.
    #[test]
    fn the_objective_must_be_the_field() {
        let text = PROBLEM.replace("minimize f", "minimize f + x");
        let problem = compile(&Source::new("tiny.pde", text.as_str()))
            .unwrap()
            .problem;
        let e = PinnBo::new(
            PinnBoConfig::default(),
            &problem,
            &OperatorRegistry::new(),
            1,
        )
        .err()
        .expect("refused");
        assert!(
            e.to_string().contains("one field of all the variables"),
            "{e}"
        );
    }
}
