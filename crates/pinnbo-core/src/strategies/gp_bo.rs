//! GP-EI, GP-UCB and GP-TS: the Gaussian-process baselines (docs/algorithms.md §6): a plain
//! GP of the objective handed to the shared search of every GP method ([`GpSearch`]).

use crate::numerics::warp::PowerWarp;
use crate::oracle::NoiseModel;
use crate::space::Space;
use crate::strategies::gp_search::{
    interval, plain_diagnostics, unpacked, FittedObjective, GpSearch, Saved,
};
use crate::strategies::sensed::{fit_alone, SensedCheck, SensedField};
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError};
use crate::surrogates::gp::{GpModel, Hyper};
use crate::surrogates::GpPosterior;
use pinnbo_dsl::choices::{self, Criterion};
use pinnbo_dsl::methods::MethodSettings;
use pinnbo_dsl::Problem;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// GP-EI, GP-UCB or GP-TS.
pub struct GpBo {
    pub gp: GpSearch,
    /// The objective's last fitted hyperparameters, where its next fit starts.
    previous: Option<Hyper>,
    /// With sensors on the field the objective reads (gp-ei, gp-ucb): the field's model from
    /// every sensor value, which the objective is read from.
    sensed: Option<SensedField>,
}

/// What gp-ei saves beside every GP method's optima: with sensors, the field GP's.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct SensedSaved {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<Vec<f64>>,
}

/// The seed of the sensed objective's fixed normal draws (a quadrature rule, not a choice
/// of the run).
const SENSED_DRAWS: u64 = 0x5e45_ed00;

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
        let gp = GpSearch::from_settings(s, criterion, kernel, problem);
        // Thompson sampling draws the objective itself; its sensors are journaled only.
        let sensed = (criterion != Criterion::Ts)
            .then(|| SensedField::new(problem, &gp, SENSED_DRAWS))
            .flatten();
        GpBo {
            gp,
            previous: None,
            sensed,
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
        let field = self.sensed.as_ref().and_then(|s| s.previous.as_ref());
        if self.previous.is_none() && field.is_none() {
            return Ok(None);
        }
        let saved = Saved {
            objective: self.previous.as_ref().map(Hyper::pack),
            constraints: Vec::new(),
            method: SensedSaved {
                field: field.map(Hyper::pack),
            },
        };
        self.gp.save(saved).map(Some)
    }

    fn restore(&mut self, saved: Option<Vec<u8>>) -> Result<(), StrategyError> {
        let saved: Saved<SensedSaved> = self.gp.restore(saved)?;
        self.previous = unpacked(saved.objective.as_deref())?;
        if let Some(sensed) = &mut self.sensed {
            sensed.previous = unpacked(saved.method.field.as_deref())?;
        }
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
        if let Some(sensed) = &self.sensed {
            let field = sensed.fit(&self.gp, history, rng)?;
            return Ok(Some(sensed.intervals(&field, points)));
        }
        let (history, warps) = self.gp.warped(history);
        let warp = warps.first().copied().unwrap_or(PowerWarp::Identity);
        let (gp, _) = self.fit_objective(&history, rng)?;
        Ok(Some(
            (points.iter())
                .map(|u| interval(gp.predict(u), &warp))
                .collect(),
        ))
    }

    fn field_report(
        &mut self,
        history: &[Observed],
        unit: &[f64],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<crate::strategies::FieldReport>, StrategyError> {
        let Some(sensed) = &self.sensed else {
            return Ok(None);
        };
        let field = sensed.fit(&self.gp, history, rng)?;
        Ok(Some(sensed.report(&field, unit)))
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let clock = Instant::now();
        let mut check = None;
        if let Some(sensed) = &mut self.sensed {
            let field = sensed.fit(&self.gp, history, rng)?;
            sensed.previous = Some(field.hyper.clone());
            let alone = fit_alone(&self.gp, history, self.previous.as_ref(), rng)?;
            let sensed = &*sensed;
            let scored = SensedCheck::new(
                sensed.objective_loo(history, &sensed.refit_at(&field)),
                &alone,
            );
            let fitted = FittedObjective {
                model: &field,
                diagnostics: scored.annotate(plain_diagnostics(&field)),
                faces: false,
                clock,
            };
            if scored.kept {
                if let Some(p) = sensed.propose(&mut self.gp, fitted, space, history, rng)? {
                    return Ok(p);
                }
            }
            check = Some(scored);
        }
        let (history, warps) = self.gp.warped(history);
        let history = &history[..];
        let (gp, fitted) = self.fit_objective(history, rng)?;
        let fitted = fitted.with_some("warp", warps.first().and_then(PowerWarp::exponent));
        let fitted = match &check {
            Some(c) => c.annotate(fitted),
            None => fitted,
        };
        self.previous = Some(gp.hyper.clone());
        let objective = FittedObjective {
            model: &gp,
            diagnostics: fitted,
            faces: false,
            clock,
        };
        self.gp.propose(objective, space, history, rng)
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
                sems: Vec::new(),
                objectives: vec![u[0] + 0.02 * rng.sample::<f64, _>(StandardNormal)],
                constraints: Vec::new(),
                unit: u.clone(),
                proposed: true,
                fantasy: false,
                sensors: Vec::new(),
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
        let relative = proposal.diagnostics.expected_improvement_relative;
        assert!(
            relative.unwrap() < crate::diagnostics::CONVERGED,
            "{relative:?}"
        );
        assert!(proposal.diagnostics.get("explored_std").is_some());
    }

    /// The sensors are used where they predict the objective, not elsewhere: a field that
    /// oscillates too fast for two sensors per design to carry to the objective's place is
    /// left for the objective alone (linear in the design); sensors at that place are kept.
    #[test]
    fn sensors_that_do_not_predict_the_objective_are_left_out() {
        let field = |x: f64, a: f64| (40.0 * x).sin() * (1.0 + a) + 0.5 * a;
        let proposal = |places: [f64; 2]| {
            let text = format!(
                "var a in [0, 1]\ncoord x in [0, 1]\nfield T(x, a)\n\
                 sensors T at x = {}, {}\nminimize T(0.5, a)\noracle external\nmethod gp-ei\n",
                places[0], places[1]
            );
            let problem = compile(&Source::new("fast.pde", text.as_str()))
                .unwrap()
                .problem;
            let space = crate::space::Space::of(&problem);
            let history: Vec<Observed> = (0..8)
                .map(|i| {
                    let u = vec![(i as f64 + 0.5) / 8.0];
                    Observed {
                        sensors: places.map(|p| field(p, u[0])).to_vec(),
                        ..Observed::initial(field(0.5, u[0]), Vec::new(), u)
                    }
                })
                .collect();
            let mut gp_ei = GpBo::new(&MethodSettings::defaults("gp-ei"), &problem);
            let p = (gp_ei.propose(&space, &history, &mut ChaCha8Rng::seed_from_u64(1))).unwrap();
            (p.diagnostics.get("sensed_kept").cloned(), p.diagnostics)
        };
        let (far, diagnostics) = proposal([0.1, 0.9]);
        assert_eq!(far, Some(false.into()), "{diagnostics:?}");
        let (at, diagnostics) = proposal([0.5, 0.9]);
        assert_eq!(at, Some(true.into()), "{diagnostics:?}");
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
