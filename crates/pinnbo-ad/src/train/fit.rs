//! What training fits and how: the observations and residual terms, the loss over them,
//! and the [`Fit`] interface the epoch loop drives (on candle graphs or flat buffers).

use crate::mlp::Mlp;
use crate::residual::Residual;
use candle_core::{Result, Tensor};

/// A residual that should vanish at `points` (`[N, inputs]`): the pde in the domain, or a
/// boundary condition on a face.
#[derive(Debug)]
pub struct ResidualTerm {
    pub residual: Residual,
    pub points: Tensor,
    pub weight: f64,
    /// A factor per point on its squared residual (`[N]`; None: 1 everywhere). Scaling one
    /// point's equation leaves the pde's solutions unchanged, so a coefficient's pole need
    /// not decide the loss.
    pub point_weights: Option<Tensor>,
}

/// Observed values `values` (`[N]`) of the field at `points` (`[N, inputs]`).
pub struct Observations {
    pub points: Tensor,
    pub values: Tensor,
}

/// The loss at the current weights (differentiable), without the anchor (which [`Adam`]
/// applies).
pub fn loss(net: &Mlp, data: Option<&Observations>, terms: &[ResidualTerm]) -> Result<Tensor> {
    let mut total: Option<Tensor> = None;
    let mut add = |t: Tensor| -> Result<()> {
        total = Some(match total.take() {
            None => t,
            Some(acc) => (acc + t)?,
        });
        Ok(())
    };
    if let Some(d) = data {
        let predicted = net.forward(&d.points)?.flatten_all()?;
        add((predicted - &d.values)?.sqr()?.mean_all()?)?;
    }
    for term in terms {
        let squared = term.residual.evaluate(net, &term.points)?.sqr()?;
        let squared = match &term.point_weights {
            Some(w) => (squared * w)?,
            None => squared,
        };
        add((squared.mean_all()? * term.weight)?)?;
    }
    match total {
        Some(t) => Ok(t),
        None => candle_core::bail!("nothing to train on: no observations and no residual terms"),
    }
}

/// What [`super::train`] drives: a network, its data and Adam's state.
pub(crate) trait Fit {
    type Weights;
    /// The loss without the anchor over the observations `batch` (None: all), keeping its
    /// gradient for [`Fit::step`].
    fn gradient(&mut self, batch: Option<&[u32]>) -> Result<f64>;
    /// Adam's step from that gradient; returns the anchor's value at the weights before it.
    fn step(&mut self) -> Result<f64>;
    fn weights(&self) -> Result<Self::Weights>;
    fn restore(&mut self, weights: Self::Weights) -> Result<()>;
    fn learning_rate(&self) -> f64;
    fn set_learning_rate(&mut self, lr: f64);
}
