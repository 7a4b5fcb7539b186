//! Where the acquisition looks: the whole unit cube, or a trust region around the incumbent
//! whose side adapts to the run's successes and failures (as TuRBO's; the constants are
//! ours, docs/decisions.md "Trust regions in high dimension").
//!
//! Why: a neural surrogate extrapolates. Its mean is piecewise linear far from the data and
//! its tangent-kernel variance grows with the distance from the centre, so with few
//! observations in many dimensions the minimizer of a Thompson sample (or of the mean) lies
//! on the box's faces, where bowl-shaped objectives are worst. At d = 100 NeuralBO and
//! Neural-Greedy proposed such points from every step and never beat their initial design.
//!
//! The region is a function of the history alone (replayed from the first proposal), so a
//! resumed run finds the same region.

use crate::history::Observed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Where the acquisition's candidates and refinement may go: the whole box (the papers'), a
/// [`TrustRegion`], or `Auto`, a trust region above [`AUTO_DIMENSION`] dimensions.
pub use pinnbo_dsl::choices::Region;

/// Above this dimension `auto` uses a trust region. Up to it every published result was
/// measured with the whole box, and a candidate perturbs all coordinates anyway.
pub const AUTO_DIMENSION: usize = 20;

/// The region's side in unit-cube coordinates, at the start and after a reset. At d = 100 a
/// side of 0.4 still led NeuralBO to points worse than random search's (docs/results.md).
pub(crate) const INITIAL_SIDE: f64 = 0.1;
const MAX_SIDE: f64 = 0.4;
/// Below this the region resets to the initial side (TuRBO restarts instead).
const MIN_SIDE: f64 = INITIAL_SIDE / 32.0;
/// Consecutive successes that double the side, and failures that halve it.
const SUCCESSES: usize = 3;
const FAILURES: usize = 5;
/// A success improves on the incumbent by this fraction of its magnitude (TuRBO's 1e-3).
const MARGIN: f64 = 1e-3;
/// Coordinates a candidate perturbs on average: with many dimensions a candidate that moves
/// every coordinate is far from the incumbent even inside a small box.
const PERTURBED: f64 = 20.0;

/// Mixed into a search's seed for the perturbation masks.
const MASK_SEED: u64 = 0x6d61_736b;

/// The region `region` gives the next proposal after `history` in `d` dimensions; None: the
/// box.
pub fn resolve(region: Region, history: &[Observed], d: usize) -> Option<TrustRegion> {
    let trust = match region {
        Region::Global => false,
        Region::Trust => true,
        Region::Auto => d > AUTO_DIMENSION,
    };
    trust.then(|| TrustRegion::after(history)).flatten()
}

/// A box of side `side` (unit coordinates) centred on the incumbent, clipped to the cube.
#[derive(Clone, Debug, PartialEq)]
pub struct TrustRegion {
    pub center: Vec<f64>,
    pub side: f64,
}

impl TrustRegion {
    /// Replays the history's proposals: `SUCCESSES` consecutive improvements double the side
    /// (up to `MAX_SIDE`), `FAILURES` consecutive non-improvements halve it, and a side below
    /// `MIN_SIDE` starts again. The incumbent is the best feasible observation, or the least
    /// violating one when none is feasible. None for an empty history.
    pub fn after(history: &[Observed]) -> Option<TrustRegion> {
        let mut side = INITIAL_SIDE;
        let (mut successes, mut failures) = (0, 0);
        let mut best: Option<&Observed> = None;
        for o in history {
            if o.proposed {
                if best.is_none_or(|b| improves(o, b, MARGIN)) {
                    (successes, failures) = (successes + 1, 0);
                } else {
                    (successes, failures) = (0, failures + 1);
                }
                if successes == SUCCESSES {
                    (side, successes) = ((2.0 * side).min(MAX_SIDE), 0);
                }
                if failures == FAILURES {
                    (side, failures) = (side / 2.0, 0);
                    if side < MIN_SIDE {
                        side = INITIAL_SIDE;
                    }
                }
            }
            if best.is_none_or(|b| improves(o, b, 0.0)) {
                best = Some(o);
            }
        }
        best.map(|b| TrustRegion {
            center: b.unit.clone(),
            side,
        })
    }

    /// Per coordinate, the region's interval within `[0, 1]`.
    pub fn bounds(&self) -> Vec<(f64, f64)> {
        let half = self.side / 2.0;
        self.center
            .iter()
            .map(|c| ((c - half).max(0.0), (c + half).min(1.0)))
            .collect()
    }

    /// Moves unit-cube candidates (a flat `[n, d]` slice) into the region: each keeps the
    /// incumbent's coordinates except a random subset (on average `PERTURBED` of them, at
    /// least one), which it maps from `[0, 1]` onto the region's interval.
    pub(crate) fn place(&self, flat: &mut [f64], seed: u64) {
        let d = self.center.len();
        let bounds = self.bounds();
        let chance = (PERTURBED / d as f64).min(1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ MASK_SEED);
        for row in flat.chunks_mut(d) {
            let forced = rng.random_range(0..d);
            for (i, (v, (lo, hi))) in row.iter_mut().zip(&bounds).enumerate() {
                *v = if i == forced || rng.random::<f64>() < chance {
                    lo + *v * (hi - lo)
                } else {
                    self.center[i]
                };
            }
        }
    }
}

/// Whether `o` is better than `b` by more than `margin` of `b`'s magnitude: less violation
/// first, then a lower objective.
fn improves(o: &Observed, b: &Observed, margin: f64) -> bool {
    let violation = |x: &Observed| x.constraints.iter().map(|c| c.max(0.0)).sum::<f64>();
    let (vo, vb) = (violation(o), violation(b));
    if vo != vb {
        return vo < vb;
    }
    o.objective() < b.objective() - margin * b.objective().abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acquisition::domain::Domain;

    fn observed(unit: Vec<f64>, objective: f64, proposed: bool) -> Observed {
        Observed {
            sems: Vec::new(),
            unit,
            objectives: vec![objective],
            constraints: vec![],
            proposed,
            fantasy: false,
            sensors: Vec::new(),
        }
    }

    /// The design's points never change the side; five failed proposals halve it, three
    /// successes in a row double it, and the centre is the best point seen.
    #[test]
    fn the_side_follows_successes_and_failures() {
        let mut history = vec![
            observed(vec![0.5, 0.5], 3.0, false),
            observed(vec![0.2, 0.2], 1.0, false),
            observed(vec![0.9, 0.9], 5.0, false),
        ];
        let region = TrustRegion::after(&history).unwrap();
        assert_eq!(region.side, INITIAL_SIDE);
        assert_eq!(region.center, vec![0.2, 0.2]);
        for _ in 0..FAILURES {
            history.push(observed(vec![0.3, 0.3], 2.0, true));
        }
        assert_eq!(
            TrustRegion::after(&history).unwrap().side,
            INITIAL_SIDE / 2.0
        );
        for k in 0..SUCCESSES {
            history.push(observed(vec![0.1, 0.1 * k as f64], 0.5 - k as f64, true));
        }
        let region = TrustRegion::after(&history).unwrap();
        assert_eq!(region.side, INITIAL_SIDE);
        assert_eq!(region.center, vec![0.1, 0.2]);
        // An improvement within the margin moves the centre but is not a success.
        history.push(observed(vec![0.7, 0.7], -1.5 - 1e-4, true));
        let region = TrustRegion::after(&history).unwrap();
        assert_eq!(region.center, vec![0.7, 0.7]);
    }

    /// Halving below the minimum starts again from the initial side.
    #[test]
    fn a_collapsed_region_starts_again() {
        let mut history = vec![observed(vec![0.5; 3], 0.0, false)];
        let mut sides = vec![];
        for _ in 0..7 * FAILURES {
            history.push(observed(vec![0.4; 3], 1.0, true));
            sides.push(TrustRegion::after(&history).unwrap().side);
        }
        assert_eq!(sides[6 * FAILURES - 1], INITIAL_SIDE);
        assert_eq!(sides[5 * FAILURES - 1], INITIAL_SIDE / 32.0);
    }

    /// Feasibility comes before the objective.
    #[test]
    fn the_incumbent_is_the_best_feasible_point() {
        let mut a = observed(vec![0.1], -10.0, false);
        a.constraints = vec![0.5];
        let mut b = observed(vec![0.9], 3.0, false);
        b.constraints = vec![-1.0];
        let region = TrustRegion::after(&[a, b]).unwrap();
        assert_eq!(region.center, vec![0.9]);
    }

    /// In 100 dimensions candidates keep most of the incumbent's coordinates, move the rest
    /// within the region, and stay in the cube.
    #[test]
    fn candidates_perturb_a_few_coordinates_inside_the_region() {
        let d = 100;
        let region = TrustRegion {
            center: (0..d).map(|i| i as f64 / (d - 1) as f64).collect(),
            side: 0.1,
        };
        let domain = Domain {
            region: Some(region.clone()),
            ..Domain::cube(d)
        };
        let flat = domain.candidates(500, 9);
        let bounds = domain.bounds();
        let mut moved = 0;
        for row in flat.chunks(d) {
            for (i, v) in row.iter().enumerate() {
                assert!(bounds[i].0 <= *v && *v <= bounds[i].1, "{i}: {v}");
                moved += (*v != region.center[i]) as usize;
            }
        }
        let mean = moved as f64 / 500.0;
        assert!((17.0..23.0).contains(&mean), "{mean} coordinates moved");
        assert_eq!(resolve(Region::Auto, &[], d), None);
        let history = [observed(region.center.clone(), 1.0, false)];
        assert!(resolve(Region::Auto, &history, d).is_some());
        assert!(resolve(Region::Auto, &history[..], AUTO_DIMENSION).is_none());
        assert!(resolve(Region::Global, &history, d).is_none());
    }
}
