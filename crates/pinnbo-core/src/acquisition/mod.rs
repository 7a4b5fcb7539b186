//! Acquisition criteria (minimization form, [`criteria`]) and their optimization over the
//! unit cube ([`search`]; [`network_search`] for network-valued scores).
//!
//! Candidates are Sobol points scrambled from the step's random stream, scored in parallel;
//! with refinement on (the default), the best few are then improved: by projected L-BFGS
//! from the best ten where the score's gradient is exact (the GP methods,
//! [`maximize_smooth`]), else by projected gradient steps with backtracking, the gradient
//! taken by central differences (every acquisition here is smooth where it is positive).
//! `acquisition random` keeps the papers' plain candidate-set version for faithful
//! comparisons. Both stay inside a trust region when the search has one (`trust_region`).

pub mod criteria;
pub mod domain;
pub mod network_search;
pub mod search;
pub mod trust_region;

pub use criteria::{
    expected_improvement, log_expected_improvement, log_probability_nonpositive,
    probability_nonpositive,
};
pub use search::{maximize, maximize_batch, maximize_smooth, BatchScore, Search};
