//! The optimization framework: oracles, strategies (surrogate + acquisition), and the loop
//! that runs them with a crash-safe journal.
//!
//! Every problem is minimized internally over the unit cube: `maximize` negates the
//! objective ([`oracle::minimized`]) and [`space::Space`] maps the box. Knows the DSL's IR,
//! the FDM solvers and the jets; never the command line.
//!
//! The modules, lowest layer first (each imports only from the ones before it):
//! - [`numerics`] — the bounded quasi-Newton minimizer, dense SPD factorization, designs.
//! - [`space`], [`history`], [`diagnostics`], [`error`] — the vocabulary every layer shares.
//! - [`oracle`] — what measures a point: closed forms, FDM fields, external commands, closures.
//! - [`surrogates`] — the models the strategies fit: Gaussian processes, neural surrogates.
//! - [`acquisition`] — criteria, and searching candidates for their maximum; trust regions.
//! - [`strategies`] — one step of each method (history → next point) and the method registry;
//!   the only layer that reads the DSL's method tables.
//! - [`run`] — the loop: journal, saved strategy state, ask/tell, outputs, the builder.
//! - [`bench`] — many runs over problems, methods and seeds, and their statistics.
//!
//! Most programs need only the [`prelude`].

// A module names only its own layer and those below (the order above, `LAYERS` in
// layers.rs; docs/ARCHITECTURE.md).
pub mod acquisition;
pub mod bench;
pub mod diagnostics;
pub mod error;
pub mod history;
pub mod numerics;
pub mod oracle;
pub mod prelude;
pub mod run;
pub mod space;
pub mod strategies;
pub mod surrogates;

#[cfg(test)]
mod layers;

// The root offers what the prelude does, so `pinnbo_core::Run` and the prelude agree.
pub use pinnbo_ad::{device, interrupt};
pub use prelude::*;
