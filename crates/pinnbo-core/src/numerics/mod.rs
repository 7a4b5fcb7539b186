//! The ground floor: numerical building blocks that know nothing of optimization — the
//! bounded quasi-Newton minimizer the fits and acquisitions use, the dense SPD (Cholesky)
//! factorization every kernel method needs, seeded space-filling designs, Pareto fronts'
//! hypervolumes, and moments of values at any magnitude.

pub(crate) mod cholesky;
pub mod design;
pub mod moments;
pub mod pareto;
pub(crate) mod quasi_newton;
pub mod warp;
