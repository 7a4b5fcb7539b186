//! physics-gp's view of the pde's unknown constants: the equations at any value of the
//! params the pde uses, in the coordinates they are fitted in, and the estimate a step
//! reports.

use crate::diagnostics::{Diagnostics, PARAMETERS};
use crate::strategies::pde::{param_centre, PdeEquations};
use crate::surrogates::pde_gp::{ParamEquations, PdeGp, Residuals};
use pinnbo_dsl::ir::{Param, ParamId};
use pinnbo_dsl::Problem;
use serde_json::{json, Map, Value};

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

    /// The fitted estimate of each param in its own units, with its standard deviation (a
    /// `log` param's by the delta method, `θ σ_φ`; `null` when the data do not pin it), as
    /// journaled: `{"k": {"value": .., "std": ..}}`.
    pub fn estimate(&self, gp: &PdeGp) -> Value {
        let mut out = Map::new();
        for ((param, &phi), &std) in self
            .declared
            .iter()
            .zip(&gp.hyper.params)
            .zip(&gp.param_std)
        {
            let value = param.from_fitted(phi);
            let std = if param.log { value * std } else { std };
            let std = std.is_finite().then_some(std);
            out.insert(param.name.clone(), json!({"value": value, "std": std}));
        }
        Value::Object(out)
    }

    /// `diagnostics` with the estimate under `parameters`.
    pub fn report(&self, diagnostics: Diagnostics, gp: &PdeGp) -> Diagnostics {
        diagnostics.with(PARAMETERS, self.estimate(gp))
    }
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
}
