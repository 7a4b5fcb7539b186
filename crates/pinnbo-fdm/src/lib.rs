//! Sparse finite-difference reference solvers: the steady rod in 1-D, steady heat/Poisson in
//! 2-D, transient heat in 1-D and 2-D, and the Euler–Bernoulli beam with non-uniform (even
//! singular) rigidity. They validate PINNs in tests and serve as the "experiment" an
//! optimizer queries, once per problem or once per design. Knows nothing of BO.

pub mod beam;
mod error;
pub mod grid;
pub mod poisson;
pub mod problem;
pub mod rod;
pub mod sparse;
pub mod transient;

pub use error::FdmError;
pub use grid::{Axis, Extremum, Field, Interpolation};
