//! The epoch loop every fit runs: shuffled batches, early stopping on a plateau, the learning
//! rate's decay, and the best full-batch weights restored at the end.

use super::config::{TrainConfig, TrainReport};
use super::fit::Fit;
use candle_core::Result;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

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

/// The epochs of [`super::train`] over `n` observations (None: residual terms alone).
pub(super) fn run_epochs<F: Fit>(
    fit: &mut F,
    n: Option<usize>,
    config: &TrainConfig,
) -> Result<TrainReport> {
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
