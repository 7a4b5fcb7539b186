//! The optimization framework: oracles, strategies (surrogate + acquisition), and the loop
//! that runs them with a crash-safe journal.
//!
//! Every problem is minimized internally over the unit cube: `maximize` negates the
//! objective ([`oracle::minimized`]) and [`space::Space`] maps the box. Knows the DSL's IR,
//! the FDM solvers and the jets; never the command line.

pub mod acquisition;
pub mod bench;
pub mod builder;
mod dense;
pub mod design;
pub mod gp;
pub mod gp_bo;
pub mod journal;
pub mod methods;
mod neural;
pub mod neural_bo;
pub mod neural_cbo;
pub mod neural_greedy;
pub mod neural_surrogate;
pub mod oracle;
pub mod outputs;
pub mod pinn_bo;
pub mod run;
pub mod space;
pub mod strategy;
mod strategy_state;
pub mod trust_region;

pub use builder::{BuildError, Optimization};
pub use oracle::{Evaluation, Failure, Oracle};
pub use run::{Run, RunConfig, RunError, Summary};
pub use strategy::{Observed, Proposal, Strategy};
