//! Sparse finite-difference reference solvers: steady heat/Poisson in 2-D, transient heat in
//! 1-D, and the Euler–Bernoulli beam with non-uniform (even singular) rigidity. They validate
//! PINNs in tests and serve as the "experiment" an optimizer queries. Knows nothing of BO.

pub mod beam;
mod error;
pub mod grid;
pub mod poisson;
pub mod problem;
pub mod sparse;
pub mod transient;

pub use error::FdmError;
pub use grid::{Axis, Extremum, Field, Interpolation};
