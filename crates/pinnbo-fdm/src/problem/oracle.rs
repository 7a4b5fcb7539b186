//! A solved field as the problem's oracle: the objective and constraints evaluated with the
//! field read off the grid.

use super::{SetupError, Solved};
use pinnbo_dsl::ir::{Expr, Problem};
use pinnbo_dsl::{Compiled, Diagnostic};

/// The objective and constraint values at one design point.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// As written in the file (not negated for `maximize`).
    pub objective: f64,
    /// `g(x)`, feasible when `<= 0`, in the file's order.
    pub constraints: Vec<f64>,
}

/// Evaluates a problem's objective and constraints with a solved field standing in for the
/// unknown one. Cheap per query: the solve happened once, before.
pub struct FieldOracle {
    solved: Solved,
    dim: usize,
    objective: Compiled,
    constraints: Vec<Compiled>,
}

impl FieldOracle {
    pub fn new(problem: &Problem, solved: Solved) -> Result<FieldOracle, SetupError> {
        let field = solved.field_id;
        let dim = problem.dim();
        // The field's value enters as one extra input after the design coordinates.
        let compile = |e: &Expr, span| {
            let differentiated =
                |n: &Expr| matches!(n, Expr::Diff { expr, .. } if expr.fields().contains(&field));
            if e.any(differentiated) {
                return Err(SetupError(
                    Diagnostic::error(
                        "fdm::unsupported",
                        span,
                        "an fdm oracle measures the field's value, not its derivatives",
                    )
                    .with_label("needs a derivative of the simulated field")
                    .into(),
                ));
            }
            let e = e.replace_fields(&|f| (f == field).then_some(Expr::Coord(dim)));
            let e = problem.substitute_definitions(&e);
            let e = pinnbo_dsl::diff::expand(&e).ok_or_else(|| {
                SetupError(
                    Diagnostic::error(
                        "fdm::unsupported",
                        span,
                        "needs a field without a closed form",
                    )
                    .with_label("cannot evaluate this")
                    .into(),
                )
            })?;
            Compiled::new(&e, dim + 1).map_err(|err| {
                SetupError(
                    Diagnostic::error("fdm::unsupported", span, err.to_string())
                        .with_label("cannot evaluate this")
                        .into(),
                )
            })
        };
        let objective = compile(&problem.objective.expr, problem.objective.span)?;
        let constraints = problem
            .constraints
            .iter()
            .map(|c| compile(&c.expr, c.span))
            .collect::<Result<_, _>>()?;
        Ok(FieldOracle {
            solved,
            dim,
            objective,
            constraints,
        })
    }

    pub fn solved(&self) -> &Solved {
        &self.solved
    }

    /// The field at a design point (`point.len()` is the problem's dimension).
    pub fn field_at(&self, point: &[f64]) -> f64 {
        let args: Vec<f64> = self.solved.args.iter().map(|&c| point[c]).collect();
        self.solved.field.at(&args)
    }

    /// The best objective (greatest when `maximize`) over the grid's feasible nodes, when the
    /// field spans every design coordinate; `None` otherwise or when no node is feasible.
    /// With linear interpolation no point between nodes does better.
    pub fn best_node(&self, maximize: bool) -> Option<f64> {
        let field = &self.solved.field;
        let mut point = vec![0.0; self.dim];
        let spans = self.solved.args.len() == self.dim
            && (0..self.dim).all(|c| self.solved.args.contains(&c));
        if !spans {
            return None;
        }
        let sign = if maximize { -1.0 } else { 1.0 };
        (0..field.values.len())
            .filter_map(|k| {
                for (&c, x) in self.solved.args.iter().zip(field.node(&field.index(k))) {
                    point[c] = x;
                }
                let e = self.evaluate(&point);
                (e.constraints.iter().all(|g| *g <= 0.0) && e.objective.is_finite())
                    .then_some(e.objective)
            })
            .min_by(|a, b| (sign * a).total_cmp(&(sign * b)))
    }

    pub fn evaluate(&self, point: &[f64]) -> Evaluation {
        assert_eq!(
            point.len(),
            self.dim,
            "a design point has one value per coordinate"
        );
        let mut input = point.to_vec();
        input.push(self.field_at(point));
        Evaluation {
            objective: self.objective.eval(&input),
            constraints: self.constraints.iter().map(|c| c.eval(&input)).collect(),
        }
    }
}
