//! gp-ei and gp-ucb with sensors (composite Bayesian optimization, docs/dsl.md "Design
//! problems"): a plain GP of the field over its coordinates × the design, fitted to every
//! sensor value of every evaluation, and the objective read from it
//! ([`FieldObjective`]): EI below the best observed feasible objective (or the confidence
//! bound) of that distribution, times the constraints' probability of feasibility.

use crate::acquisition::criteria::{log_expected_improvement, GpModels};
use crate::acquisition::maximize_batch;
use crate::space::Space;
use crate::strategies::gp_search::{FittedObjective, GpSearch, PART};
use crate::strategies::{
    Diagnostics, FieldReport, Observed, Posterior, Proposal, StrategyError, Within,
};
use crate::surrogates::field_objective::{Distribution, FieldObjective, SAMPLES};
use crate::surrogates::gp::{Categorical, GpModel, GpSpec, Hyper};
use crate::surrogates::{log_normal_density, GpPosterior, KnownNoise, Starts};
use pinnbo_dsl::choices::Criterion;
use pinnbo_dsl::ir::{Expr, Sense};
use pinnbo_dsl::Problem;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// The objective's field as measured by its sensors, and the objective read from a model of
/// it.
pub struct SensedField {
    objective: FieldObjective,
    /// The field's name, each sensor place's name (`T@0.1`) and values, and each functional
    /// of the objective by its text and as read alone: what a report gives.
    field_name: String,
    sensor_places: Vec<(String, Vec<f64>)>,
    functionals: Vec<(String, FieldObjective)>,
    /// The field's coordinates: argument position, name, range.
    coords: Vec<(usize, String, f64, f64)>,
    /// Each sensor value of the objective's field: its index among an evaluation's sensor
    /// values, and its place (argument position, unit value) in the field's inputs.
    places: Vec<(usize, Vec<(usize, f64)>)>,
    spec: GpSpec,
    /// The field GP's last optimum, where its next fit starts.
    pub previous: Option<Hyper>,
}

impl SensedField {
    /// The model of `problem`'s objective field from its sensors, with the plain GPs' kernel,
    /// prior and mean of `gp`; None without sensors on the field the objective reads.
    pub fn new(problem: &Problem, gp: &GpSearch, seed: u64) -> Option<SensedField> {
        let minimized = match problem.objective.sense {
            Sense::Minimize => problem.objective.expr.clone(),
            Sense::Maximize => Expr::Neg(Box::new(problem.objective.expr.clone())),
        };
        let objective = FieldObjective::new(problem, &minimized, seed)?;
        let args = &problem.fields[objective.field].args;
        let names = problem.sensor_names();
        let mut places = Vec::new();
        let mut sensor_places = Vec::new();
        let mut k = 0;
        for s in &problem.sensors {
            for place in &s.places {
                if s.field == objective.field {
                    // The place's values in the field's order of its coordinates.
                    let ordered = (args.iter())
                        .filter(|c| problem.is_field_coord(**c))
                        .filter_map(|c| Some(place[s.coords.iter().position(|d| d == c)?]))
                        .collect();
                    sensor_places.push((names[k].clone(), ordered));
                    let at = (s.coords.iter().zip(place))
                        .map(|(&c, &v)| {
                            let coord = problem.coordinate(c);
                            let i = args.iter().position(|a| *a == c).unwrap_or(0);
                            (i, (v - coord.lo) / (coord.hi - coord.lo))
                        })
                        .collect();
                    places.push((k, at));
                }
                k += 1;
            }
        }
        if places.is_empty() {
            return None;
        }
        let categorical = args.iter().map(|&c| problem.coordinate(c).is_categorical());
        let spec = GpSpec {
            categorical: Categorical(categorical.collect()),
            ..gp.model.clone()
        };
        let functionals = (minimized.functionals().into_iter())
            .filter_map(|f| {
                let alone = Expr::Functional(Box::new(f));
                let text = problem.display(&alone).to_string();
                Some((text, FieldObjective::new(problem, &alone, seed)?))
            })
            .collect();
        let coords = (args.iter().enumerate())
            .filter(|(_, c)| problem.is_field_coord(**c))
            .map(|(i, &c)| {
                let coord = problem.coordinate(c);
                (i, coord.name.clone(), coord.lo, coord.hi)
            })
            .collect();
        Some(SensedField {
            field_name: problem.fields[objective.field].name.clone(),
            sensor_places,
            functionals,
            coords,
            objective,
            places,
            spec,
            previous: None,
        })
    }

    /// The field's GP fitted to every sensor value measured so far (fantasies measured
    /// nothing), from its last optimum.
    pub fn fit(
        &self,
        gp: &GpSearch,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<GpModel, StrategyError> {
        let (x, y) = self.rows(history);
        let starts = Starts {
            previous: self.previous.as_ref(),
            restarts: gp.restarts,
        };
        // Each sensor value has the objective's known noise (the same instrument).
        let noise = KnownNoise::level(gp.objective_noise());
        GpModel::fit(&self.spec, &x, &y, starts, &noise, rng).within(PART)
    }

    /// What `field` (a posterior of the field) says at the design `unit`: each sensor's
    /// place, each functional alone, and a grid over the coordinates.
    pub fn report(&self, field: &dyn GpPosterior, unit: &[f64]) -> FieldReport {
        let at = |place: &[(usize, f64)]| field.predict(&self.objective.input(unit, place));
        let sensors = (self.places.iter().zip(&self.sensor_places))
            .map(|((k, place), (name, values))| {
                let (mean, std) = at(place);
                Posterior {
                    name: name.clone(),
                    mean,
                    std,
                    sensor: Some((*k, values.clone())),
                }
            })
            .collect();
        let functionals = (self.functionals.iter())
            .map(|(name, f)| {
                let d = f.distribution(field, unit);
                Posterior {
                    name: name.clone(),
                    mean: d.mean(),
                    std: d.sd(),
                    sensor: None,
                }
            })
            .collect();
        let n = match self.coords.len() {
            1 => 101,
            2 => 41,
            _ => 0,
        };
        let mut nodes: Vec<Vec<f64>> = vec![Vec::new()];
        for _ in &self.coords {
            nodes = (nodes.iter())
                .flat_map(|node| {
                    (0..n).map(move |i| {
                        let mut next = node.clone();
                        next.push(i as f64 / (n.max(2) - 1) as f64);
                        next
                    })
                })
                .collect();
        }
        let grid = match n {
            0 => Vec::new(),
            _ => (nodes.iter())
                .map(|u| {
                    let place: Vec<(usize, f64)> = (self.coords.iter().zip(u))
                        .map(|((i, ..), v)| (*i, *v))
                        .collect();
                    let (mean, std) = at(&place);
                    let values = (self.coords.iter().zip(u))
                        .map(|((_, _, lo, hi), v)| lo + v * (hi - lo))
                        .collect();
                    (values, mean, std)
                })
                .collect(),
        };
        FieldReport {
            field: self.field_name.clone(),
            sensors,
            functionals,
            coords: (self.coords.iter())
                .map(|(_, name, lo, hi)| (name.clone(), *lo, *hi))
                .collect(),
            grid,
        }
    }

    /// The objective's mean and the ends of its ±2σ interval at each design of `points`
    /// (a picture's many points take the screening's fewer samples).
    pub fn intervals(
        &self,
        field: &dyn GpPosterior,
        points: &[Vec<f64>],
    ) -> Vec<crate::strategies::Interval> {
        (points.iter())
            .map(|u| {
                let d = self.distribution_with(field, u, SCREEN_SAMPLES);
                (d.mean(), d.mean() - 2.0 * d.sd(), d.mean() + 2.0 * d.sd())
            })
            .collect()
    }

    /// The field the objective reads.
    pub fn field(&self) -> pinnbo_dsl::ir::FieldId {
        self.objective.field
    }

    /// Every sensor value of the field measured so far (fantasies measured nothing) and
    /// where it was measured, as the field's unit inputs.
    pub fn rows(&self, history: &[Observed]) -> (Vec<Vec<f64>>, Vec<f64>) {
        self.rows_of(history.iter())
    }

    fn rows_of<'a>(
        &self,
        history: impl Iterator<Item = &'a Observed>,
    ) -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for o in history.filter(|o| !o.fantasy && !o.sensors.is_empty()) {
            for (k, place) in &self.places {
                x.push(self.objective.input(&o.unit, place));
                y.push(o.sensors[*k]);
            }
        }
        (x, y)
    }

    /// How well the objective read from a field model predicts each design's observed
    /// objective from the other designs' sensor values: the mean log density over the
    /// designs, each design's rows left out in turn and `condition` refitting the model to
    /// the others' (its hyperparameters held). A sampled objective is scored by its samples'
    /// mean and spread. None with fewer than three designs measured, or where a refit fails.
    pub fn objective_loo(&self, history: &[Observed], condition: &Condition<'_>) -> Option<f64> {
        let designs: Vec<&Observed> = (history.iter())
            .filter(|o| !o.fantasy && !o.sensors.is_empty() && o.objective().is_finite())
            .collect();
        if designs.len() < 3 {
            return None;
        }
        let scores = (0..designs.len())
            .into_par_iter()
            .map(|i| {
                let others = designs.iter().enumerate().filter(|(j, _)| *j != i);
                let (x, y) = self.rows_of(others.map(|(_, o)| *o));
                let model = condition(&x, &y)?;
                let dist = self.distribution(&*model, &designs[i].unit);
                let variance = dist.sd().powi(2).max(f64::MIN_POSITIVE);
                Some(log_normal_density(
                    designs[i].objective() - dist.mean(),
                    variance,
                ))
            })
            .collect::<Option<Vec<f64>>>()?;
        Some(scores.iter().sum::<f64>() / scores.len() as f64)
    }

    /// The objective's distribution at the design `unit`.
    pub fn distribution(&self, field: &dyn GpPosterior, unit: &[f64]) -> Distribution {
        self.objective.distribution(field, unit)
    }

    /// [`SensedField::distribution`] from the first `samples` draws where it is sampled.
    pub fn distribution_with(
        &self,
        field: &dyn GpPosterior,
        unit: &[f64],
        samples: usize,
    ) -> Distribution {
        self.objective.distribution_with(field, unit, samples)
    }

    /// The next design: the criterion of the objective read from the fitted field (`fitted`,
    /// with its fit's diagnostics), times the constraints' probability of feasibility; None
    /// before any feasible observation (the plain search then seeks feasibility).
    pub(crate) fn propose(
        &self,
        gp: &mut GpSearch,
        fitted: FittedObjective,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Proposal>, StrategyError> {
        let FittedObjective {
            model: field,
            diagnostics: fitted,
            clock,
            ..
        } = fitted;
        let real = || history.iter().filter(|o| !o.fantasy);
        let Some(best) = (real().filter(|o| o.is_feasible()))
            .map(Observed::objective)
            .min_by(f64::total_cmp)
        else {
            return Ok(None);
        };
        let constraints = gp.fit_constraints(history, rng)?;
        let train_seconds = clock.elapsed().as_secs_f64();
        let models = GpModels {
            objective: field,
            constraints: &constraints,
        };
        let t = history.len() as f64;
        let d = space.dim() as f64;
        let beta = gp
            .beta
            .unwrap_or_else(|| 0.2 * 2.0 * (d * t * t * std::f64::consts::PI.powi(2) / 0.6).ln());
        let criterion = gp.criterion;
        // Log EI plus the log probability of feasibility: the maximizer of EI × PoF without
        // the underflow that flattens EI far below the incumbent. Candidates are screened
        // with a few of the samples, the best scored with all.
        let score_with = |u: &[f64], samples: usize| -> f64 {
            let dist = self.objective.distribution_with(field, u, samples);
            let feasible = models.feasibility(u);
            match criterion {
                Criterion::Ucb => {
                    let penalty = if feasible < 0.5 { 1e6 } else { 0.0 };
                    -(dist.mean() - beta.sqrt() * dist.sd()) - penalty
                }
                _ => log_improvement(&dist, best) + feasible.max(f64::MIN_POSITIVE).ln(),
            }
        };
        let domain = gp.search.domain(history, space);
        let batch = |samples: usize| {
            move |flat: &[f64]| -> Vec<f64> {
                (flat.par_chunks(domain.d))
                    .map(|u| score_with(u, samples))
                    .collect()
            }
        };
        let (score, screen) = (batch(SAMPLES), batch(SCREEN_SAMPLES));
        let (unit, score) = maximize_batch(&score, Some(&screen), &domain, gp.search, rng);
        let value = match criterion {
            Criterion::Ucb => score,
            _ => score.exp(),
        };
        let spread =
            crate::space::Standardizer::fit(&real().map(Observed::objective).collect::<Vec<_>>())
                .std;
        let relative = (criterion == Criterion::Ei).then(|| value / spread);
        let rows = real().filter(|o| !o.sensors.is_empty()).count() * self.places.len();
        let at_proposal = self.distribution(field, &unit);
        let fitted = fitted
            .with("sensed_rows", rows)
            .with("predicted_sd", at_proposal.sd());
        let diagnostics = Diagnostics {
            train_seconds: Some(train_seconds),
            predicted: Some(at_proposal.mean()),
            expected_improvement_relative: relative,
            ..fitted
        }
        .with("acquisition", value)
        .with("beta", (criterion == Criterion::Ucb).then_some(beta));
        Ok(Some(Proposal {
            unit: unit.clone(),
            diagnostics: domain.annotate(diagnostics),
            terminate: (relative.zip(gp.stop)).is_some_and(|(r, stop)| r < stop),
        }))
    }
}

/// A field model refitted to other rows at held hyperparameters (None where it fails).
pub type Condition<'m> =
    dyn Fn(&[Vec<f64>], &[f64]) -> Option<Box<dyn GpPosterior + 'm>> + Sync + 'm;

/// Which model of the objective the search reads: the one read from the field's model
/// (kept), or a plain GP of the objective values alone, whichever predicts each design's
/// observed objective from the others better (docs/decisions.md "The sensors are checked").
pub struct SensedCheck {
    pub kept: bool,
    /// The mean leave-one-design-out log density of the objective under each.
    field: Option<f64>,
    alone: f64,
}

impl SensedCheck {
    /// `field`: [`SensedField::objective_loo`] of the field's model; `alone`: a plain GP of
    /// the objective fitted to the real observations. With too few designs to score, the
    /// field's model is kept.
    pub fn new(field: Option<f64>, alone: &GpModel) -> SensedCheck {
        // The plain GP's score is of standardized values: back to the values' own units.
        let alone = alone.leave_one_out() - alone.standardizer.std.ln();
        let kept = field.is_none_or(|f| f >= alone || !alone.is_finite());
        SensedCheck { kept, field, alone }
    }

    /// The check's scores and choice, journaled with the step.
    pub fn annotate(&self, diagnostics: Diagnostics) -> Diagnostics {
        diagnostics
            .with("sensed_kept", self.kept)
            .with("loo_sensed", self.field)
            .with("loo_alone", self.alone)
    }
}

/// A plain GP of the objective fitted to the real observations (not the pending points'
/// stand-ins), for [`SensedCheck`].
pub(crate) fn fit_alone(
    gp: &GpSearch,
    history: &[Observed],
    previous: Option<&Hyper>,
    rng: &mut ChaCha8Rng,
) -> Result<GpModel, StrategyError> {
    let real: Vec<Observed> = history.iter().filter(|o| !o.fantasy).cloned().collect();
    gp.fit_plain(&real, previous, gp.restarts, rng)
}

impl SensedField {
    /// The field model refitted to other rows at `field`'s hyperparameters.
    pub fn refit_at<'m>(&'m self, field: &'m GpModel) -> Box<Condition<'m>> {
        Box::new(move |x: &[Vec<f64>], y: &[f64]| {
            let refit = GpModel::with_hyper(&self.spec, x, (y, &[]), field.hyper.clone()).ok()?;
            Some(Box::new(refit) as Box<dyn GpPosterior>)
        })
    }
}

/// Samples of a sampled objective when candidates are screened, and when the best are scored.
pub const SCREEN_SAMPLES: usize = 32;

/// The log expected improvement of `dist` below `best`: exact for a Gaussian; for samples
/// their average improvement, or where no sample improves, the log EI of a Gaussian with
/// their mean and spread (so that the criterion still ranks designs far from the best).
fn log_improvement(dist: &Distribution, best: f64) -> f64 {
    match dist {
        Distribution::Gaussian { mean, sd } => log_expected_improvement(best, *mean, *sd),
        Distribution::Samples(s) => {
            let ei = s.iter().map(|v| (best - v).max(0.0)).sum::<f64>() / s.len().max(1) as f64;
            match ei > 0.0 {
                true => ei.ln(),
                false => log_expected_improvement(best, dist.mean(), dist.sd()),
            }
        }
    }
}
