//! physics-gp's check of its pde (docs/algorithms.md §8): each step fits the GP with and
//! without the pde and keeps one. This module decides which, from whether the fitted prior
//! could have produced the pde's targets, the observations' leave-one-out densities and,
//! with `check prequential`, from each model's record at the points the run proposed.

use crate::diagnostics::{Diagnostics, PDE_DROPPED_BY, PDE_KEPT};
use crate::history::Observed;
use crate::surrogates::gp::GpModel;
use crate::surrogates::log_normal_density;
use crate::surrogates::pde_gp::TargetSpread;
use crate::surrogates::GpPosterior;
use serde::{Deserialize, Serialize};

/// How physics-gp decides whether to keep its pde (the `check` setting).
pub use pinnbo_dsl::choices::Check;

/// Both models' predictions of a proposal not yet observed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Pending {
    /// How many observations there were when it was proposed: it is observed after them.
    after: usize,
    unit: Vec<f64>,
    /// Predictive mean and variance of the observation (noise included, the data's units),
    /// with the pde and without.
    with_pde: (f64, f64),
    without: (f64, f64),
}

/// The prequential record: each model's summed log density of the proposals' observed
/// values, and the predictions still waiting for their observation. Saved with the journal,
/// so a resumed run decides as the uninterrupted one would.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PredictionRecord {
    pending: Vec<Pending>,
    with_pde: f64,
    without: f64,
    scored: usize,
}

/// Predictions kept waiting for their observation at most: a proposal whose evaluation
/// failed is never observed, and a batch has several outstanding.
const MAX_PENDING: usize = 64;

impl PredictionRecord {
    /// Scores every waiting prediction whose observation is now in `history`.
    pub fn score(&mut self, history: &[Observed]) {
        let mut waiting = Vec::new();
        for p in std::mem::take(&mut self.pending) {
            let observed = history
                .iter()
                .skip(p.after)
                .find(|o| !o.fantasy && same_point(&o.unit, &p.unit));
            match observed {
                Some(o) => {
                    self.with_pde += log_density(o.objective(), p.with_pde);
                    self.without += log_density(o.objective(), p.without);
                    self.scored += 1;
                }
                None => waiting.push(p),
            }
        }
        self.pending = waiting;
    }

    /// Keeps both models' predictions at the proposal `unit`, made from `observed` points.
    pub fn expect(
        &mut self,
        observed: usize,
        unit: &[f64],
        with_pde: &dyn GpPosterior,
        without: &GpModel,
    ) {
        if self.pending.len() == MAX_PENDING {
            self.pending.remove(0);
        }
        self.pending.push(Pending {
            after: observed,
            unit: unit.to_vec(),
            with_pde: with_pde.predictive(unit),
            without: without.predictive(unit),
        });
    }

    /// (scored proposals, the pde's model's total log density, the pde-free model's).
    pub fn totals(&self) -> (usize, f64, f64) {
        (self.scored, self.with_pde, self.without)
    }
}

/// The pde's model is dropped when its targets' spread under the fitted prior is above the
/// spread's 1 − `TARGET_LEVEL` quantile ([`TargetSpread::quantile`]): a pde whose targets
/// the prior could produce is dropped at a step with probability about 0.001.
pub const TARGET_LEVEL: f64 = 0.001;

/// A step's verdict on the pde: kept, or what dropped it. Journaled (`pde_kept`, and
/// `pde_dropped_by` with [`Verdict::name`]) and counted in the run's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Kept,
    /// The fitted prior could not have produced the pde's targets.
    Targets,
    /// The model without the pde predicted the held-out observations better.
    LeaveOneOut,
    /// The model without the pde predicted the proposals' observations better
    /// (`check prequential`).
    Proposals,
    /// The discrepancy carries at least [`CONFIRMED`] of the fitted signal
    /// (`check discrepancy`).
    Discrepancy,
}

/// The pde is confirmed, under `check discrepancy`, while the discrepancy's share of the
/// fitted signal ([`crate::surrogates::pde_gp::PdeGp::discrepancy_share`]) is below this: set before any run, not tuned.
pub const CONFIRMED: f64 = 0.01;

impl Verdict {
    /// `check discrepancy`'s verdict from the discrepancy's share (its targets plausible).
    pub fn of_discrepancy_share(share: f64) -> Verdict {
        match share < CONFIRMED {
            true => Verdict::Kept,
            false => Verdict::Discrepancy,
        }
    }

    pub fn kept(self) -> bool {
        self == Verdict::Kept
    }

    /// What dropped the pde, as the journal and the summary name it; None when kept.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Verdict::Kept => None,
            Verdict::Targets => Some("targets"),
            Verdict::LeaveOneOut => Some("leave-one-out"),
            Verdict::Proposals => Some("proposals"),
            Verdict::Discrepancy => Some("discrepancy"),
        }
    }

    /// `diagnostics` with this verdict.
    pub fn report(self, diagnostics: Diagnostics) -> Diagnostics {
        let d = diagnostics.with(PDE_KEPT, self.kept());
        match self.name() {
            Some(name) => d.with(PDE_DROPPED_BY, name),
            None => d,
        }
    }
}

/// Whether the pde's model is kept, by `check`, from its targets' spread under its fitted
/// prior (None: no residual equation), the two models' leave-one-out scores and the run's
/// record; the first test that fails names the verdict.
///
/// A prior that cannot produce the targets meets the pde only through bumps around the
/// residual points, which the acquisition then chases; the observations between them can
/// still be predicted well, so leave-one-out does not see it (docs/results.md).
pub fn verdict(
    check: Check,
    targets: Option<TargetSpread>,
    leave_one_out: (f64, f64),
    record: &PredictionRecord,
) -> Verdict {
    if check == Check::None {
        return Verdict::Kept;
    }
    if !plausible(targets) {
        return Verdict::Targets;
    }
    match check {
        // The discrepancy takes leave-one-out's place; the targets' test stays.
        Check::None | Check::Discrepancy => Verdict::Kept,
        _ if leave_one_out.0 < leave_one_out.1 => Verdict::LeaveOneOut,
        Check::CrossValidation => Verdict::Kept,
        // Each score alone is biased towards the model not in use: the one in use is scored
        // where its acquisition expected the most, the other at points it did not choose.
        // Requiring both keeps leave-one-out's verdicts and adds the proposals'.
        Check::Prequential if record.with_pde < record.without => Verdict::Proposals,
        Check::Prequential => Verdict::Kept,
    }
}

/// Whether the fitted prior could have produced the pde's targets (None: no equation).
pub fn plausible(targets: Option<TargetSpread>) -> bool {
    targets.is_none_or(|t| t.mean_square <= t.quantile(1.0 - TARGET_LEVEL))
}

/// A proposal and its observation: the loop evaluates the point proposed, so equality up to
/// rounding in a journal's text.
fn same_point(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-12)
}

/// A prediction's log density of the value `y` observed.
fn log_density(y: f64, (mean, variance): (f64, f64)) -> f64 {
    log_normal_density(y - mean, variance)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed(unit: &[f64], objective: f64) -> Observed {
        Observed {
            sems: Vec::new(),
            unit: unit.to_vec(),
            objectives: vec![objective],
            constraints: Vec::new(),
            proposed: true,
            fantasy: false,
            sensors: Vec::new(),
        }
    }

    fn pending(after: usize, unit: &[f64], with_pde: (f64, f64)) -> Pending {
        Pending {
            after,
            unit: unit.to_vec(),
            with_pde,
            without: (0.0, 1.0),
        }
    }

    #[test]
    fn a_prediction_is_scored_once_by_its_own_observation_and_the_better_model_is_kept() {
        let mut record = PredictionRecord {
            pending: vec![
                pending(1, &[0.5], (3.0, 0.01)),
                pending(2, &[0.25], (0.0, 1.0)),
            ],
            ..PredictionRecord::default()
        };
        // The same point observed before the proposal is not its observation.
        let mut history = vec![observed(&[0.5], 9.0), observed(&[0.1], 0.0)];
        record.score(&history);
        assert_eq!(record.scored, 0);
        // A pending point's stand-in value is not its observation either.
        history.push(Observed {
            fantasy: true,
            ..observed(&[0.5], 9.0)
        });
        record.score(&history);
        assert_eq!(record.scored, 0);
        history.pop();
        history.push(observed(&[0.5], 0.0));
        record.score(&history);
        assert_eq!(record.scored, 1);
        assert_eq!(record.pending.len(), 1, "the second is still waiting");
        let expected = log_density(0.0, (3.0, 0.01)) - log_density(0.0, (0.0, 1.0));
        approx::assert_relative_eq!(record.with_pde - record.without, expected, epsilon = 1e-9);
        // Confidently wrong: the pde's model goes, whatever leave-one-out says.
        let by = |check, loo, record: &PredictionRecord| verdict(check, None, loo, record);
        assert_eq!(
            by(Check::Prequential, (1.0, -1.0), &record),
            Verdict::Proposals
        );
        assert_eq!(
            by(Check::CrossValidation, (1.0, -1.0), &record),
            Verdict::Kept
        );
        assert_eq!(by(Check::None, (-1.0, 1.0), &record), Verdict::Kept);
        // Leave-one-out's verdict against the pde stands.
        let swapped = PredictionRecord {
            with_pde: record.without,
            without: record.with_pde,
            ..record.clone()
        };
        assert_eq!(by(Check::Prequential, (1.0, -1.0), &swapped), Verdict::Kept);
        let against = by(Check::Prequential, (-1.0, 1.0), &swapped);
        assert_eq!(against, Verdict::LeaveOneOut);
        record.score(&history);
        assert_eq!(record.scored, 1, "scored once");
    }

    /// Targets the fitted prior could not have produced drop the pde under every check but
    /// `none`, whatever leave-one-out says, and name the verdict.
    #[test]
    fn implausible_targets_drop_the_pde() {
        let record = PredictionRecord::default();
        let favoured = (1.0, -1.0);
        let spread = |mean_square| {
            Some(TargetSpread {
                mean_square,
                independent: 1.0,
            })
        };
        let bound = spread(1.0).unwrap().quantile(1.0 - TARGET_LEVEL);
        for check in [Check::CrossValidation, Check::Prequential] {
            assert_eq!(
                verdict(check, spread(bound), favoured, &record),
                Verdict::Kept
            );
            let implausible = verdict(check, spread(1.001 * bound), favoured, &record);
            assert_eq!(implausible, Verdict::Targets);
        }
        // Ahead of leave-one-out: the targets' test names the verdict.
        let both = verdict(
            Check::CrossValidation,
            spread(2.0 * bound),
            (-1.0, 1.0),
            &record,
        );
        assert_eq!(both, Verdict::Targets);
        assert_eq!(
            verdict(Check::Discrepancy, spread(2.0 * bound), favoured, &record),
            Verdict::Targets
        );
        assert_eq!(
            verdict(Check::None, spread(1e6), (-1.0, 1.0), &record),
            Verdict::Kept
        );
    }

    #[test]
    fn before_any_proposal_is_observed_prequential_is_leave_one_out() {
        let record = PredictionRecord::default();
        assert_eq!(
            verdict(Check::Prequential, None, (-1.0, 1.0), &record),
            Verdict::LeaveOneOut
        );
        assert_eq!(
            verdict(Check::Prequential, None, (1.0, -1.0), &record),
            Verdict::Kept
        );
    }
}
