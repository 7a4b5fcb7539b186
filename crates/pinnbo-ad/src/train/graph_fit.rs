//! Training through candle: residual terms by autograd, data alone by the hand-written
//! backward pass. Any device.

use super::fit::{loss_on, Batch, Fit, Observations, ResidualTerm};
use crate::adam::Adam;
use crate::mlp::Mlp;
use candle_core::backprop::GradStore;
use candle_core::{DType, Result, Tensor, Var};

/// Training through candle: residual terms by autograd, data alone by the hand-written
/// backward pass. Any device.
pub(super) struct GraphFit<'a> {
    pub(super) net: &'a Mlp,
    /// The pde's params the residual terms train with the network (an inverse PINN).
    pub(super) params: Vec<Var>,
    pub(super) data: Option<&'a Observations>,
    pub(super) terms: &'a [ResidualTerm],
    pub(super) adam: Adam,
    pub(super) grads: Option<GradStore>,
}

impl Fit for GraphFit<'_> {
    type Weights = Vec<Tensor>;

    fn gradient(&mut self, batch: &Batch) -> Result<f64> {
        let selected = match (self.data, &batch.observations) {
            (Some(d), Some(index)) => {
                let index = Tensor::new(index.as_slice(), d.values.device())?;
                Some(Observations {
                    points: d.points.index_select(&index, 0)?,
                    values: d.values.index_select(&index, 0)?,
                })
            }
            _ => None,
        };
        let data = selected.as_ref().or(self.data);
        let (value, grads) = match (data, self.terms.is_empty()) {
            (Some(d), true) => self.net.misfit_gradients(&d.points, &d.values)?,
            _ => {
                let l = loss_on(self.net, data, self.terms, batch.residuals.as_deref())?;
                let value = l.to_dtype(DType::F64)?.to_scalar::<f64>()?;
                (value, l.backward()?)
            }
        };
        self.grads = Some(grads);
        Ok(value)
    }

    fn step(&mut self) -> Result<f64> {
        match self.grads.take() {
            Some(grads) => self.adam.step(&grads),
            None => candle_core::bail!("an Adam step without a gradient"),
        }
    }

    /// The network's weights and the params'.
    fn weights(&self) -> Result<Vec<Tensor>> {
        (self.net.vars().iter().chain(&self.params))
            .map(|v| v.as_tensor().copy())
            .collect()
    }

    fn restore(&mut self, weights: Vec<Tensor>) -> Result<()> {
        for (var, w) in self.net.vars().iter().chain(&self.params).zip(&weights) {
            var.set(w)?;
        }
        Ok(())
    }

    fn learning_rate(&self) -> f64 {
        self.adam.learning_rate()
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.adam.set_learning_rate(lr);
    }
}
