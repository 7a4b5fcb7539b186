//! What a program driving pinnbo usually needs, in one import: `use pinnbo_core::prelude::*;`.

pub use crate::oracle::{Evaluation, Failure, FnOracle, Oracle};
pub use crate::run::builder::{BuildError, Optimization};
pub use crate::run::journal::Record;
pub use crate::run::observer::Observer;
pub use crate::run::{Run, RunConfig, RunError, Summary};
pub use crate::space::Space;
pub use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError};
