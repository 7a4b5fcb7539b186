//! PINN training: a weighted sum of data misfit and residual terms, minimized by Adam with an
//! exponentially decaying learning rate, optionally pulled toward the initial weights, stopped
//! early on a plateau. Full batch, or shuffled mini-batches of the observations from a seed:
//! the same network, data and seed give the same run.

use crate::adam::Adam;
use crate::dense_fit::DenseFit;
use crate::dense_net::Real;
use crate::mlp::Mlp;
use crate::residual::Residual;
use candle_core::backprop::GradStore;
use candle_core::{DType, Result, Tensor};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

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
    /// Observations per step, shuffled each epoch from `shuffle_seed` (None: all of them).
    /// Residual terms always use all their points.
    pub batch: Option<usize>,
    pub shuffle_seed: u64,
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
            batch: None,
            shuffle_seed: 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainReport {
    pub epochs: usize,
    /// The loss of the weights returned: the last epoch's (the mean over its steps), or the
    /// best epoch's when they were restored. Anchor included.
    pub final_loss: f64,
    pub best_loss: f64,
    pub stopped_early: bool,
    /// The best epoch's weights replaced the last ones (see [`train`]).
    pub restored_best: bool,
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
        let r = term.residual.evaluate(net, &term.points)?;
        add((r.sqr()?.mean_all()? * term.weight)?)?;
    }
    match total {
        Some(t) => Ok(t),
        None => candle_core::bail!("nothing to train on: no observations and no residual terms"),
    }
}

/// This epoch's shuffled batches of the `n` observations (one batch of all of them: None).
fn batches(n: Option<usize>, batch: Option<usize>, rng: &mut ChaCha8Rng) -> Vec<Option<Vec<u32>>> {
    let (Some(n), Some(size)) = (n, batch) else {
        return vec![None];
    };
    if size == 0 || size >= n {
        return vec![None];
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(rng);
    order.chunks(size).map(|c| Some(c.to_vec())).collect()
}

/// What [`train`] drives: a network, its data and Adam's state.
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

/// Training through candle: residual terms by autograd, data alone by the hand-written
/// backward pass. Any device.
struct GraphFit<'a> {
    net: &'a Mlp,
    data: Option<&'a Observations>,
    terms: &'a [ResidualTerm],
    adam: Adam,
    grads: Option<GradStore>,
}

impl Fit for GraphFit<'_> {
    type Weights = Vec<Tensor>;

    fn gradient(&mut self, batch: Option<&[u32]>) -> Result<f64> {
        let selected = match (self.data, batch) {
            (Some(d), Some(index)) => {
                let index = Tensor::new(index, d.values.device())?;
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
                let l = loss(self.net, data, self.terms)?;
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

    fn weights(&self) -> Result<Vec<Tensor>> {
        self.net
            .vars()
            .iter()
            .map(|v| v.as_tensor().copy())
            .collect()
    }

    fn restore(&mut self, weights: Vec<Tensor>) -> Result<()> {
        for (var, w) in self.net.vars().iter().zip(&weights) {
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

/// Trains `net` in place. With early stopping (a finite `patience`) and full batches, the
/// net ends at the best epoch's weights: Adam can leave a minimum in a spike (PINN-BO on
/// Styblinski–Tang-10 ended steps at a loss of 10²–10³ after reaching 10⁻²), and the
/// surrogate must be the fit that was found, not the last step taken. With mini-batches an
/// epoch's loss mixes several weights, so nothing is restored.
///
/// Data alone on the CPU trains on flat buffers ([`DenseFit`]); everything else through
/// candle. Both see the same batches.
pub fn train(
    net: &Mlp,
    data: Option<&Observations>,
    terms: &[ResidualTerm],
    config: &TrainConfig,
) -> Result<TrainReport> {
    train_toward(net, None, data, terms, config)
}

/// [`train`] with the anchor pulling toward `anchor_at`'s weights (None: `net`'s own at the
/// start): a warm start from earlier weights that keeps the same loss.
pub fn train_toward(
    net: &Mlp,
    anchor_at: Option<&Mlp>,
    data: Option<&Observations>,
    terms: &[ResidualTerm],
    config: &TrainConfig,
) -> Result<TrainReport> {
    let n = data.map(|d| d.values.dim(0)).transpose()?;
    if let (Some(d), true) = (data, terms.is_empty()) {
        if DenseFit::<f64>::supports(net, d) {
            return train_dense::<f64>(net, anchor_at, d, n, config);
        }
        if DenseFit::<f32>::supports(net, d) {
            return train_dense::<f32>(net, anchor_at, d, n, config);
        }
    }
    let mut fit = GraphFit {
        net,
        data,
        terms,
        adam: Adam::toward(
            net.vars(),
            &anchor_at.unwrap_or(net).vars(),
            config.lr,
            config.anchor,
        )?,
        grads: None,
    };
    run_epochs(&mut fit, n, config)
}

fn train_dense<T: Real>(
    net: &Mlp,
    anchor_at: Option<&Mlp>,
    data: &Observations,
    n: Option<usize>,
    config: &TrainConfig,
) -> Result<TrainReport> {
    let mut fit = DenseFit::<T>::new(net, anchor_at, data, config.lr, config.anchor)?;
    let report = run_epochs(&mut fit, n, config)?;
    fit.write_back(net)?;
    Ok(report)
}

/// The epochs of [`train`] over `n` observations (None: residual terms alone).
fn run_epochs<F: Fit>(fit: &mut F, n: Option<usize>, config: &TrainConfig) -> Result<TrainReport> {
    let mut rng = ChaCha8Rng::seed_from_u64(config.shuffle_seed);
    let (mut best, mut best_epoch, mut last) = (f64::INFINITY, 0, f64::NAN);
    let mut epochs = 0;
    let mut stopped_early = false;
    let keep_best = config.patience < config.epochs;
    // The lowest full-batch loss and the weights it was taken at (before that epoch's step).
    let mut kept: Option<(f64, F::Weights)> = None;
    for epoch in 0..config.epochs {
        let epoch_batches = batches(n, config.batch, &mut rng);
        let mut total = 0.0;
        for batch in &epoch_batches {
            let value = fit.gradient(batch.as_deref())?;
            if !value.is_finite() {
                candle_core::bail!("the loss became {value} at epoch {epoch}");
            }
            // The anchor's value (≥ 0) comes with the step: a loss that is not below the
            // best kept cannot become it, so its weights are not copied.
            let candidate = keep_best
                && epoch_batches.len() == 1
                && kept.as_ref().is_none_or(|(b, _)| value < *b);
            let before = if candidate {
                Some(fit.weights()?)
            } else {
                None
            };
            let loss_here = value + fit.step()?;
            if let Some(weights) = before {
                if kept.as_ref().is_none_or(|(b, _)| loss_here < *b) {
                    kept = Some((loss_here, weights));
                }
            }
            total += loss_here;
        }
        last = total / epoch_batches.len() as f64;
        epochs = epoch + 1;
        if last < best * (1.0 - config.min_improvement) {
            (best, best_epoch) = (last, epoch);
        } else if epoch - best_epoch >= config.patience {
            stopped_early = true;
            break;
        }
        best = best.min(last);
        if config.decay_every > 0 && epochs % config.decay_every == 0 {
            fit.set_learning_rate(fit.learning_rate() * config.lr_decay);
        }
    }
    let mut restored_best = false;
    if let Some((loss, weights)) = kept {
        if loss < last {
            fit.restore(weights)?;
            (last, restored_best) = (loss, true);
        }
    }
    Ok(TrainReport {
        epochs,
        final_loss: last,
        best_loss: best,
        stopped_early,
        restored_best,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mlp::MlpConfig;
    use approx::assert_relative_eq;
    use candle_core::Device;

    /// A warm start pulls toward the anchor network, not toward where it started: with a
    /// learning rate of zero the reported loss is the misfit plus `a ||θ_warm − θ0||²`, on
    /// the flat buffers (via `train_toward`) and through candle (`Adam::toward`).
    #[test]
    fn a_warm_start_is_anchored_at_the_initial_weights() -> Result<()> {
        let device = Device::Cpu;
        let config = MlpConfig::new(2, 8, 2);
        let initial = Mlp::new(config.clone(), 3, &device)?;
        let warm = Mlp::new(config.clone(), 4, &device)?;
        let xs: Vec<f64> = (0..20).map(|i| (i as f64 * 0.37).sin()).collect();
        let data = Observations {
            points: Tensor::from_vec(xs.clone(), (10, 2), &device)?,
            values: Tensor::from_vec(xs[..10].to_vec(), 10, &device)?,
        };
        let anchor = 0.5;
        let mut distance = 0.0;
        for (w, w0) in warm.vars().iter().zip(initial.vars()) {
            let diff = (w.as_tensor() - w0.as_tensor())?;
            distance += diff.sqr()?.sum_all()?.to_scalar::<f64>()?;
        }
        assert!(distance > 1.0, "the two networks should differ: {distance}");
        let misfit = loss(&warm, Some(&data), &[])?.to_scalar::<f64>()?;
        let expected = misfit + anchor * distance;

        let still = TrainConfig {
            epochs: 1,
            lr: 0.0,
            anchor,
            patience: usize::MAX,
            ..TrainConfig::default()
        };
        let report = train_toward(&warm, Some(&initial), Some(&data), &[], &still)?;
        assert_relative_eq!(report.final_loss, expected, max_relative = 1e-12);

        let mut adam = Adam::toward(warm.vars(), &initial.vars(), 0.0, anchor)?;
        let pull = adam.backward_step(&loss(&warm, Some(&data), &[])?)?;
        assert_relative_eq!(pull, anchor * distance, max_relative = 1e-12);
        // Anchored at itself, the same start has nothing to pull.
        let mut own = Adam::new(warm.vars(), 0.0, anchor)?;
        assert_eq!(own.backward_step(&loss(&warm, Some(&data), &[])?)?, 0.0);
        Ok(())
    }

    /// Too large a learning rate: Adam jumps out of the fit. Early stopping must hand back
    /// the best weights it saw, and say so.
    #[test]
    fn early_stopping_returns_the_best_weights_seen() -> Result<()> {
        let device = Device::Cpu;
        let net = Mlp::new(MlpConfig::new(1, 16, 2), 3, &device)?;
        let xs: Vec<f64> = (0..12).map(|i| i as f64 / 6.0 - 1.0).collect();
        let data = Observations {
            points: Tensor::from_vec(xs.clone(), (12, 1), &device)?,
            values: Tensor::from_vec(xs.iter().map(|x| (3.0 * x).sin()).collect(), 12, &device)?,
        };
        let config = TrainConfig {
            epochs: 400,
            lr: 0.3,
            lr_decay: 1.0,
            patience: 40,
            ..TrainConfig::default()
        };
        let report = train(&net, Some(&data), &[], &config)?;
        assert!(report.restored_best, "{report:?}");
        // The restored weights are the best loss's (the flat buffers and candle sum the
        // misfit in different orders, hence the rounding bound).
        let at_the_end = loss(&net, Some(&data), &[])?.to_scalar::<f64>()?;
        assert!(
            (at_the_end - report.final_loss).abs() <= 1e-12 * at_the_end,
            "{at_the_end} vs {report:?}"
        );
        assert!(report.final_loss <= report.best_loss, "{report:?}");

        // Without early stopping the last weights stay, whatever their loss.
        let net = Mlp::new(MlpConfig::new(1, 16, 2), 3, &device)?;
        let report = train(
            &net,
            Some(&data),
            &[],
            &TrainConfig {
                patience: usize::MAX,
                ..config
            },
        )?;
        assert!(!report.restored_best);
        Ok(())
    }
}
