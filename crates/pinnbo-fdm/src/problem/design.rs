//! Design problems (`coord`): the oracle's field is simulated over its own coordinates once
//! per design, with the design variables' values in the pde's coefficients and sources and in
//! the boundary data. The sensors and the functionals the objectives and constraints use are
//! read off the solved grid: a point by the grid's interpolation, an integral or mean by the
//! trapezoidal rule (second order, as the schemes), a maximum or minimum at the best node
//! refined by the parabola through its neighbours.

use super::{no_oracle, solve, SetupError, Solved};
use pinnbo_dsl::ir::{CoordId, Expr, Functional, Oracle, Problem, Reduce};
use pinnbo_dsl::{Compiled, Diagnostic, Span};

/// The problem one simulation of the design `point` solves: every design variable fixed at
/// its value, the field coordinates its only variables (numbered from 0 in declaration
/// order).
pub fn at_design(problem: &Problem, point: &[f64]) -> Problem {
    let dim = problem.dim();
    let all = dim + problem.field_coords.len();
    let new: Vec<CoordId> = (0..all).map(|c| c.saturating_sub(dim)).collect();
    let fix = |e: &Expr| e.replace_coords(point).renumber_coords(&new);
    let mut out = problem.clone();
    out.coords = std::mem::take(&mut out.field_coords);
    for f in &mut out.fields {
        f.args = (f.args.iter())
            .filter(|&&c| c >= dim)
            .map(|&c| new[c])
            .collect();
        f.definition = f.definition.as_ref().map(fix);
    }
    for pde in &mut out.pdes {
        (pde.lhs, pde.rhs) = (fix(&pde.lhs), fix(&pde.rhs));
    }
    if let Oracle::Fdm(o) = &mut out.oracle {
        for b in &mut o.conditions {
            (b.lhs, b.rhs, b.coord) = (fix(&b.lhs), fix(&b.rhs), new[b.coord]);
        }
    }
    // The simulation reads none of these; dropped rather than left pointing at old numbers.
    out.objective.expr = Expr::Const(0.0);
    out.other_objectives.clear();
    out.constraints.clear();
    out.sensors.clear();
    out
}

/// Solves the problem's fdm oracle at one design. The solved field's coordinates are the
/// problem's own (field coordinates numbered after the design).
pub fn solve_design(problem: &Problem, point: &[f64]) -> Result<Solved, SetupError> {
    let dim = problem.dim();
    let mut solved = solve(&at_design(problem, point))?;
    solved.args.iter_mut().for_each(|c| *c += dim);
    if let Some(t) = &mut solved.time {
        *t += dim;
    }
    Ok(solved)
}

/// A functional of a solved field (coordinates as the problem numbers them).
pub fn read(solved: &Solved, f: &Functional) -> f64 {
    let fixed: Vec<Option<f64>> = (solved.args.iter())
        .map(|c| f.at.iter().find(|(a, _)| a == c).map(|(_, v)| *v))
        .collect();
    let section = solved.field.section(&fixed);
    match f.reduce {
        Reduce::Point => section.values[0],
        Reduce::Integral => section.integral(),
        Reduce::Mean => section.integral() / section.measure(),
        Reduce::Maximum => section.max().value,
        Reduce::Minimum => section.min().value,
    }
}

/// What one simulation of a design gives.
#[derive(Clone, Debug)]
pub struct DesignReading {
    /// Every objective's value, in the file's order and sense.
    pub objectives: Vec<f64>,
    pub constraints: Vec<f64>,
    /// In `Problem::sensor_names`' order.
    pub sensors: Vec<f64>,
    pub solved: Solved,
}

/// A design problem's fdm oracle: one solve per evaluation.
#[derive(Clone, Debug)]
pub struct DesignOracle {
    problem: Problem,
    /// The functionals of the simulated field the objectives and constraints use; their
    /// values enter the compiled expressions after the design's.
    functionals: Vec<Functional>,
    objectives: Vec<Compiled>,
    constraints: Vec<Compiled>,
    sensors: Vec<Functional>,
}

impl DesignOracle {
    /// Compiles the objectives and constraints, and solves once at the design box's centre so
    /// that an equation or condition the solvers cannot read is refused before any
    /// evaluation (data that fails only at some designs fails those evaluations).
    pub fn new(problem: &Problem) -> Result<DesignOracle, SetupError> {
        let Oracle::Fdm(oracle) = &problem.oracle else {
            return Err(no_oracle(problem));
        };
        let field = oracle.field;
        let mut functionals: Vec<Functional> = Vec::new();
        let exprs: Vec<(&Expr, Span)> = (problem.objectives().map(|o| (&o.expr, o.span)))
            .chain(problem.constraints.iter().map(|c| (&c.expr, c.span)))
            .collect();
        for (e, _) in &exprs {
            for f in e.functionals() {
                if f.field == field && !functionals.contains(&f) {
                    functionals.push(f);
                }
            }
        }
        let dim = problem.dim();
        let compile = |e: &Expr, span: Span| {
            let e = e.replace_functionals(&|f| {
                let k = functionals.iter().position(|g| g == f)?;
                Some(Expr::Coord(dim + k))
            });
            let e = problem.substitute_definitions(&e);
            let e = pinnbo_dsl::diff::expand(&e).filter(|e| e.fields().is_empty());
            let compiled = e.map(|e| Compiled::new(&e, dim + functionals.len()));
            match compiled {
                Some(Ok(c)) => Ok(c),
                _ => Err(unsupported(
                    span,
                    "an fdm oracle evaluates this only through functionals of the simulated \
                     field and closed forms",
                )),
            }
        };
        let compiled = (exprs.iter())
            .map(|&(e, span)| compile(e, span))
            .collect::<Result<Vec<_>, _>>()?;
        let (objectives, constraints) = compiled.split_at(problem.objectives().count());
        let out = DesignOracle {
            problem: problem.clone(),
            objectives: objectives.to_vec(),
            constraints: constraints.to_vec(),
            sensors: problem.sensor_functionals(),
            functionals,
        };
        let centre: Vec<f64> = (problem.lower().iter().zip(problem.upper()))
            .map(|(lo, hi)| 0.5 * (lo + hi))
            .collect();
        match solve_design(problem, &centre) {
            Err(e) if !depends_on_the_design(&e) => Err(e),
            _ => Ok(out),
        }
    }

    /// Simulates the design `point` and reads the objectives, constraints and sensors.
    pub fn evaluate(&self, point: &[f64]) -> Result<DesignReading, SetupError> {
        let solved = solve_design(&self.problem, point)?;
        let mut input = point.to_vec();
        input.extend(self.functionals.iter().map(|f| read(&solved, f)));
        Ok(DesignReading {
            objectives: self.objectives.iter().map(|o| o.eval(&input)).collect(),
            constraints: self.constraints.iter().map(|c| c.eval(&input)).collect(),
            sensors: self.sensors.iter().map(|s| read(&solved, s)).collect(),
            solved,
        })
    }
}

/// Whether a solve failed for this design's data (not finite, a singular system) rather than
/// for the equation's or conditions' form.
fn depends_on_the_design(e: &SetupError) -> bool {
    matches!(e.0.code, "fdm::non-finite" | "fdm::singular" | "fdm::solve")
}

fn unsupported(span: Span, message: &str) -> SetupError {
    SetupError(
        Diagnostic::error("fdm::unsupported", span, message)
            .with_label("cannot evaluate this")
            .into(),
    )
}
