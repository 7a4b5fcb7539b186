//! What the pde model conditions on ([`Rows`]: the observations' point values, then the
//! pde's residual equations) and how those rows move with a param ([`ParamSlope`]): the
//! vocabulary the likelihood and the params' fit share.

use super::kernel::Functional;
use super::Residuals;
use crate::space::Standardizer;
use crate::surrogates::gp::GpError;

/// What the model conditions on: the observations' point values first, then the residual
/// equations, with targets for the standardized field.
#[derive(Clone)]
pub(super) struct Rows {
    pub(super) functionals: Vec<Functional>,
    pub(super) observed: usize,
    pub(super) y: Vec<f64>,
    /// Each row applied to the constant 1: 1 for a point value, the coefficient of `f`
    /// itself for a residual equation (how a constant prior mean moves each row).
    pub(super) ones: Vec<f64>,
    pub(super) standardizer: Standardizer,
}

impl Rows {
    pub(super) fn new(
        x: &[Vec<f64>],
        values: &[f64],
        residuals: &Residuals,
    ) -> Result<Rows, GpError> {
        Rows::standardized(x, values, residuals, Standardizer::fit(values))
    }

    /// The rows with the values standardized by `standardizer` (another set's).
    pub(super) fn standardized(
        x: &[Vec<f64>],
        values: &[f64],
        residuals: &Residuals,
        standardizer: Standardizer,
    ) -> Result<Rows, GpError> {
        if x.is_empty() {
            return Err(GpError::Empty);
        }
        let mut y: Vec<f64> = values.iter().map(|v| standardizer.forward(*v)).collect();
        // N[(f − m)/s] = (g − m c_0)/s for the standardized field.
        y.extend(
            residuals
                .targets
                .iter()
                .zip(&residuals.value_coefficients)
                .map(|(g, c0)| (g - standardizer.mean * c0) / standardizer.std),
        );
        let mut functionals: Vec<Functional> = x.iter().map(|p| Functional::value(p)).collect();
        functionals.extend(residuals.functionals.iter().cloned());
        let ones = (x.iter().map(|_| 1.0))
            .chain(residuals.value_coefficients.iter().copied())
            .collect();
        Ok(Rows {
            functionals,
            observed: x.len(),
            y,
            ones,
            standardizer,
        })
    }
}

/// How the residual rows move with one param: the derivative of each equation's functional,
/// of its standardized target and of its coefficient of `f` itself.
pub(super) struct ParamSlope {
    pub(super) functionals: Vec<Functional>,
    pub(super) targets: Vec<f64>,
    pub(super) ones: Vec<f64>,
}

impl ParamSlope {
    /// From the derivative equations, in the units `standardizer` gives the rows: the target
    /// of `N[(f − m)/s]` is `(g − m c₀)/s`, so it moves by `(g′ − m c₀′)/s`.
    pub(super) fn new(derivative: &Residuals, standardizer: &Standardizer) -> ParamSlope {
        let targets = (derivative
            .targets
            .iter()
            .zip(&derivative.value_coefficients))
        .map(|(g, c0)| (g - standardizer.mean * c0) / standardizer.std)
        .collect();
        ParamSlope {
            functionals: derivative.functionals.clone(),
            targets,
            ones: derivative.value_coefficients.clone(),
        }
    }
}
