//! physics-gp on a design problem (docs/dsl.md "Design problems"): the field over its
//! coordinates × the design, conditioned on every sensor value and on the pde at residual
//! points of that box (its params fitted with the hyperparameters), and the objective read
//! from it as gp-ei with sensors reads it from its plain model ([`SensedField`]). Each step
//! also fits that plain model and, under `check cross-validation` (the default), searches
//! with it when it predicts the held-out sensor values better.

use super::model_check::{verdict, Check, PredictionRecord, Verdict};
use super::params::{fit_pde_model, PdeParams};
use crate::oracle::NoiseModel;
use crate::space::Space;
use crate::strategies::gp_search::{
    hyper_diagnostics, plain_diagnostics, unpacked, unreadable, FittedObjective, GpSearch, Saved,
    PART,
};
use crate::strategies::pde::{param_centre, PdeEquations};
use crate::strategies::sensed::{fit_alone, SensedCheck, SensedField};
use crate::strategies::{Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::gp::{GpModel, Hyper, Kernel};
use crate::surrogates::pde_gp::{PdeGp, PdeHyper, PdeModel, Residuals, Scaling};
use crate::surrogates::{GpPosterior, KnownNoise, Starts};
use pinnbo_ad::OperatorRegistry;
use pinnbo_dsl::choices::Criterion;
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// The seed of the objective's fixed normal draws (a quadrature rule, not a choice of the
/// run).
const DRAWS: u64 = 0x5e45_ed01;

pub struct PhysicsDesign {
    /// The constraints, the criterion and its search.
    gp: GpSearch,
    sensed: SensedField,
    /// The pde at the residual points of coordinates × design (the params at their centre).
    residuals: Residuals,
    params: Option<PdeParams>,
    scaling: Scaling,
    check: Check,
    /// The pde model's last optimum, where its next fit starts.
    previous: Option<PdeHyper>,
}

impl PhysicsDesign {
    pub fn new(
        s: &MethodSettings,
        problem: &Problem,
        operators: &OperatorRegistry,
        seed: u64,
    ) -> Result<PhysicsDesign, StrategyError> {
        let unusable = |why: String| StrategyError::Unusable(format!("physics-gp: {why}"));
        let criterion: Criterion = s.choice("criterion");
        if criterion == Criterion::Ts {
            return Err(unusable(
                "on a field over coordinates the criterion is `ei` or `ucb` (`ts` is not built \
                 for design problems yet)"
                    .into(),
            ));
        }
        let check: Check = s.choice("check");
        if !matches!(check, Check::None | Check::CrossValidation) {
            return Err(unusable(
                "on a field over coordinates the pde is checked by `cross-validation` against \
                 the model without it, or not at all (`check none`)"
                    .into(),
            ));
        }
        let gp = GpSearch::from_settings(s, criterion, Kernel::Matern52, problem);
        let sensed = SensedField::new(problem, &gp, DRAWS).ok_or_else(|| {
            unusable(
                "on a field over coordinates the objective reads one field, and that field \
                 needs sensors (`sensors T at x = ..`) for the model to condition on"
                    .into(),
            )
        })?;
        let count = s.count("residual_points");
        let equations = PdeEquations::new(problem, sensed.field(), operators, count, seed)
            .map_err(|e| unusable(e.to_string()))?;
        let residuals = (equations.at(&param_centre(problem), &[]))
            .map_err(|e| unusable(e.to_string()))?
            .0;
        // The sensors read the field itself, not the objective: nothing is negated.
        let params = PdeParams::new(problem, equations, false);
        Ok(PhysicsDesign {
            gp,
            sensed,
            residuals,
            params,
            scaling: s.choice("scaling"),
            check,
            previous: None,
        })
    }

    /// The pde model of the field fitted to every sensor value; `profiles`: with the params'
    /// profile posteriors, which only a reported estimate needs
    /// ([`PdeGp::with_param_profiles`]).
    fn fit_pde(&self, history: &[Observed], profiles: bool) -> Result<PdeGp, StrategyError> {
        let (x, y) = self.sensed.rows(history);
        let model = self.model();
        let starts = Starts {
            previous: self.previous.as_ref(),
            restarts: self.gp.restarts,
        };
        // Each sensor value has the objective's known noise (the same instrument).
        let noise = KnownNoise::level(self.gp.objective_noise());
        let (params, residuals) = (self.params.as_ref(), &self.residuals);
        fit_pde_model(model, (&x, &y), residuals, params, starts, &noise, profiles).within(PART)
    }

    /// [`SensedField::objective_loo`] of the pde model: refitted to other rows at its
    /// hyperparameters (and fitted params), the pde's rows kept.
    fn objective_loo(&self, with_pde: &PdeGp, history: &[Observed]) -> Option<f64> {
        let residuals = match &self.params {
            Some(p) => p.field_equations(&with_pde.hyper.params)?,
            None => self.residuals.clone(),
        };
        let model = self.model();
        let condition = |x: &[Vec<f64>], y: &[f64]| {
            let hyper = with_pde.hyper.clone();
            let refit = PdeGp::with_hyper(model, x, (y, &[]), &residuals, hyper).ok()?;
            Some(Box::new(refit) as Box<dyn GpPosterior>)
        };
        self.sensed.objective_loo(history, &condition)
    }

    fn model(&self) -> PdeModel {
        PdeModel {
            prior: self.gp.model.prior,
            scaling: self.scaling,
            mean: self.gp.model.mean,
            discrepancy: false,
        }
    }

    /// The pde model (`profiles`: [`PhysicsDesign::fit_pde`]), and the plain one when the
    /// check asks for it: which the search uses.
    fn fit(
        &self,
        history: &[Observed],
        profiles: bool,
        rng: &mut ChaCha8Rng,
    ) -> Result<(PdeGp, Option<GpModel>, Verdict), StrategyError> {
        let with_pde = self.fit_pde(history, profiles)?;
        if self.check == Check::None {
            return Ok((with_pde, None, Verdict::Kept));
        }
        let without = self.sensed.fit(&self.gp, history, rng)?;
        let scores = (with_pde.leave_one_out(), without.leave_one_out());
        let record = PredictionRecord::default();
        let verdict = verdict(self.check, with_pde.target_spread, scores, &record);
        Ok((with_pde, Some(without), verdict))
    }
}

/// The model the search reads: the pde's, or the plain field model where the check dropped
/// the pde.
fn chosen<'a>(
    with_pde: &'a PdeGp,
    without: &'a Option<GpModel>,
    keep: bool,
) -> &'a dyn GpPosterior {
    match (keep, without) {
        (false, Some(w)) => w,
        _ => with_pde,
    }
}

/// What the method saves beside every GP method's optima: the pde model's and the plain
/// field model's.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct DesignSaved {
    physics: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<Vec<f64>>,
}

impl Strategy for PhysicsDesign {
    fn name(&self) -> &'static str {
        "physics-gp"
    }

    fn known_noise(&mut self, noise: &NoiseModel) {
        self.gp.known_noise(noise);
    }

    fn state(&self) -> Result<Option<Vec<u8>>, StrategyError> {
        if self.previous.is_none() {
            return Ok(None);
        }
        let saved = Saved {
            objective: None,
            constraints: Vec::new(),
            method: DesignSaved {
                physics: self.previous.as_ref().map(PdeHyper::pack),
                field: self.sensed.previous.as_ref().map(Hyper::pack),
            },
        };
        self.gp.save(saved).map(Some)
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        let saved: Saved<DesignSaved> = self.gp.restore(saved)?;
        let params = self.params.as_ref().map_or(0, PdeParams::count);
        self.previous = (saved.method.physics.as_deref())
            .map(|v| PdeHyper::from_packed(v, false, params).ok_or_else(unreadable))
            .transpose()?;
        self.sensed.previous = unpacked(saved.method.field.as_deref())?;
        Ok(())
    }

    fn predict_interval(
        &mut self,
        _space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<crate::strategies::Interval>>, StrategyError> {
        let (with_pde, without, verdict) = self.fit(history, false, rng)?;
        let model = chosen(&with_pde, &without, verdict.kept());
        Ok(Some(self.sensed.intervals(model, points)))
    }

    fn field_report(
        &mut self,
        history: &[Observed],
        unit: &[f64],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<crate::strategies::FieldReport>, StrategyError> {
        // A fit moves nothing a proposal starts from: only `propose` keeps its optima.
        let (with_pde, without, verdict) = self.fit(history, false, rng)?;
        Ok(Some(
            self.sensed
                .report(chosen(&with_pde, &without, verdict.kept()), unit),
        ))
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let clock = Instant::now();
        let (with_pde, without, verdict) = self.fit(history, true, rng)?;
        let keep = verdict.kept();
        self.previous = Some(with_pde.hyper.clone());
        if let Some(w) = &without {
            self.sensed.previous = Some(w.hyper.clone());
        }
        let mut diagnostics = match (keep, &without) {
            (false, Some(w)) => plain_diagnostics(w),
            _ => hyper_diagnostics(&with_pde.hyper.gp, with_pde.nll, with_pde.jitter())
                .with("pde_relative_noise", with_pde.hyper.log_relative.exp())
                .with("residual_points", with_pde.residual_rows()),
        };
        diagnostics = verdict.report(diagnostics);
        if let Some(w) = &without {
            diagnostics = diagnostics
                .with("loo_with_pde", with_pde.leave_one_out())
                .with("loo_without_pde", w.leave_one_out());
        }
        if let Some(params) = &self.params {
            diagnostics = params.report(diagnostics, &with_pde);
        }
        let alone = fit_alone(&self.gp, history, None, rng)?;
        let field_loo = match (keep, &without) {
            (false, Some(w)) => self.sensed.objective_loo(history, &self.sensed.refit_at(w)),
            _ => self.objective_loo(&with_pde, history),
        };
        // Where the pde's model searches, it searches averaged over the params' posterior.
        let averaged = (self.params.as_ref()).filter(|_| keep).and_then(|params| {
            let (x, y) = self.sensed.rows(history);
            params.averaged(&with_pde, self.model(), &x, (&y, &[]))
        });
        if let Some(mixture) = &averaged {
            diagnostics = diagnostics.with("param_models", mixture.models());
        }
        let check = SensedCheck::new(field_loo, &alone);
        let diagnostics = check.annotate(diagnostics);
        let fitted = FittedObjective {
            model: (averaged.as_ref())
                .map_or(chosen(&with_pde, &without, keep), |m| m as &dyn GpPosterior),
            diagnostics: diagnostics.clone(),
            faces: false,
            clock,
        };
        if check.kept {
            if let Some(p) = self
                .sensed
                .propose(&mut self.gp, fitted, space, history, rng)?
            {
                return Ok(p);
            }
        }
        // The objective alone predicts it better, or nothing feasible was observed yet (the
        // constraints' search for feasibility): the plain search.
        let plain = self.gp.fit_plain(history, None, self.gp.restarts, rng)?;
        let fitted = FittedObjective {
            model: &plain,
            diagnostics,
            faces: false,
            clock,
        };
        self.gp.propose(fitted, space, history, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::design::{points, Design};
    use pinnbo_dsl::{compile, Source};
    use rand::SeedableRng;

    /// The rod's field as the file defines it, at `x` for the design `(a, Q)`.
    fn field(x: f64, a: f64, q: f64) -> f64 {
        q * x * (1.0 - x) * (1.0 + a * x)
    }

    /// Three sensors on each of five designs: conditioned on the pde as well, the field's
    /// model reads the objective (the field at x = 0.65, where no sensor is) at new designs
    /// far better than the same data without the pde, and the step's proposal says it kept
    /// the pde.
    #[test]
    fn the_pde_carries_the_sensors_to_places_and_designs_they_did_not_measure() {
        let text = "var a in [-1, 1], Q in [0.5, 2]\ncoord x in [0, 1]\nfield T(x, a, Q)\n\
                    pde -dxx(T) = Q * (2 + 6 * a * x - 2 * a)\n\
                    sensors T at x = 0.2, 0.5, 0.8\nminimize T(0.65, a, Q)\noracle external\n\
                    method physics-gp { residual_points 128 }\n";
        let problem = compile(&Source::new("rod.pde", text)).unwrap().problem;
        let space = Space::of(&problem);
        let history: Vec<Observed> = (points(Design::Sobol, 5, 2, 3).into_iter())
            .map(|u| {
                let x = space.to_box(&u);
                Observed {
                    sensors: [0.2, 0.5, 0.8].map(|p| field(p, x[0], x[1])).to_vec(),
                    ..Observed::initial(field(0.65, x[0], x[1]), Vec::new(), u)
                }
            })
            .collect();
        let mut strategy =
            crate::strategies::registry::strategy(&problem, "physics-gp", 0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let grid = points(Design::Sobol, 16, 2, 9);
        let truth: Vec<f64> = (grid.iter())
            .map(|u| {
                let x = space.to_box(u);
                field(0.65, x[0], x[1])
            })
            .collect();
        let error = |predicted: Vec<(f64, f64, f64)>| -> f64 {
            (predicted.iter().zip(&truth))
                .map(|((m, _, _), t)| (m - t).abs())
                .sum::<f64>()
                / truth.len() as f64
        };
        let with_pde = error(
            (strategy.predict_interval(&space, &history, &grid, &mut rng))
                .unwrap()
                .unwrap(),
        );
        let mut gp_ei = crate::strategies::registry::strategy(&problem, "gp-ei", 0).unwrap();
        let without = error(
            (gp_ei.predict_interval(&space, &history, &grid, &mut rng))
                .unwrap()
                .unwrap(),
        );
        assert!(
            with_pde < 0.3 * without,
            "with the pde {with_pde}, without {without}"
        );
        let proposal = strategy.propose(&space, &history, &mut rng).unwrap();
        assert_eq!(proposal.diagnostics.get("pde_kept"), Some(&true.into()));
        assert!(proposal.diagnostics.get("sensed_rows") == Some(&15.into()));
    }
}
