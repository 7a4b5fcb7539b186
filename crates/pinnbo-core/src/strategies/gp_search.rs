//! What every GP method (gp-ei, gp-ucb, gp-ts, physics-gp, gp-ei with several objectives)
//! does once its objective's model is fitted: the constraints' GPs, the criterion and its
//! search ([`GpSearch`]), and the GPs' saved optima ([`Saved`]).
//!
//! With constraints, EI is constrained EI: one GP per constraint, EI times the probability
//! that every constraint holds, the incumbent the best feasible observation; before any
//! feasible observation it maximizes that probability alone. UCB and TS rank points whose
//! feasibility probability is below one half after all others.

use crate::acquisition::criteria::GpModels;
use crate::acquisition::Search;
use crate::numerics::warp::PowerWarp;
use crate::oracle::NoiseModel;
use crate::space::Space;
use crate::strategies::settings;
use crate::strategies::{Diagnostics, Observed, Proposal, StrategyError, Within};
use crate::surrogates::gp::{Categorical, GpModel, GpSpec, Hyper, Kernel};
use crate::surrogates::{GpPosterior, KnownNoise, Starts};
use pinnbo_dsl::choices::{self, Criterion};
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What every GP method shares beyond its objective's model: the constraints' GPs, the
/// criterion and its search.
pub struct GpSearch {
    pub criterion: Criterion,
    /// The plain GPs' model: every constraint's, and the objective's for gp-ei, gp-ucb and
    /// gp-ts; physics-gp reads its prior and mean.
    pub model: GpSpec,
    pub restarts: usize,
    pub search: Search,
    /// UCB's β; by default β_t = 0.2 · 2 log(d t² π² / 0.6) (Srinivas et al. with δ = 0.1,
    /// scaled down as is usual in practice).
    pub beta: Option<f64>,
    /// End the run once EI falls below this share of the observations' spread (`stop`).
    pub stop: Option<f64>,
    /// Each constraint's last fitted hyperparameters, where its next fit starts.
    previous_constraints: Vec<Hyper>,
    /// The observations' known noise (`noise std ..`), held fixed in every fit.
    known_noise: Option<NoiseModel>,
    /// How the objectives' values are modelled (`warp`); None for physics-gp.
    warp: Option<choices::Warp>,
}

impl GpSearch {
    /// The shared settings of a GP method whose criterion is `criterion` and whose plain GPs
    /// use `kernel` over the variables of `problem`.
    pub(crate) fn from_settings(
        s: &MethodSettings,
        criterion: Criterion,
        kernel: Kernel,
        problem: &Problem,
    ) -> Self {
        let categorical = problem.coords.iter().map(|c| c.is_categorical());
        GpSearch {
            criterion,
            model: GpSpec {
                kernel,
                prior: s.choice::<choices::Prior>("prior").into(),
                mean: s.choice::<choices::Mean>("mean").into(),
                categorical: Categorical(categorical.collect()),
            },
            restarts: s.count("restarts"),
            // A stationary GP's mean and variance level off at the prior away from the data,
            // so its acquisition stays interior in high dimension without a trust region
            // (the table's default region is `global`). Thompson sampling draws on its own
            // candidates: only its region is a setting.
            search: match criterion {
                Criterion::Ts => Search {
                    region: s.choice("region"),
                    ..Search::default()
                },
                _ => settings::search(s),
            },
            beta: match criterion {
                Criterion::Ucb => s.computed_number("beta"),
                _ => None,
            },
            stop: match criterion {
                Criterion::Ei => s.computed_number("stop"),
                _ => None,
            },
            previous_constraints: Vec::new(),
            known_noise: None,
            // Only the plain GP methods have the setting; physics-gp's pde is linear in the
            // values themselves.
            warp: (s.info.setting("warp").is_some()).then(|| s.choice::<choices::Warp>("warp")),
        }
    }

    /// The transform of one objective's `values` (observed, fantasies left out) for the
    /// fit: fitted with `warp power` unless a noise level above 0 is known (its standard
    /// deviation is in the values' own units), and with `warp auto` where the values are
    /// exact (a known noise of 0); else the identity.
    pub(crate) fn warp_for(&self, values: &[f64]) -> PowerWarp {
        let known = self.known_noise.as_ref().map(|n| n.objective_std);
        match self.warp {
            Some(choice) => PowerWarp::chosen(choice, known, values),
            None => PowerWarp::Identity,
        }
    }

    /// `history` with each objective's values warped by its own transform
    /// ([`GpSearch::warp_for`]), and the transforms, the first objective's first. Told
    /// standard errors are in the values' own units, so a history with any keeps them
    /// unwarped, as a known noise above 0 does.
    pub(crate) fn warped(&self, history: &[Observed]) -> (Vec<Observed>, Vec<PowerWarp>) {
        let told = history.iter().any(|o| o.sems.iter().any(Option::is_some));
        crate::history::warped(history, |values| match told {
            true => PowerWarp::Identity,
            false => self.warp_for(values),
        })
    }

    /// The observations' known noise, held fixed in every fit from now on.
    pub(crate) fn known_noise(&mut self, noise: &NoiseModel) {
        self.known_noise = Some(noise.clone());
    }

    /// The known noise's standard deviation of the objective's observations, if stated.
    pub(crate) fn objective_noise(&self) -> Option<f64> {
        self.known_noise.as_ref().map(|n| n.objective_std)
    }

    /// The fit of the objective's plain GP to `history`, starting from `previous` and from
    /// `restarts` seeded starts ([`GpSearch::fit_gp`]).
    pub(crate) fn fit_plain(
        &self,
        history: &[Observed],
        previous: Option<&Hyper>,
        restarts: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<GpModel, StrategyError> {
        let starts = Starts { previous, restarts };
        let noise = self.objective_noise();
        self.fit_gp(history, |o| (o.objective(), o.sem(0)), starts, noise, rng)
    }

    /// A GP of `value` over `history` (each observation's value and its told standard
    /// error, if any): its hyperparameters fitted to the real observations alone, then
    /// conditioned on the pending points' stand-ins as well, which shape the acquisition
    /// and move no hyperparameter (a liar's value, the worst so far, would drag the length
    /// scales and the noise towards explaining it).
    pub(crate) fn fit_gp(
        &self,
        history: &[Observed],
        value: impl Fn(&Observed) -> (f64, Option<f64>),
        starts: Starts<Hyper>,
        noise: Option<f64>,
        rng: &mut ChaCha8Rng,
    ) -> Result<GpModel, StrategyError> {
        let real: Vec<&Observed> = history.iter().filter(|o| !o.fantasy).collect();
        let pending = !real.is_empty() && real.len() < history.len();
        let columns = |set: &[&Observed]| {
            let x: Vec<Vec<f64>> = set.iter().map(|o| o.unit.clone()).collect();
            let (y, sems): (Vec<f64>, Vec<Option<f64>>) = set.iter().map(|o| value(o)).unzip();
            (x, y, sems)
        };
        let all: Vec<&Observed> = history.iter().collect();
        let (x, y, sems) = columns(if pending { &real } else { &all });
        let known = KnownNoise { std: noise, sems };
        let gp = GpModel::fit(&self.model, &x, &y, starts, &known, rng).within(PART)?;
        if !pending {
            return Ok(gp);
        }
        let (x, y, sems) = columns(&all);
        gp.with_more(&self.model, &x, (&y, &sems)).within(PART)
    }

    /// Each constraint's GP fitted to `history` ([`GpSearch::fit_gp`]), each from its last
    /// optimum (kept for the next fit).
    pub(crate) fn fit_constraints(
        &mut self,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Vec<GpModel>, StrategyError> {
        let k = history.first().map_or(0, |o| o.constraints.len());
        let constraints = (0..k)
            .map(|c| {
                let starts = Starts {
                    previous: self.previous_constraints.get(c),
                    restarts: self.restarts,
                };
                let noise =
                    (self.known_noise.as_ref()).and_then(|n| n.constraint_std.get(c).copied());
                self.fit_gp(history, |o| (o.constraints[c], None), starts, noise, rng)
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.previous_constraints = constraints.iter().map(|g| g.hyper.clone()).collect();
        Ok(constraints)
    }

    /// Each constraint's GP's interval of about 95% at unit-cube `points` (one list per
    /// constraint), fitted to `history` as a step fits them, without moving where the next
    /// step's fits start.
    pub(crate) fn constraint_intervals(
        &mut self,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Vec<Vec<crate::strategies::Interval>>, StrategyError> {
        let kept = self.previous_constraints.clone();
        let fitted = self.fit_constraints(history, rng);
        self.previous_constraints = kept;
        let identity = PowerWarp::Identity;
        Ok((fitted?.iter())
            .map(|gp| {
                points
                    .iter()
                    .map(|u| interval(gp.predict(u), &identity))
                    .collect()
            })
            .collect())
    }

    /// The rest of a step once the objective is fitted: each constraint's GP, then the
    /// criterion maximized over the box (or its faces) and over `space`'s integers and levels.
    pub(crate) fn propose(
        &mut self,
        objective: FittedObjective,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let FittedObjective {
            model: objective,
            diagnostics: fitted,
            faces,
            clock,
        } = objective;
        let d = history.first().map_or(0, |o| o.unit.len());
        let constraints = self.fit_constraints(history, rng)?;
        let train_seconds = clock.elapsed().as_secs_f64();
        let models = GpModels {
            objective,
            constraints: &constraints,
        };
        let t = history.len() as f64;
        let beta = self.beta.unwrap_or_else(|| {
            0.2 * 2.0 * (d as f64 * t * t * std::f64::consts::PI.powi(2) / 0.6).ln()
        });
        let domain = self.search.domain(history, space).on_faces_if(faces);
        let scale = objective.standardizer().std;
        let mut report = Diagnostics::default();
        let mut terminate = false;
        let mut improvement = None;
        let (unit, value) = match self.criterion {
            Criterion::Ei => {
                let feasible: Vec<&[f64]> = (history.iter())
                    .filter(|o| o.is_feasible())
                    .map(|o| o.unit.as_slice())
                    .collect();
                let incumbent = models.incumbent(&feasible);
                let noise = objective.noise_variance().sqrt() * scale;
                let (unit, value) = models.maximize_expected_improvement(
                    incumbent,
                    noise,
                    &domain,
                    self.search,
                    rng,
                );
                // Before any feasible point EI is the feasibility's probability alone.
                let relative = incumbent.map(|_| value / scale);
                terminate = (relative.zip(self.stop)).is_some_and(|(r, stop)| r < stop);
                improvement = relative;
                if repeats_an_observation(&unit, history, &objective.lengthscales()) {
                    // The best point is one the model already has: evaluating it again cannot
                    // lower the best value found, so the evaluation goes where the model knows
                    // least among the points that could.
                    let seen: Vec<&[f64]> = history.iter().map(|o| o.unit.as_slice()).collect();
                    let (unit, sd) =
                        models.maximize_uncertainty(incumbent, &seen, &domain, self.search, rng);
                    report = report.with("explored_std", sd);
                    (unit, value)
                } else {
                    (unit, value)
                }
            }
            Criterion::Ucb => models.maximize_confidence_bound(beta, &domain, self.search, rng),
            Criterion::Ts => models.thompson(&domain, rng)?,
        };
        Ok(Proposal {
            unit,
            diagnostics: domain.annotate(
                Diagnostics {
                    train_seconds: Some(train_seconds),
                    expected_improvement_relative: improvement,
                    ..fitted
                }
                .with("acquisition", value)
                .with("beta", (self.criterion == Criterion::Ucb).then_some(beta))
                .merge(report),
            ),
            terminate,
        })
    }

    /// `saved`'s optima with the constraints', as bytes.
    pub(crate) fn save<M: Serialize>(&self, saved: Saved<M>) -> Result<Vec<u8>, StrategyError> {
        let saved = Saved {
            constraints: self.previous_constraints.iter().map(Hyper::pack).collect(),
            ..saved
        };
        serde_json::to_vec(&saved).map_err(|e| StrategyError::unusable(PART, e.to_string()))
    }

    /// Reads what [`GpSearch::save`] saved (nothing: no fit yet), keeps the constraints'
    /// optima and hands back the rest.
    pub(crate) fn restore<M: DeserializeOwned + Default>(
        &mut self,
        saved: Option<Vec<u8>>,
    ) -> Result<Saved<M>, StrategyError> {
        let saved: Saved<M> = match saved {
            None => Saved::default(),
            Some(bytes) => serde_json::from_slice(&bytes).map_err(|_| unreadable())?,
        };
        self.previous_constraints = (saved.constraints.iter())
            .map(|v| Hyper::from_packed(v).ok_or_else(unreadable))
            .collect::<Result<_, _>>()?;
        Ok(saved)
    }
}

/// The objective's fitted model as a GP method hands it to [`GpSearch::propose`].
pub(crate) struct FittedObjective<'a> {
    pub model: &'a dyn GpPosterior,
    /// The fit's diagnostics, journaled with the proposal.
    pub diagnostics: Diagnostics,
    /// Search only the box's faces (a maximum principle puts the optimum there).
    pub faces: bool,
    /// When the step's fits began: its training time ends after the constraints' fits.
    pub clock: Instant,
}

/// Every GP's last optimum, packed, as saved beside the journal: the plain GP of the
/// objective (gp-ei's, gp-ucb's, gp-ts's, or physics-gp's pde-free model), the constraints',
/// and what one method adds (`method`, its fields written after these).
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct Saved<M> {
    pub objective: Option<Vec<f64>>,
    pub constraints: Vec<Vec<f64>>,
    #[serde(flatten)]
    pub method: M,
}

/// A packed optimum read back as hyperparameters.
pub(crate) fn unpacked(packed: Option<&[f64]>) -> Result<Option<Hyper>, StrategyError> {
    packed
        .map(|v| Hyper::from_packed(v).ok_or_else(unreadable))
        .transpose()
}

/// A prediction `(mean, sd)` of warped values as `(mean, lower, upper)` in the values' own
/// units: the warp is increasing, so the mean ± 2 sd maps to the interval's ends.
pub(crate) fn interval((mean, sd): (f64, f64), warp: &PowerWarp) -> (f64, f64, f64) {
    (
        warp.inverse(mean),
        warp.inverse(mean - 2.0 * sd),
        warp.inverse(mean + 2.0 * sd),
    )
}

/// The error of saved hyperparameters that do not fit the problem.
pub(crate) fn unreadable() -> StrategyError {
    StrategyError::unusable(PART, "its saved hyperparameters do not fit the problem")
}

/// The history's points and objective values.
pub(crate) fn points_and_values(history: &[Observed]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let x = history.iter().map(|o| o.unit.clone()).collect();
    let y = history.iter().map(Observed::objective).collect();
    (x, y)
}

/// The objective's known noise over `history`: the stated level and the told standard
/// errors.
pub(crate) fn objective_known_noise(gp: &GpSearch, history: &[Observed]) -> KnownNoise {
    KnownNoise {
        std: gp.objective_noise(),
        sems: crate::history::told_sems(history, 0),
    }
}

/// A plain GP fit's diagnostics: its hyperparameters, likelihood and prior mean.
pub(crate) fn plain_diagnostics(gp: &GpModel) -> Diagnostics {
    hyper_diagnostics(&gp.hyper, gp.nll, gp.jitter())
        .with("prior_mean", gp.standardizer.inverse(gp.constant))
}

/// A fit's hyperparameters and likelihood, as every GP step reports them.
pub(crate) fn hyper_diagnostics(hyper: &Hyper, nll: f64, jitter: f64) -> Diagnostics {
    let lengthscales: Vec<f64> = hyper.log_lengthscales.iter().map(|l| l.exp()).collect();
    Diagnostics::default()
        .with("lengthscales", lengthscales)
        .with("noise_variance", hyper.log_noise.exp())
        .with("signal_variance", hyper.log_signal.exp())
        .with("nll", nll)
        .with("jitter", jitter)
}

/// A proposal closer than this many length scales (in every coordinate) to an observed point
/// is that point again: the kernel's correlation between them is 1 to within about 1e-6.
const REPEAT: f64 = 1e-3;

/// Whether `unit` is, to the model with these length scales, a point already observed.
fn repeats_an_observation(unit: &[f64], history: &[Observed], lengthscales: &[f64]) -> bool {
    history.iter().any(|o| {
        (o.unit.iter().zip(unit).zip(lengthscales)).all(|((a, b), l)| (a - b).abs() < REPEAT * l)
    })
}

/// Where this module's errors arise, for their messages.
pub(crate) const PART: &str = "Gaussian process";
