//! Reading the settings several methods share from their tables into the typed
//! configurations of the layers below (a strategy's own settings are read in its module).

use crate::acquisition::Search;
use crate::surrogates::neural::{Features, SurrogateConfig};
use candle_core::DType;
use pinnbo_dsl::choices::{Precision, Refinement};
use pinnbo_dsl::methods::MethodSettings;

/// The `candidates`, `acquisition` and `region` settings of a method that declares them.
pub fn search(s: &MethodSettings) -> Search {
    Search {
        candidates: s.count("candidates"),
        refine: s.choice::<Refinement>("acquisition") == Refinement::Refine,
        region: s.choice("region"),
    }
}

impl Default for Search {
    /// The neural methods' default (Neural-Greedy's table): a trust region above 20
    /// dimensions.
    fn default() -> Search {
        search(&MethodSettings::defaults("neural-greedy"))
    }
}

/// The surrogate's settings of NeuralBO or Neural-CBO (docs/dsl.md has the reasons for the
/// defaults: `bias` 1 because zero biases make a ReLU network's draws cones about the
/// centre, `steps` 500 and `lr` 1e-4 because the papers' schedule is far from a fit).
pub fn surrogate(s: &MethodSettings) -> SurrogateConfig {
    SurrogateConfig {
        width: s.count("width"),
        depth: s.count("depth"),
        activation: s.choice("activation"),
        bias_std: s.number("bias"),
        lambda: s.number("lambda"),
        epochs: s.count("epochs"),
        batch: Some(s.count("batch")),
        min_steps: s.count("steps"),
        lr: s.number("lr"),
        // Only NeuralBO's independent draws can use other features (its constructor reads
        // the setting); the variance everywhere else is the static features'.
        features: Features::Static,
        dtype: match s.choice("dtype") {
            Precision::F64 => DType::F64,
            Precision::F32 => DType::F32,
        },
        device: s.choice("device"),
    }
}

impl Default for SurrogateConfig {
    /// NeuralBO's defaults.
    fn default() -> Self {
        surrogate(&MethodSettings::defaults("neural-bo"))
    }
}
