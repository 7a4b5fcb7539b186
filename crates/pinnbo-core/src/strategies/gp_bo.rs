//! GP-EI, GP-UCB and GP-TS: the Gaussian-process baselines (docs/algorithms.md §6), and
//! [`GpSearch`], what every GP method (physics-gp included) does once its objective's model
//! is fitted.
//!
//! With constraints, GP-EI is constrained EI: one GP per constraint, EI times the probability
//! that every constraint holds, the incumbent the best feasible observation; before any
//! feasible observation it maximizes that probability alone. UCB and TS rank points whose
//! feasibility probability is below one half after all others.

use crate::acquisition::criteria::GpModels;
use crate::acquisition::Search;
use crate::numerics::warp::PowerWarp;
use crate::oracle::NoiseModel;
use crate::space::Space;
use crate::strategies::settings;
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::gp::{Categorical, GpModel, GpSpec, Hyper, Kernel};
use crate::surrogates::pde_gp::PdeHyper;
use crate::surrogates::{GpPosterior, Starts};
use pinnbo_dsl::choices::{self, Criterion};
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand_chacha::ChaCha8Rng;
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
    /// ([`GpSearch::warp_for`]), and the transforms, the first objective's first.
    pub(crate) fn warped(&self, history: &[Observed]) -> (Vec<Observed>, Vec<PowerWarp>) {
        crate::history::warped(history, |values| self.warp_for(values))
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
    /// `restarts` seeded starts.
    pub(crate) fn fit_plain(
        &self,
        history: &[Observed],
        previous: Option<&Hyper>,
        restarts: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<GpModel, StrategyError> {
        let (x, y) = points_and_values(history);
        let starts = Starts { previous, restarts };
        GpModel::fit(&self.model, &x, &y, starts, self.objective_noise(), rng).within(PART)
    }

    /// Each constraint's GP fitted to `history`, each from its last optimum (kept for the
    /// next fit).
    pub(crate) fn fit_constraints(
        &mut self,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Vec<GpModel>, StrategyError> {
        let x: Vec<Vec<f64>> = history.iter().map(|o| o.unit.clone()).collect();
        let k = history.first().map_or(0, |o| o.constraints.len());
        let constraints = (0..k)
            .map(|c| {
                let v: Vec<f64> = history.iter().map(|o| o.constraints[c]).collect();
                let starts = Starts {
                    previous: self.previous_constraints.get(c),
                    restarts: self.restarts,
                };
                let noise =
                    (self.known_noise.as_ref()).and_then(|n| n.constraint_std.get(c).copied());
                GpModel::fit(&self.model, &x, &v, starts, noise, rng).within(PART)
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.previous_constraints = constraints.iter().map(|g| g.hyper.clone()).collect();
        Ok(constraints)
    }

    /// The rest of a step once `objective` is fitted (its fit's diagnostics `fitted`, begun
    /// at `clock`): each constraint's GP, then the criterion maximized over the box, or over
    /// its faces when `faces`, over `space`'s integers and levels.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn propose_with(
        &mut self,
        objective: &dyn GpPosterior,
        fitted: Diagnostics,
        faces: bool,
        space: &Space,
        history: &[Observed],
        clock: Instant,
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
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
                let stop = (relative.zip(self.stop)).is_some_and(|(r, stop)| r < stop);
                report =
                    (report.with_some(IMPROVEMENT, relative)).with_some(STOP, stop.then_some(true));
                if repeats_an_observation(&unit, history, &objective.lengthscales()) {
                    // The best point is one the model already has: evaluating it again cannot
                    // lower the best value found, so the evaluation goes where the model knows
                    // least.
                    let (unit, sd) = models.maximize_uncertainty(&domain, self.search, rng);
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
                    ..fitted
                }
                .with("acquisition", value)
                .with("beta", (self.criterion == Criterion::Ucb).then_some(beta))
                .merge(report),
            ),
        })
    }

    /// What [`Strategy::state`] saves: every GP's last optimum, `objective`'s and
    /// `physics`'s the objective model's (whichever it is), and `record` physics-gp's.
    pub(crate) fn state(
        &self,
        objective: Option<&Hyper>,
        physics: Option<&PdeHyper>,
        record: crate::strategies::physics_gp::PredictionRecord,
    ) -> Result<Option<Vec<u8>>, StrategyError> {
        self.save(Saved {
            objective: objective.map(Hyper::pack),
            physics: physics.map(PdeHyper::pack),
            record,
            ..Saved::default()
        })
    }

    /// `saved` with the constraints' optima, as bytes; None before any objective was fitted.
    pub(crate) fn save(&self, saved: Saved) -> Result<Option<Vec<u8>>, StrategyError> {
        let saved = Saved {
            constraints: self.previous_constraints.iter().map(Hyper::pack).collect(),
            ..saved
        };
        if saved.objective.is_none() && saved.physics.is_none() {
            return Ok(None);
        }
        let bytes =
            serde_json::to_vec(&saved).map_err(|e| StrategyError::unusable(PART, e.to_string()))?;
        Ok(Some(bytes))
    }

    /// Reads what [`GpSearch::state`] saved, keeps the constraints' optima and hands back
    /// the rest.
    pub(crate) fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<Saved, StrategyError> {
        let saved = match saved {
            None => Saved::default(),
            Some(bytes) => match serde_json::from_slice::<Saved>(&bytes) {
                Ok(saved) => saved,
                // Runs journaled before the plain GPs were warm-started saved the
                // physics-informed GP's parameters alone.
                Err(_) => Saved {
                    physics: Some(serde_json::from_slice(&bytes).map_err(|_| unreadable())?),
                    ..Saved::default()
                },
            },
        };
        self.previous_constraints = (saved.constraints.iter())
            .map(|v| Hyper::from_packed(v).ok_or_else(unreadable))
            .collect::<Result<_, _>>()?;
        Ok(saved)
    }
}

/// Every GP's last optimum, packed, as saved with the journal.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Saved {
    /// The plain GP of the objective: gp-ei's, gp-ucb's, gp-ts's, or physics-gp's pde-free
    /// model.
    pub objective: Option<Vec<f64>>,
    /// physics-gp's pde model.
    pub physics: Option<Vec<f64>>,
    pub constraints: Vec<Vec<f64>>,
    /// With several objectives, the GPs of those after the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_objectives: Vec<Vec<f64>>,
    /// physics-gp's prequential record (absent from journals written before it).
    #[serde(default)]
    pub record: crate::strategies::physics_gp::PredictionRecord,
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
    let y = history.iter().map(|o| o.objective).collect();
    (x, y)
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

/// The diagnostic of an EI step: the largest (augmented) expected improvement as a share of
/// the observations' standard deviation, what the run's convergence report reads.
pub const IMPROVEMENT: &str = "expected_improvement_relative";

/// Below this share of the observations' standard deviation, no point's expected improvement
/// is worth reporting: the run counts as converged (docs/algorithms.md §6).
pub const CONVERGED: f64 = 1e-3;

/// A proposal closer than this many length scales (in every coordinate) to an observed point
/// is that point again: the kernel's correlation between them is 1 to within about 1e-6.
const REPEAT: f64 = 1e-3;

/// Whether `unit` is, to the model with these length scales, a point already observed.
fn repeats_an_observation(unit: &[f64], history: &[Observed], lengthscales: &[f64]) -> bool {
    history.iter().any(|o| {
        (o.unit.iter().zip(unit).zip(lengthscales)).all(|((a, b), l)| (a - b).abs() < REPEAT * l)
    })
}

/// The diagnostic of a step that asks the run to end: its expected improvement fell below the
/// method's `stop` setting.
pub const STOP: &str = "stop";

/// Where this module's errors arise, for their messages.
pub(crate) const PART: &str = "Gaussian process";

/// GP-EI, GP-UCB or GP-TS.
pub struct GpBo {
    pub gp: GpSearch,
    /// The objective's last fitted hyperparameters, where its next fit starts.
    previous: Option<Hyper>,
}

impl GpBo {
    /// The GP method called `s.info.name` (`gp-ei`, `gp-ucb`, `gp-ts`) with its settings,
    /// for `problem`.
    pub fn new(s: &MethodSettings, problem: &Problem) -> GpBo {
        let criterion = match s.info.name {
            "gp-ucb" => Criterion::Ucb,
            "gp-ts" => Criterion::Ts,
            _ => Criterion::Ei,
        };
        let kernel = s.choice::<choices::Kernel>("kernel").into();
        GpBo {
            gp: GpSearch::from_settings(s, criterion, kernel, problem),
            previous: None,
        }
    }

    /// The objective's GP fitted to `history`, with its fit's diagnostics.
    fn fit_objective(
        &self,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<(GpModel, Diagnostics), StrategyError> {
        let gp = (self.gp).fit_plain(history, self.previous.as_ref(), self.gp.restarts, rng)?;
        let diagnostics = plain_diagnostics(&gp);
        Ok((gp, diagnostics))
    }
}

impl Strategy for GpBo {
    fn name(&self) -> &'static str {
        match self.gp.criterion {
            Criterion::Ei => "gp-ei",
            Criterion::Ucb => "gp-ucb",
            Criterion::Ts => "gp-ts",
        }
    }

    fn known_noise(&mut self, noise: &NoiseModel) {
        self.gp.known_noise(noise);
    }

    /// Every GP's last hyperparameters, where its next fit starts.
    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        (self.gp).state(self.previous.as_ref(), None, Default::default())
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        let saved = self.gp.restore(saved)?;
        self.previous = (saved.objective.as_deref())
            .map(|v| Hyper::from_packed(v).ok_or_else(unreadable))
            .transpose()?;
        Ok(())
    }

    fn predict_interval(
        &mut self,
        _space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<crate::strategies::Interval>>, StrategyError> {
        // A picture's fit does not move where the next proposal's fit starts.
        let (history, warps) = self.gp.warped(history);
        let warp = warps.first().copied().unwrap_or(PowerWarp::Identity);
        let (gp, _) = self.fit_objective(&history, rng)?;
        Ok(Some(
            (points.iter())
                .map(|u| interval(gp.predict(u), &warp))
                .collect(),
        ))
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let clock = Instant::now();
        let (history, warps) = self.gp.warped(history);
        let history = &history[..];
        let (gp, fitted) = self.fit_objective(history, rng)?;
        let fitted = fitted.with_some("warp", warps.first().and_then(PowerWarp::exponent));
        self.previous = Some(gp.hyper.clone());
        self.gp
            .propose_with(&gp, fitted, false, space, history, clock, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acquisition::criteria::GpModels;
    use crate::acquisition::domain::Domain;
    use pinnbo_dsl::{compile, Source};
    use rand::{Rng, SeedableRng};
    use rand_distr::StandardNormal;

    /// A noisy slope observed many times at its minimum, a corner of the box: plain EI asks
    /// for that corner again (its mean is lowest there and its spread never quite zero), while
    /// gp-ei, finding no expected improvement worth an evaluation, asks for a new point where
    /// the model knows least and says that it has converged.
    #[test]
    fn a_point_known_within_the_noise_is_not_evaluated_again() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut x: Vec<Vec<f64>> = (0..16).map(|i| vec![i as f64 / 15.0]).collect();
        x.extend((0..12).map(|_| vec![0.0]));
        let history: Vec<Observed> = (x.iter())
            .map(|u| Observed {
                objective: u[0] + 0.02 * rng.sample::<f64, _>(StandardNormal),
                constraints: Vec::new(),
                unit: u.clone(),
                proposed: true,
                fantasy: false,
                other_objectives: Vec::new(),
            })
            .collect();
        let text = "var x in [0, 1]\nminimize x\nmethod gp-ei\n";
        let problem = compile(&Source::new("slope.pde", text)).unwrap().problem;
        let mut gp_ei = GpBo::new(&MethodSettings::defaults("gp-ei"), &problem);
        // Plain EI on the same fit, from the same stream.
        let (gp, _) = gp_ei
            .fit_objective(&history, &mut ChaCha8Rng::seed_from_u64(2))
            .unwrap();
        let models = GpModels {
            objective: &gp,
            constraints: &[],
        };
        let units: Vec<&[f64]> = x.iter().map(Vec::as_slice).collect();
        let (plain, _) = models.maximize_expected_improvement(
            models.incumbent(&units),
            0.0,
            &Domain::cube(1),
            gp_ei.gp.search,
            &mut ChaCha8Rng::seed_from_u64(3),
        );
        assert_eq!(plain, [0.0], "plain EI asks for the corner again");
        let space = crate::space::Space::of(&problem);
        let proposal = gp_ei
            .propose(&space, &history, &mut ChaCha8Rng::seed_from_u64(2))
            .unwrap();
        assert!(proposal.unit[0] > 0.01, "{:?}", proposal.unit);
        let relative = proposal
            .diagnostics
            .get(IMPROVEMENT)
            .and_then(|v| v.as_f64());
        assert!(relative.unwrap() < CONVERGED, "{relative:?}");
        assert!(proposal.diagnostics.get("explored_std").is_some());
    }

    /// The picture's interval of warped values (exponentially skewed): around its mean,
    /// narrow at an observation and wide between far-apart ones.
    #[test]
    fn the_predictive_interval_holds_the_mean_and_widens_away_from_the_data() {
        let values = |u: f64| (8.0 * u).exp();
        let history: Vec<Observed> = ([0.0, 0.1, 0.2, 0.8, 0.9, 1.0].iter())
            .map(|u| Observed::initial(values(*u), Vec::new(), vec![*u]))
            .collect();
        let text = "var x in [0, 1]\nminimize x\nmethod gp-ei { warp power }\n";
        let problem = compile(&Source::new("skew.pde", text)).unwrap().problem;
        let space = Space::of(&problem);
        // The file's `warp power`: without a known noise `auto` would leave the values.
        let mut gp_ei = crate::strategies::registry::strategy(&problem, "gp-ei", 0).unwrap();
        let points = [vec![0.1], vec![0.5]];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let got = (gp_ei.predict_interval(&space, &history, &points, &mut rng))
            .unwrap()
            .unwrap();
        for (mean, lower, upper) in &got {
            assert!(lower <= mean && mean <= upper, "{got:?}");
        }
        let width = |k: usize| got[k].2 - got[k].1;
        assert!(width(1) > 10.0 * width(0), "{got:?}");
    }
}
