//! The models strategies fit to the history: Gaussian processes, and the neural surrogates
//! with what they share.

pub(crate) mod bounded;
pub(crate) mod dense;
pub mod gp;
pub(crate) mod network;
pub mod neural;
pub mod pde_gp;
