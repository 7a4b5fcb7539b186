//! The epoch loop every fit runs: shuffled batches, early stopping on a plateau, the learning
//! rate's decay, and the best full-batch weights restored at the end.

use super::config::{TrainConfig, TrainReport};
use super::fit::{Batch, Fit};
use candle_core::Result;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// This epoch's shuffled batches of the `n` observations (one batch of all of them: None).
fn observation_batches(
    n: Option<usize>,
    batch: Option<usize>,
    rng: &mut ChaCha8Rng,
) -> Vec<Option<Vec<u32>>> {
    let (Some(n), Some(size)) = (n, batch.filter(|&s| s > 0)) else {
        return vec![None];
    };
    if size >= n {
        return vec![None];
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(rng);
    order.chunks(size).map(|c| Some(c.to_vec())).collect()
}

/// Each residual term's points dealt out `size` a step, in a shuffled order drawn again
/// whenever it runs out: every point is used once per pass, a pass takes several steps.
struct ResidualDeal {
    size: usize,
    points: Vec<usize>,
    queues: Vec<Vec<u32>>,
}

impl ResidualDeal {
    /// None where every term fits in one step (all points each step, nothing drawn).
    fn new(points: &[usize], size: Option<usize>) -> Option<ResidualDeal> {
        let size = size.filter(|&s| s > 0 && points.iter().any(|&m| m > s))?;
        Some(ResidualDeal {
            size,
            points: points.to_vec(),
            queues: vec![Vec::new(); points.len()],
        })
    }

    fn next(&mut self, rng: &mut ChaCha8Rng) -> Vec<Vec<u32>> {
        (self.queues.iter_mut().zip(&self.points))
            .map(|(queue, &m)| {
                if queue.is_empty() {
                    queue.extend(0..m as u32);
                    queue.shuffle(rng);
                }
                let take = self.size.min(queue.len());
                queue.split_off(queue.len() - take)
            })
            .collect()
    }
}

/// The epochs of [`super::train`] over `n` observations (None: residual terms alone) and
/// residual terms of `residual_points` points each.
pub(super) fn run_epochs<F: Fit>(
    fit: &mut F,
    n: Option<usize>,
    residual_points: &[usize],
    config: &TrainConfig,
) -> Result<TrainReport> {
    let mut rng = ChaCha8Rng::seed_from_u64(config.shuffle_seed);
    let mut deal = ResidualDeal::new(residual_points, config.residual_batch);
    let (mut best, mut best_epoch, mut last) = (f64::INFINITY, 0, f64::NAN);
    let mut epochs = 0;
    let mut stopped_early = false;
    // Losses over different residual points are not comparable: nothing is restored then.
    let keep_best = config.patience < config.epochs && deal.is_none();
    // The lowest full-batch loss and the weights it was taken at (before that epoch's step).
    let mut kept: Option<(f64, F::Weights)> = None;
    for epoch in 0..config.epochs {
        if crate::interrupt::requested() {
            stopped_early = true;
            break;
        }
        let epoch_batches = observation_batches(n, config.batch, &mut rng);
        let mut total = 0.0;
        for observations in &epoch_batches {
            let batch = Batch {
                observations: observations.clone(),
                residuals: deal.as_mut().map(|d| d.next(&mut rng)),
            };
            let value = fit.gradient(&batch)?;
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
    use rand::SeedableRng;

    /// Each pass over a term deals every point exactly once, `size` a step; a term that fits
    /// in one step is dealt whole; nothing is dealt when every term fits.
    #[test]
    fn residual_points_are_dealt_once_per_pass() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        assert!(ResidualDeal::new(&[40, 10], Some(40)).is_none());
        assert!(ResidualDeal::new(&[40, 10], None).is_none());
        let mut deal = ResidualDeal::new(&[40, 10], Some(16)).unwrap();
        for _pass in 0..3 {
            let steps: Vec<Vec<Vec<u32>>> = (0..3).map(|_| deal.next(&mut rng)).collect();
            let mut first: Vec<u32> = steps.iter().flat_map(|s| s[0].clone()).collect();
            assert_eq!(
                steps.iter().map(|s| s[0].len()).collect::<Vec<_>>(),
                [16, 16, 8]
            );
            first.sort_unstable();
            assert_eq!(first, (0..40).collect::<Vec<u32>>());
            for s in &steps {
                let mut second = s[1].clone();
                second.sort_unstable();
                assert_eq!(second, (0..10).collect::<Vec<u32>>());
            }
        }
    }
}
