//! What the physics-informed methods take from a problem: the field the objective is, and the
//! pde at residual points as linear functionals in the unit cube (for the physics-informed GP).

use crate::strategies::StrategyError;
use crate::surrogates::pde_gp::kernel::{Functional, Term};
use crate::surrogates::pde_gp::Residuals;
use faer::{Mat, Side};
use pinnbo_ad::linear::{LinearError, LinearForm};
use pinnbo_ad::sampling::{in_box, Sampling};
use pinnbo_ad::{OperatorRegistry, Residual};
use pinnbo_dsl::ir::{params_used_by, Expr, FieldId, ParamId, Pde};
use pinnbo_dsl::Problem;

/// The field the objective is, when it is one field of all the variables in their order, so
/// that the pde constrains what is optimized.
pub fn objective_field(problem: &Problem, method: &str) -> Result<FieldId, StrategyError> {
    let d = problem.dim();
    if !problem.field_coords.is_empty() {
        return Err(StrategyError::Unusable(format!(
            "{method} does not model a field over coordinates the optimizer does not choose \
             (`coord`) yet: use gp-ei, which optimizes the objective read from the field"
        )));
    }
    let field = match &problem.objective.expr {
        Expr::Field(id) if problem.fields[*id].args == (0..d).collect::<Vec<_>>() => *id,
        _ => {
            return Err(StrategyError::Unusable(format!(
                "{method} needs an objective that is one field of all the variables, in their \
                 order (such as `minimize f` with `field f(x1, x2)`), so that the pde constrains \
                 what is optimized"
            )))
        }
    };
    // The pde's derivatives are in the box's own coordinates, which the physics methods map
    // linearly onto the unit cube.
    if let Some(c) = problem.coords.iter().find(|c| c.log) {
        return Err(StrategyError::Unusable(format!(
            "{method} models the field in its variables' own (linear) coordinates, and `{}` \
             is on a log scale: drop `log`, or choose a method without the pde (gp-ei)",
            c.name
        )));
    }
    Ok(field)
}

/// PINN-BO's network takes continuous inputs only: an integer or categorical variable is
/// refused with the reason (physics-gp conditions on the pde within each of their values).
pub fn continuous_only(problem: &Problem, method: &str) -> Result<(), StrategyError> {
    if let Some(c) = problem.coords.iter().find(|c| c.integer) {
        let takes = match c.is_categorical() {
            true => "named levels",
            false => "integer values",
        };
        return Err(StrategyError::Unusable(format!(
            "{method} trains its network on the pde over continuous variables, and `{}` takes \
             {takes}: choose physics-gp (a linear pde, conditioned on within each value) or a \
             method without the pde (gp-ei)",
            c.name
        )));
    }
    Ok(())
}

/// Why the pde cannot condition a Gaussian process.
#[derive(Debug, thiserror::Error)]
pub enum PdeError {
    #[error("the problem has no pde for the field `{0}`")]
    NoPde(String),
    #[error("pde {index}: {source}")]
    Residual {
        index: usize,
        source: pinnbo_ad::ResidualError,
    },
    #[error("pde {index}: {source}")]
    Linear { index: usize, source: LinearError },
}

/// Every pde of the objective's field at `count` Sobol points of the box (each pde its own),
/// as equations on the field over the unit cube, with the params (if any) at the centre of
/// their box: what a check of the pde's form needs. A fit reads [`PdeEquations`] instead.
pub fn residuals(
    problem: &Problem,
    field: FieldId,
    operators: &OperatorRegistry,
    count: usize,
    seed: u64,
) -> Result<Residuals, PdeError> {
    let equations = PdeEquations::new(problem, field, operators, count, seed)?;
    Ok(equations.at(&param_centre(problem), &[])?.0)
}

/// Each param at the centre of its box in the coordinate it is fitted in (the geometric
/// mean for a `log` param).
pub fn param_centre(problem: &Problem) -> Vec<f64> {
    (problem.params.iter())
        .map(|p| p.from_fitted(p.fitted_centre()))
        .collect()
}

/// One pde's residual points, in the unit cube and in the box.
struct ResidualPoints {
    unit: Vec<Vec<f64>>,
    raw: Vec<Vec<f64>>,
}

/// The pdes of one field at fixed residual points, read as equations on the field over the
/// unit cube at any value of the problem's params: a derivative of order a in a variable of
/// width w is `w^−a` times the unit-cube derivative.
pub struct PdeEquations {
    problem: Problem,
    field: FieldId,
    operators: OperatorRegistry,
    /// Each pde's residual points.
    points: Vec<ResidualPoints>,
    width: Vec<f64>,
}

impl PdeEquations {
    /// `count` Sobol points from `seed` for each pde of `field` (each its own set).
    pub fn new(
        problem: &Problem,
        field: FieldId,
        operators: &OperatorRegistry,
        count: usize,
        seed: u64,
    ) -> Result<PdeEquations, PdeError> {
        // The field's inputs in its declaration's order: design variables (mapped as the run
        // maps them) and field coordinates (linearly).
        let args = problem.fields[field].args.clone();
        let space = crate::space::Space::of(problem);
        let design_kinds = space.kinds();
        let kinds: Vec<crate::space::Kind> = (args.iter())
            .map(|&c| match problem.is_field_coord(c) {
                true => crate::space::Kind::Continuous,
                false => design_kinds[c],
            })
            .collect();
        let d = args.len();
        let width: Vec<f64> = (args.iter())
            .map(|&c| problem.coordinate(c).hi - problem.coordinate(c).lo)
            .collect();
        // The design's inputs mapped as the run maps them (each coordinate on its own), the
        // field coordinates linearly.
        let to_box = |u: &[f64]| -> Vec<f64> {
            let mut design = vec![0.5; problem.dim()];
            for (&c, &v) in args.iter().zip(u) {
                if !problem.is_field_coord(c) {
                    design[c] = v;
                }
            }
            let design = space.to_box(&design);
            (args.iter().zip(u))
                .map(|(&c, &v)| match problem.is_field_coord(c) {
                    true => {
                        let coord = problem.coordinate(c);
                        coord.lo + v * (coord.hi - coord.lo)
                    }
                    false => design[c],
                })
                .collect()
        };
        let pdes = problem.pdes.iter().filter(|p| p.mentions(field)).count();
        if pdes == 0 {
            return Err(PdeError::NoPde(problem.fields[field].name.clone()));
        }
        let points = (1..=pdes)
            .map(|index| {
                let unit = in_box(
                    &vec![(0.0, 1.0); d],
                    count,
                    Sampling::Sobol,
                    seed.wrapping_add(index as u64),
                );
                // Each integer or categorical coordinate at the centre of the value whose
                // share of the unit interval holds it (where the run puts its evaluations):
                // the pde holds at about as many residual points within each value.
                let unit: Vec<Vec<f64>> = (unit.chunks(d))
                    .map(|u| u.iter().zip(&kinds).map(|(u, k)| k.snap(*u)).collect())
                    .collect();
                let raw = unit.iter().map(|u| to_box(u)).collect();
                ResidualPoints { unit, raw }
            })
            .collect();
        Ok(PdeEquations {
            problem: problem.clone(),
            field,
            operators: operators.clone(),
            points,
            width,
        })
    }

    /// The params some pde of the field uses.
    pub fn params(&self) -> Vec<ParamId> {
        params_used_by(self.pdes())
    }

    fn pdes(&self) -> impl Iterator<Item = &Pde> {
        let field = self.field;
        self.problem.pdes.iter().filter(move |p| p.mentions(field))
    }

    /// The equations with the params at `values` (by `ParamId`), and their derivatives in
    /// each param of `wrt` row by row (a point where one of them is not finite is left out
    /// of all).
    pub fn at(
        &self,
        values: &[f64],
        wrt: &[ParamId],
    ) -> Result<(Residuals, Vec<Residuals>), PdeError> {
        let (problem, field, operators) = (&self.problem, self.field, &self.operators);
        let mut out = (Residuals::none(), vec![Residuals::none(); wrt.len()]);
        for (index, (pde, points)) in self.pdes().zip(&self.points).enumerate() {
            let (unit, raw) = (&points.unit, &points.raw);
            let index = index + 1;
            let residual = |r: Result<Residual, _>| {
                let residual = r.map_err(|source| PdeError::Residual { index, source })?;
                (residual.linear_form(raw)).map_err(|source| PdeError::Linear { index, source })
            };
            let form = residual(Residual::at_params(problem, pde, field, operators, values))?;
            let derivatives = (wrt.iter())
                .map(|&k| {
                    residual(Residual::param_derivative(
                        problem,
                        pde,
                        field,
                        operators,
                        (k, values),
                    ))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let kept: Vec<usize> = (form.kept.iter().copied())
                .filter(|p| derivatives.iter().all(|f| f.kept.binary_search(p).is_ok()))
                .collect();
            self.extend(&mut out.0, &form, unit, &kept);
            for (into, form) in out.1.iter_mut().zip(&derivatives) {
                self.extend(into, form, unit, &kept);
            }
        }
        Ok(out)
    }

    /// Adds `form`'s equations at the points `kept` (positions in `unit`) to `out`.
    fn extend(&self, out: &mut Residuals, form: &LinearForm, unit: &[Vec<f64>], kept: &[usize]) {
        let d = self.width.len();
        // Each term's members as derivative orders per variable, with the unit-cube factor.
        let members: Vec<Vec<(Vec<u32>, f64)>> = (form.terms.iter())
            .map(|term| {
                term.iter()
                    .map(|alpha| {
                        let mut orders = vec![0u32; d];
                        alpha.iter().for_each(|&i| orders[i] += 1);
                        let factor = (0..d)
                            .map(|i| self.width[i].powi(-(orders[i] as i32)))
                            .product();
                        (orders, factor)
                    })
                    .collect()
            })
            .collect();
        for &p in kept {
            let Ok(row) = form.kept.binary_search(&p) else {
                continue;
            };
            let mut terms = Vec::new();
            let mut value_coefficient = 0.0;
            for (c, term) in form.coefficients[row].iter().zip(&members) {
                for (orders, factor) in term {
                    if orders.iter().all(|o| *o == 0) {
                        value_coefficient += c;
                    }
                    terms.push(Term {
                        orders: orders.clone(),
                        coefficient: c * factor,
                    });
                }
            }
            out.functionals.push(Functional {
                point: unit[p].clone(),
                terms,
            });
            out.targets.push(-form.offset[row]);
            out.value_coefficients.push(value_coefficient);
        }
    }
}

/// Whether a maximum principle puts the optimum of the field on the box's faces, as far as
/// the residual points show: at each, the pde reads `Σ a_ij ∂i∂j f + Σ b_i ∂i f = g` with no
/// term in `f` itself, the matrix `a` definite with one sign `s` at every point (an elliptic
/// operator: Laplace's, a diffusion with varying conductivity), and `s·g ≥ 0` everywhere for a
/// maximum (the field is a subsolution) or `s·g ≤ 0` for a minimum. A smooth solution of such
/// an equation takes that extremum on the boundary of the box (the weak maximum principle),
/// so nothing inside can be better.
pub fn optimum_on_faces(residuals: &Residuals, maximize: bool) -> bool {
    let mut sign = 0.0;
    let scale = residuals.targets.iter().fold(0.0f64, |m, g| m.max(g.abs()));
    let tolerance = 1e-12 * scale.max(1.0);
    for ((functional, &g), &value) in residuals
        .functionals
        .iter()
        .zip(&residuals.targets)
        .zip(&residuals.value_coefficients)
    {
        if value != 0.0 {
            return false;
        }
        let Some(a) = second_order_part(functional) else {
            return false;
        };
        if sign == 0.0 {
            sign = a[0][0].signum();
        }
        let scaled = Mat::from_fn(a.len(), a.len(), |i, j| sign * a[i][j]);
        let held = if maximize {
            sign * g >= -tolerance
        } else {
            sign * g <= tolerance
        };
        if sign == 0.0 || !positive_definite(scaled) || !held {
            return false;
        }
    }
    sign != 0.0
}

/// The symmetric matrix of a functional's second derivatives; None when it has a term of
/// order above two.
fn second_order_part(functional: &Functional) -> Option<Vec<Vec<f64>>> {
    let d = functional.point.len();
    let mut a = vec![vec![0.0; d]; d];
    for term in &functional.terms {
        let total: u32 = term.orders.iter().sum();
        let axes: Vec<usize> = (0..d)
            .flat_map(|i| std::iter::repeat_n(i, term.orders[i] as usize))
            .collect();
        match total {
            0 | 1 => {}
            2 => {
                let (i, j) = (axes[0], axes[1]);
                a[i][j] += term.coefficient / if i == j { 1.0 } else { 2.0 };
                if i != j {
                    a[j][i] += term.coefficient / 2.0;
                }
            }
            _ => return None,
        }
    }
    Some(a)
}

/// Whether the symmetric `a` is positive definite: its Cholesky factorization exists.
fn positive_definite(a: Mat<f64>) -> bool {
    let finite = (0..a.nrows()).all(|i| (0..a.ncols()).all(|j| a[(i, j)].is_finite()));
    finite && a.llt(Side::Lower).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pinnbo_ad::{LoweringContext, Operator};
    use pinnbo_dsl::ir::BinaryOp;
    use pinnbo_dsl::{compile_with, OperatorSignature, Source};

    /// `oscillator(u) = d(u, x, 2) + 9 u`, registered by a library user.
    struct Oscillator;

    impl Operator for Oscillator {
        fn signature(&self) -> OperatorSignature {
            OperatorSignature {
                name: "oscillator".into(),
                arity: 1,
                order: 2,
                summary: "d(u, x, 2) + 9 u".into(),
            }
        }

        fn lower(&self, args: &[Expr], cx: &LoweringContext) -> Result<Expr, String> {
            let second = cx.diff(cx.diff(args[0].clone(), "x")?, "x")?;
            let stiffness = Expr::binary(BinaryOp::Mul, Expr::Const(9.0), args[0].clone());
            Ok(Expr::binary(BinaryOp::Add, second, stiffness))
        }
    }

    /// A registered operator reaches the GP's equations: on [0, 3] (width 3) the unit-cube
    /// equation is `u''/9 + 9 u = 0.4 + 1.8 x²`, with `u` itself carrying the coefficient 9.
    #[test]
    fn registered_operators_become_unit_cube_equations() {
        let mut operators = OperatorRegistry::new();
        operators.register(Oscillator).unwrap();
        let text = "var x in [0, 3]\nfield f(x) = sin(3*x)\npde oscillator(f) = 0.4 + 1.8*x^2\n\
                    minimize f\n";
        let problem = compile_with(&Source::new("o.pde", text), operators.signatures())
            .unwrap()
            .problem;
        let r = residuals(&problem, 0, &operators, 4, 0).unwrap();
        assert_eq!(r.functionals.len(), 4);
        for (j, f) in r.functionals.iter().enumerate() {
            let x = 3.0 * f.point[0];
            assert!((r.targets[j] - (0.4 + 1.8 * x * x)).abs() < 1e-12);
            assert!((r.value_coefficients[j] - 9.0).abs() < 1e-12);
            let coefficient = |order: u32| {
                let t = f.terms.iter().find(|t| t.orders == [order]).unwrap();
                t.coefficient
            };
            assert!((coefficient(2) - 1.0 / 9.0).abs() < 1e-12);
            assert!((coefficient(0) - 9.0).abs() < 1e-12);
        }
    }

    /// The residuals of `pde` for `field T(x, y)` on a plate.
    fn plate(pde: &str) -> Residuals {
        let text = format!(
            "var x in [0, 1], y in [0, 2]\nfield T(x, y)\npde {pde}\nmaximize T\n\
                            oracle external\n"
        );
        let problem = pinnbo_dsl::compile(&Source::new("p.pde", text.as_str()))
            .unwrap()
            .problem;
        residuals(&problem, 0, &OperatorRegistry::new(), 32, 0).unwrap()
    }

    /// The maximum principle's conditions, each on its own: an elliptic operator without a
    /// term in the field, whose source has the sign that keeps the extremum on the boundary.
    #[test]
    fn the_faces_hold_the_optimum_only_where_a_maximum_principle_says_so() {
        let cases = [
            // (pde, the maximum on the faces, the minimum on the faces)
            ("laplacian(T) = 0", true, true),
            ("d(T, x, 2) + 3*d(T, y, 2) + d(T, x) = 0", true, true),
            ("d((1 + x^2)*d(T, x), x) + d(T, y, 2) = 0", true, true),
            ("d(T, x, 2) + d(T, y, 2) + d(d(T, x), y) = 0", true, true),
            ("-laplacian(T) = 0", true, true),
            // A source: heat put in makes an interior maximum, taken out an interior minimum.
            ("laplacian(T) = -40*exp(-(x - 0.5)^2/0.01)", false, true),
            ("laplacian(T) = 1 + x", true, false),
            // Not elliptic, or a term in T itself.
            ("d(T, x, 2) - d(T, y, 2) = 0", false, false),
            ("d(T, x, 2) = 0", false, false),
            ("d(T, x) + d(T, y) = 0", false, false),
            ("laplacian(T) + 9*T = 0", false, false),
            ("d(T, x, 4) + d(T, y, 2) = 0", false, false),
        ];
        for (pde, maximum, minimum) in cases {
            let r = plate(pde);
            assert_eq!(optimum_on_faces(&r, true), maximum, "maximum, {pde}");
            assert_eq!(optimum_on_faces(&r, false), minimum, "minimum, {pde}");
        }
    }

    /// Residual points sit at each integer's and each level's centre, as the run's evaluations
    /// do, about as many points each; the continuous coordinates stay where Sobol put them.
    #[test]
    fn residual_points_lie_on_the_discrete_values() {
        let text = "var x in [0, 1], n in 1..4, m in {a, b, c}\nfield T(x, n, m)\n\
                    pde dxx(T) = n\nminimize T\noracle external\n";
        let problem = pinnbo_dsl::compile(&Source::new("lattice.pde", text))
            .unwrap()
            .problem;
        let equations = PdeEquations::new(&problem, 0, &OperatorRegistry::new(), 96, 1).unwrap();
        let points = &equations.points[0];
        let mut counts = [[0usize; 4], [0; 4]];
        for (unit, raw) in points.unit.iter().zip(&points.raw) {
            for (k, values) in [(1, 4.0), (2, 3.0)] {
                let position = unit[k] * values - 0.5;
                assert!((position - position.round()).abs() < 1e-12, "{unit:?}");
                assert_eq!(raw[k], problem.coords[k].lo + position.round());
                counts[k - 1][position.round() as usize] += 1;
            }
        }
        // Sobol points split the unit interval in quarters exactly, in thirds nearly.
        assert_eq!(counts[0], [24; 4]);
        assert!(
            counts[1][..3].iter().all(|c| c.abs_diff(32) <= 2),
            "{counts:?}"
        );
        assert!(points.unit.iter().any(|u| u[0] != u[0].round()));
    }
}
