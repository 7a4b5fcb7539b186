//! Why a step could not propose a point: the errors every layer above meets, in one type.

use crate::numerics::cholesky::NotPositiveDefinite;

/// Why a Gaussian process could not be fitted.
#[derive(Debug, thiserror::Error)]
pub enum GpError {
    #[error("a Gaussian process needs at least one observation")]
    Empty,
    #[error(transparent)]
    NotPositiveDefinite(#[from] NotPositiveDefinite),
}

#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    /// A tensor operation or a network's training failed.
    #[error(transparent)]
    Tensor(candle_core::Error),
    #[error(transparent)]
    Gp(#[from] GpError),
    #[error(transparent)]
    NotPositiveDefinite(#[from] NotPositiveDefinite),
    /// The pde's residual points could not be set up.
    #[error(transparent)]
    Collocation(#[from] pinnbo_ad::collocation::CollocationError),
    /// The method's `device` cannot be had in this build or on this machine.
    #[error(transparent)]
    Device(#[from] pinnbo_ad::device::DeviceError),
    /// The history, a setting or a saved state cannot be used as it is; the text says why.
    #[error("{0}")]
    Unusable(String),
    /// An error inside a named part of a method (`NeuralBO`, `Gaussian process`).
    #[error("{part}: {source}")]
    In {
        part: &'static str,
        source: Box<StrategyError>,
    },
}

pinnbo_ad::from_candle!(StrategyError::Tensor);

impl From<String> for StrategyError {
    fn from(why: String) -> StrategyError {
        StrategyError::Unusable(why)
    }
}

impl From<&str> for StrategyError {
    fn from(why: &str) -> StrategyError {
        StrategyError::Unusable(why.to_string())
    }
}

impl StrategyError {
    /// `why` (an unusable input) inside `part`.
    pub(crate) fn unusable(part: &'static str, why: impl Into<String>) -> StrategyError {
        StrategyError::In {
            part,
            source: Box::new(StrategyError::Unusable(why.into())),
        }
    }
}

/// Names the part of a method an error comes from. The innermost name is kept: an error that
/// already says where it arose is not wrapped again.
pub(crate) trait Within<T> {
    fn within(self, part: &'static str) -> Result<T, StrategyError>;
}

impl<T, E: Into<StrategyError>> Within<T> for Result<T, E> {
    fn within(self, part: &'static str) -> Result<T, StrategyError> {
        self.map_err(|e| match e.into() {
            named @ StrategyError::In { .. } => named,
            other => StrategyError::In {
                part,
                source: Box::new(other),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_part_names_the_error() {
        let inner: Result<(), StrategyError> = Err("no observations").within("neural surrogate");
        let outer = inner.within("NeuralBO").unwrap_err();
        assert_eq!(outer.to_string(), "neural surrogate: no observations");
        let unusable = StrategyError::unusable("NeuralBO", "it is missing");
        assert_eq!(unusable.to_string(), "NeuralBO: it is missing");
    }

    /// A candle error carrying the backtrace candle captures under `RUST_BACKTRACE` reaches
    /// the user as its message alone (issue 53, item 22).
    #[test]
    fn a_tensor_error_shows_no_backtrace() {
        let traced = candle_core::Error::WithBacktrace {
            inner: Box::new(candle_core::Error::Msg("the shapes differ".into())),
            backtrace: Box::new(std::backtrace::Backtrace::force_capture()),
        };
        assert!(traced.to_string().lines().count() > 1, "{traced}");
        let shown = StrategyError::from(traced).to_string();
        assert_eq!(shown, "the shapes differ");
    }
}
