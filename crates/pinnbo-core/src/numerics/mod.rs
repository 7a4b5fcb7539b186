//! The ground floor: numerical building blocks that know nothing of optimization — the
//! bounded quasi-Newton minimizer the fits and acquisitions use, the dense SPD (Cholesky)
//! factorization every kernel method needs, seeded space-filling designs, and Pareto
//! fronts' hypervolumes.

pub(crate) mod cholesky;
pub mod design;
pub mod pareto;
pub(crate) mod quasi_newton;
pub mod warp;
