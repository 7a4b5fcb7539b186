//! A finite-difference simulation as the oracle: solved once, then queried.

use super::{Evaluation, Failure, Oracle, SetupError};
use pinnbo_dsl::Problem;
use pinnbo_fdm::problem::{solve, FieldOracle, Solved};

pub struct FdmOracle {
    inner: FieldOracle,
}

impl FdmOracle {
    pub fn new(problem: &Problem) -> Result<FdmOracle, SetupError> {
        let located = |e: pinnbo_fdm::problem::SetupError| SetupError::Located(e.0);
        let solved = solve(problem).map_err(located)?;
        let inner = FieldOracle::new(problem, solved).map_err(located)?;
        Ok(FdmOracle { inner })
    }

    /// The reference solution (for pictures and for the optimum of FDM problems).
    pub fn solved(&self) -> &Solved {
        self.inner.solved()
    }

    /// The best objective over the reference field's feasible grid nodes (the optimum a run
    /// is judged against when the file gives none).
    pub fn best_node(&self, maximize: bool) -> Option<f64> {
        self.inner.best_node(maximize)
    }
}

impl Oracle for FdmOracle {
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        let e = self.inner.evaluate(x);
        Ok(Evaluation::new(e.objective, e.constraints))
    }

    fn describe(&self) -> String {
        let s = self.inner.solved();
        format!(
            "fdm {:?}, {} nodes ({})",
            s.model,
            s.field.values.len(),
            s.method
        )
    }
}
