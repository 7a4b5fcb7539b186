//! Known functions of a problem (coefficients, sources, boundary data) evaluated where a solver
//! asks for them, remembering where a value first failed to be finite so that the error can
//! point at the right place in the `.pde` file.

use super::Failure;
use pinnbo_dsl::ir::{CoordId, Expr, Problem};
use pinnbo_dsl::{Compiled, Diagnostic, Span};
use std::cell::RefCell;

/// The first non-finite value seen, as a diagnostic.
#[derive(Default)]
pub(crate) struct Blame(RefCell<Option<Diagnostic>>);

impl Blame {
    pub fn take(&self) -> Option<Diagnostic> {
        self.0.borrow_mut().take()
    }
}

/// A field-free expression compiled for evaluation at grid points.
pub(crate) struct Known<'a> {
    code: Compiled,
    problem: &'a Problem,
    what: String,
    span: Span,
    blame: &'a Blame,
}

impl<'a> Known<'a> {
    /// Compiles `expr`; `what` names it in messages ("the conductivity"), `span` is where the
    /// file states it.
    pub fn new(
        problem: &'a Problem,
        expr: &Expr,
        what: impl Into<String>,
        span: Span,
        blame: &'a Blame,
    ) -> Result<Known<'a>, Failure> {
        let what = what.into();
        let code = problem.closed_form(expr).map_err(|e| {
            Diagnostic::error(
                "fdm::unsupported",
                span,
                format!("cannot evaluate {what}: {e}"),
            )
            .with_label("here")
        })?;
        Ok(Known {
            code,
            problem,
            what,
            span,
            blame,
        })
    }

    /// The value with the given coordinates set. Coordinates the field does not depend on are
    /// NaN, so an expression that needs one comes out non-finite and is blamed.
    pub fn at(&self, coords: &[(CoordId, f64)]) -> f64 {
        let mut point = vec![f64::NAN; self.problem.dim()];
        for &(c, v) in coords {
            point[c] = v;
        }
        let v = self.code.eval(&point);
        if !v.is_finite() {
            let mut slot = self.blame.0.borrow_mut();
            if slot.is_none() {
                let place: Vec<String> = coords
                    .iter()
                    .map(|&(c, v)| format!("{} = {v}", self.problem.coords[c].name))
                    .collect();
                *slot = Some(
                    Diagnostic::error(
                        "fdm::non-finite",
                        self.span,
                        format!("{} is {v} at {}", self.what, place.join(", ")),
                    )
                    .with_label("not finite there")
                    .with_help(
                        "finite differences need finite data at every grid point; \
                         a known function may only use the field's own variables",
                    ),
                );
            }
        }
        v
    }
}
