//! GP-EI, GP-UCB and GP-TS: the Gaussian-process baselines (docs/algorithms.md §6).
//!
//! With constraints, GP-EI is constrained EI: one GP per constraint, EI times the probability
//! that every constraint holds, the incumbent the best feasible observation; before any
//! feasible observation it maximizes that probability alone. UCB and TS rank points whose
//! feasibility probability is below one half after all others.

use crate::acquisition::trust_region::{Domain, Region};
use crate::acquisition::{
    log_expected_improvement, log_probability_nonpositive, maximize_smooth,
    probability_nonpositive, Search,
};
use crate::oracle::NoiseModel;
use crate::space::Space;
use crate::strategies::methods::choice;
use crate::strategies::model_check::{keep_pde, Check, Record, TARGET_LEVEL};
use crate::strategies::physics::{objective_field, optimum_on_faces, residuals, PhysicsError};
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::gp::{GpModel, GpSpec, Hyper, Kernel, Mean, Prior};
use crate::surrogates::pde_gp::{PdeGp, PdeHyper, PdeModel, Residuals, Scaling};
use crate::surrogates::{GpPosterior, Starts};
use faer::Mat;
use pinnbo_ad::linear::LinearError;
use pinnbo_ad::OperatorRegistry;
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpAcquisition {
    ExpectedImprovement,
    /// Lower confidence bound (the minimization form of UCB).
    ConfidenceBound,
    ThompsonSampling,
}

/// Thompson samples are drawn jointly on this many candidates (a dense Cholesky of that size).
const TS_CANDIDATES: usize = 1024;

pub struct GpBo {
    pub acquisition: GpAcquisition,
    /// The plain GPs' model (the objective's unless there is a pde, and every
    /// constraint's); physics-gp reads its prior.
    pub model: GpSpec,
    pub restarts: usize,
    pub search: Search,
    /// UCB's β; by default β_t = 0.2 · 2 log(d t² π² / 0.6) (Srinivas et al. with δ = 0.1,
    /// scaled down as is usual in practice).
    pub beta: Option<f64>,
    /// The pde the objective's GP is conditioned on (`physics-gp`); None for the plain GPs.
    pub physics: Option<Physics>,
    /// The plain GPs' last optima, where their next fits start.
    previous: Previous,
    /// The observations' known noise (`noise std ..`), held fixed in every fit.
    known_noise: Option<NoiseModel>,
}

/// Each plain GP's last fitted hyperparameters: the objective's (unless the pde's GP models
/// it) and each constraint's.
#[derive(Default)]
struct Previous {
    objective: Option<Hyper>,
    constraints: Vec<Hyper>,
}

/// What [`GpBo::state`] saves: every GP's last optimum, packed.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    objective: Option<Vec<f64>>,
    physics: Option<Vec<f64>>,
    constraints: Vec<Vec<f64>>,
    /// physics-gp's prequential record (absent from journals written before it).
    #[serde(default)]
    record: Record,
}

/// The physics-informed GP's pde and what it carries from step to step.
pub struct Physics {
    pub residuals: Residuals,
    pub scaling: Scaling,
    /// A maximum principle puts the optimum on the box's faces: the acquisition searches
    /// only there (an unconstrained problem whose pde is elliptic with the right source sign).
    pub faces: bool,
    /// Whether each step also fits the model without the pde, and how it chooses between
    /// the two (docs/algorithms.md §8).
    pub check: Check,
    /// Both models' record at the proposals, kept for `check prequential` only (saved with
    /// the journal).
    record: Record,
    /// The last fit's hyperparameters: the next fit starts there (saved with the journal).
    previous: Option<PdeHyper>,
}

impl GpBo {
    /// The GP method called `name` (`gp-ei`, `gp-ucb`, `gp-ts`) with its settings `s`.
    pub fn from_settings(s: &MethodSettings) -> GpBo {
        let acquisition = match s.info.name {
            "gp-ucb" => GpAcquisition::ConfidenceBound,
            "gp-ts" => GpAcquisition::ThompsonSampling,
            "physics-gp" => choice(s, "criterion", |n| match n {
                "ei" => Some(GpAcquisition::ExpectedImprovement),
                "ucb" => Some(GpAcquisition::ConfidenceBound),
                "ts" => Some(GpAcquisition::ThompsonSampling),
                _ => None,
            }),
            _ => GpAcquisition::ExpectedImprovement,
        };
        GpBo {
            acquisition,
            // physics-gp's objective has its own squared-exponential model (derivatives to
            // any order); its constraints' plain GPs take the plain defaults.
            model: GpSpec {
                kernel: match s.info.name {
                    "physics-gp" => Kernel::Matern52,
                    _ => choice(s, "kernel", Kernel::from_name),
                },
                prior: choice(s, "prior", Prior::from_name),
                mean: choice(s, "mean", Mean::from_name),
            },
            restarts: s.count("restarts"),
            // A stationary GP's mean and variance level off at the prior away from the data,
            // so its acquisition stays interior in high dimension without a trust region
            // (the table's default region is `global`). Thompson sampling draws on its own
            // candidates: only its region is a setting.
            search: match acquisition {
                GpAcquisition::ThompsonSampling => Search {
                    region: choice(s, "region", Region::from_name),
                    ..Search::default()
                },
                _ => Search::from_settings(s),
            },
            beta: match acquisition {
                GpAcquisition::ConfidenceBound => s.computed_number("beta"),
                _ => None,
            },
            physics: None,
            previous: Previous::default(),
            known_noise: None,
        }
    }

    /// `physics-gp` for `problem`: the objective's GP conditioned on its pde at
    /// `residual_points` Sobol points drawn from `seed`.
    pub fn physics(
        s: &MethodSettings,
        problem: &Problem,
        operators: &OperatorRegistry,
        seed: u64,
    ) -> Result<GpBo, StrategyError> {
        let field = objective_field(problem, "the physics-informed GP")?;
        let residuals = residuals(problem, field, operators, s.count("residual_points"), seed)
            .map_err(|e| {
                let hint = match e {
                    PhysicsError::Linear {
                        source: LinearError::Nonlinear { .. },
                        ..
                    } => {
                        "; a Gaussian process can be conditioned on a linear pde only: use \
                          `method pinn-bo`, whose network is trained on any pde"
                    }
                    _ => "",
                };
                StrategyError::Unusable(format!("physics-gp: {e}{hint}"))
            })?;
        let maximize = problem.objective.sense == pinnbo_dsl::ir::Sense::Maximize;
        let faces = problem.constraints.is_empty() && optimum_on_faces(&residuals, maximize);
        // The GP models the objective as minimized, `−f` for `maximize`.
        let residuals = match maximize {
            true => residuals.negated(),
            false => residuals,
        };
        Ok(GpBo {
            physics: Some(Physics {
                faces,
                residuals,
                scaling: choice(s, "scaling", Scaling::from_name),
                check: choice(s, "check", Check::from_name),
                record: Record::default(),
                previous: None,
            }),
            ..GpBo::from_settings(s)
        })
    }

    /// The objective's model: the physics-informed GP when there is a pde, else the plain
    /// one; with its fit's diagnostics and its optimum, which a proposal keeps
    /// ([`GpBo::remember`]) and a picture does not.
    fn fit_objective(
        &self,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<(Objective, Diagnostics, Optimum), StrategyError> {
        let x: Vec<Vec<f64>> = history.iter().map(|o| o.unit.clone()).collect();
        let y: Vec<f64> = history.iter().map(|o| o.objective).collect();
        let noise = self.known_noise.as_ref().map(|n| n.objective_std);
        let Some(physics) = &self.physics else {
            let starts = Starts {
                previous: self.previous.objective.as_ref(),
                restarts: self.restarts,
            };
            let gp = GpModel::fit(self.model, &x, &y, starts, noise, rng).within(PART)?;
            let diagnostics = hyper_diagnostics(&gp.hyper, gp.nll, gp.jitter())
                .with("prior_mean", gp.standardizer.inverse(gp.constant));
            let optimum = Optimum::Plain(gp.hyper.clone());
            return Ok((Objective::Plain(gp), diagnostics, optimum));
        };
        let starts = Starts {
            previous: physics.previous.as_ref(),
            restarts: self.restarts,
        };
        let model = PdeModel {
            prior: self.model.prior,
            scaling: physics.scaling,
            mean: self.model.mean,
        };
        let with_pde = PdeGp::fit(model, &x, &y, &physics.residuals, starts, noise).within(PART)?;
        let optimum = Optimum::Physics(with_pde.hyper.clone());
        if physics.check == Check::None || x.len() < 2 {
            let diagnostics = with_target_spread(physics_diagnostics(&with_pde), &with_pde);
            return Ok((Objective::Pde(Box::new(with_pde)), diagnostics, optimum));
        }
        // The pde-free model starts cold each step: its fit is small and cheap.
        let cold = Starts {
            previous: None,
            restarts: self.restarts,
        };
        let without = PdeGp::fit(model, &x, &y, &Residuals::none(), cold, noise).within(PART)?;
        let scores = (with_pde.leave_one_out(), without.leave_one_out());
        let keep = keep_pde(
            physics.check,
            with_pde.target_spread,
            scores,
            &physics.record,
        );
        let chosen = physics_diagnostics(if keep { &with_pde } else { &without })
            .with("loo_with_pde", scores.0)
            .with("loo_without_pde", scores.1);
        let mut diagnostics = with_target_spread(chosen, &with_pde);
        if physics.check == Check::Prequential {
            let (scored, total_with, total_without) = physics.record.totals();
            diagnostics = diagnostics
                .with("prequential_scored", scored)
                .with("prequential_with_pde", total_with)
                .with("prequential_without_pde", total_without);
        }
        let objective = Objective::Checked {
            with_pde: Box::new(with_pde),
            without: Box::new(without),
            keep_pde: keep,
        };
        Ok((objective, diagnostics, optimum))
    }

    /// The pde and its record when `check prequential` reads the record: the other checks
    /// keep none.
    fn prequential(&mut self) -> Option<&mut Physics> {
        let physics = self.physics.as_mut()?;
        (physics.check == Check::Prequential).then_some(physics)
    }

    /// Where the objective's next fit starts.
    fn remember(&mut self, optimum: Optimum) {
        match optimum {
            Optimum::Plain(h) => self.previous.objective = Some(h),
            Optimum::Physics(h) => {
                if let Some(physics) = &mut self.physics {
                    physics.previous = Some(h);
                }
            }
        }
    }
}

/// The objective's fitted model: the plain GP, the physics-informed one unchecked, or the
/// physics-informed one with the pde-free model it was checked against and which of the two
/// is used.
enum Objective {
    Plain(GpModel),
    Pde(Box<PdeGp>),
    Checked {
        with_pde: Box<PdeGp>,
        without: Box<PdeGp>,
        keep_pde: bool,
    },
}

impl Objective {
    /// The model the acquisition uses.
    fn model(&self) -> &dyn GpPosterior {
        match self {
            Objective::Plain(gp) => gp,
            Objective::Pde(with_pde) => with_pde.as_ref(),
            Objective::Checked {
                with_pde,
                without,
                keep_pde,
            } => {
                if *keep_pde {
                    with_pde.as_ref()
                } else {
                    without.as_ref()
                }
            }
        }
    }
}

/// A physics-informed fit's diagnostics.
fn physics_diagnostics(gp: &PdeGp) -> Diagnostics {
    hyper_diagnostics(&gp.hyper.gp, gp.nll, gp.jitter())
        .with("prior_mean", gp.standardizer.inverse(gp.constant))
        .with("pde_relative_noise", gp.hyper.log_relative.exp())
        .with("residual_points", gp.residual_rows())
}

/// The pde's targets' spread under the pde model's prior and the bound the check holds it
/// to.
fn with_target_spread(diagnostics: Diagnostics, with_pde: &PdeGp) -> Diagnostics {
    match with_pde.target_spread {
        Some(t) => diagnostics
            .with("pde_target_spread", t.mean_square)
            .with("pde_target_bound", t.quantile(1.0 - TARGET_LEVEL)),
        None => diagnostics,
    }
}

/// The objective's fitted hyperparameters, of whichever GP models it.
enum Optimum {
    Plain(Hyper),
    Physics(PdeHyper),
}

/// `f(mean, std)` of `model`'s prediction at `u` (the data's units) and its gradient in `u`:
/// the prediction's gradient is exact, `f`'s two partial derivatives central differences
/// (cheap, and accurate for the smooth acquisitions here, whose closed forms switch to
/// asymptotic series in the tails).
fn with_gradient(
    model: &dyn GpPosterior,
    u: &[f64],
    f: impl Fn(f64, f64) -> f64,
) -> (f64, Vec<f64>) {
    let g = model.predict_gradient(u);
    let scale = model.standardizer().std;
    let (mean, sd) = (
        model.standardizer().inverse(g.mean),
        g.variance.sqrt() * scale,
    );
    let value = f(mean, sd);
    let h = 1e-6 * sd.max(1e-9 * scale);
    let by_mean = (f(mean + h, sd) - f(mean - h, sd)) / (2.0 * h);
    let by_sd = match sd > h {
        true => (f(mean, sd + h) - f(mean, sd - h)) / (2.0 * h),
        false => (f(mean, sd + h) - value) / h,
    };
    // ∂sd/∂u = scale ∂v/∂u / (2 √v), none where the variance vanishes.
    let sd_slope = match g.variance > 0.0 {
        true => scale / (2.0 * g.variance.sqrt()),
        false => 0.0,
    };
    let grad = (g.d_mean.iter().zip(&g.d_variance))
        .map(|(dm, dv)| by_mean * scale * dm + by_sd * sd_slope * dv)
        .collect();
    (value, grad)
}

/// A fit's hyperparameters and likelihood, as every GP step reports them.
fn hyper_diagnostics(hyper: &crate::surrogates::gp::Hyper, nll: f64, jitter: f64) -> Diagnostics {
    let lengthscales: Vec<f64> = hyper.log_lengthscales.iter().map(|l| l.exp()).collect();
    Diagnostics::default()
        .with("lengthscales", lengthscales)
        .with("noise_variance", hyper.log_noise.exp())
        .with("signal_variance", hyper.log_signal.exp())
        .with("nll", nll)
        .with("jitter", jitter)
}

/// Where this module's errors arise, for their messages.
const PART: &str = "Gaussian process";

impl Strategy for GpBo {
    fn name(&self) -> &'static str {
        if self.physics.is_some() {
            return "physics-gp";
        }
        match self.acquisition {
            GpAcquisition::ExpectedImprovement => "gp-ei",
            GpAcquisition::ConfidenceBound => "gp-ucb",
            GpAcquisition::ThompsonSampling => "gp-ts",
        }
    }

    fn known_noise(&mut self, noise: &NoiseModel) {
        self.known_noise = Some(noise.clone());
    }

    /// Every GP's last hyperparameters, where its next fit starts.
    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        let saved = Saved {
            objective: self.previous.objective.as_ref().map(Hyper::pack),
            physics: (self.physics.as_ref())
                .and_then(|p| p.previous.as_ref())
                .map(PdeHyper::pack),
            constraints: self.previous.constraints.iter().map(Hyper::pack).collect(),
            record: (self.physics.as_ref()).map_or_else(Record::default, |p| p.record.clone()),
        };
        if saved.objective.is_none() && saved.physics.is_none() {
            return Ok(None);
        }
        let bytes =
            serde_json::to_vec(&saved).map_err(|e| StrategyError::unusable(PART, e.to_string()))?;
        Ok(Some(bytes))
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        let unreadable =
            || StrategyError::unusable(PART, "its saved hyperparameters do not fit the problem");
        let saved = match saved {
            None => Saved {
                objective: None,
                physics: None,
                constraints: Vec::new(),
                record: Record::default(),
            },
            Some(bytes) => match serde_json::from_slice::<Saved>(&bytes) {
                Ok(saved) => saved,
                // Runs journaled before the plain GPs were warm-started saved the
                // physics-informed GP's parameters alone.
                Err(_) => Saved {
                    objective: None,
                    physics: Some(serde_json::from_slice(&bytes).map_err(|_| unreadable())?),
                    constraints: Vec::new(),
                    record: Record::default(),
                },
            },
        };
        let plain = |v: &Vec<f64>| Hyper::from_packed(v).ok_or_else(unreadable);
        self.previous = Previous {
            objective: saved.objective.as_ref().map(plain).transpose()?,
            constraints: saved
                .constraints
                .iter()
                .map(plain)
                .collect::<Result<_, _>>()?,
        };
        if let Some(physics) = &mut self.physics {
            physics.previous = (saved.physics.as_deref())
                .map(|v| PdeHyper::from_packed(v).ok_or_else(unreadable))
                .transpose()?;
            physics.record = saved.record;
        }
        Ok(())
    }

    fn predict(
        &mut self,
        _space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<f64>>, StrategyError> {
        // A picture's fit does not move where the next proposal's fit starts.
        let (objective, _, _) = self.fit_objective(history, rng)?;
        let gp = objective.model();
        Ok(Some(points.iter().map(|u| gp.predict(u).0).collect()))
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let d = space.dim();
        let clock = std::time::Instant::now();
        let x: Vec<Vec<f64>> = history.iter().map(|o| o.unit.clone()).collect();
        if let Some(physics) = self.prequential() {
            physics.record.score(history);
        }
        let (fit, fitted, optimum) = self.fit_objective(history, rng)?;
        let objective = fit.model();
        self.remember(optimum);
        let k = history.first().map_or(0, |o| o.constraints.len());
        let constraints = (0..k)
            .map(|c| {
                let v: Vec<f64> = history.iter().map(|o| o.constraints[c]).collect();
                let starts = Starts {
                    previous: self.previous.constraints.get(c),
                    restarts: self.restarts,
                };
                let noise =
                    (self.known_noise.as_ref()).and_then(|n| n.constraint_std.get(c).copied());
                GpModel::fit(self.model, &x, &v, starts, noise, rng).within(PART)
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.previous.constraints = constraints.iter().map(|g| g.hyper.clone()).collect();
        let train_seconds = clock.elapsed().as_secs_f64();
        let feasibility = |u: &[f64]| -> f64 {
            constraints
                .iter()
                .map(|g| {
                    let (m, s) = g.predict(u);
                    probability_nonpositive(m, s)
                })
                .product()
        };
        // Each point's log probability of satisfying every constraint, at many points.
        let log_feasibility_many = |points: &[Vec<f64>]| -> Vec<f64> {
            let mut total = vec![0.0; points.len()];
            for g in &constraints {
                for (t, (m, s)) in total.iter_mut().zip(g.predict_batch(points)) {
                    *t += log_probability_nonpositive(m, s);
                }
            }
            total
        };
        // Incumbent: the best posterior mean among feasible observations (robust to noise).
        let incumbent = history
            .iter()
            .filter(|o| o.is_feasible())
            .map(|o| objective.predict_mean(&o.unit))
            .min_by(f64::total_cmp);
        let t = history.len() as f64;
        let beta = self.beta.unwrap_or_else(|| {
            0.2 * 2.0 * (d as f64 * t * t * std::f64::consts::PI.powi(2) / 0.6).ln()
        });
        let faces = self.physics.as_ref().is_some_and(|p| p.faces);
        let domain = self.search.domain(history, d).on_faces_if(faces);
        let (unit, value) = match self.acquisition {
            GpAcquisition::ExpectedImprovement => {
                // Log EI plus the constraints' log probabilities: the same maximizer as
                // EI × PoF, without the underflow that flattens EI far from the incumbent.
                let score = |u: &[f64]| -> Option<(f64, Vec<f64>)> {
                    let mut total = match incumbent {
                        Some(best) => {
                            with_gradient(objective, u, |m, s| log_expected_improvement(best, m, s))
                        }
                        None => (0.0, vec![0.0; u.len()]),
                    };
                    for g in &constraints {
                        let (v, grad) = with_gradient(g, u, log_probability_nonpositive);
                        total.0 += v;
                        total.1.iter_mut().zip(grad).for_each(|(a, b)| *a += b);
                    }
                    Some(total)
                };
                let screen = |points: &[Vec<f64>]| -> Vec<f64> {
                    let mut total = log_feasibility_many(points);
                    if let Some(best) = incumbent {
                        let predictions = objective.predict_batch(points);
                        for (t, (m, s)) in total.iter_mut().zip(predictions) {
                            *t += log_expected_improvement(best, m, s);
                        }
                    }
                    total
                };
                let (unit, log_value) = maximize_smooth(&score, &screen, &domain, self.search, rng);
                (unit, log_value.exp())
            }
            GpAcquisition::ConfidenceBound => {
                // The bound in standardized units; points unlikely to be feasible rank after
                // every likely one.
                let scale = objective.standardizer().std;
                let bound =
                    |m: f64, s: f64| beta.sqrt() * s / scale - objective.standardizer().forward(m);
                let penalty = |feasible: f64| if feasible < 0.5 { 1e6 } else { 0.0 };
                let score = |u: &[f64]| -> Option<(f64, Vec<f64>)> {
                    let (lcb, grad) = with_gradient(objective, u, bound);
                    Some((lcb - penalty(feasibility(u)), grad))
                };
                let screen = |points: &[Vec<f64>]| -> Vec<f64> {
                    let predictions = objective.predict_batch(points);
                    let feasible = log_feasibility_many(points);
                    (predictions.into_iter().zip(feasible))
                        .map(|((m, s), f)| bound(m, s) - penalty(f.exp()))
                        .collect()
                };
                maximize_smooth(&score, &screen, &domain, self.search, rng)
            }
            GpAcquisition::ThompsonSampling => thompson(objective, &feasibility, &domain, rng)?,
        };
        let prequential = self.prequential();
        if let (
            Some(physics),
            Objective::Checked {
                with_pde, without, ..
            },
        ) = (prequential, &fit)
        {
            // Its observation comes after every real one there is now.
            let observed = history.iter().filter(|o| !o.fantasy).count();
            physics.record.expect(observed, &unit, with_pde, without);
        }
        Ok(Proposal {
            unit,
            diagnostics: domain.annotate(
                Diagnostics {
                    train_seconds: Some(train_seconds),
                    ..fitted
                }
                .with("acquisition", value)
                .with(
                    "beta",
                    (self.acquisition == GpAcquisition::ConfidenceBound).then_some(beta),
                ),
            ),
        })
    }
}

/// One joint posterior draw on Sobol candidates; the smallest among those likely feasible.
fn thompson(
    model: &dyn GpPosterior,
    feasibility: &dyn Fn(&[f64]) -> f64,
    domain: &Domain,
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<f64>, f64), StrategyError> {
    let seed = rng.random::<u64>();
    let flat = domain.candidates(TS_CANDIDATES, seed);
    let points: Vec<Vec<f64>> = flat.chunks(domain.d).map(<[f64]>::to_vec).collect();
    let (means, cov): (Vec<f64>, Mat<f64>) = model.joint(&points);
    let spd = crate::surrogates::dense::Spd::new(&cov, "posterior covariance").within(PART)?;
    let z: Vec<f64> = (0..points.len())
        .map(|_| rng.sample(StandardNormal))
        .collect();
    let l = spd.lower_factor();
    let mut best = (0, f64::INFINITY);
    for i in 0..points.len() {
        let draw = means[i] + (0..=i).map(|j| l[(i, j)] * z[j]).sum::<f64>();
        let penalized = if feasibility(&points[i]) < 0.5 {
            f64::INFINITY
        } else {
            draw
        };
        if penalized < best.1 {
            best = (i, penalized);
        }
    }
    if !best.1.is_finite() {
        best.0 = (0..points.len())
            .max_by(|&a, &b| feasibility(&points[a]).total_cmp(&feasibility(&points[b])))
            .unwrap_or(0);
    }
    Ok((points[best.0].clone(), model.standardizer().inverse(best.1)))
}
