//! The optimization framework: oracles, strategies (surrogate + acquisition), and the loop
//! that runs them with a crash-safe journal.
//!
//! Every problem is minimized internally over the unit cube: `maximize` negates the
//! objective ([`oracle::minimized`]) and [`space::Space`] maps the box. Knows the DSL's IR,
//! the FDM solvers and the jets; never the command line.
//!
//! The modules, by role:
//! - [`oracle`] — what measures a point: closed forms, FDM fields, external commands, closures.
//! - [`strategies`] — one step of each method (history → next point) and the method registry.
//! - [`surrogates`] — the models the strategies fit: Gaussian processes, neural surrogates.
//! - [`acquisition`] — scoring and searching candidates, trust regions.
//! - [`run`] — the loop: initial design, journal, saved strategy state, outputs, the builder.
//! - [`bench`] — many runs over problems, methods and seeds, and their statistics.
//!
//! Most programs need only the [`prelude`].

pub mod acquisition;
pub mod bench;
pub mod oracle;
pub mod prelude;
pub mod run;
pub mod space;
pub mod strategies;
pub mod surrogates;

// The root offers what the prelude does, so `pinnbo_core::Run` and the prelude agree.
pub use prelude::*;
