//! PINN training: a weighted sum of data misfit and residual terms, minimized by Adam with an
//! exponentially decaying learning rate, optionally pulled toward the initial weights, stopped
//! early on a plateau. Full batch, or shuffled mini-batches of the observations and of the
//! residual points from a seed: the same network, data and seed give the same run.

//!
//! `fit.rs` says what is fitted (observations, residual terms, the loss) and the [`fit::Fit`]
//! interface; `graph_fit.rs` and `dense_fit.rs` implement it on candle graphs and on flat
//! buffers; `epochs.rs` is the loop both run. Each depends on `fit.rs` and `config.rs` only.

mod config;
pub(crate) mod dense_fit;
mod epochs;
mod fit;
mod graph_fit;

pub use config::{TrainConfig, TrainReport};
pub use fit::{loss, Observations, ResidualTerm};

use crate::adam::Adam;
use crate::dense_net::Real;
use crate::mlp::Mlp;
use candle_core::{Result, Var};
use dense_fit::DenseFit;
use epochs::run_epochs;
use graph_fit::GraphFit;

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
    // The pde's params train with the weights (an anchor pulls them toward where they
    // start).
    let mut params: Vec<Var> = Vec::new();
    for p in terms.iter().flat_map(|t| t.residual.params()) {
        if !params
            .iter()
            .any(|v| v.as_tensor().id() == p.var.as_tensor().id())
        {
            params.push(p.var.clone());
        }
    }
    let mut vars = net.vars();
    let mut anchors = anchor_at.unwrap_or(net).vars();
    vars.extend(params.iter().cloned());
    anchors.extend(params.iter().cloned());
    let mut fit = GraphFit {
        net,
        params,
        data,
        terms,
        adam: Adam::toward(vars, &anchors, config.lr, config.anchor)?,
        grads: None,
    };
    let residual_points = (terms.iter())
        .map(|t| t.points.dim(0))
        .collect::<Result<Vec<_>>>()?;
    run_epochs(&mut fit, n, &residual_points, config)
}

fn train_dense<T: Real>(
    net: &Mlp,
    anchor_at: Option<&Mlp>,
    data: &Observations,
    n: Option<usize>,
    config: &TrainConfig,
) -> Result<TrainReport> {
    let mut fit = DenseFit::<T>::new(net, anchor_at, data, config.lr, config.anchor)?;
    let report = run_epochs(&mut fit, n, &[], config)?;
    fit.write_back(net)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mlp::MlpConfig;
    use approx::assert_relative_eq;
    use candle_core::Device;
    use candle_core::Tensor;

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
