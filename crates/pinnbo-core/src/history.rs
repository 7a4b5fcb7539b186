//! What the methods see of the evaluations so far.

use crate::numerics::warp::PowerWarp;

/// What a strategy sees of one past evaluation (successful ones only).
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// The point in `[0, 1]^d`.
    pub unit: Vec<f64>,
    /// Every objective as minimized (negated for `maximize`), as observed (with noise), in
    /// the file's order: never empty.
    pub objectives: Vec<f64>,
    /// Constraint values as observed, feasible when `<= 0`.
    pub constraints: Vec<f64>,
    /// Proposed by the strategy (false: the initial design's).
    pub proposed: bool,
    /// A pending point's stand-in value (docs/decisions.md "Ask/tell"), not an observation:
    /// a model sees it as one, a score of predictions does not.
    pub fantasy: bool,
    /// What the sensors read (`sensors T at ..`), in the problem's order; empty without
    /// sensors and for a fantasy (nothing was measured).
    pub sensors: Vec<f64>,
    /// Each objective's standard error as told with it (`tell --sem`), in the file's order;
    /// empty when none was told.
    pub sems: Vec<Option<f64>>,
}

impl Observed {
    /// An initial-design observation (neither proposed nor a fantasy) of one objective as
    /// minimized and its constraints' values at `unit` (last, so that the values may be
    /// computed from it in the same call).
    pub fn initial(objective: f64, constraints: Vec<f64>, unit: Vec<f64>) -> Observed {
        Observed {
            unit,
            objectives: vec![objective],
            constraints,
            proposed: false,
            fantasy: false,
            sensors: Vec::new(),
            sems: Vec::new(),
        }
    }

    /// The first objective as minimized.
    pub fn objective(&self) -> f64 {
        self.objectives[0]
    }

    /// Objective `k`'s told standard error, if one was told.
    pub fn sem(&self, k: usize) -> Option<f64> {
        self.sems.get(k).copied().flatten()
    }
}

/// Each observation's told standard error of objective `k`, in `history`'s order.
pub fn told_sems<'a>(
    history: impl IntoIterator<Item = &'a Observed>,
    k: usize,
) -> Vec<Option<f64>> {
    history.into_iter().map(|o| o.sem(k)).collect()
}

impl Observed {
    pub fn is_feasible(&self) -> bool {
        self.constraints.iter().all(|c| *c <= 0.0)
    }
}

/// `history` with each objective's values warped by the transform `choose` gives for them
/// (fitted to the observations, fantasies left out), and the transforms, the first
/// objective's first: what the methods with a `warp` setting fit their models to.
pub fn warped(
    history: &[Observed],
    choose: impl Fn(&[f64]) -> PowerWarp,
) -> (Vec<Observed>, Vec<PowerWarp>) {
    let m = history.first().map_or(0, |o| o.objectives.len());
    let warps: Vec<PowerWarp> = (0..m)
        .map(|k| {
            let values: Vec<f64> = (history.iter())
                .filter(|o| !o.fantasy)
                .map(|o| o.objectives[k])
                .collect();
            choose(&values)
        })
        .collect();
    let warped = (history.iter())
        .map(|o| {
            let objectives = (o.objectives.iter().zip(&warps))
                .map(|(y, w)| w.forward(*y))
                .collect();
            Observed {
                objectives,
                ..o.clone()
            }
        })
        .collect();
    (warped, warps)
}
