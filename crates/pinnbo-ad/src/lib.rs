//! Differential operators compiled to candle graphs.
//!
//! candle's reverse mode cannot differentiate a gradient, so derivatives of a network with
//! respect to its inputs are propagated forward as jets ([`jet::Jet`]) built from ordinary
//! candle ops; one `backward()` of a loss over those jets then gives the parameter gradients.
//! On the CPU the activation rule runs as one fused candle custom op (forward and backward).
//! Knows the DSL's IR, never the optimizer.

pub mod adam;
pub mod collocation;
pub mod dense_net;
mod fused;
pub mod jet;
pub mod linear;
pub mod mlp;
pub mod multi;
pub mod nested;
pub mod operators;
pub mod residual;
pub mod sampling;
pub mod scalar;
pub mod tangent;
pub mod train;
mod vector_state;

pub use jet::Jet;
pub use mlp::{Activation, Mlp, MlpConfig, Parameterization};
pub use multi::{IndexSet, MultiIndex};
pub use operators::{LoweringContext, Operator, OperatorRegistry};
pub use residual::{Residual, ResidualError, TrainableParam};
