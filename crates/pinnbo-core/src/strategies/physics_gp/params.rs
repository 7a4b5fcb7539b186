//! physics-gp's view of the pde's unknown constants: the equations at any value of the
//! params the pde uses, in the coordinates they are fitted in, and the estimate a step
//! reports.

use crate::diagnostics::{Diagnostics, PARAMETERS};
use crate::strategies::pde::{param_centre, PdeEquations};
use crate::surrogates::gp::GpError;
use crate::surrogates::mixture::Mixture;
use crate::surrogates::pde_gp::{moved, ParamEquations, PdeGp, PdeHyper, PdeModel, Residuals};
use crate::surrogates::{KnownNoise, Starts};
use pinnbo_dsl::ir::{Param, ParamId};
use pinnbo_dsl::Problem;
use serde_json::{json, Map, Value};

/// A profile point weighing less than this share of its profile is left out of the
/// average over the params ([`PdeParams::averaged`]): set before any run, not tuned.
const MIN_WEIGHT: f64 = 0.01;

/// The pde's equations as functions of the params it uses (their fitted coordinates `φ`:
/// the value, or its log for a `log` param), for the objective as the GP models it.
pub struct PdeParams {
    pub equations: PdeEquations,
    /// The params the pde uses, in declaration order, and their declarations.
    used: Vec<ParamId>,
    declared: Vec<Param>,
    /// The problem's other params (none of its pdes use them), at their centres.
    centre: Vec<f64>,
    /// The GP models `−f` for `maximize`: the equations of `−f` are negated.
    negate: bool,
}

impl PdeParams {
    /// None when the field's pdes use no param.
    pub fn new(problem: &Problem, equations: PdeEquations, negate: bool) -> Option<PdeParams> {
        let used = equations.params();
        (!used.is_empty()).then(|| PdeParams {
            declared: used.iter().map(|&k| problem.params[k].clone()).collect(),
            used,
            equations,
            centre: param_centre(problem),
            negate,
        })
    }

    /// How many params are fitted.
    pub fn count(&self) -> usize {
        self.used.len()
    }

    /// Every param's value (by `ParamId`) at the fitted coordinates `phi`.
    pub fn values(&self, phi: &[f64]) -> Vec<f64> {
        let mut values = self.centre.clone();
        for ((&k, param), &p) in self.used.iter().zip(&self.declared).zip(phi) {
            values[k] = param.from_fitted(p);
        }
        values
    }

    /// The equations at `phi` as the maximum principle reads them (the field's own sign).
    pub fn field_equations(&self, phi: &[f64]) -> Option<Residuals> {
        Some(self.equations.at(&self.values(phi), &[]).ok()?.0)
    }

    /// The equations at `phi` as the GP models the objective (those of `−f` for
    /// `maximize`), without their derivatives in the params.
    pub fn model_equations(&self, phi: &[f64]) -> Option<Residuals> {
        let residuals = self.field_equations(phi)?;
        Some(if self.negate {
            residuals.negated()
        } else {
            residuals
        })
    }

    /// Each param's estimate in its own units, as journaled: `value` and `std`, the mean
    /// and standard deviation of its profile posterior (where none was read, the fit's
    /// optimum and the Laplace approximation's std, a `log` param's by the delta method
    /// `θ σ_φ`); `fitted`, the optimum the model predicts with; `std` null when the data do
    /// not determine the param, with `undetermined` saying what they do determine; and
    /// `at_bound` where the fit ended on the box's bound:
    /// `{"k": {"value": .., "std": .., "fitted": .., "at_bound": "upper"}}`.
    pub fn estimate(&self, gp: &PdeGp) -> Value {
        let spread = &gp.param_spread;
        let phi = &gp.hyper.params;
        let fitted: Vec<f64> = (self.declared.iter().zip(phi))
            .map(|(param, &p)| param.from_fitted(p))
            .collect();
        let undetermined =
            (!spread.undetermined.is_empty()).then(|| self.undetermined(&spread.undetermined));
        let mut out = Map::new();
        for (k, param) in self.declared.iter().enumerate() {
            let std = spread.std.get(k).copied().unwrap_or(f64::INFINITY);
            let (value, std) = match spread.profiles.get(k) {
                Some(Some(profile)) if std.is_finite() => profile.moments(|p| param.from_fitted(p)),
                _ if param.log => (fitted[k], fitted[k] * std),
                _ => (fitted[k], std),
            };
            let mut one = Map::new();
            one.insert("value".into(), json!(value));
            one.insert("std".into(), json!(std.is_finite().then_some(std)));
            one.insert("fitted".into(), json!(fitted[k]));
            let (lo, hi) = param.fitted_bounds();
            let near = 1e-4 * (hi - lo);
            let bound = match phi[k] {
                p if p - lo <= near => Some("lower"),
                p if hi - p <= near => Some("upper"),
                _ => None,
            };
            if let Some(bound) = bound {
                one.insert("at_bound".into(), json!(bound));
            }
            if let Some(sentence) = undetermined.as_ref().filter(|_| !std.is_finite()) {
                one.insert("undetermined".into(), json!(sentence));
            }
            out.insert(param.name.clone(), Value::Object(one));
        }
        Value::Object(out)
    }

    /// What the data determine where they leave `directions` (each param's relative change,
    /// [`ParamEquations::units`]) free: "only k/c is determined by the data". The params a
    /// direction moves are those [`moved`] says, the criterion that left them undetermined;
    /// two moving alike keep their ratio, two moving oppositely their product. Two free
    /// directions or more leave every param they move undetermined.
    fn undetermined(&self, directions: &[Vec<f64>]) -> String {
        let name = |k: usize| self.declared[k].name.as_str();
        let names = |ks: &[usize]| ks.iter().map(|&k| name(k)).collect::<Vec<_>>().join(", ");
        if let [relative] = directions {
            match moved(relative).as_slice() {
                [] => {}
                [k] => return format!("the data do not determine {}", name(*k)),
                &[a, b] => {
                    let ratio = relative[a] / relative[b];
                    let both = (name(a), name(b));
                    return match ratio {
                        r if (r - 1.0).abs() < 0.25 => {
                            format!("only {}/{} is determined by the data", both.0, both.1)
                        }
                        r if (r + 1.0).abs() < 0.25 => {
                            format!("only {}*{} is determined by the data", both.0, both.1)
                        }
                        _ => format!(
                            "only a combination of {} and {} is determined by the data",
                            both.0, both.1
                        ),
                    };
                }
                many => {
                    let which = names(many);
                    return format!("only a combination of {which} is determined by the data");
                }
            }
        }
        let mut all: Vec<usize> = directions.iter().flat_map(|d| moved(d)).collect();
        all.sort_unstable();
        all.dedup();
        match all.as_slice() {
            [k] => format!("the data do not determine {}", name(*k)),
            [] => "the data do not determine the params".to_string(),
            many => format!("the data determine none of {}", names(many)),
        }
    }

    /// The pde model `gp` averaged over its params' profile posteriors: one model at each
    /// profile point of weight at least [`MIN_WEIGHT`] (its hyperparameters and params
    /// those the profile minimized at, conditioned on `x` and `values`, pending points'
    /// stand-ins included), each profile's points weighted by their share of it and every
    /// profile alike. With several params this averages over the profiles' ridges, not the
    /// joint posterior. None without two such points (no profile read: the fitted params
    /// alone). docs/decisions.md "The params' uncertainty in the acquisition".
    pub fn averaged(
        &self,
        gp: &PdeGp,
        model: PdeModel,
        x: &[Vec<f64>],
        values: (&[f64], &[Option<f64>]),
    ) -> Option<Mixture<PdeGp>> {
        let profiles: Vec<_> = gp.param_spread.profiles.iter().flatten().collect();
        let share = 1.0 / profiles.len() as f64;
        let components: Vec<(f64, PdeGp)> = (profiles.iter())
            .flat_map(|profile| {
                (profile.weights().into_iter().zip(&profile.optima))
                    .filter(|(w, optimum)| *w >= MIN_WEIGHT && !optimum.is_empty())
                    .map(|(w, optimum)| (share * w, optimum))
            })
            .filter_map(|(w, optimum)| {
                let hyper = PdeHyper::from_packed(optimum, model.discrepancy, self.count())?;
                let residuals = self.model_equations(&hyper.params)?;
                let at = gp.with_more_at(hyper, model, x, values, &residuals).ok()?;
                Some((w, at))
            })
            .collect();
        (components.len() >= 2)
            .then(|| Mixture::new(components))
            .flatten()
    }

    /// `diagnostics` with the estimate under `parameters`.
    pub fn report(&self, diagnostics: Diagnostics, gp: &PdeGp) -> Diagnostics {
        diagnostics.with(PARAMETERS, self.estimate(gp))
    }
}

/// The pde model fitted to values `y` at `x`: the params fitted with it where the pde has
/// any, and their profile posteriors read where `profiles` asks (a reported estimate:
/// [`PdeGp::with_param_profiles`]).
pub fn fit_pde_model(
    model: PdeModel,
    (x, y): (&[Vec<f64>], &[f64]),
    residuals: &Residuals,
    params: Option<&PdeParams>,
    starts: Starts<PdeHyper>,
    noise: &KnownNoise,
    profiles: bool,
) -> Result<PdeGp, GpError> {
    Ok(match params {
        None => PdeGp::fit(model, x, y, residuals, starts, noise)?,
        Some(p) => {
            let fit = PdeGp::fit_with_params(model, x, y, p, starts, noise)?;
            match profiles {
                true => fit.with_param_profiles(model, x, y, p, noise),
                false => fit,
            }
        }
    })
}

impl ParamEquations for PdeParams {
    fn bounds(&self) -> Vec<(f64, f64)> {
        self.declared.iter().map(Param::fitted_bounds).collect()
    }

    /// A `log` param's derivative in its log is `θ` times the one in `θ`.
    fn at(&self, phi: &[f64]) -> Option<(Residuals, Vec<Residuals>)> {
        let values = self.values(phi);
        let (residuals, derivatives) = self.equations.at(&values, &self.used).ok()?;
        let derivatives = (derivatives.into_iter().zip(&self.declared).zip(&self.used))
            .map(|((d, param), &k)| match param.log {
                true => d.scaled(values[k]),
                false => d,
            })
            .map(|d| if self.negate { d.negated() } else { d })
            .collect();
        let residuals = if self.negate {
            residuals.negated()
        } else {
            residuals
        };
        Some((residuals, derivatives))
    }

    /// A `log` param's coordinate moves by relative changes already; another's relative to
    /// its value, or to a thousandth of its box's width near 0.
    fn units(&self, phi: &[f64]) -> Vec<f64> {
        (self.declared.iter().zip(phi))
            .map(|(param, &p)| match param.log {
                true => 1.0,
                false => {
                    let (lo, hi) = param.fitted_bounds();
                    p.abs().max(1e-3 * (hi - lo))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::space::Space;
    use crate::strategies::registry::strategy;
    use crate::strategies::Observed;
    use pinnbo_dsl::{compile, Source};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use serde_json::Value;

    /// physics-gp's estimates of the params after a proposal from `count` exact observations
    /// of the file's closed-form field spread over its 1-D box, and after a second one that
    /// also sees `pending` points' stand-ins (at the worst value so far), by one strategy.
    fn estimates(text: &str, count: usize, pending: usize) -> (Value, Value) {
        let (first, second) = steps(text, count, pending);
        let parameters = |d: Value| d["parameters"].clone();
        (parameters(first), parameters(second))
    }

    /// The diagnostics of [`estimates`]' two proposals.
    fn steps(text: &str, count: usize, pending: usize) -> (Value, Value) {
        let text = match text.contains("method ") {
            true => format!("problem \"p\"\n{text}"),
            false => format!("problem \"p\"\n{text}method physics-gp {{ }}\n"),
        };
        let problem = match compile(&Source::new("p.pde", text.as_str())) {
            Ok(checked) => checked.problem,
            Err(failed) => panic!("{}", failed.render(pinnbo_dsl::Style::Plain)),
        };
        let value = problem.closed_form_objective().unwrap();
        let space = Space::of(&problem);
        let mut history: Vec<Observed> = (0..count)
            .map(|i| {
                let unit = vec![(i as f64 + 0.5) / count as f64];
                let x = space.to_box(&unit);
                Observed::initial(value.eval(&x), Vec::new(), unit)
            })
            .collect();
        let mut method = strategy(&problem, "physics-gp", 0).unwrap();
        let mut estimate = |history: &[Observed]| {
            let proposal = method.propose(&space, history, &mut ChaCha8Rng::seed_from_u64(1));
            Value::Object(proposal.unwrap().diagnostics.to_map())
        };
        let first = estimate(&history);
        let worst = history
            .iter()
            .map(Observed::objective)
            .fold(f64::MIN, f64::max);
        history.extend((0..pending).map(|i| Observed {
            fantasy: true,
            proposed: true,
            ..Observed::initial(worst, Vec::new(), vec![(i as f64 + 0.25) / pending as f64])
        }));
        (first, estimate(&history))
    }

    fn estimate(text: &str, count: usize) -> Value {
        estimates(text, count, 0).0
    }

    /// Where the data leave a param uncertain, the search reads the model averaged over
    /// its profile posterior: from 4 values of `u'' + k² u = 0.3 k² x` (k = 2.5) the
    /// profile spreads over the box, and the proposal averages several models over it.
    #[test]
    fn an_uncertain_param_is_averaged_over() {
        let (step, _) = steps(
            "var x in [0, 3]
param k in [0.5, 8] log
             field u(x) = cos(2.5*x) + 0.3*x
pde dxx(u) + k^2*u = 0.3*k^2*x
minimize u
             method physics-gp { check none }
",
            4,
            0,
        );
        let models = step["param_models"].as_u64();
        assert!(models.is_some_and(|m| m >= 2), "{step}");
        assert!(
            step["parameters"]["k"]["std"].as_f64().unwrap() > 0.1,
            "{step}"
        );
    }

    /// Pending points enter the acquisition only: a batch of 4 stand-ins at the worst value
    /// leaves the estimate of `k` within 5% of the one before it (it read 0.66 ± 893 against
    /// 2.43 ± 0.09 when the stand-ins were fitted as observations).
    #[test]
    fn pending_points_do_not_move_the_params() {
        let (before, after) = estimates(
            "var x in [0, 2]\nparam k in [0.5, 8] log\n\
             field u(x) = sin(1.7*x) + 0.2*x\npde dxx(u) + k*u = 0.2*k*x\nminimize u\n",
            8,
            4,
        );
        let k = |e: &Value| e["k"]["value"].as_f64().unwrap();
        assert!((k(&before) - 2.89).abs() < 0.1, "{before}");
        assert!(
            (k(&after) - k(&before)).abs() <= 0.05 * k(&before),
            "{before} then {after}"
        );
    }

    /// With exact data each param's std is its marginal one: `u'' + c u' = -k` from
    /// `u = 2 e^{-x} + 2x - 1` (c = 1, k = 2) pins c and k to within twice their reported std,
    /// which the conditional curvature (each with the other held, what was reported before)
    /// does not. (`check none`: the estimate is reported whatever the check would say.)
    #[test]
    fn exact_data_give_each_params_marginal_std() {
        let e = estimate(
            "var x in [0, 2]\nparam c in [0.2, 3]\nparam k in [0.5, 6]\n\
             field u(x) = 2*exp(-x) + 2*x - 1\npde dxx(u) + c*dx(u) = k\nminimize u\n\
             method physics-gp { check none }\n",
            8,
        );
        for (name, truth) in [("c", 1.0), ("k", 2.0)] {
            let value = e[name]["value"].as_f64().unwrap();
            let std = e[name]["std"].as_f64().expect("a std");
            // The optimum the model predicts with is journaled beside the posterior's mean.
            let fitted = e[name]["fitted"].as_f64().expect("the fitted optimum");
            assert!(
                (fitted - value).abs() <= 3.0 * std,
                "{name}: {fitted} vs {value}"
            );
            assert!(
                (value - truth).abs() <= 2.0 * std,
                "{name}: {value} ± {std}"
            );
        }
    }

    /// Where only a ratio is identified, neither param has a std and the report names the
    /// ratio: `a u'' = -b` determines b/a alone.
    #[test]
    fn a_ratio_alone_is_named() {
        let e = estimate(
            "var x in [0, 1]\nparam a in [0.5, 5] log\nparam b in [0.5, 5] log\n\
             field u(x) = 1.5*x*(1 - x)\npde a*dxx(u) = -b\nminimize u\n",
            6,
        );
        for name in ["a", "b"] {
            assert_eq!(e[name]["std"], Value::Null, "{e}");
            assert_eq!(
                e[name]["undetermined"], "only a/b is determined by the data",
                "{e}"
            );
        }
    }

    /// A param whose truth lies outside its box ends on the bound, and says so.
    #[test]
    fn a_param_on_its_bound_says_so() {
        let e = estimate(
            "var x in [0, 1]\nparam k in [0.5, 2.8]\n\
             field u(x) = 1.5*x*(1 - x)\npde dxx(u) = -k\nminimize u\n",
            6,
        );
        assert_eq!(e["k"]["at_bound"], "upper", "{e}");
    }
}
