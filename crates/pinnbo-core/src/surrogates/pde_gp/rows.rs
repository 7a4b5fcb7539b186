//! What the pde model conditions on ([`Rows`]: the observations' point values, then the
//! pde's residual equations) and how those rows move with a param ([`ParamSlope`]): the
//! vocabulary the likelihood and the params' fit share.

use super::kernel::Functional;
use super::Residuals;
use crate::space::Standardizer;
use crate::surrogates::gp::GpError;
use crate::surrogates::{own_at, own_variances};

/// Bounds on the log noise variance of the observations (standardized).
pub(super) const NOISE: (f64, f64) = (-13.8, 0.0);

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
    /// Each observation's own noise variance (standardized) where a standard error was told
    /// for it, replacing the model's there; None elsewhere (empty: none anywhere).
    pub(super) own_noise: Vec<Option<f64>>,
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
            own_noise: Vec::new(),
        })
    }

    /// These rows with the observations' own standard errors `sems` (the values' units;
    /// empty: none).
    pub(super) fn with_sems(mut self, sems: &[Option<f64>]) -> Rows {
        self.own_noise = own_variances(sems, &self.standardizer, NOISE.0.exp());
        self
    }

    /// Observation row `p`'s noise variance: its own, or the model's `noise`.
    pub(super) fn noise_at(&self, p: usize, noise: f64) -> f64 {
        own_at(&self.own_noise, p).unwrap_or(noise)
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
