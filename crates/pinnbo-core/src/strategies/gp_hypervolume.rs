//! gp-ei with several objectives: one GP per objective and per constraint, and the next
//! point where the expected improvement of the feasible front's hypervolume, times the
//! probability that every constraint holds, is largest (docs/decisions.md "Several
//! objectives").

use crate::acquisition::criteria::GpModels;
use crate::acquisition::maximize;
use crate::history::Observed;
use crate::numerics::pareto::{
    default_reference, expected_improvement_2d, mean_improvement, non_dominated,
};
use crate::numerics::warp::PowerWarp;
use crate::oracle::minimized_reference;
use crate::oracle::NoiseModel;
use crate::space::Space;
use crate::strategies::gp_search::{
    interval, plain_diagnostics, unreadable, GpSearch, Saved, PART,
};
use crate::strategies::{Diagnostics, Proposal, Strategy, StrategyError};
use crate::surrogates::gp::{GpModel, Hyper};
use crate::surrogates::{GpPosterior, Starts};
use pinnbo_dsl::choices::Criterion;
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use std::time::Instant;

/// Standard normal draws of the sampled criterion (three objectives or more, or warped
/// values).
const SAMPLES: usize = 128;

/// The journal's diagnostic: the hypervolume of the observed feasible front.
pub const HYPERVOLUME: &str = "hypervolume";

pub struct GpHypervolume {
    gp: GpSearch,
    /// Each objective's last fitted hyperparameters, where its next fit starts.
    previous: Vec<Hyper>,
    /// The file's reference point as minimized; None: [`default_reference`] of the initial
    /// design.
    reference: Option<Vec<f64>>,
    /// Fixed draws for the sampled criterion (the same at every candidate and step).
    samples: Vec<Vec<f64>>,
}

impl GpHypervolume {
    pub fn new(s: &MethodSettings, problem: &Problem) -> GpHypervolume {
        let kernel = s.choice::<pinnbo_dsl::choices::Kernel>("kernel").into();
        let m = problem.objectives().count();
        let reference = minimized_reference(problem);
        let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_e4f1);
        let samples = (0..SAMPLES)
            .map(|_| (0..m).map(|_| rng.sample(StandardNormal)).collect())
            .collect();
        GpHypervolume {
            gp: GpSearch::from_settings(s, Criterion::Ei, kernel, problem),
            previous: Vec::new(),
            reference,
            samples,
        }
    }

    /// The reference point as minimized: the file's, or the default from the observations
    /// outside the strategy's steps (the initial design and imported rows).
    pub fn reference(&self, history: &[Observed]) -> Option<Vec<f64>> {
        if let Some(r) = &self.reference {
            return Some(r.clone());
        }
        let design: Vec<Vec<f64>> = (history.iter())
            .filter(|o| !o.proposed && !o.fantasy)
            .map(|o| o.objectives.clone())
            .collect();
        default_reference(&design)
    }

    fn fit_objectives(
        &self,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Vec<GpModel>, StrategyError> {
        let m = history.first().map_or(0, |o| o.objectives.len());
        (0..m)
            .map(|k| {
                let starts = Starts {
                    previous: self.previous.get(k),
                    restarts: self.gp.restarts,
                };
                let noise = self.gp.objective_noise();
                (self.gp).fit_gp(history, |o| (o.objectives[k], o.sem(k)), starts, noise, rng)
            })
            .collect()
    }
}

/// What the method saves beside every GP method's optima ([`Saved`]): the GPs of the
/// objectives after the first.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct OtherObjectives {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    other_objectives: Vec<Vec<f64>>,
}

/// The feasible observations' non-dominated objective vectors (fantasies left out).
fn feasible_front(history: &[Observed]) -> Vec<Vec<f64>> {
    let values: Vec<Vec<f64>> = (history.iter())
        .filter(|o| o.is_feasible() && !o.fantasy)
        .map(|o| o.objectives.clone())
        .collect();
    non_dominated(&values)
        .into_iter()
        .map(|i| values[i].clone())
        .collect()
}

impl Strategy for GpHypervolume {
    fn name(&self) -> &'static str {
        "gp-ei"
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let clock = Instant::now();
        let reference = self
            .reference(history)
            .ok_or_else(|| StrategyError::unusable(PART, "there are no observations"))?;
        // The hypervolume is the values' own (a warp would weigh the front's regions
        // differently): the front and the reference stay as observed, and each objective's
        // model, fitted to its warped values, is mapped back draw by draw.
        let front = feasible_front(history);
        let (history, warps) = self.gp.warped(history);
        let history = &history[..];
        let exact = warps.iter().all(|w| *w == PowerWarp::Identity) && warps.len() == 2;
        let objectives = self.fit_objectives(history, rng)?;
        self.previous = objectives.iter().map(|g| g.hyper.clone()).collect();
        let constraints = self.gp.fit_constraints(history, rng)?;
        let train_seconds = clock.elapsed().as_secs_f64();
        let models = GpModels {
            objective: &objectives[0],
            constraints: &constraints,
        };
        let score = |u: &[f64]| {
            let (mean, sd): (Vec<f64>, Vec<f64>) = objectives.iter().map(|g| g.predict(u)).unzip();
            let improvement = match exact {
                true => expected_improvement_2d(&front, &reference, &mean, &sd),
                false => {
                    let draws: Vec<Vec<f64>> = (self.samples.iter())
                        .map(|z| {
                            (0..mean.len())
                                .map(|k| warps[k].inverse(mean[k] + sd[k] * z[k]))
                                .collect()
                        })
                        .collect();
                    mean_improvement(&front, &reference, &draws)
                }
            };
            improvement * models.feasibility(u)
        };
        let domain = self.gp.search.domain(history, space);
        let (unit, value) = maximize(&score, &domain, self.gp.search, rng);
        let mut fitted = Diagnostics::default();
        for (k, g) in objectives.iter().enumerate() {
            let fit = serde_json::Value::Object(plain_diagnostics(g).to_map());
            fitted = fitted.with(&format!("objective_{}", k + 1), fit);
        }
        Ok(Proposal {
            unit,
            diagnostics: domain.annotate(
                Diagnostics {
                    train_seconds: Some(train_seconds),
                    ..fitted
                }
                .with("acquisition", value)
                .with("reference", reference),
            ),
            terminate: false,
        })
    }

    /// Exact values (the only kind with several objectives: a noise statement is refused)
    /// are held exact in every objective's fit, and warped by `warp auto`.
    fn known_noise(&mut self, noise: &NoiseModel) {
        self.gp.known_noise(noise);
    }

    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        let Some((first, others)) = self.previous.split_first() else {
            return Ok(None);
        };
        let saved = Saved {
            objective: Some(first.pack()),
            constraints: Vec::new(),
            method: OtherObjectives {
                other_objectives: others.iter().map(Hyper::pack).collect(),
            },
        };
        self.gp.save(saved).map(Some)
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        let saved: Saved<OtherObjectives> = self.gp.restore(saved)?;
        let others = &saved.method.other_objectives;
        self.previous = (saved.objective.iter().chain(others))
            .map(|v| Hyper::from_packed(v).ok_or_else(unreadable))
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    /// The first objective's, for pictures.
    fn predict_interval(
        &mut self,
        _space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<crate::strategies::Interval>>, StrategyError> {
        let (history, warps) = self.gp.warped(history);
        let objectives = self.fit_objectives(&history, rng)?;
        Ok(Some(
            (points.iter())
                .map(|u| interval(objectives[0].predict(u), &warps[0]))
                .collect(),
        ))
    }
}
