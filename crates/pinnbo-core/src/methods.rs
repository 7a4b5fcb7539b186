//! From a method name (and the problem file's `method` settings) to a strategy.

use crate::acquisition::Search;
use crate::gp::Kernel;
use crate::gp_bo::{GpAcquisition, GpBo};
use crate::neural_bo::{Draw, NeuralBo, NeuralBoConfig, Start};
use crate::neural_cbo::{NeuralCbo, NeuralCboConfig};
use crate::neural_greedy::{NeuralGreedy, NeuralGreedyConfig};
use crate::neural_surrogate::{Features, SurrogateConfig};
use crate::pinn_bo::{PinnBo, PinnBoConfig, Surrogate};
use crate::strategy::{RandomSearch, Strategy};
use crate::trust_region::Region;
use candle_core::DType;
use pinnbo_ad::sampling::Sampling;
use pinnbo_ad::Activation;
use pinnbo_ad::OperatorRegistry;

/// Mixed into the run's seed for network initialization, so weights and designs differ.
const NEURAL_SEED: u64 = 0x6e65_7572_616c;
use pinnbo_dsl::ir::Settings;
use pinnbo_dsl::Problem;

/// The methods `pinnbo solve` runs today.
pub const AVAILABLE: &[&str] = &[
    "pinn-bo",
    "neural-bo",
    "neural-cbo",
    "neural-greedy",
    "gp-ei",
    "gp-ucb",
    "gp-ts",
    "random",
];

/// The strategy for `name`, configured by the file's `method` block when it names the same
/// method (settings of another method do not apply). `seed` is the run's: it fixes the
/// initial weights of neural surrogates.
pub fn strategy(problem: &Problem, name: &str, seed: u64) -> Result<Box<dyn Strategy>, String> {
    strategy_with(problem, name, seed, &OperatorRegistry::new())
}

/// As [`strategy`], with the caller's operators for PINN-BO's residuals.
pub fn strategy_with(
    problem: &Problem,
    name: &str,
    seed: u64,
    operators: &OperatorRegistry,
) -> Result<Box<dyn Strategy>, String> {
    let empty = Settings::default();
    let settings = match &problem.method {
        Some(m) if m.name == name => &m.settings,
        _ => &empty,
    };
    let region = settings.name("region").and_then(Region::from_name);
    let search = Search {
        candidates: settings
            .int("candidates")
            .map_or(Search::default().candidates, |c| c as usize),
        refine: settings.name("acquisition") != Some("random"),
        region: region.unwrap_or(Search::default().region),
    };
    let int = |key: &str, default: usize| settings.int(key).map_or(default, |v| v as usize);
    let gp = |acquisition| {
        let mut bo = GpBo::new(acquisition);
        bo.search = Search {
            region: region.unwrap_or(bo.search.region),
            ..search
        };
        if let Some(k) = settings.name("kernel").and_then(Kernel::from_name) {
            bo.kernel = k;
        }
        if let Some(r) = settings.int("restarts") {
            bo.restarts = r as usize;
        }
        bo.beta = settings.number("beta");
        Box::new(bo) as Box<dyn Strategy>
    };
    Ok(match name {
        "gp-ei" => gp(GpAcquisition::ExpectedImprovement),
        "gp-ucb" => gp(GpAcquisition::ConfidenceBound),
        "gp-ts" => gp(GpAcquisition::ThompsonSampling),
        "random" => Box::new(RandomSearch),
        "pinn-bo" => {
            let defaults = PinnBoConfig::default();
            let config = PinnBoConfig {
                surrogate: match settings.name("surrogate") {
                    Some("ntk-gp") => Surrogate::NtkGp,
                    _ => Surrogate::Pinn,
                },
                width: int("width", defaults.width),
                depth: int("depth", defaults.depth),
                activation: activation(settings, defaults.activation),
                lambda: settings.number("lambda").unwrap_or(defaults.lambda),
                residual_points: int("residual_points", defaults.residual_points),
                lambda_r: settings.number("lambda_r").unwrap_or(defaults.lambda_r),
                sampling: match settings.name("sampling") {
                    Some("uniform") => Sampling::Uniform,
                    _ => defaults.sampling,
                },
                epochs: int("epochs", defaults.epochs),
                lr: settings.number("lr").unwrap_or(defaults.lr),
                lr_decay: settings.number("lr_decay").unwrap_or(defaults.lr_decay),
                nu: settings.number("nu"),
                search,
                ..defaults
            };
            Box::new(PinnBo::new(config, problem, operators, seed ^ NEURAL_SEED).map_err(|e| e.0)?)
        }
        "neural-cbo" => {
            let config = NeuralCboConfig {
                surrogate: surrogate_config(settings),
                beta: settings
                    .number("beta")
                    .unwrap_or(NeuralCboConfig::default().beta),
                search,
            };
            let constraints = problem.constraints.len();
            Box::new(
                NeuralCbo::new(config, problem.dim(), constraints, seed ^ NEURAL_SEED)
                    .map_err(|e| e.0)?,
            )
        }
        "neural-greedy" => {
            let defaults = NeuralGreedyConfig::default();
            Box::new(NeuralGreedy {
                config: NeuralGreedyConfig {
                    width: int("width", defaults.width),
                    depth: int("depth", defaults.depth),
                    activation: activation(settings, defaults.activation),
                    sigma2: settings.number("lambda").unwrap_or(defaults.sigma2),
                    epochs: int("epochs", defaults.epochs),
                    lr: settings.number("lr").unwrap_or(defaults.lr),
                    search: Search {
                        candidates: int("candidates", defaults.search.candidates),
                        ..search
                    },
                },
            })
        }
        "neural-bo" => {
            let defaults = NeuralBoConfig::default();
            let config = NeuralBoConfig {
                surrogate: surrogate_config(settings),
                nu: settings.number("nu").unwrap_or(defaults.nu),
                search: Search {
                    candidates: int("candidates", defaults.search.candidates),
                    ..search
                },
                draw: match settings.name("draw") {
                    Some("independent") => Draw::Independent,
                    Some(_) => Draw::Pathwise,
                    None => defaults.draw,
                },
                start: match settings.name("start") {
                    Some("previous") => Start::Previous,
                    Some(_) => Start::Initial,
                    None => defaults.start,
                },
                warm_steps: int("warm_steps", defaults.warm_steps),
            };
            Box::new(NeuralBo::new(config, problem.dim(), seed ^ NEURAL_SEED).map_err(|e| e.0)?)
        }
        other if pinnbo_dsl::method_names().any(|m| m == other) => {
            return Err(format!(
                "method `{other}` is not available in this version yet; available: {}",
                AVAILABLE.join(", ")
            ))
        }
        other => {
            let hint = pinnbo_dsl::diag::suggestion(other, pinnbo_dsl::method_names())
                .map(|s| format!("; {s}"))
                .unwrap_or_default();
            return Err(format!("unknown method `{other}`{hint}"));
        }
    })
}

/// The NeuralBO-style surrogate's settings.
fn surrogate_config(settings: &Settings) -> SurrogateConfig {
    let defaults = SurrogateConfig::default();
    let int = |key: &str, default: usize| settings.int(key).map_or(default, |v| v as usize);
    SurrogateConfig {
        width: int("width", defaults.width),
        depth: int("depth", defaults.depth),
        activation: activation(settings, defaults.activation),
        bias_std: settings.number("bias").unwrap_or(defaults.bias_std),
        lambda: settings.number("lambda").unwrap_or(defaults.lambda),
        epochs: int("epochs", defaults.epochs),
        batch: settings
            .int("batch")
            .map_or(defaults.batch, |b| Some(b as usize)),
        min_steps: int("steps", defaults.min_steps),
        lr: settings.number("lr").unwrap_or(defaults.lr),
        features: match settings.name("features") {
            Some("dynamic") => Features::Dynamic,
            _ => Features::Static,
        },
        dtype: match settings.name("dtype") {
            Some("f32") => DType::F32,
            _ => DType::F64,
        },
    }
}

/// The `activation` setting, or `default`.
fn activation(settings: &Settings, default: Activation) -> Activation {
    settings
        .name("activation")
        .and_then(Activation::from_name)
        .unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::{points, Design};
    use crate::space::Space;
    use crate::strategy::Observed;
    use pinnbo_dsl::{compile, Source};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use serde_json::Value;

    /// One step of `method` configured by `settings`, on a 2-D bowl, from a fixed stream.
    fn diagnostics(method: &str, settings: &str) -> Value {
        let text = format!(
            "problem \"bowl\"\nvar x[2] in [0, 1]\nminimize (x[1] - 0.3)^2 + (x[2] - 0.6)^2\n\
             method {method} {{ {settings} }}\n"
        );
        let problem = compile(&Source::new("bowl.pde", text)).unwrap().problem;
        let history: Vec<Observed> = points(Design::Sobol, 6, 2, 1)
            .into_iter()
            .map(|unit| Observed {
                objective: (unit[0] - 0.3).powi(2) + (unit[1] - 0.6).powi(2),
                constraints: vec![],
                unit,
                proposed: false,
            })
            .collect();
        let space = Space::of(&problem);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut strategy = strategy(&problem, method, 0).unwrap();
        strategy
            .propose(&space, &history, &mut rng)
            .unwrap()
            .diagnostics
    }

    /// `acquisition random` reaches the search: from the same stream, refining can only
    /// lower the minimized sample (or mean), and with 8 candidates in 2-D it does.
    #[test]
    fn the_acquisition_setting_reaches_neural_bo_and_neural_greedy() {
        for (method, key, network) in [
            ("neural-bo", "sample", "width 16, steps 20"),
            ("neural-greedy", "predicted", "width 16, epochs 20"),
        ] {
            let value = |acquisition: &str| {
                let settings = format!("{network}, candidates 8, acquisition {acquisition}");
                diagnostics(method, &settings)[key].as_f64().unwrap()
            };
            let (plain, refined) = (value("random"), value("refine"));
            assert!(refined < plain, "{method}: {refined} vs {plain}");
        }
    }

    /// `region trust` reaches every searching method, even in 2-D, and `auto` is global there.
    #[test]
    fn the_region_setting_reaches_the_search() {
        for (method, network) in [
            ("neural-bo", "width 16, steps 20, "),
            ("neural-greedy", "width 16, epochs 20, "),
            ("neural-cbo", "width 16, steps 20, "),
            ("gp-ei", ""),
        ] {
            let trust = diagnostics(method, &format!("{network}candidates 64, region trust"));
            assert_eq!(trust["region_side"], 0.1, "{method}");
            let auto = diagnostics(method, &format!("{network}candidates 64, region auto"));
            assert!(auto.get("region_side").is_none(), "{method}");
        }
    }
}
