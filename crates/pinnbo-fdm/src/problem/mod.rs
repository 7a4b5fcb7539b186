//! `oracle fdm { ... }` blocks: reading a checked problem's pde and boundary conditions into
//! one of the solvers, solving, and querying the solved field as the problem's "experiment".
//!
//! The pde of the oracle's field decides the solver:
//!
//! | field      | pde (any linear arrangement of)        | solver                               |
//! |------------|----------------------------------------|--------------------------------------|
//! | `T(x)`     | `d(k*d(T, x), x) + c*T = f`            | [`crate::rod`], three-point stencil  |
//! | `T(x, y)`  | `div(k*grad(T)) = f`, `c*laplacian(T)` | [`crate::poisson`], 5-point stencil  |
//! | `w(x)`     | `dxx(EI*dxx(w)) = q`, `EI*d(w, x, 4)`  | [`crate::beam`], split form          |
//! | `u(x[,y],t)` | `d(u, t) = alpha*laplacian(u) + f`   | [`crate::transient`], theta-scheme   |
//!
//! Coefficients, sources and boundary data are the file's own expressions, compiled with the
//! DSL's evaluator. Anything else is refused with a diagnostic on the pde or condition. A field
//! over field coordinates (`coord`) is solved once per design ([`design`]).

mod beam;
mod corners;
mod design;
mod forms;
mod heat;
mod known;
mod oracle;
mod rod;
mod steady;

pub use design::{at_design, solve_design, DesignOracle, DesignReading};
pub use oracle::{Evaluation, FieldOracle};

use crate::grid::{Field, Interpolation};
use crate::FdmError;
use forms::{linearize, Linear, NotLinear};
use known::Blame;
use pinnbo_dsl::ir::{BoundaryCondition, CoordId, FdmOracle, FieldId, Oracle, Pde, Problem};
use pinnbo_dsl::Diagnostic;
use std::time::{Duration, Instant};

/// Why a problem's fdm oracle cannot be built or solved: a diagnostic on the `.pde` file
/// (render it with [`pinnbo_dsl::render`] and the problem's source).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", .0.message)]
pub struct SetupError(pub Box<Diagnostic>);

impl SetupError {
    /// The diagnostic drawn against the problem's source, as the CLI shows it.
    pub fn render(&self, problem: &Problem, style: pinnbo_dsl::Style) -> String {
        pinnbo_dsl::render(&problem.source, std::slice::from_ref(&*self.0), style)
    }
}

/// Which solver a problem maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    SteadyRod,
    SteadyHeat,
    Beam,
    TransientHeat,
}

/// A solved oracle field.
#[derive(Clone, Debug)]
pub struct Solved {
    pub model: Model,
    /// Which of the problem's fields this is.
    pub field_id: FieldId,
    /// The field on its grid; axis `i` is the problem coordinate `args[i]`.
    pub field: Field,
    /// The problem coordinates the field depends on, in the field's own order.
    pub args: Vec<CoordId>,
    /// For transient problems, the time coordinate (the last of `args`).
    pub time: Option<CoordId>,
    /// The factorization or elimination used, for reports.
    pub method: &'static str,
    pub elapsed: Duration,
}

/// A diagnostic, boxed: it is large and travels through many `Result`s.
pub(crate) type Failure = Box<Diagnostic>;

/// What the model readers share.
pub(crate) struct Context<'p> {
    pub problem: &'p Problem,
    pub oracle: &'p FdmOracle,
    pub pde: &'p Pde,
    pub linear: Linear,
    pub args: Vec<CoordId>,
    pub blame: Blame,
}

impl Context<'_> {
    /// The `memory` setting, in bytes.
    fn memory_limit(&self) -> u64 {
        let gib = pinnbo_dsl::oracles::fdm(&self.oracle.settings).number("memory");
        (gib * (1u64 << 30) as f64).min(u64::MAX as f64) as u64
    }

    /// Refuses, before allocating, a solve on `unknowns` nodes in `dimensions` dimensions
    /// that would need more than the `memory` setting.
    fn check_memory(&self, unknowns: usize, dimensions: usize) -> Result<(), Failure> {
        crate::grid::check_memory(unknowns, dimensions, self.memory_limit())
            .map_err(|e| self.solver_error(e))
    }

    /// The boundary condition's `lhs - rhs`, linearized in the field.
    fn condition(&self, bc: &BoundaryCondition) -> Option<Linear> {
        linearize(&bc.as_pde().residual(), self.oracle.field).ok()
    }

    fn field_name(&self) -> &str {
        &self.problem.fields[self.oracle.field].name
    }

    /// An error on the pde, saying which forms the solver reads.
    fn unsupported_pde(&self, message: impl Into<String>, help: &str) -> Failure {
        Diagnostic::error("fdm::unsupported-pde", self.pde.span, message)
            .with_label("the finite-difference solvers cannot read this")
            .with_help(help.to_string())
            .into()
    }

    /// Turns a solver error into a diagnostic, pointing at the data that was not finite when
    /// that is what went wrong.
    fn solver_error(&self, e: FdmError) -> Failure {
        if let FdmError::NonFinite { .. } = e {
            if let Some(d) = self.blame.take() {
                return d.into();
            }
        }
        let code = match e {
            FdmError::TooLarge { .. } | FdmError::GridTooSmall { .. } => "fdm::grid",
            FdmError::Singular(_) => "fdm::singular",
            _ => "fdm::solve",
        };
        Diagnostic::error(code, self.oracle.span, e.to_string())
            .with_label("in this oracle")
            .into()
    }

    fn interpolation(&self) -> Interpolation {
        use pinnbo_dsl::choices::Interpolation as Named;
        match pinnbo_dsl::oracles::fdm(&self.oracle.settings).choice("interpolation") {
            Named::Linear => Interpolation::Linear,
            Named::Cubic => Interpolation::Cubic,
        }
    }
}

/// Solves the problem's `oracle fdm` block (a problem with field coordinates: at one design,
/// [`solve_design`]).
pub fn solve(problem: &Problem) -> Result<Solved, SetupError> {
    if !problem.field_coords.is_empty() {
        return Err(SetupError(
            Diagnostic::error(
                "fdm::design",
                problem.objective.span,
                "this problem's field depends on the design: it is solved at one design at a time",
            )
            .with_label("a design problem")
            .into(),
        ));
    }
    let Oracle::Fdm(oracle) = &problem.oracle else {
        return Err(no_oracle(problem));
    };
    // The experiment obeys the pde with its params' true values (a param no pde uses has
    // none, and appears nowhere).
    let truth: Vec<f64> = (oracle.truth.iter())
        .map(|t| t.unwrap_or(f64::NAN))
        .collect();
    let problem = &problem.with_params(&truth);
    let field = oracle.field;
    let pdes: Vec<&Pde> = problem.pdes.iter().filter(|p| p.mentions(field)).collect();
    let [pde] = pdes.as_slice() else {
        return Err(SetupError(
            Diagnostic::error(
                "fdm::unsupported-pde",
                pdes.get(1).map_or(oracle.span, |p| p.span),
                "the finite-difference solvers take exactly one pde for the oracle's field",
            )
            .with_label("a second equation for the same field")
            .into(),
        ));
    };
    let linear = linearize(&pde.residual(), field).map_err(|why| {
        let message = match why {
            NotLinear::Nonlinear => "the pde is nonlinear in the field",
            NotLinear::Nested => "a derivative applies to a sum or product of field terms",
        };
        SetupError(
            Diagnostic::error("fdm::unsupported-pde", pde.span, message)
                .with_label("the finite-difference solvers need a linear equation")
                .with_help(
                    "write it as a sum of `coefficient * derivative` terms, e.g. \
                     `div(k*grad(T)) = f` or `dxx(EI(x)*dxx(w)) = q(x)`",
                )
                .into(),
        )
    })?;
    let args = problem.fields[field].args.clone();
    let cx = Context {
        problem,
        oracle,
        pde,
        linear,
        args,
        blame: Blame::default(),
    };
    let orders: Vec<u32> = cx.args.iter().map(|&c| pde.order_in(c)).collect();
    let start = Instant::now();
    let (model, output) = match orders.as_slice() {
        [4] => (Model::Beam, beam::solve(&cx)),
        [2] => (Model::SteadyRod, rod::solve(&cx)),
        [2, 2] => (Model::SteadyHeat, steady::solve(&cx)),
        o if o.iter().filter(|&&k| k == 1).count() == 1
            && o.iter().all(|&k| k == 1 || k == 2)
            && o.len() > 1 =>
        {
            (Model::TransientHeat, heat::solve(&cx))
        }
        _ => {
            let name = cx.field_name();
            return Err(SetupError(cx.unsupported_pde(
                format!("no finite-difference solver fits this pde for `{name}` (derivative orders {orders:?})"),
                "the solvers take the steady rod `d(k*d(T, x), x) = f` in 1-D, steady heat \
                 `div(k*grad(T)) = f` in 2-D, transient heat \
                 `d(u, t) = alpha*laplacian(u) + f` in 1-D or 2-D, and the beam \
                 `dxx(EI(x)*dxx(w)) = q(x)`",
            )));
        }
    };
    let mut solved = output.map_err(SetupError)?;
    solved.field.interpolation = cx.interpolation();
    Ok(Solved {
        model,
        field_id: field,
        field: solved.field,
        time: solved.time,
        args: solved.args,
        method: solved.method,
        elapsed: start.elapsed(),
    })
}

/// The error for a problem without an `oracle fdm` block.
pub(crate) fn no_oracle(problem: &Problem) -> SetupError {
    SetupError(
        Diagnostic::error(
            "fdm::no-oracle",
            problem.objective.span,
            "this problem has no `oracle fdm { ... }` block",
        )
        .with_label("nothing to simulate")
        .into(),
    )
}

/// What a model reader returns.
pub(crate) struct ModelOutput {
    pub field: Field,
    pub args: Vec<CoordId>,
    pub time: Option<CoordId>,
    pub method: &'static str,
}
