//! The steady rod: a second-order pde in one coordinate, `-dxx(T) = f`,
//! `d(k*d(T, x), x) = f`, `dxx(T) - m^2*T = 0`, with one value, slope or Robin condition
//! (`d(T, x) + h*T = g`) per end.

use super::forms::{add, balance, mul, Linear};
use super::known::Known;
use super::{Context, Failure, ModelOutput};
use crate::grid::Axis;
use crate::rod::{EndCondition, Rod, DEFAULT_POINTS};
use pinnbo_dsl::ir::{BoundaryCondition, CoordId, Expr, Side};
use pinnbo_dsl::Diagnostic;

const FORMS: &str = "the rod solver reads sums of `d(k(x)*d(T, x), x)`, `a(x)*dxx(T)`, \
                     `b(x)*d(T, x)` and `c(x)*T` equal to a source f(x)";

/// The rod's terms, summed by kind.
#[derive(Default)]
struct Terms {
    conductivity: Option<Expr>,
    diffusion: Option<Expr>,
    advection: Option<Expr>,
    reaction: Option<Expr>,
}

fn accumulate(slot: &mut Option<Expr>, term: Expr) {
    *slot = Some(match slot.take() {
        Some(sum) => add(sum, term),
        None => term,
    });
}

pub(crate) fn solve(cx: &Context) -> Result<ModelOutput, Failure> {
    let x = cx.args[0];
    let p = cx.problem;
    let terms = terms(&cx.linear, x)
        .ok_or_else(|| cx.unsupported_pde("this pde is not a steady rod equation", FORMS))?;
    let known = |e: &Option<Expr>, what: &str| {
        e.as_ref()
            .map(|e| Known::new(p, e, what, cx.pde.span, &cx.blame))
            .transpose()
    };
    let conductivity = known(&terms.conductivity, "the conductivity")?;
    let diffusion = known(&terms.diffusion, "the diffusion coefficient")?;
    let advection = known(&terms.advection, "the advection coefficient")?;
    let reaction = known(&terms.reaction, "the reaction coefficient")?;
    let source = balance(&cx.linear.free, &Expr::Const(1.0));
    let source = Known::new(p, &source, "the source", cx.pde.span, &cx.blame)?;
    let n = (cx.oracle.settings.int("points")).map_or(DEFAULT_POINTS, |n| n as usize);
    cx.check_memory(n, 1)?;
    let range = p.coordinate(x);
    let axis = Axis::new(range.lo, range.hi, n).map_err(|e| cx.solver_error(e))?;
    let mut ends = [None, None];
    for bc in &cx.oracle.conditions {
        ends[usize::from(bc.side == Side::Upper)] = Some(condition(cx, bc, x)?);
    }
    let [Some(left), Some(right)] = ends else {
        return Err(Diagnostic::error(
            "fdm::condition",
            cx.oracle.span,
            "the rod needs one condition at each end",
        )
        .into());
    };
    let (k, a, b, c) = (
        along(&conductivity, x),
        along(&diffusion, x),
        along(&advection, x),
        along(&reaction, x),
    );
    let f = |s: f64| source.at(&[(x, s)]);
    let rod = Rod {
        axis,
        conductivity: k.as_ref().map(|f| f as &dyn Fn(f64) -> f64),
        diffusion: a.as_ref().map(|f| f as &dyn Fn(f64) -> f64),
        advection: b.as_ref().map(|f| f as &dyn Fn(f64) -> f64),
        reaction: c.as_ref().map(|f| f as &dyn Fn(f64) -> f64),
        source: &f,
        left,
        right,
    };
    let field = rod.solve().map_err(|e| cx.solver_error(e))?;
    Ok(ModelOutput {
        field,
        args: vec![x],
        time: None,
        method: "sparse LU of the three-point stencil",
    })
}

/// A known function read along the rod.
fn along<'k>(known: &'k Option<Known<'_>>, x: CoordId) -> Option<impl Fn(f64) -> f64 + 'k> {
    known.as_ref().map(move |k| move |s: f64| k.at(&[(x, s)]))
}

/// The pde's pieces sorted into the rod's terms; None for a piece of another shape.
fn terms(linear: &Linear, x: CoordId) -> Option<Terms> {
    let mut terms = Terms::default();
    let along = |v: &[CoordId], k: usize| v.len() == k && v.iter().all(|&c| c == x);
    for piece in &linear.pieces {
        let coefficient = || mul(piece.scale.clone(), piece.coefficient.clone());
        if along(&piece.outer, 1) && along(&piece.inner, 1) {
            // A varying scale outside the divergence is not a flux: refuse it.
            let scale = piece.constant_scale()?;
            accumulate(
                &mut terms.conductivity,
                mul(Expr::Const(scale), piece.coefficient.clone()),
            );
        } else if !piece.outer.is_empty() {
            return None;
        } else if along(&piece.inner, 2) {
            accumulate(&mut terms.diffusion, coefficient());
        } else if along(&piece.inner, 1) {
            accumulate(&mut terms.advection, coefficient());
        } else if piece.inner.is_empty() {
            accumulate(&mut terms.reaction, coefficient());
        } else {
            return None;
        }
    }
    (terms.conductivity.is_some() || terms.diffusion.is_some()).then_some(terms)
}

/// One end condition `alpha T + beta T' = g`, evaluated at the end.
fn condition(cx: &Context, bc: &BoundaryCondition, x: CoordId) -> Result<EndCondition, Failure> {
    let name = cx.field_name();
    let refuse = || {
        Diagnostic::error("fdm::condition", bc.span, "not a rod end condition")
            .with_label("not a value, slope or Robin condition")
            .with_help(format!(
                "write `{name} = g`, `d({name}, x) = g` or `d({name}, x) + h*{name} = g`"
            ))
    };
    let lin = cx.condition(bc).ok_or_else(refuse)?;
    let (mut alpha, mut beta) = (Expr::Const(0.0), Expr::Const(0.0));
    for piece in &lin.pieces {
        let c = mul(piece.scale.clone(), piece.coefficient.clone());
        match (piece.outer.len(), piece.inner.as_slice()) {
            (0, []) => alpha = add(alpha, c),
            (0, [d]) if *d == x => beta = add(beta, c),
            _ => return Err(refuse().into()),
        }
    }
    let end = match bc.side {
        Side::Lower => cx.problem.coordinate(x).lo,
        Side::Upper => cx.problem.coordinate(x).hi,
    };
    let p = cx.problem;
    let at = |e: &Expr, what: &str| -> Result<f64, Failure> {
        let v = Known::new(p, e, what, bc.span, &cx.blame)?.at(&[(x, end)]);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(cx.blame.take().unwrap_or_else(refuse).into())
        }
    };
    Ok(EndCondition {
        alpha: at(&alpha, "the condition's coefficient of the value")?,
        beta: at(&beta, "the condition's coefficient of the slope")?,
        data: at(
            &balance(&lin.free, &Expr::Const(1.0)),
            "the condition's data",
        )?,
    })
}
