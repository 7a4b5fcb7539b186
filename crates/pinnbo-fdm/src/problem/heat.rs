//! Transient heat: `d(u, t) = alpha*laplacian(u) + f` in 1-D or 2-D, an initial condition at
//! the lower end of t and Dirichlet data on the spatial boundary. The solved field covers space
//! and time (time the last axis), so the oracle answers at any (x, t).

use super::forms::{balance, mul};
use super::known::Known;
use super::{Context, Failure, ModelOutput};
use crate::grid::{Axis, Field};
use crate::transient::{Heat, Scheme};
use pinnbo_dsl::eval::eval_const;
use pinnbo_dsl::ir::{BoundaryCondition, CoordId, Expr, Side};
use pinnbo_dsl::Diagnostic;

/// Default spatial nodes: 257 in 1-D, 129 x 129 in 2-D; as many time steps as spatial
/// intervals, so that Crank–Nicolson's O(dt²) error matches the O(h²) of space.
pub(crate) const DEFAULT_1D: usize = 257;
pub(crate) const DEFAULT_2D: usize = 129;

const FORMS: &str = "the transient solver reads `d(u, t) = alpha*laplacian(u) + f(x, t)` with a \
                     constant diffusivity alpha > 0";

pub(crate) fn solve(cx: &Context) -> Result<ModelOutput, Failure> {
    let p = cx.problem;
    let orders: Vec<u32> = cx.args.iter().map(|&c| cx.pde.order_in(c)).collect();
    let time = cx.args[orders
        .iter()
        .position(|&o| o == 1)
        .expect("one first-order variable")];
    let space: Vec<CoordId> = cx.args.iter().copied().filter(|&c| c != time).collect();
    let a_t = time_scale(cx, time)?;
    let alpha = diffusivity(cx, time, a_t)?;
    // a_t u_t + c lap u + free = 0  =>  u_t = alpha lap u - free / a_t.
    let source = balance(&cx.linear.free, &Expr::Const(a_t));
    let source = Known::new(p, &source, "the source", cx.pde.span, &cx.blame)?;

    let default = if space.len() == 1 {
        DEFAULT_1D
    } else {
        DEFAULT_2D
    };
    let settings = &cx.oracle.settings;
    let counts: Vec<usize> = match (settings.int("points"), settings.dims("grid")) {
        (Some(n), _) => vec![n as usize],
        (_, Some(dims)) => dims.to_vec(),
        _ => vec![default; space.len()],
    };
    let nodes = counts.iter().try_fold(1usize, |a, &n| a.checked_mul(n));
    cx.check_memory(nodes.unwrap_or(usize::MAX), counts.len())?;
    let axes = space
        .iter()
        .zip(&counts)
        .map(|(&c, &n)| Axis::new(p.coords[c].lo, p.coords[c].hi, n))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| cx.solver_error(e))?;
    let steps = settings.int("steps").map_or_else(
        || counts.iter().max().copied().unwrap_or(2) - 1,
        |s| s as usize,
    );
    let (t0, t1) = (p.coords[time].lo, p.coords[time].hi);
    // The whole history is kept (the oracle reads the field at any t), held twice while it
    // is assembled into one field.
    let history_bytes = 16.0 * (steps as f64 + 1.0) * nodes.unwrap_or(usize::MAX) as f64;
    if history_bytes > cx.memory_limit() as f64 {
        return Err(cx.solver_error(crate::FdmError::TooLarge {
            estimate_mib: (history_bytes / 1048576.0).min(u64::MAX as f64) as u64,
            limit_mib: cx.memory_limit() >> 20,
        }));
    }

    let mut initial = None;
    let mut faces = Vec::new();
    for bc in &cx.oracle.conditions {
        let value = dirichlet_value(cx, bc)?;
        let known = Known::new(p, &value, "the boundary data", bc.span, &cx.blame)?;
        if bc.coord == time {
            initial = Some(known);
        } else {
            faces.push((bc.coord, bc.side, known));
        }
    }
    let initial = initial.ok_or_else(|| {
        Diagnostic::error("fdm::condition", cx.oracle.span, "no initial condition")
    })?;
    let coords = |x: &[f64], t: Option<f64>| -> Vec<(CoordId, f64)> {
        let mut out: Vec<(CoordId, f64)> = space.iter().copied().zip(x.iter().copied()).collect();
        out.extend(t.map(|t| (time, t0 + t)));
        out
    };
    let source_at = |x: &[f64], t: f64| source.at(&coords(x, Some(t)));
    let initial_at = |x: &[f64]| initial.at(&coords(x, Some(0.0)));
    let boundary_at = |x: &[f64], t: f64| {
        // The first face the node lies on (the stencil never reads a 2-D corner).
        let face = faces.iter().find(|(c, side, _)| {
            let d = space.iter().position(|s| s == c).expect("spatial face");
            let a = &axes[d];
            x[d] == if *side == Side::Lower { a.lo } else { a.hi }
        });
        face.map_or(f64::NAN, |(_, _, known)| known.at(&coords(x, Some(t))))
    };
    let scheme = match pinnbo_dsl::oracles::fdm(settings).choice("scheme") {
        pinnbo_dsl::choices::Scheme::BackwardEuler => Scheme::BackwardEuler,
        pinnbo_dsl::choices::Scheme::CrankNicolson => Scheme::CrankNicolson,
    };
    let heat = Heat {
        axes: axes.clone(),
        diffusivity: alpha,
        source: &source_at,
        initial: &initial_at,
        boundary: &boundary_at,
        scheme,
        steps,
        final_time: t1 - t0,
    };
    let dt = (t1 - t0) / steps as f64;
    let times: Vec<f64> = (0..=steps).map(|s| s as f64 * dt).collect();
    let history = heat.solve(&times).map_err(|e| cx.solver_error(e))?;
    let time_axis = Axis::new(t0, t1, steps + 1).map_err(|e| cx.solver_error(e))?;
    let mut all_axes = axes;
    all_axes.push(time_axis);
    let values = history.values.concat();
    let mut args = space;
    args.push(time);
    Ok(ModelOutput {
        field: Field::new(all_axes, values),
        args,
        time: Some(time),
        method: "sparse LU (faer), factored once for all steps",
    })
}

/// The constant factor of `d(u, t)`.
fn time_scale(cx: &Context, time: CoordId) -> Result<f64, Failure> {
    let mut total = 0.0;
    for piece in &cx.linear.pieces {
        if piece.outer.is_empty() && piece.inner == [time] {
            total += piece.constant_scale().ok_or_else(|| {
                cx.unsupported_pde("the factor of d(u, t) is not constant", FORMS)
            })?;
        }
    }
    if total == 0.0 {
        return Err(cx.unsupported_pde("the pde has no d(u, t) term", FORMS));
    }
    Ok(total)
}

/// alpha, the same along every spatial axis.
fn diffusivity(cx: &Context, time: CoordId, a_t: f64) -> Result<f64, Failure> {
    let mut per_axis: Vec<(CoordId, f64)> = Vec::new();
    for piece in &cx.linear.pieces {
        if piece.outer.is_empty() && piece.inner == [time] {
            continue;
        }
        let refuse = || {
            cx.unsupported_pde(
                "a term of this pde is not a second derivative in space with a constant factor",
                FORMS,
            )
        };
        let scale = piece.constant_scale().ok_or_else(refuse)?;
        let coefficient = eval_const(&piece.coefficient).ok_or_else(refuse)?;
        let axis = match (piece.outer.as_slice(), piece.inner.as_slice()) {
            ([], [i, j]) if i == j && *i != time => *i,
            ([o], [i]) if o == i && *i != time => *i,
            _ => return Err(refuse()),
        };
        // a_t u_t + c u_ii + ... = 0  =>  u_t = (-c / a_t) u_ii + ...
        let alpha = -scale * coefficient / a_t;
        match per_axis.iter_mut().find(|(c, _)| *c == axis) {
            Some((_, a)) => *a += alpha,
            None => per_axis.push((axis, alpha)),
        }
    }
    let spatial = cx.args.len() - 1;
    let alpha = per_axis.first().map_or(0.0, |&(_, a)| a);
    let uniform = per_axis
        .iter()
        .all(|&(_, a)| (a - alpha).abs() <= 1e-12 * alpha.abs());
    if per_axis.len() != spatial || !uniform {
        return Err(cx.unsupported_pde(
            "the diffusivity must be the same along every spatial axis",
            FORMS,
        ));
    }
    if alpha.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(cx.unsupported_pde(
            format!("the diffusivity is {alpha}; heat flow backward in time is ill-posed"),
            "write `d(u, t) = alpha*laplacian(u) + f` with alpha > 0",
        ));
    }
    Ok(alpha)
}

/// The value of a Dirichlet (or initial) condition `u = g`.
fn dirichlet_value(cx: &Context, bc: &BoundaryCondition) -> Result<Expr, Failure> {
    let name = cx.field_name();
    let refuse = || {
        Diagnostic::error(
            "fdm::condition",
            bc.span,
            format!(
                "the transient solver takes values `{name} = g` on the boundary and at the start"
            ),
        )
        .with_label("not a value of the field")
        .with_help("normal-derivative (Neumann) data is supported by the steady solver only")
    };
    let lin = cx.condition(bc).ok_or_else(refuse)?;
    match lin.pieces.as_slice() {
        [piece] if piece.outer.is_empty() && piece.inner.is_empty() => Ok(balance(
            &lin.free,
            &mul(piece.scale.clone(), piece.coefficient.clone()),
        )),
        _ => Err(refuse().into()),
    }
}
