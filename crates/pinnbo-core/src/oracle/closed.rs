//! Objective and constraints given as closed-form expressions in the problem file.

use super::{Evaluation, Failure, Oracle, SetupError};
use pinnbo_dsl::{Compiled, Problem};

pub struct ClosedFormOracle {
    /// Every objective's, in the file's order.
    objectives: Vec<Compiled>,
    constraints: Vec<Compiled>,
}

impl ClosedFormOracle {
    pub fn new(problem: &Problem) -> Result<ClosedFormOracle, SetupError> {
        let compile = |expr, span, what: &str| {
            problem.closed_form(expr).map_err(|e| {
                SetupError::Located(Box::new(
                    pinnbo_dsl::Diagnostic::error(
                        "oracle::not-closed-form",
                        span,
                        format!("cannot evaluate {what} in closed form: {e}"),
                    )
                    .with_label("needs a simulator or a command oracle")
                    .with_help("give the field a definition, or add an `oracle fdm { .. }` or `oracle command \"..\"` block"),
                ))
            })
        };
        let objectives = (problem.objectives())
            .map(|o| compile(&o.expr, o.span, "the objective"))
            .collect::<Result<_, _>>()?;
        let constraints = problem
            .constraints
            .iter()
            .map(|c| compile(&c.expr, c.span, &format!("constraint `{}`", c.name)))
            .collect::<Result<_, _>>()?;
        Ok(ClosedFormOracle {
            objectives,
            constraints,
        })
    }
}

impl Oracle for ClosedFormOracle {
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        Ok(Evaluation {
            objectives: self.objectives.iter().map(|o| o.eval(x)).collect(),
            constraints: self.constraints.iter().map(|c| c.eval(x)).collect(),
        })
    }

    fn describe(&self) -> String {
        "closed form".into()
    }
}
