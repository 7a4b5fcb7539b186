//! Steady heat in 2-D: `div(k grad T) = f` with Dirichlet or Neumann data per edge.

use super::corners::CornerJumps;
use super::forms::{balance, mul, Piece};
use super::known::Known;
use super::{Context, Failure, ModelOutput};
use crate::grid::Axis;
use crate::poisson::{EdgeData, Edges, Poisson2d};
use crate::sparse::Factorization;
use pinnbo_dsl::eval::eval_const;
use pinnbo_dsl::ir::{BinaryOp, CoordId, Expr, Side};
use pinnbo_dsl::Diagnostic;

/// Default nodes per axis: second order with h = L/256 is accurate to ~1e-5 relative on the
/// thesis's heat plates, and factors in well under a second.
pub(crate) const DEFAULT_GRID: usize = 257;

const FORMS: &str = "the steady solver reads `div(k*grad(T)) = f` (k = 1: `laplacian(T) = f`), \
                     with the same conductivity k(x, y) along both axes";

pub(crate) fn solve(cx: &Context) -> Result<ModelOutput, Failure> {
    let [a, b] = [cx.args[0], cx.args[1]];
    let conductivity = conductivity(cx, a, b)?;
    let p = cx.problem;
    let k = Known::new(p, &conductivity, "the conductivity", cx.pde.span, &cx.blame)?;
    let source = balance(&cx.linear.free, &Expr::Const(1.0));
    let f = Known::new(p, &source, "the source", cx.pde.span, &cx.blame)?;
    let axis = |c: CoordId, n: usize| {
        Axis::new(p.coords[c].lo, p.coords[c].hi, n).map_err(|e| cx.solver_error(e))
    };
    let dims = cx
        .oracle
        .settings
        .dims("grid")
        .unwrap_or(&[DEFAULT_GRID, DEFAULT_GRID]);
    cx.check_memory(dims[0].saturating_mul(dims[1]), 2)?;
    let (x, y) = (axis(a, dims[0])?, axis(b, dims[1])?);

    // Left, right, bottom, top: (normal coordinate, side, coordinate along the edge).
    let faces = [
        (a, Side::Lower, b),
        (a, Side::Upper, b),
        (b, Side::Lower, a),
        (b, Side::Upper, a),
    ];
    let edges = faces
        .iter()
        .map(|&(normal, side, _)| edge(cx, normal, side))
        .collect::<Result<Vec<_>, _>>()?;
    let fixed = |normal: CoordId, side: Side| match side {
        Side::Lower => p.coords[normal].lo,
        Side::Upper => p.coords[normal].hi,
    };
    let raw: Vec<Box<dyn Fn(f64) -> f64 + '_>> = faces
        .iter()
        .zip(&edges)
        .map(|(&(normal, side, along), (known, _))| {
            let at = fixed(normal, side);
            Box::new(move |s: f64| known.at(&[(along, s), (normal, at)])) as Box<dyn Fn(f64) -> f64>
        })
        .collect();
    let dirichlet = |i: usize| (!edges[i].1).then_some(&*raw[i]);
    // Jumps are carried exactly only where the operator is the (scaled) Laplacian.
    let jumps = match eval_const(&conductivity) {
        Some(_) => CornerJumps::new(
            (x.lo, x.hi),
            (y.lo, y.hi),
            [dirichlet(0), dirichlet(1)],
            [dirichlet(2), dirichlet(3)],
        ),
        None => CornerJumps::new((x.lo, x.hi), (y.lo, y.hi), [None, None], [None, None]),
    };
    // (where the edge lies, the axis along it)
    let place = [
        (Some(x.lo), None, y),
        (Some(x.hi), None, y),
        (None, Some(y.lo), x),
        (None, Some(y.hi), x),
    ];
    let functions: Vec<Box<dyn Fn(f64) -> f64 + '_>> = (0..4)
        .map(|i| {
            let (g, jumps, neumann) = (&raw[i], &jumps, edges[i].1);
            let (px, py, along) = place[i];
            Box::new(move |s: f64| {
                if neumann {
                    return g(s); // a Neumann edge never meets a jump
                }
                cell_average(g, &along, s) - jumps.at(px.unwrap_or(s), py.unwrap_or(s))
            }) as Box<dyn Fn(f64) -> f64>
        })
        .collect();
    let data = |i: usize| {
        if edges[i].1 {
            EdgeData::Neumann(&*functions[i])
        } else {
            EdgeData::Dirichlet(&*functions[i])
        }
    };
    let conductivity = |u: f64, v: f64| k.at(&[(a, u), (b, v)]);
    let source = |u: f64, v: f64| f.at(&[(a, u), (b, v)]);
    let problem = Poisson2d {
        x,
        y,
        conductivity: &conductivity,
        source: &source,
        edges: Edges {
            left: data(0),
            right: data(1),
            bottom: data(2),
            top: data(3),
        },
    };
    let (matrix, rhs) = problem
        .assemble(cx.memory_limit())
        .map_err(|e| cx.solver_error(e))?;
    let factors: Factorization = matrix.factor().map_err(|e| cx.solver_error(e))?;
    let mut values = factors.solve(&rhs).map_err(|e| cx.solver_error(e))?;
    // Back to T: add the jumps' carrier inside, and report the given data (not its cell
    // averages) on Dirichlet edges, their mean where two meet.
    for j in 0..y.n {
        for i in 0..x.n {
            let (u, v) = (x.x(i), y.x(j));
            let (mut sum, mut count) = (0.0, 0);
            for (e, on, along) in [
                (0, i == 0, v),
                (1, i + 1 == x.n, v),
                (2, j == 0, u),
                (3, j + 1 == y.n, u),
            ] {
                if on && !edges[e].1 {
                    sum += raw[e](along);
                    count += 1;
                }
            }
            let k = j * x.n + i;
            values[k] = if count == 0 {
                values[k] + jumps.at(u, v)
            } else {
                sum / count as f64
            };
        }
    }
    Ok(ModelOutput {
        field: crate::grid::Field::new(vec![x, y], values),
        args: vec![a, b],
        time: None,
        method: factors.kind(),
    })
}

/// The mean of `g` over the node's cell `[s - h/2, s + h/2]` (clipped to the edge), by
/// composite Gauss–Legendre. Point samples of boundary data that oscillate faster than the
/// grid resolves (heat set 1's top edge, `x*sin(3*cos(x) + 2*exp(x)*sin(x))`, has a local
/// wavelength near 0.006 on a plate of side 2 pi) alias into wrong smooth data that pollute the
/// whole plate; cell means keep the part the grid can carry, and differ from point values
/// by O(h²) for smooth data, so the scheme stays second order.
fn cell_average(g: &dyn Fn(f64) -> f64, axis: &Axis, s: f64) -> f64 {
    const PANELS: usize = 16;
    // 4-point Gauss–Legendre nodes and weights on [-1, 1].
    const NODES: [f64; 4] = [
        -0.861_136_311_594_052_6,
        -0.339_981_043_584_856_3,
        0.339_981_043_584_856_3,
        0.861_136_311_594_052_6,
    ];
    const WEIGHTS: [f64; 4] = [
        0.347_854_845_137_453_9,
        0.652_145_154_862_546_1,
        0.652_145_154_862_546_1,
        0.347_854_845_137_453_9,
    ];
    let h = axis.h();
    let (a, b) = ((s - 0.5 * h).max(axis.lo), (s + 0.5 * h).min(axis.hi));
    let width = (b - a) / PANELS as f64;
    let mut sum = 0.0;
    for p in 0..PANELS {
        let centre = a + (p as f64 + 0.5) * width;
        for (t, w) in NODES.iter().zip(WEIGHTS) {
            sum += w * g(centre + 0.5 * width * t);
        }
    }
    0.5 * sum / PANELS as f64
}

/// The conductivity k of `div(k grad T)`, the same along both axes.
fn conductivity(cx: &Context, a: CoordId, b: CoordId) -> Result<Expr, Failure> {
    let mut along: [Option<Expr>; 2] = [None, None];
    for piece in &cx.linear.pieces {
        let (axis, k) = flux(piece, a, b).ok_or_else(|| {
            cx.unsupported_pde(
                "a term of this pde is not a conductive flux `d(k*d(T, x), x)`",
                FORMS,
            )
        })?;
        let slot = &mut along[axis];
        *slot = Some(match slot.take() {
            None => k,
            Some(prev) => Expr::binary(BinaryOp::Add, prev, k),
        });
    }
    match along {
        [Some(kx), Some(ky)] if same(&kx, &ky) => Ok(kx),
        [Some(_), Some(_)] => Err(cx.unsupported_pde(
            "the conductivity differs between the two axes (an anisotropic medium)",
            FORMS,
        )),
        _ => Err(cx.unsupported_pde(
            "the pde has no second derivative along one of the axes",
            FORMS,
        )),
    }
}

/// Reads one piece as a flux along axis 0 (`a`) or 1 (`b`), with its conductivity.
fn flux(piece: &Piece, a: CoordId, b: CoordId) -> Option<(usize, Expr)> {
    // A variable factor outside the divergence is not conservative form.
    let scale = piece.constant_scale()?;
    let axis = |c: CoordId| [a, b].iter().position(|&x| x == c);
    match (piece.outer.as_slice(), piece.inner.as_slice()) {
        ([], [i, j]) if i == j && eval_const(&piece.coefficient) == Some(1.0) => {
            Some((axis(*i)?, Expr::Const(scale)))
        }
        ([o], [i]) if o == i => Some((
            axis(*i)?,
            mul(Expr::Const(scale), piece.coefficient.clone()),
        )),
        _ => None,
    }
}

fn same(a: &Expr, b: &Expr) -> bool {
    a == b || matches!((eval_const(a), eval_const(b)), (Some(x), Some(y)) if x == y)
}

/// One edge's data: the function and whether it is a Neumann (normal derivative) condition.
fn edge<'c>(cx: &'c Context, normal: CoordId, side: Side) -> Result<(Known<'c>, bool), Failure> {
    let p = cx.problem;
    let name = |c: CoordId| p.coords[c].name.as_str();
    let bound = match side {
        Side::Lower => p.coords[normal].lo,
        Side::Upper => p.coords[normal].hi,
    };
    let bc = cx
        .oracle
        .conditions
        .iter()
        .find(|bc| bc.coord == normal && bc.side == side)
        .ok_or_else(|| {
            Diagnostic::error(
                "fdm::condition",
                cx.oracle.span,
                format!("no condition on the edge {} = {bound}", name(normal)),
            )
            .with_label("in this oracle")
        })?;
    let refuse = || {
        Diagnostic::error(
            "fdm::condition",
            bc.span,
            format!(
                "the steady solver takes `{f} = g` or `d({f}, {n}) = g` on the edge {n} = {bound}",
                f = cx.field_name(),
                n = name(normal)
            ),
        )
        .with_label("neither a value nor a normal derivative")
    };
    let lin = cx.condition(bc).ok_or_else(refuse)?;
    let [piece] = lin.pieces.as_slice() else {
        return Err(refuse().into());
    };
    let neumann = match (piece.outer.as_slice(), piece.inner.as_slice()) {
        ([], []) => false,
        ([], [c]) if *c == normal => true,
        _ => return Err(refuse().into()),
    };
    let value = balance(
        &lin.free,
        &mul(piece.scale.clone(), piece.coefficient.clone()),
    );
    let what = format!("the boundary data on {} = {bound}", name(normal));
    Ok((Known::new(p, &value, what, bc.span, &cx.blame)?, neumann))
}
