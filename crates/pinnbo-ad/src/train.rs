//! PINN training: a weighted sum of data misfit and residual terms, minimized by Adam with an
//! exponentially decaying learning rate, optionally pulled toward the initial weights, stopped
//! early on a plateau. Full batch and deterministic: the same network and data give the same
//! run.

use crate::mlp::Mlp;
use crate::residual::Residual;
use candle_core::{Result, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};

/// A residual that should vanish at `points` (`[N, inputs]`): the pde in the domain, or a
/// boundary condition on a face.
#[derive(Debug)]
pub struct ResidualTerm {
    pub residual: Residual,
    pub points: Tensor,
    pub weight: f64,
}

/// Observed values `values` (`[N]`) of the field at `points` (`[N, inputs]`).
pub struct Observations {
    pub points: Tensor,
    pub values: Tensor,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    pub epochs: usize,
    pub lr: f64,
    /// The learning rate is multiplied by this every `decay_every` epochs.
    pub lr_decay: f64,
    pub decay_every: usize,
    /// Weight of `Σ (θ - θ0)²` (0 for none).
    pub anchor: f64,
    /// Stop when the loss has not fallen by `min_improvement` (relative) in `patience` epochs.
    pub patience: usize,
    pub min_improvement: f64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 2000,
            lr: 1e-3,
            lr_decay: 0.95,
            decay_every: 100,
            anchor: 0.0,
            patience: 500,
            min_improvement: 1e-4,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainReport {
    pub epochs: usize,
    pub final_loss: f64,
    pub best_loss: f64,
    pub stopped_early: bool,
}

/// The loss at the current weights (differentiable).
pub fn loss(
    net: &Mlp,
    data: Option<&Observations>,
    terms: &[ResidualTerm],
    anchor: Option<(&[Tensor], f64)>,
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
    for term in terms {
        let r = term.residual.evaluate(net, &term.points)?;
        add((r.sqr()?.mean_all()? * term.weight)?)?;
    }
    if let Some((initial, weight)) = anchor {
        for (var, start) in net.vars().iter().zip(initial) {
            add(((var.as_tensor() - start)?.sqr()?.sum_all()? * weight)?)?;
        }
    }
    match total {
        Some(t) => Ok(t),
        None => candle_core::bail!("nothing to train on: no observations and no residual terms"),
    }
}

/// Trains `net` in place.
pub fn train(
    net: &Mlp,
    data: Option<&Observations>,
    terms: &[ResidualTerm],
    config: &TrainConfig,
) -> Result<TrainReport> {
    let vars: Vec<Var> = net.vars();
    let initial: Vec<Tensor> = vars
        .iter()
        .map(|v| v.as_tensor().copy())
        .collect::<Result<_>>()?;
    let params = ParamsAdamW {
        lr: config.lr,
        weight_decay: 0.0,
        ..ParamsAdamW::default()
    };
    let mut adam = AdamW::new(vars, params)?;
    let anchor = (config.anchor > 0.0).then_some((initial.as_slice(), config.anchor));
    let (mut best, mut best_epoch, mut last) = (f64::INFINITY, 0, f64::NAN);
    let mut epochs = 0;
    let mut stopped_early = false;
    for epoch in 0..config.epochs {
        let l = loss(net, data, terms, anchor)?;
        last = l.to_dtype(candle_core::DType::F64)?.to_scalar::<f64>()?;
        if !last.is_finite() {
            candle_core::bail!("the loss became {last} at epoch {epoch}");
        }
        if last < best * (1.0 - config.min_improvement) {
            (best, best_epoch) = (last, epoch);
        } else if epoch - best_epoch >= config.patience {
            stopped_early = true;
            break;
        }
        best = best.min(last);
        adam.backward_step(&l)?;
        epochs = epoch + 1;
        if config.decay_every > 0 && epochs % config.decay_every == 0 {
            adam.set_learning_rate(adam.learning_rate() * config.lr_decay);
        }
    }
    Ok(TrainReport {
        epochs,
        final_loss: last,
        best_loss: best,
        stopped_early,
    })
}
