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
//! Lemma 5.3.6 in dual form, from the NTK-PINN Gram blocks at θ0 (`information.rs`).
//!
//! Residuals are in the pde's units, observations in the field's, and a coefficient with a
//! pole makes a few points' residuals dwarf the rest (the thesis beam's |ω| reaches 1e10).
//! Each residual point's equation is therefore multiplied by its own factor c_j, with
//! `c_j² = |φ(z_j)|² / |ω(z_j)|²` at θ0 (φ, ω the tangent features of h and of N[h]): every
//! scaled residual then has the prior variance of a value. Scaling an equation leaves the
//! pde's solutions unchanged. The residual features enter the Gram blocks as `c_j ω_j`, and
//! each squared residual in the loss is weighted `λ_r c_j²`. `scaling global` uses one
//! factor for all points (the ratio of the sums), as the thesis's code did.
//!
//! The network (NTK parameterization, smooth activation, N(0, bias²) hidden biases) takes raw
//! coordinates, with the map of the box onto [-1, 1]^d folded into its first layer, so its
//! jets are derivatives in the pde's own coordinates. It predicts the field in the file's
//! units: output scale `s ν_t` (s the observations' standard deviation) and output bias
//! starting at their mean.
//!
//! Schedule: every `retrain_every` steps a cold fit from θ0 (the run's one draw, or a fresh
//! draw from the step's random stream: `init`); in between, the previous step's network
//! trains on for `warm_epochs` (its output scale kept, so it starts as the function it was).
//! The network and the count are strategy state, saved with the journal. Each Adam step sees
//! `residual_batch` of the residual points, dealt from a shuffled order (all observations
//! every step): a step costs that share of a full pass, and on the beam the fits reached the
//! same losses in the same number of steps (docs/decisions.md "PINN-BO's residual batches").

use crate::acquisition::domain::Domain;
use crate::acquisition::network_search::minimize;
use crate::acquisition::Search;
use crate::space::{Space, Standardizer};
use crate::strategies::pde::objective_field;
use crate::strategies::settings;
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::network::column;
use crate::surrogates::saved_network::{network_bytes, network_from_bytes};
use candle_core::{Device, Tensor};
use faer::Mat;
use information::{block_gram, interaction_with, logdet_shifted};
use params::InverseParams;
use pinnbo_ad::collocation::{residual_terms, CollocationConfig};
use pinnbo_ad::device::Hardware;
use pinnbo_ad::sampling::Sampling;
use pinnbo_ad::tangent::{gram_diagonal, Factors};
use pinnbo_ad::train::{train, Observations, ResidualTerm, TrainConfig};
use pinnbo_ad::{Activation, Mlp, MlpConfig, OperatorRegistry, Parameterization};
use pinnbo_dsl::choices::ResidualSampling;
use pinnbo_dsl::ir::Sense;
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

mod information;
mod ntk_gp;
mod params;

pub use information::interaction_information;

pub use pinnbo_dsl::choices::{NetworkInit, PinnSurrogate, ResidualScaling};

#[derive(Clone, Debug, PartialEq)]
pub struct PinnBoConfig {
    pub surrogate: PinnSurrogate,
    pub width: usize,
    pub depth: usize,
    pub activation: Activation,
    /// Standard deviation of the hidden biases at θ0.
    pub bias: f64,
    /// λ1 = λ2 of the information terms.
    pub lambda: f64,
    pub residual_points: usize,
    /// Residual points per Adam step.
    pub residual_batch: usize,
    /// Weight of the pde's mean squared residual against the data's.
    pub lambda_r: f64,
    pub sampling: Sampling,
    pub scaling: ResidualScaling,
    pub init: NetworkInit,
    /// Steps from one cold fit to the next (1: every step is cold).
    pub retrain_every: usize,
    pub epochs: usize,
    pub warm_epochs: usize,
    pub lr: f64,
    pub lr_decay: f64,
    /// A fixed ν instead of ν_t.
    pub nu: Option<f64>,
    /// B, R̃ and δ of ν_t.
    pub norm_bound: f64,
    pub noise_scale: f64,
    pub delta: f64,
    pub search: Search,
    /// Where the network is trained.
    pub device: Hardware,
}

impl PinnBoConfig {
    pub fn from_settings(s: &MethodSettings) -> PinnBoConfig {
        PinnBoConfig {
            surrogate: s.choice("surrogate"),
            width: s.count("width"),
            depth: s.count("depth"),
            activation: s.choice("activation"),
            bias: s.number("bias"),
            lambda: s.number("lambda"),
            residual_points: s.count("residual_points"),
            residual_batch: s.count("residual_batch"),
            lambda_r: s.number("lambda_r"),
            sampling: match s.choice("sampling") {
                ResidualSampling::Sobol => Sampling::Sobol,
                ResidualSampling::Uniform => Sampling::Uniform,
            },
            scaling: s.choice("scaling"),
            init: s.choice("init"),
            retrain_every: s.count("retrain_every"),
            epochs: s.count("epochs"),
            warm_epochs: s.count("warm_epochs"),
            lr: s.number("lr"),
            lr_decay: s.number("lr_decay"),
            nu: s.computed_number("nu"),
            norm_bound: 1.0,
            // R̃ = sqrt((R1/λ1)² + (R2/λ2)²) with R1 = R2 = 0.1 and λ = 1: standardized
            // observations with noise around a tenth of their spread.
            noise_scale: 0.1 * std::f64::consts::SQRT_2,
            delta: 0.1,
            search: settings::search(s),
            device: s.choice("device"),
        }
    }

    /// A draw of the network from `seed` on `device`, taking the box `[lo, hi]`'s raw
    /// coordinates.
    fn draw(&self, seed: u64, lo: &[f64], hi: &[f64], device: &Device) -> candle_core::Result<Mlp> {
        let config = MlpConfig {
            activation: self.activation,
            parameterization: Parameterization::Ntk,
            bias_std: self.bias,
            ..MlpConfig::new(lo.len(), self.width, self.depth)
        };
        let net = Mlp::new(config, seed, device)?;
        net.normalize_inputs(lo, hi)?;
        Ok(net)
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
    /// θ0 (output scale 1): the Gram blocks are taken here, and cold fits start from a copy
    /// (`init fixed`) or from a draw of the same shape (`init fresh`).
    initial: Mlp,
    /// The pde at its residual points (fixed for the run), each point weighted by c_j².
    terms: Vec<ResidualTerm>,
    /// Their features at θ0, unscaled.
    residual_features: Vec<Factors>,
    /// c_j for every residual point, in the order of the terms' points (module docs).
    scales: Vec<f64>,
    /// The mean prior variance `|φ(z)|²` over the residual points: the NTK-PINN GP's kernel
    /// is divided by it, so that its prior matches the standardized observations.
    prior_variance: f64,
    /// K_rr of the scaled residual features and `logdet(I + K_rr/λ2)`, computed once.
    k_rr: Mat<f64>,
    logdet_rr: f64,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The last step's trained network, where a warm fit starts.
    previous: Option<Mlp>,
    /// Steps since the last cold fit (the schedule's position).
    since_cold: usize,
    /// The pde's params, trained with the network (an inverse PINN).
    params: Option<InverseParams>,
    /// The params' values the residual side was last weighed at.
    weighed_at: Option<Vec<f64>>,
}

/// Where this module's errors arise, for their messages.
const PART: &str = "PINN-BO";

/// c_j from the prior variances of values `phi` and residuals `omega` at each residual
/// point. A point whose residual has no prior variance (or a non-finite one) keeps c = 1:
/// its equation carries no information about the weights either way.
fn residual_scales(phi: &[f64], omega: &[f64], scaling: ResidualScaling) -> Vec<f64> {
    let usable = |o: f64| o > 0.0 && o.is_finite();
    match scaling {
        ResidualScaling::Point => phi
            .iter()
            .zip(omega)
            .map(|(p, o)| if usable(*o) { (p / o).sqrt() } else { 1.0 })
            .collect(),
        ResidualScaling::Global => {
            let (p, o): (f64, f64) = (phi.iter().sum(), omega.iter().sum());
            let c = if usable(o) { (p / o).sqrt() } else { 1.0 };
            vec![c; omega.len()]
        }
    }
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
        let field = objective_field(problem, "PINN-BO")?;
        crate::strategies::pde::continuous_only(problem, "PINN-BO")?;
        let (lo, hi) = (problem.lower(), problem.upper());
        // Opened once: every tensor of the run is on this one device.
        let device = pinnbo_ad::device::open(config.device)?;
        let params = InverseParams::new(problem, &device)?;
        if params.is_some() && config.surrogate == PinnSurrogate::NtkGp {
            return Err(StrategyError::unusable(
                PART,
                "the pde has params, and `surrogate ntk-gp` trains no network that could fit \
                 them: use the default `surrogate pinn` (or physics-gp)",
            ));
        }
        let initial = config.draw(seed, &lo, &hi, &device).within(PART)?;
        let collocation = CollocationConfig {
            sampling: config.sampling,
            pde_weight: config.lambda_r,
            params: params.as_ref().map_or(Vec::new(), |p| p.trainable.clone()),
            ..CollocationConfig::sobol(config.residual_points, 0, seed ^ 0x7265_7369_6475)
        };
        let (terms, _dropped) =
            residual_terms(problem, field, &initial, &collocation, operators, false)
                .within(PART)?;
        let mut bo = PinnBo {
            sense: problem.objective.sense,
            initial,
            terms,
            residual_features: Vec::new(),
            scales: Vec::new(),
            prior_variance: 0.0,
            k_rr: Mat::zeros(0, 0),
            logdet_rr: 0.0,
            lo,
            hi,
            previous: None,
            since_cold: 0,
            params,
            weighed_at: None,
            config,
        };
        bo.weigh_residuals()?;
        bo.weighed_at = bo.params.as_ref().map(InverseParams::start);
        Ok(bo)
    }

    /// The residual points' features at θ0, their factors c_j (set as the terms' point
    /// weights), K_rr and its log-determinant: fixed for the run, except that with params
    /// they follow the params' values (each step recomputes them at the last estimate).
    fn weigh_residuals(&mut self) -> Result<(), StrategyError> {
        let initial = &self.initial;
        let residual_features = (self.terms.iter())
            .map(|t| Factors::of_residual(initial, &t.residual, &t.points))
            .collect::<candle_core::Result<Vec<_>>>()
            .within(PART)?;
        let mut k_rr = block_gram(&residual_features, &residual_features)?;
        let residual_variance: Vec<f64> = (0..k_rr.nrows()).map(|j| k_rr[(j, j)]).collect();
        let mut value_variance = Vec::new();
        for term in &self.terms {
            let phi = Factors::of_values(initial, &term.points).within(PART)?;
            value_variance.extend(column(gram_diagonal(&phi)).within(PART)?);
        }
        let scales = residual_scales(&value_variance, &residual_variance, self.config.scaling);
        let device = initial.device().clone();
        let mut offset = 0;
        for term in &mut self.terms {
            let n = term.points.dim(0).within(PART)?;
            let squares: Vec<f64> = scales[offset..offset + n].iter().map(|c| c * c).collect();
            term.point_weights = Some(Tensor::from_vec(squares, n, &device).within(PART)?);
            offset += n;
        }
        for (j, column) in k_rr.col_iter_mut().enumerate() {
            for (i, v) in column.iter_mut().enumerate() {
                *v *= scales[i] * scales[j];
            }
        }
        self.logdet_rr = logdet_shifted(&k_rr, self.config.lambda)?;
        self.prior_variance = value_variance.iter().sum::<f64>() / k_rr.nrows().max(1) as f64;
        self.residual_features = residual_features;
        self.scales = scales;
        self.k_rr = k_rr;
        Ok(())
    }

    /// With params: sets them where this step's training starts and recomputes what the
    /// residual side depends on.
    fn start_params(&mut self) -> Result<(), StrategyError> {
        let Some(params) = &self.params else {
            return Ok(());
        };
        let start = params.reset().within(PART)?;
        // The residual side at these values is already weighed (a picture after a
        // proposal, a step after a resume from the same estimate).
        if self.weighed_at.as_ref() == Some(&start) {
            return Ok(());
        }
        self.weigh_residuals()?;
        self.weighed_at = Some(start);
        Ok(())
    }

    /// The observed points' features (raw coordinates) and their Gram blocks: K_uu, and
    /// K_ur against the residual points.
    fn observed_grams(
        &self,
        observed: &Tensor,
    ) -> Result<(Factors, Mat<f64>, Mat<f64>), StrategyError> {
        let phi = Factors::of_values(&self.initial, observed).within(PART)?;
        let k_uu = block_gram(std::slice::from_ref(&phi), std::slice::from_ref(&phi))?;
        let k_ur = self.against_residuals(&phi)?;
        Ok((phi, k_uu, k_ur))
    }

    /// The Gram block of value features against the residual points' (scaled by c_j).
    fn against_residuals(&self, phi: &Factors) -> Result<Mat<f64>, StrategyError> {
        let mut k = block_gram(std::slice::from_ref(phi), &self.residual_features)?;
        for (column, c) in k.col_iter_mut().zip(&self.scales) {
            for v in column.iter_mut() {
                *v *= c;
            }
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
        Tensor::from_vec(raw, (unit.len() / d, d), self.initial.device())
    }

    /// The observed field values in the file's units (the pde holds for them), their
    /// standardizer, and the observed points in raw coordinates.
    fn observed_field(
        &self,
        history: &[Observed],
        d: usize,
    ) -> Result<(Vec<f64>, Standardizer, Tensor), StrategyError> {
        let sign = self.minimized_sign();
        let field: Vec<f64> = history.iter().map(|o| sign * o.objective()).collect();
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

impl Strategy for PinnBo {
    fn name(&self) -> &'static str {
        "pinn-bo"
    }

    /// The params' estimate (with params), then the warm start's network (when the
    /// schedule trains on from it).
    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        let mut bytes = self
            .params
            .as_ref()
            .map_or(Vec::new(), InverseParams::state);
        let Some(net) = self.previous.as_ref().filter(|_| self.warm_starts()) else {
            return Ok((!bytes.is_empty()).then_some(bytes));
        };
        bytes.extend((self.since_cold as u64).to_le_bytes());
        bytes.extend_from_slice(&net.output_scale().to_le_bytes());
        bytes.extend(network_bytes(net).within(PART)?);
        Ok(Some(bytes))
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        let unusable = |why: String| StrategyError::unusable(PART, why);
        let saved = match (&mut self.params, saved) {
            (Some(params), Some(bytes)) => {
                let rest = (params.restore(&bytes))
                    .ok_or_else(|| unusable("a truncated estimate of the params".into()))?;
                Some(rest.to_vec())
            }
            (_, saved) => saved,
        };
        if !self.warm_starts() {
            return Ok(());
        }
        let bytes = saved.ok_or_else(|| {
            unusable(
                "it is missing, and with `retrain_every` above 1 the next fit may train on from \
                 the network saved there"
                    .into(),
            )
        })?;
        let (count, rest) = bytes
            .split_at_checked(8)
            .ok_or_else(|| unusable("a truncated saved network".into()))?;
        let (scale, rest) = rest
            .split_at_checked(8)
            .ok_or_else(|| unusable("a truncated saved network".into()))?;
        let mut net = network_from_bytes(&self.initial, rest).map_err(unusable)?;
        net.set_output_scale(f64::from_le_bytes(scale.try_into().expect("eight bytes")));
        self.since_cold = u64::from_le_bytes(count.try_into().expect("eight bytes")) as usize;
        self.previous = Some(net);
        Ok(())
    }

    fn predict(
        &mut self,
        space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<f64>>, StrategyError> {
        let d = space.dim();
        let sign = self.minimized_sign();
        self.start_params()?;
        let (field, standardizer, observed) = self.observed_field(history, d)?;
        let (_, k_uu, k_ur) = self.observed_grams(&observed)?;
        let (nu, _, _) = self.nu(&k_uu, &k_ur)?;
        let start = self.start(&standardizer, nu, rng)?;
        let (net, _) = self.train_pinn(start, observed, field)?;
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
        self.start_params()?;
        let (field, standardizer, observed) = self.observed_field(history, d)?;
        let clock = std::time::Instant::now();
        let (phi, k_uu, k_ur) = self.observed_grams(&observed)?;
        let (nu, gamma, info) = self.nu(&k_uu, &k_ur)?;
        let info_seconds = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let domain = self.config.search.domain(history, space);
        let step = match self.config.surrogate {
            PinnSurrogate::Pinn => {
                let start = self.start(&standardizer, nu, rng)?;
                let cold = start.cold;
                let step = self.pinn_step(start, observed, field, rng, &domain)?;
                self.since_cold = if cold { 1 } else { self.since_cold + 1 };
                step
            }
            PinnSurrogate::NtkGp => {
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
            terminate: false,
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

/// The network a fit starts from, and whether it is a cold start.
struct Start {
    net: Mlp,
    cold: bool,
}

impl PinnBo {
    /// Whether a fit can start from the previous step's network (which is then state).
    fn warm_starts(&self) -> bool {
        self.config.surrogate == PinnSurrogate::Pinn && self.config.retrain_every > 1
    }

    /// Where the next fit starts: warm from the previous network while the schedule allows,
    /// otherwise θ0 (or a fresh draw) with output scale `s ν_t` and bias at the mean.
    fn start(
        &self,
        standardizer: &Standardizer,
        nu: f64,
        rng: &mut ChaCha8Rng,
    ) -> Result<Start, StrategyError> {
        if let Some(previous) = &self.previous {
            if self.since_cold < self.config.retrain_every {
                let net = previous.deep_copy().within(PART)?;
                return Ok(Start { net, cold: false });
            }
        }
        let mut net = match self.config.init {
            NetworkInit::Fixed => self.initial.deep_copy(),
            NetworkInit::Fresh => {
                (self.config).draw(rng.random(), &self.lo, &self.hi, self.initial.device())
            }
        }
        .within(PART)?;
        let scale = standardizer.std * nu;
        net.set_output_scale(scale);
        net.set_output_bias(standardizer.mean / scale)
            .within(PART)?;
        Ok(Start { net, cold: true })
    }

    /// The PINN trained from `start` on the observed field values.
    fn train_pinn(
        &self,
        start: Start,
        observed: Tensor,
        field: Vec<f64>,
    ) -> Result<(Mlp, Diagnostics), StrategyError> {
        let clock = std::time::Instant::now();
        let n = field.len();
        let values = Tensor::from_vec(field, n, observed.device()).within(PART)?;
        let data = Observations {
            points: observed,
            values,
        };
        let c = &self.config;
        let training = TrainConfig {
            epochs: if start.cold { c.epochs } else { c.warm_epochs },
            lr: c.lr,
            lr_decay: c.lr_decay,
            decay_every: 100,
            anchor: 0.0,
            patience: 200,
            min_improvement: 1e-3,
            batch: None,
            residual_batch: Some(c.residual_batch),
            shuffle_seed: 0,
        };
        let report = train(&start.net, Some(&data), &self.terms, &training).within(PART)?;
        let diagnostics = Diagnostics {
            train_seconds: Some(clock.elapsed().as_secs_f64()),
            train_loss: Some(report.final_loss),
            epochs: Some(report.epochs as u64),
            ..Diagnostics::default()
        }
        .with("restored_best", report.restored_best)
        .with("cold_fit", start.cold);
        Ok((start.net, diagnostics))
    }

    /// The PINN surrogate's step: its minimizer. The trained network becomes the next warm
    /// start.
    fn pinn_step(
        &mut self,
        start: Start,
        observed: Tensor,
        field: Vec<f64>,
        rng: &mut ChaCha8Rng,
        domain: &Domain,
    ) -> Result<Step, StrategyError> {
        let d = domain.d;
        let sign = self.minimized_sign();
        let (net, mut diagnostics) = self.train_pinn(start, observed, field)?;
        if let Some(params) = &mut self.params {
            let fitted = params.settle().within(PART)?;
            diagnostics = params.report(diagnostics, &fitted);
            params.previous = Some(fitted);
        }
        let f = |u: &[f64]| column(self.raw_tensor(u, d).and_then(|x| net.forward(&x)? * sign));
        let (unit, predicted) = minimize(&f, None, domain, self.config.search, rng).within(PART)?;
        self.previous = Some(net);
        Ok(Step {
            unit,
            predicted,
            diagnostics,
        })
    }
}

#[cfg(test)]
mod tests;
