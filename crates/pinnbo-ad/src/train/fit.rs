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

/// One optimization step's share of the data: the observations' rows and, per residual
/// term, its points' rows (None: all of them).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Batch {
    pub observations: Option<Vec<u32>>,
    pub residuals: Option<Vec<Vec<u32>>>,
}

/// The loss at the current weights (differentiable), without the anchor (which [`Adam`]
/// applies).
pub fn loss(net: &Mlp, data: Option<&Observations>, terms: &[ResidualTerm]) -> Result<Tensor> {
    loss_on(net, data, terms, None)
}

/// [`loss`] with each residual term at the rows `residual_rows[j]` of its points only (None:
/// all): each term's mean squared residual is then estimated from those points.
pub(crate) fn loss_on(
    net: &Mlp,
    data: Option<&Observations>,
    terms: &[ResidualTerm],
    residual_rows: Option<&[Vec<u32>]>,
) -> Result<Tensor> {
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
    for (j, term) in terms.iter().enumerate() {
        let rows = match residual_rows {
            Some(rows) => Some(Tensor::new(rows[j].as_slice(), term.points.device())?),
            None => None,
        };
        let select = |t: &Tensor| match &rows {
            Some(r) => t.index_select(r, 0),
            None => Ok(t.clone()),
        };
        let squared = term.residual.evaluate(net, &select(&term.points)?)?.sqr()?;
        let squared = match &term.point_weights {
            Some(w) => (squared * select(w)?)?,
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
    /// The loss without the anchor over `batch`, keeping its gradient for [`Fit::step`].
    fn gradient(&mut self, batch: &Batch) -> Result<f64>;
    /// Adam's step from that gradient; returns the anchor's value at the weights before it.
    fn step(&mut self) -> Result<f64>;
    fn weights(&self) -> Result<Self::Weights>;
    fn restore(&mut self, weights: Self::Weights) -> Result<()>;
    fn learning_rate(&self) -> f64;
    fn set_learning_rate(&mut self, lr: f64);
}
