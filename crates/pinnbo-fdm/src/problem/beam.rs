//! The Euler–Bernoulli beam: `(EI w'')'' = q` with two conditions per end, each a deflection,
//! slope, bending moment `EI w''` or shear `(EI w'')'`.

use super::forms::{balance, mul, reciprocal, Piece};
use super::known::Known;
use super::{Context, Failure, ModelOutput};
use crate::beam::{Beam, BeamCondition, DEFAULT_POINTS};
use crate::grid::Axis;
use pinnbo_dsl::eval::eval_const;
use pinnbo_dsl::ir::{BoundaryCondition, CoordId, Expr, Side};
use pinnbo_dsl::Diagnostic;

const FORMS: &str = "the beam solver reads `dxx(EI(x)*dxx(w)) = q(x)` (or `EI*d(w, x, 4) = q(x)` \
                     for a constant EI)";

pub(crate) fn solve(cx: &Context) -> Result<ModelOutput, Failure> {
    let x = cx.args[0];
    let p = cx.problem;
    let rigidity = rigidity(cx, x)?;
    // The solver needs 1/EI, which stays finite where EI has poles.
    let compliance = Known::new(
        p,
        &reciprocal(&rigidity),
        "the compliance 1/EI",
        cx.pde.span,
        &cx.blame,
    )?;
    let load = balance(&cx.linear.free, &Expr::Const(1.0));
    let load = Known::new(p, &load, "the load", cx.pde.span, &cx.blame)?;
    let n = cx
        .oracle
        .settings
        .int("points")
        .map_or(DEFAULT_POINTS, |n| n as usize);
    cx.check_memory(n.saturating_mul(2), 1)?;
    let axis = Axis::new(p.coords[x].lo, p.coords[x].hi, n).map_err(|e| cx.solver_error(e))?;
    let mut ends = [Vec::new(), Vec::new()];
    for bc in &cx.oracle.conditions {
        let end = usize::from(bc.side == Side::Upper);
        ends[end].push(condition(cx, bc, x, &rigidity)?);
    }
    let pair = |end: usize| -> Result<[BeamCondition; 2], Failure> {
        <[BeamCondition; 2]>::try_from(ends[end].clone()).map_err(|_| {
            Diagnostic::error(
                "fdm::condition",
                cx.oracle.span,
                "the beam needs exactly two conditions at each end",
            )
            .into()
        })
    };
    let compliance_at = |s: f64| compliance.at(&[(x, s)]);
    let load_at = |s: f64| load.at(&[(x, s)]);
    let beam = Beam {
        axis,
        compliance: &compliance_at,
        load: &load_at,
        left: pair(0)?,
        right: pair(1)?,
    };
    let solution = beam.solve().map_err(|e| cx.solver_error(e))?;
    Ok(ModelOutput {
        field: solution.deflection,
        args: vec![x],
        time: None,
        method: "superposition of tridiagonal solves",
    })
}

/// EI from the pde's one fourth-order term.
fn rigidity(cx: &Context, x: CoordId) -> Result<Expr, Failure> {
    let refuse = || cx.unsupported_pde("this pde is not a beam equation", FORMS);
    let [piece] = cx.linear.pieces.as_slice() else {
        return Err(refuse());
    };
    let scale = piece.constant_scale().ok_or_else(refuse)?;
    let along = |v: &[CoordId], k: usize| v.len() == k && v.iter().all(|&c| c == x);
    let bending = along(&piece.outer, 2) && along(&piece.inner, 2);
    let uniform = along(&piece.outer, 0)
        && along(&piece.inner, 4)
        && eval_const(&piece.coefficient).is_some();
    if bending || uniform {
        Ok(mul(Expr::Const(scale), piece.coefficient.clone()))
    } else {
        Err(refuse())
    }
}

/// One end condition, its value evaluated at the end.
fn condition(
    cx: &Context,
    bc: &BoundaryCondition,
    x: CoordId,
    rigidity: &Expr,
) -> Result<BeamCondition, Failure> {
    let name = cx.field_name();
    let refuse = || {
        Diagnostic::error("fdm::condition", bc.span, "not a beam end condition")
            .with_label("not a deflection, slope, moment or shear")
            .with_help(format!(
            "write `{name} = g`, `d({name}, x) = g`, `EI(x)*dxx({name}) = M` (the moment, with \
             the pde's EI) or `d(EI(x)*dxx({name}), x) = V` (the shear)"
        ))
    };
    let lin = cx.condition(bc).ok_or_else(refuse)?;
    let [piece] = lin.pieces.as_slice() else {
        return Err(refuse().into());
    };
    let Piece {
        scale,
        outer,
        coefficient,
        inner,
    } = piece;
    // The condition reads `scale * B[w] + free = 0`, so B[w] = -free / scale.
    let value = balance(&lin.free, scale);
    let (kind, expr): (fn(f64) -> BeamCondition, Expr) =
        match (outer.len(), coefficient, inner.len()) {
            (0, _, 0) => (BeamCondition::Deflection, value.clone()),
            (0, _, 1) => (BeamCondition::Slope, value.clone()),
            // `scale * w''`: the moment itself when the scale is the pde's EI, else EI * w''.
            (0, _, 2) if scale == rigidity => {
                (BeamCondition::Moment, balance(&lin.free, &Expr::Const(1.0)))
            }
            (0, _, 2) => (BeamCondition::Moment, mul(value.clone(), rigidity.clone())),
            // `(c w'')'` with c = EI is the shear.
            (1, c, 2) if c == rigidity => (BeamCondition::Shear, value.clone()),
            // `w'''` is V / EI when EI is constant.
            (0, _, 3) if eval_const(rigidity).is_some() => {
                (BeamCondition::Shear, mul(value.clone(), rigidity.clone()))
            }
            _ => return Err(refuse().into()),
        };
    debug_assert!(outer.iter().chain(inner).all(|&c| c == x));
    let end = match bc.side {
        Side::Lower => cx.problem.coords[x].lo,
        Side::Upper => cx.problem.coords[x].hi,
    };
    let known = Known::new(cx.problem, &expr, "the end condition", bc.span, &cx.blame)?;
    let v = known.at(&[(x, end)]);
    if !v.is_finite() {
        return Err(cx.blame.take().unwrap_or_else(refuse).into());
    }
    Ok(kind(v))
}
