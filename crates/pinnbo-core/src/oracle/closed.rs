//! Objective and constraints given as closed-form expressions in the problem file.

use super::{Evaluation, Failure, Oracle, SetupError};
use pinnbo_dsl::{Compiled, FieldReader, Problem};

pub struct ClosedFormOracle {
    /// Every objective's, in the file's order.
    objectives: Vec<Compiled>,
    constraints: Vec<Compiled>,
    /// Each sensor value's field at its place.
    sensors: Vec<FieldReader>,
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
        let sensors = problem.sensor_readers().map_err(|e| {
            let span = problem.sensors.first().map_or(problem.objective.span, |s| s.span);
            SetupError::Located(Box::new(
                pinnbo_dsl::Diagnostic::error(
                    "oracle::not-closed-form",
                    span,
                    format!("cannot evaluate the sensors in closed form: {e}"),
                )
                .with_label("needs a simulator or a command oracle")
                .with_help("give the field a definition, or add an `oracle fdm { .. }` or `oracle command \"..\"` block"),
            ))
        })?;
        Ok(ClosedFormOracle {
            objectives,
            constraints,
            sensors,
        })
    }
}

impl Oracle for ClosedFormOracle {
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        Ok(Evaluation {
            sems: Vec::new(),
            objectives: self.objectives.iter().map(|o| o.eval(x)).collect(),
            constraints: self.constraints.iter().map(|c| c.eval(x)).collect(),
            sensors: self.sensors.iter().map(|s| s.read(x)).collect(),
        })
    }

    fn describe(&self) -> String {
        "closed form".into()
    }
}
