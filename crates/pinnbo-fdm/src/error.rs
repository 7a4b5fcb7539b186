//! The crate's one error type.

/// Why a finite-difference solve could not produce a field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FdmError {
    #[error("the grid needs at least {min} points per dimension, got {got}")]
    GridTooSmall { min: usize, got: usize },
    #[error(
        "the grid would need about {estimate_mib} MiB, above the limit of {limit_mib} MiB; \
         use fewer points or steps, or raise the oracle's `memory` setting"
    )]
    TooLarge { estimate_mib: u64, limit_mib: u64 },
    #[error("{what} is not finite at {location}")]
    NonFinite { what: String, location: String },
    #[error("the linear system is singular: {0}")]
    Singular(String),
    #[error("ill-posed boundary conditions: {0}")]
    IllPosed(String),
}
