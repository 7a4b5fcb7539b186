//! A finite-difference simulation as the oracle: solved once and then queried, or, for a
//! design problem (`coord`), solved once per evaluation.

use super::{Evaluation, Failure, Oracle, SetupError};
use pinnbo_dsl::Problem;
use pinnbo_fdm::problem::{solve, DesignOracle, FieldOracle};

pub enum FdmOracle {
    /// The field spans the design: one solve serves every evaluation.
    Reference(Box<FieldOracle>),
    /// The field lives on its own coordinates: each design is simulated.
    Design(Box<DesignOracle>),
}

impl FdmOracle {
    pub fn new(problem: &Problem) -> Result<FdmOracle, SetupError> {
        let located = |e: pinnbo_fdm::problem::SetupError| SetupError::Located(e.0);
        if !problem.field_coords.is_empty() {
            let inner = DesignOracle::new(problem).map_err(located)?;
            return Ok(FdmOracle::Design(Box::new(inner)));
        }
        let solved = solve(problem).map_err(located)?;
        let inner = FieldOracle::new(problem, solved).map_err(located)?;
        Ok(FdmOracle::Reference(Box::new(inner)))
    }

    /// The best objective over the reference field's feasible grid nodes (the optimum a run
    /// is judged against when the file gives none); None for a design problem.
    pub fn best_node(&self, maximize: bool) -> Option<f64> {
        match self {
            FdmOracle::Reference(inner) => inner.best_node(maximize),
            FdmOracle::Design(_) => None,
        }
    }
}

impl Oracle for FdmOracle {
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        match self {
            FdmOracle::Reference(inner) => {
                let e = inner.evaluate(x);
                Ok(Evaluation::new(e.objective, e.constraints))
            }
            FdmOracle::Design(inner) => {
                let reading = inner.evaluate(x).map_err(|e| Failure::Other(e.0.message))?;
                Ok(Evaluation {
                    sems: Vec::new(),
                    objectives: reading.objectives,
                    constraints: reading.constraints,
                    sensors: reading.sensors,
                })
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            FdmOracle::Reference(inner) => {
                let s = inner.solved();
                let (model, nodes) = (s.model, s.field.values.len());
                format!("fdm {model:?}, {nodes} nodes ({})", s.method)
            }
            FdmOracle::Design(_) => "fdm, one solve per design".into(),
        }
    }

    fn fork(&self) -> Option<Box<dyn Oracle>> {
        match self {
            FdmOracle::Reference(_) => None,
            FdmOracle::Design(inner) => Some(Box::new(FdmOracle::Design(inner.clone()))),
        }
    }
}
