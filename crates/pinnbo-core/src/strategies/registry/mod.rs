//! From a method name (and the problem file's `method` settings) to a strategy. Each
//! method's settings are declared once, in `pinnbo_dsl::methods`; its constructor reads them
//! through that declaration ([`MethodSettings`]), so the checker, the constructors, `pinnbo
//! methods` and docs/dsl.md cannot drift apart.

use crate::strategies::gp_bo::GpBo;
use crate::strategies::gp_hypervolume::GpHypervolume;
use crate::strategies::neural_bo::{NeuralBo, NeuralBoConfig};
use crate::strategies::neural_cbo::{NeuralCbo, NeuralCboConfig};
use crate::strategies::neural_greedy::{NeuralGreedy, NeuralGreedyConfig};
use crate::strategies::physics_gp::PhysicsGp;
use crate::strategies::pinn_bo::{PinnBo, PinnBoConfig};
use crate::strategies::{RandomSearch, Strategy, StrategyError};
use pinnbo_ad::device::Hardware;
use pinnbo_ad::OperatorRegistry;
use pinnbo_dsl::choices::Choice;
use pinnbo_dsl::ir::{SettingValue, Settings};
use pinnbo_dsl::methods::{method, method_names, MethodSettings};
use pinnbo_dsl::Problem;

/// Mixed into the run's seed for network initialization, so weights and designs differ.
const NEURAL_SEED: u64 = 0x6e65_7572_616c;

/// The methods `pinnbo solve` runs: every method the language names.
pub fn available() -> impl Iterator<Item = &'static str> {
    method_names()
}

/// Why no strategy could be built.
#[derive(Debug, thiserror::Error)]
pub enum MethodError {
    #[error("unknown method `{name}`{hint}")]
    Unknown { name: String, hint: String },
    /// Settings built in code that the method's table does not accept.
    #[error("{0}")]
    Settings(String),
    /// The method does not fit the problem (PINN-BO without a pde, say).
    #[error(transparent)]
    Unfit(Box<StrategyError>),
}

impl From<StrategyError> for MethodError {
    fn from(e: StrategyError) -> MethodError {
        MethodError::Unfit(Box::new(e))
    }
}

/// The strategy for `name`, configured by the file's `method` block when it names the same
/// method (settings of another method do not apply). `seed` is the run's: it fixes the
/// initial weights of neural surrogates.
pub fn strategy(
    problem: &Problem,
    name: &str,
    seed: u64,
) -> Result<Box<dyn Strategy>, MethodError> {
    strategy_with(problem, name, seed, &OperatorRegistry::new(), None)
}

/// Whether the method trains networks, so that its `device` can be a GPU.
pub fn trains_networks(name: &str) -> bool {
    method(name).is_some_and(|m| m.setting("device").is_some())
}

/// Whether the method's model takes each observation's told standard error as its noise
/// (`tell --sem`): the methods whose model is a Gaussian process with hyperparameters.
pub fn models_told_noise(name: &str) -> bool {
    method(name).is_some_and(|m| m.setting("prior").is_some())
}

/// As [`strategy`], with the caller's operators for PINN-BO's residuals, and `device` in
/// place of the file's `device` setting (`solve --device`; refused for a method that trains
/// no network, see [`trains_networks`]).
pub fn strategy_with(
    problem: &Problem,
    name: &str,
    seed: u64,
    operators: &OperatorRegistry,
    device: Option<Hardware>,
) -> Result<Box<dyn Strategy>, MethodError> {
    let Some(info) = method(name) else {
        let hint = pinnbo_dsl::diag::suggestion(name, method_names())
            .map(|s| format!("; {s}"))
            .unwrap_or_default();
        return Err(MethodError::Unknown {
            name: name.to_string(),
            hint,
        });
    };
    let mut settings = match &problem.method {
        Some(m) if m.name == name => m.settings.clone(),
        _ => Settings::default(),
    };
    if let Some(device) = device {
        if !trains_networks(name) {
            return Err(MethodError::Settings(format!(
                "{name} trains no network, so it runs on the CPU whatever the device; a device \
                 applies to {}",
                method_names()
                    .filter(|m| trains_networks(m))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let value = SettingValue::Name(device.name().to_string());
        settings.0.insert("device".to_string(), value);
    }
    let s = MethodSettings::new(info, &settings).map_err(MethodError::Settings)?;
    let seed = seed ^ NEURAL_SEED;
    if problem.is_multi_objective() {
        return match info.name {
            "gp-ei" => Ok(Box::new(GpHypervolume::new(&s, problem))),
            "random" => Ok(Box::new(RandomSearch)),
            other => Err(StrategyError::Unusable(format!(
                "{other} optimizes one objective and this problem has {} ({}): use gp-ei \
                 (expected hypervolume improvement) or random",
                problem.objectives().count(),
                problem.objective_names().join(", ")
            ))
            .into()),
        };
    }
    Ok(match info.name {
        "gp-ei" | "gp-ucb" | "gp-ts" => Box::new(GpBo::new(&s, problem)),
        "physics-gp" if !problem.field_coords.is_empty() => {
            Box::new(crate::strategies::physics_gp::design::PhysicsDesign::new(
                &s, problem, operators, seed,
            )?)
        }
        "physics-gp" => Box::new(PhysicsGp::new(&s, problem, operators, seed)?),
        "random" => Box::new(RandomSearch),
        "pinn-bo" => Box::new(PinnBo::new(
            PinnBoConfig::from_settings(&s),
            problem,
            operators,
            seed,
        )?),
        "neural-cbo" => Box::new(NeuralCbo::new(
            NeuralCboConfig::from_settings(&s),
            problem.dim(),
            problem.constraints.len(),
            seed,
        )?),
        "neural-greedy" => Box::new(NeuralGreedy::new(NeuralGreedyConfig::from_settings(&s))?),
        "neural-bo" => Box::new(NeuralBo::new(
            NeuralBoConfig::from_settings(&s),
            problem.dim(),
            seed,
        )?),
        other => unreachable!("method `{other}` is in the table but has no constructor"),
    })
}

/// The method a problem gets when it names none: the physics-informed GP when the objective
/// is a field with a linear pde, PINN-BO when that pde is nonlinear (a network can be trained
/// on it, a Gaussian process cannot be conditioned on it) unless a variable is discrete,
/// GP-EI otherwise: without a pde, with several objectives (as expected hypervolume
/// improvement), or a nonlinear pde over integer or categorical variables.
pub fn default_method(problem: &Problem) -> &'static str {
    if problem.is_multi_objective() {
        return "gp-ei";
    }
    let Ok(field) = crate::strategies::pde::objective_field(problem, "") else {
        return "gp-ei";
    };
    if !problem.pdes.iter().any(|p| p.mentions(field)) {
        return "gp-ei";
    }
    // A few points decide linearity (a nonlinear pde is refused at the first).
    match crate::strategies::pde::residuals(problem, field, &OperatorRegistry::new(), 8, 0) {
        Err(crate::strategies::pde::PdeError::Linear {
            source: pinnbo_ad::linear::LinearError::Nonlinear { .. },
            ..
        }) if crate::strategies::pde::continuous_only(problem, "").is_ok() => "pinn-bo",
        Err(crate::strategies::pde::PdeError::Linear {
            source: pinnbo_ad::linear::LinearError::Nonlinear { .. },
            ..
        }) => "gp-ei",
        _ => "physics-gp",
    }
}

#[cfg(test)]
mod tests;
