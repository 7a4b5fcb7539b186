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
pub mod device;
mod fused;
pub mod interrupt;
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

/// A candle error without the backtrace candle attaches when `RUST_BACKTRACE` is set: the
/// errors pinnbo shows are messages for users, never a developer's trace.
pub fn without_backtrace(e: candle_core::Error) -> candle_core::Error {
    match e {
        candle_core::Error::WithBacktrace { inner, .. } => without_backtrace(*inner),
        other => other,
    }
}

/// `impl From<candle_core::Error>` for an error enum's variant holding one, through
/// [`without_backtrace`].
#[macro_export]
macro_rules! from_candle {
    ($error:ident :: $variant:ident) => {
        impl From<candle_core::Error> for $error {
            fn from(e: candle_core::Error) -> Self {
                $error::$variant($crate::without_backtrace(e))
            }
        }
    };
}
