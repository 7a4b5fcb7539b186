//! What the methods see of the evaluations so far.

/// What a strategy sees of one past evaluation (successful ones only).
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// The point in `[0, 1]^d`.
    pub unit: Vec<f64>,
    /// The objective as minimized (negated for `maximize`), as observed (with noise).
    pub objective: f64,
    /// Constraint values as observed, feasible when `<= 0`.
    pub constraints: Vec<f64>,
    /// Proposed by the strategy (false: the initial design's).
    pub proposed: bool,
    /// A pending point's stand-in value (docs/decisions.md "Ask/tell"), not an observation:
    /// a model sees it as one, a score of predictions does not.
    pub fantasy: bool,
    /// With several objectives, those after the first as minimized, in the file's order.
    pub other_objectives: Vec<f64>,
}

impl Observed {
    /// An initial-design observation (neither proposed nor a fantasy) of one objective as
    /// minimized and its constraints' values at `unit` (last, so that the values may be
    /// computed from it in the same call).
    pub fn initial(objective: f64, constraints: Vec<f64>, unit: Vec<f64>) -> Observed {
        Observed {
            unit,
            objective,
            constraints,
            proposed: false,
            fantasy: false,
            other_objectives: Vec::new(),
        }
    }

    /// The `k`-th objective as minimized (from 0).
    pub fn objective_at(&self, k: usize) -> f64 {
        match k {
            0 => self.objective,
            _ => self.other_objectives[k - 1],
        }
    }

    /// Every objective as minimized, the first first.
    pub fn objectives(&self) -> Vec<f64> {
        std::iter::once(self.objective)
            .chain(self.other_objectives.iter().copied())
            .collect()
    }
}

impl Observed {
    pub fn is_feasible(&self) -> bool {
        self.constraints.iter().all(|c| *c <= 0.0)
    }
}
