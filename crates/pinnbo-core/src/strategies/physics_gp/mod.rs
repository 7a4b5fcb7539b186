//! physics-gp: the objective's Gaussian process conditioned on the file's linear pde at
//! residual points as well as on the observations (docs/algorithms.md §8), checked each step
//! against the same model without the pde ([`model_check`]); the constraints, the criterion
//! and its search are every GP method's ([`GpSearch`]).

pub mod design;
pub mod model_check;
pub mod params;

use crate::oracle::NoiseModel;
use crate::space::Space;
use crate::strategies::gp_search::{
    hyper_diagnostics, interval, objective_known_noise, plain_diagnostics, points_and_values,
    unpacked, unreadable, FittedObjective, GpSearch, Saved, PART,
};
use crate::strategies::pde::{
    objective_field, optimum_on_faces, param_centre, PdeEquations, PdeError,
};
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::gp::{GpModel, Hyper};
use crate::surrogates::mixture::Mixture;
use crate::surrogates::pde_gp::warp::{InputWarp, Warped};
use crate::surrogates::pde_gp::{PdeGp, PdeHyper, PdeModel, Residuals, Scaling};
use crate::surrogates::KnownNoise;
use crate::surrogates::{GpPosterior, Starts};
use model_check::{verdict, Check, Verdict, TARGET_LEVEL};
use params::{fit_pde_model, PdeParams};
use pinnbo_ad::linear::LinearError;
use pinnbo_ad::OperatorRegistry;
use pinnbo_dsl::choices::Stretch;
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand_chacha::ChaCha8Rng;
use std::cell::Cell;
use std::time::Instant;

pub use model_check::PredictionRecord;

/// Where the maximum principle's conditions are checked: 16 times the default residual
/// points, a Sobol set of its own.
const FACES_CHECK_POINTS: usize = 4096;

/// The warp the pde's model is also fitted in: `φ′` 7 times larger at the faces than at the
/// centre (docs/algorithms.md §8; chosen before any run, not tuned).
const FACES_WARP: InputWarp = InputWarp { strength: 0.75 };

pub struct PhysicsGp {
    /// The constraints, the criterion and its search.
    pub gp: GpSearch,
    /// The pde at the residual points, as the GP models the objective (minimized); with
    /// params, at the centre of their box (each fit reads [`PhysicsGp::params`] instead).
    pub residuals: Residuals,
    /// The pde's unknown constants, fitted each step with the hyperparameters.
    pub params: Option<PdeParams>,
    /// Whether the objective is maximized (the faces are rechecked at each step's estimate
    /// of the params).
    maximize: bool,
    /// The pde at the many points of that recheck (with params and no constraints).
    dense_faces: Option<PdeEquations>,
    pub scaling: Scaling,
    /// A maximum principle puts the optimum on the box's faces: the acquisition searches
    /// only there (an unconstrained problem whose pde is elliptic with the right source sign).
    pub faces: bool,
    /// Whether each step also fits the model without the pde, and how it chooses between
    /// the two (docs/algorithms.md §8).
    pub check: Check,
    /// Both models' record at the proposals, kept for `check prequential` only (saved with
    /// the journal).
    record: PredictionRecord,
    /// The last fit's hyperparameters: the next fit starts there (saved with the journal).
    previous: Option<PdeHyper>,
    /// The pde-free model's, likewise.
    previous_without: Option<Hyper>,
    /// The pde-free model is fitted as gp-ei fits its own: from its seeded starts.
    fallback_restarts: usize,
    /// The coordinates stretched towards the faces the pde's model is also fitted in, and
    /// the pde in them (`warp`: where the faces hold, or always).
    warp: Option<(InputWarp, Residuals)>,
    /// Whether the last fit's pde model is the warped one: set by each fit, read by the same
    /// step's conditioning on pending points and its search.
    in_warp: Cell<bool>,
}

/// The objective's fitted model: the pde's unchecked, or the pde's with the pde-free model
/// it was checked against (the plain GP methods' Matérn-5/2 model, so that dropping the pde
/// leaves a search as good as gp-ei's) and which of the two is used.
enum PdeFit {
    Unchecked(Box<PdeGp>),
    /// The pde's model with a discrepancy (`check discrepancy`), and whether the discrepancy's
    /// share confirms the pde: read at the fit, from the real observations alone (pending
    /// points' stand-ins would be handed to the discrepancy).
    WithDiscrepancy {
        gp: Box<PdeGp>,
        verdict: Verdict,
    },
    Checked {
        with_pde: Box<PdeGp>,
        /// gp-ei's own model of the objective: what the search falls back to.
        without: Box<GpModel>,
        verdict: Verdict,
    },
}

/// What physics-gp saves beside every GP method's optima ([`Saved`]).
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct PhysicsSaved {
    /// The pde model's parameters.
    physics: Option<Vec<f64>>,
    /// The prequential record (absent from journals written before it).
    #[serde(default)]
    record: PredictionRecord,
}

/// What a step's fits end at, where the next step's start.
struct FittedHyper {
    with_pde: PdeHyper,
    /// None when the check did not fit the pde-free model.
    without: Option<Hyper>,
}

impl PdeFit {
    /// Whether the pde is kept (the acquisition uses its model and, where the maximum
    /// principle holds, searches the faces; with a discrepancy the model is always the pde's
    /// and the share decides the faces alone), or what dropped it.
    fn verdict(&self) -> Verdict {
        match self {
            PdeFit::Unchecked(_) => Verdict::Kept,
            PdeFit::WithDiscrepancy { verdict, .. } | PdeFit::Checked { verdict, .. } => *verdict,
        }
    }

    /// The pde's model, whether or not the acquisition uses it.
    fn with_pde(&self) -> &PdeGp {
        match self {
            PdeFit::Unchecked(gp) | PdeFit::WithDiscrepancy { gp, .. } => gp,
            PdeFit::Checked { with_pde, .. } => with_pde,
        }
    }

    /// Whether the acquisition's model is the pde's.
    fn uses_pde_model(&self) -> bool {
        match self {
            PdeFit::Checked { verdict, .. } => verdict.kept(),
            _ => true,
        }
    }

    /// The model the acquisition uses.
    fn model(&self) -> &dyn GpPosterior {
        match self {
            PdeFit::Checked { without, .. } if !self.uses_pde_model() => without.as_ref(),
            _ => self.with_pde(),
        }
    }
}

impl PhysicsGp {
    /// physics-gp for `problem` with its settings `s`: the objective's GP conditioned on its
    /// pde at `residual_points` Sobol points drawn from `seed`.
    pub fn new(
        s: &MethodSettings,
        problem: &Problem,
        operators: &OperatorRegistry,
        seed: u64,
    ) -> Result<PhysicsGp, StrategyError> {
        let field = objective_field(problem, "the physics-informed GP")?;
        let count = s.count("residual_points");
        let unusable = |e: PdeError| {
            let hint = match e {
                PdeError::Linear {
                    source: LinearError::Nonlinear { .. },
                    ..
                } => {
                    "; a Gaussian process can be conditioned on a linear pde only: use \
                          `method pinn-bo`, whose network is trained on any pde"
                }
                _ => "",
            };
            StrategyError::Unusable(format!("physics-gp: {e}{hint}"))
        };
        let equations =
            PdeEquations::new(problem, field, operators, count, seed).map_err(unusable)?;
        let centre = param_centre(problem);
        let residuals = equations.at(&centre, &[]).map_err(unusable)?.0;
        let maximize = problem.objective.sense == pinnbo_dsl::ir::Sense::Maximize;
        let params = PdeParams::new(problem, equations, maximize);
        // The maximum principle's conditions hold at the residual points; a source
        // concentrated between them could still break them, so they are checked again at
        // many more points before the faces are trusted (once per run; with params, at
        // each step's estimate).
        let dense = (problem.constraints.is_empty())
            .then(|| PdeEquations::new(problem, field, operators, FACES_CHECK_POINTS, seed).ok())
            .flatten();
        // Within each value of a discrete variable the principle puts the optimum on the
        // continuous variables' faces, which the faces' search does not single out.
        let continuous = problem.coords.iter().all(|c| !c.integer);
        let faces = params.is_none()
            && continuous
            && optimum_on_faces(&residuals, maximize)
            && dense
                .as_ref()
                .is_some_and(|d| faces_hold_densely(d, maximize, &centre));
        let dense_faces = dense.filter(|_| params.is_some());
        // The GP models the objective as minimized, `−f` for `maximize`.
        let residuals = match maximize {
            true => residuals.negated(),
            false => residuals,
        };
        // The objective has its own squared-exponential model (derivatives to any order);
        // the constraints' plain GPs take the plain default kernel.
        let kernel = crate::surrogates::gp::Kernel::Matern52;
        let warped = match s.choice("stretch") {
            Stretch::Faces => faces,
            Stretch::Always => true,
            Stretch::None => false,
        };
        let warp =
            (warped && params.is_none()).then(|| (FACES_WARP, FACES_WARP.residuals(&residuals)));
        Ok(PhysicsGp {
            gp: GpSearch::from_settings(s, s.choice("criterion"), kernel, problem),
            residuals,
            params,
            maximize,
            dense_faces,
            scaling: s.choice("scaling"),
            check: s.choice("check"),
            faces,
            record: PredictionRecord::default(),
            previous: None,
            previous_without: None,
            fallback_restarts: MethodSettings::defaults("gp-ei").count("restarts"),
            warp,
            in_warp: Cell::new(false),
        })
    }

    /// The objective's model with its fit's diagnostics and hyperparameters, which a proposal
    /// keeps and a picture does not. Every fit (the params, the hyperparameters, the check)
    /// reads the real observations alone; the model the acquisition uses is then conditioned
    /// on the pending points' stand-ins too ([`PhysicsGp::with_pending`]). `profiles`: read
    /// the params' profile posteriors, which only a reported estimate needs
    /// ([`PdeGp::with_param_profiles`]).
    fn fit_objective(
        &self,
        history: &[Observed],
        profiles: bool,
        rng: &mut ChaCha8Rng,
    ) -> Result<(PdeFit, Diagnostics, FittedHyper), StrategyError> {
        let real: Vec<Observed> = match history.iter().any(|o| o.fantasy) {
            true => history.iter().filter(|o| !o.fantasy).cloned().collect(),
            false => Vec::new(),
        };
        if real.is_empty() {
            return self.fit_real(history, profiles, rng);
        }
        let (fit, diagnostics, hyper) = self.fit_real(&real, profiles, rng)?;
        Ok((self.with_pending(fit, history)?, diagnostics, hyper))
    }

    /// [`PhysicsGp::fit_objective`] on observations without pending points.
    fn fit_real(
        &self,
        history: &[Observed],
        profiles: bool,
        rng: &mut ChaCha8Rng,
    ) -> Result<(PdeFit, Diagnostics, FittedHyper), StrategyError> {
        let (x, y) = points_and_values(history);
        let noise = objective_known_noise(&self.gp, history);
        let (with_pde, in_warp) = self.fit_pde(&x, &y, &noise, profiles)?;
        self.in_warp.set(in_warp);
        let mut hyper = FittedHyper {
            with_pde: with_pde.hyper.clone(),
            without: None,
        };
        let plausible_targets = model_check::plausible(with_pde.target_spread);
        if self.check == Check::Discrepancy && plausible_targets {
            let share = with_pde.discrepancy_share();
            let diagnostics = with_target_spread(fit_diagnostics(&with_pde), &with_pde)
                .with("discrepancy_share", share);
            let fit = PdeFit::WithDiscrepancy {
                gp: Box::new(with_pde),
                verdict: Verdict::of_discrepancy_share(share),
            };
            return Ok((fit, diagnostics, hyper));
        }
        if self.check == Check::None || x.len() < 2 {
            let diagnostics = with_target_spread(fit_diagnostics(&with_pde), &with_pde);
            return Ok((PdeFit::Unchecked(Box::new(with_pde)), diagnostics, hyper));
        }
        let previous = self.previous_without.as_ref();
        let without = (self.gp).fit_plain(history, previous, self.fallback_restarts, rng)?;
        hyper.without = Some(without.hyper.clone());
        let scores = (with_pde.leave_one_out(), without.leave_one_out());
        let verdict = verdict(self.check, with_pde.target_spread, scores, &self.record);
        let chosen = match verdict.kept() {
            true => fit_diagnostics(&with_pde),
            false => plain_diagnostics(&without),
        };
        let chosen = chosen
            .with("loo_with_pde", scores.0)
            .with("loo_without_pde", scores.1);
        let mut diagnostics = with_target_spread(chosen, &with_pde);
        if self.check == Check::Prequential {
            let (scored, total_with, total_without) = self.record.totals();
            diagnostics = diagnostics
                .with("prequential_scored", scored)
                .with("prequential_with_pde", total_with)
                .with("prequential_without_pde", total_without);
        }
        let fit = PdeFit::Checked {
            with_pde: Box::new(with_pde),
            without: Box::new(without),
            verdict,
        };
        Ok((fit, diagnostics, hyper))
    }

    /// The pde model's settings.
    fn model(&self) -> PdeModel {
        PdeModel {
            prior: self.gp.model.prior,
            scaling: self.scaling,
            mean: self.gp.model.mean,
            discrepancy: self.check == Check::Discrepancy,
        }
    }

    /// `fit`'s models conditioned on every point of `history`, pending ones included, at
    /// their fitted hyperparameters and params.
    fn with_pending(&self, fit: PdeFit, history: &[Observed]) -> Result<PdeFit, StrategyError> {
        let (x, y) = points_and_values(history);
        let sems = crate::history::told_sems(history, 0);
        let model = self.model();
        let pde = |gp: &PdeGp| -> Result<Box<PdeGp>, StrategyError> {
            let at_params = match &self.params {
                None => None,
                Some(p) => Some(p.model_equations(&gp.hyper.params).ok_or_else(|| {
                    StrategyError::Unusable("physics-gp: the pde at the fitted params".into())
                })?),
            };
            let residuals = match self.active_warp() {
                Some((_, warped)) => warped,
                None => at_params.as_ref().unwrap_or(&self.residuals),
            };
            Ok(Box::new(
                gp.with_more(model, &self.pde_points(&x), (&y, &sems), residuals)
                    .within(PART)?,
            ))
        };
        Ok(match fit {
            PdeFit::Unchecked(gp) => PdeFit::Unchecked(pde(&gp)?),
            PdeFit::WithDiscrepancy { gp, verdict } => PdeFit::WithDiscrepancy {
                gp: pde(&gp)?,
                verdict,
            },
            PdeFit::Checked {
                with_pde,
                without,
                verdict,
            } => PdeFit::Checked {
                with_pde: pde(&with_pde)?,
                without: Box::new(
                    (without.with_more(&self.gp.model, &x, (&y, &sems))).within(PART)?,
                ),
                verdict,
            },
        })
    }
}

impl PhysicsGp {
    /// The pde's model fitted in the unit coordinates and, where the warp applies, in the
    /// warped ones too: the one whose leave-one-out predictions of the observations are the
    /// better (the check's own measure), and whether that is the warped one.
    fn fit_pde(
        &self,
        x: &[Vec<f64>],
        y: &[f64],
        noise: &KnownNoise,
        profiles: bool,
    ) -> Result<(PdeGp, bool), StrategyError> {
        let (model, params) = (self.model(), self.params.as_ref());
        let fit = |x: &[Vec<f64>], residuals: &Residuals| {
            let starts = Starts {
                previous: self.previous.as_ref(),
                restarts: self.gp.restarts,
            };
            fit_pde_model(model, (x, y), residuals, params, starts, noise, profiles)
        };
        let plain = fit(x, &self.residuals);
        let Some((warp, warped)) = self.warp.as_ref().filter(|_| x.len() >= 2) else {
            return Ok((plain.within(PART)?, false));
        };
        let in_warp = fit(&warp.points(x), warped);
        let score =
            |r: &Result<PdeGp, _>| r.as_ref().map_or(f64::NEG_INFINITY, PdeGp::leave_one_out);
        Ok(match score(&in_warp) > score(&plain) {
            true => (in_warp.within(PART)?, true),
            false => (plain.within(PART)?, false),
        })
    }

    /// The warp and the pde in it, when the last fit's pde model is the warped one.
    fn active_warp(&self) -> Option<&(InputWarp, Residuals)> {
        self.warp.as_ref().filter(|_| self.in_warp.get())
    }

    /// Unit points as the pde model reads them.
    fn pde_points(&self, x: &[Vec<f64>]) -> Vec<Vec<f64>> {
        match self.active_warp() {
            Some((w, _)) => w.points(x),
            None => x.to_vec(),
        }
    }

    /// The model the acquisition uses, asked at unit points.
    fn searched<'a>(&self, fit: &'a PdeFit) -> Warped<'a> {
        match fit.uses_pde_model() {
            true => self.asked(fit.with_pde()),
            false => Warped {
                inner: fit.model(),
                warp: None,
            },
        }
    }

    /// The pde's model asked at unit points, in the coordinates it was fitted in.
    fn asked<'a>(&self, gp: &'a PdeGp) -> Warped<'a> {
        Warped {
            inner: gp,
            warp: self.active_warp().map(|(w, _)| *w),
        }
    }

    /// The pde's model averaged over its params' profile posteriors
    /// ([`PdeParams::averaged`]), conditioned on every point of `history`; None where the
    /// acquisition uses gp-ei's model or no profile was read.
    fn averaged(&self, fit: &PdeFit, history: &[Observed]) -> Option<Mixture<PdeGp>> {
        let params = self.params.as_ref()?;
        if matches!(fit, PdeFit::Checked { verdict, .. } if !verdict.kept()) {
            return None;
        }
        let (x, y) = points_and_values(history);
        let sems = crate::history::told_sems(history, 0);
        params.averaged(fit.with_pde(), self.model(), &x, (&y, &sems))
    }

    /// Whether a maximum principle puts the optimum on the faces: decided once without
    /// params, at each fit's estimate of them with params.
    fn faces_at_estimate(&self, gp: &PdeGp) -> bool {
        let (Some(params), Some(dense)) = (&self.params, &self.dense_faces) else {
            return self.faces;
        };
        let phi = &gp.hyper.params;
        let sparse = params.field_equations(phi);
        sparse.is_some_and(|r| optimum_on_faces(&r, self.maximize))
            && faces_hold_densely(dense, self.maximize, &params.values(phi))
    }
}

/// Whether the maximum principle's conditions hold at the `dense` points with the params at
/// `values`.
fn faces_hold_densely(dense: &PdeEquations, maximize: bool, values: &[f64]) -> bool {
    (dense.at(values, &[])).is_ok_and(|(dense, _)| optimum_on_faces(&dense, maximize))
}

/// A physics-informed fit's diagnostics.
fn fit_diagnostics(gp: &PdeGp) -> Diagnostics {
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

impl Strategy for PhysicsGp {
    fn name(&self) -> &'static str {
        "physics-gp"
    }

    fn known_noise(&mut self, noise: &NoiseModel) {
        self.gp.known_noise(noise);
    }

    /// Every GP's last hyperparameters, where its next fit starts, and the record.
    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        if self.previous.is_none() && self.previous_without.is_none() {
            return Ok(None);
        }
        let saved = Saved {
            objective: self.previous_without.as_ref().map(Hyper::pack),
            constraints: Vec::new(),
            method: PhysicsSaved {
                physics: self.previous.as_ref().map(PdeHyper::pack),
                record: self.record.clone(),
            },
        };
        self.gp.save(saved).map(Some)
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        // Runs journaled before the plain GPs were warm-started saved the pde model's
        // parameters alone, as one array.
        let saved: Saved<PhysicsSaved> =
            match (saved.as_deref()).map(serde_json::from_slice::<Vec<f64>>) {
                Some(Ok(physics)) => Saved {
                    method: PhysicsSaved {
                        physics: Some(physics),
                        ..PhysicsSaved::default()
                    },
                    ..self.gp.restore(None)?
                },
                _ => self.gp.restore(saved)?,
            };
        self.previous_without = unpacked(saved.objective.as_deref())?;
        let saved = saved.method;
        self.previous = (saved.physics.as_deref())
            .map(|v| {
                let params = self.params.as_ref().map_or(0, PdeParams::count);
                PdeHyper::from_packed(v, self.check == Check::Discrepancy, params)
                    .ok_or_else(unreadable)
            })
            .transpose()?;
        self.record = saved.record;
        Ok(())
    }

    fn predict_constraints(
        &mut self,
        _space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<Vec<crate::strategies::Interval>>>, StrategyError> {
        Ok(Some(self.gp.constraint_intervals(history, points, rng)?))
    }

    fn predict_interval(
        &mut self,
        _space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<crate::strategies::Interval>>, StrategyError> {
        // A picture's fit does not move where the next proposal's fit starts.
        let (fit, _, _) = self.fit_objective(history, false, rng)?;
        let gp = self.searched(&fit);
        let identity = crate::numerics::warp::PowerWarp::Identity;
        Ok(Some(
            (points.iter())
                .map(|u| interval(gp.predict(u), &identity))
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
        let prequential = self.check == Check::Prequential;
        if prequential {
            self.record.score(history);
        }
        let (fit, fitted, hyper) = self.fit_objective(history, true, rng)?;
        self.previous = Some(hyper.with_pde);
        self.previous_without = hyper.without.or(self.previous_without.take());
        // The maximum principle is the pde's: once the data drop the pde it says nothing of
        // where the optimum is.
        let faces = self.faces_at_estimate(fit.with_pde()) && fit.verdict().kept();
        let mut fitted = fit.verdict().report(fitted);
        if self.warp.is_some() {
            fitted = fitted.with("pde_stretched", self.in_warp.get());
        }
        if let Some(params) = &self.params {
            fitted = params.report(fitted, fit.with_pde());
        }
        let averaged = self.averaged(&fit, history);
        if let Some(mixture) = &averaged {
            fitted = fitted.with("param_models", mixture.models());
        }
        let searched = self.searched(&fit);
        let objective = FittedObjective {
            model: averaged
                .as_ref()
                .map_or(&searched as &dyn GpPosterior, |m| m as &dyn GpPosterior),
            diagnostics: fitted,
            faces,
            clock,
        };
        let proposal = self.gp.propose(objective, space, history, rng)?;
        if let (
            true,
            PdeFit::Checked {
                with_pde, without, ..
            },
        ) = (prequential, &fit)
        {
            // Its observation comes after every real one there is now.
            let observed = history.iter().filter(|o| !o.fantasy).count();
            let with_pde = self.asked(with_pde);
            (self.record).expect(observed, &proposal.unit, &with_pde, without);
        }
        Ok(proposal)
    }
}

#[cfg(test)]
mod tests;
