//! What a fit is asked to do ([`TrainConfig`]) and what it did ([`TrainReport`]).

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
    pub batch: Option<usize>,
    /// Each residual term's points per step (None: all of them), dealt from a shuffled order
    /// drawn from the same stream again whenever it runs out: a step costs a fraction of a
    /// full pass, and the plateau rule then reads losses over different points, so the best
    /// weights are not restored.
    pub residual_batch: Option<usize>,
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
            residual_batch: None,
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
