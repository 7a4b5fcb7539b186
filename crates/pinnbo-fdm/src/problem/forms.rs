//! Reading a linear differential expression off the problem IR.
//!
//! An expression linear in one field `u` is split into additive pieces
//! `scale * d^outer( coefficient * d^inner u )` plus a part free of `u`. That one shape covers
//! every form the solvers take: `laplacian(T)` (inner `xx`), `div(k*grad(T))` (outer `x`,
//! coefficient `k`, inner `x`), `dxx(EI*dxx(w))` (outer `xx`, inner `xx`), `d(u, t)`, and
//! boundary conditions such as `T`, `d(T, x)` or `EI*dxx(w)`.

use pinnbo_dsl::eval::eval_const;
use pinnbo_dsl::ir::{BinaryOp, CoordId, Expr, FieldId};

/// `scale * d^outer( coefficient * d^inner u )`; `scale` and `coefficient` do not mention `u`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Piece {
    pub scale: Expr,
    pub outer: Vec<CoordId>,
    pub coefficient: Expr,
    pub inner: Vec<CoordId>,
}

impl Piece {
    /// The coefficient times the scale, when the scale is a number.
    pub fn constant_scale(&self) -> Option<f64> {
        eval_const(&self.scale)
    }
}

/// An expression linear in a field: its pieces and the part that does not mention the field.
#[derive(Clone, Debug)]
pub(crate) struct Linear {
    pub pieces: Vec<Piece>,
    /// The field-free terms, summed (`Const(0)` when there are none).
    pub free: Expr,
}

/// Why an expression is not of the linear shape the solvers read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NotLinear {
    /// The field appears nonlinearly (a product of two field terms, inside a function, ...).
    Nonlinear,
    /// A derivative applies to something other than `coefficient * d^k u`.
    Nested,
}

/// Splits `e` (typically a pde's `lhs - rhs`) into pieces in `field`.
pub(crate) fn linearize(e: &Expr, field: FieldId) -> Result<Linear, NotLinear> {
    let mut out = Linear {
        pieces: Vec::new(),
        free: Expr::Const(0.0),
    };
    split(e, field, Expr::Const(1.0), &mut out)?;
    Ok(out)
}

fn mentions(e: &Expr, field: FieldId) -> bool {
    e.any(|n| matches!(n, Expr::Field(f) if *f == field))
}

fn split(e: &Expr, field: FieldId, factor: Expr, out: &mut Linear) -> Result<(), NotLinear> {
    if !mentions(e, field) {
        let term = mul(factor, e.clone());
        out.free = add(std::mem::replace(&mut out.free, Expr::Const(0.0)), term);
        return Ok(());
    }
    match e {
        Expr::Neg(a) => split(a, field, mul(Expr::Const(-1.0), factor), out),
        Expr::Binary(BinaryOp::Add, a, b) => {
            split(a, field, factor.clone(), out)?;
            split(b, field, factor, out)
        }
        Expr::Binary(BinaryOp::Sub, a, b) => {
            split(a, field, factor.clone(), out)?;
            split(b, field, mul(Expr::Const(-1.0), factor), out)
        }
        Expr::Binary(BinaryOp::Mul, a, b) if !mentions(a, field) => {
            split(b, field, mul(factor, (**a).clone()), out)
        }
        Expr::Binary(BinaryOp::Mul, a, b) if !mentions(b, field) => {
            split(a, field, mul(factor, (**b).clone()), out)
        }
        Expr::Binary(BinaryOp::Div, a, b) if !mentions(b, field) => split(
            a,
            field,
            Expr::binary(BinaryOp::Div, factor, (**b).clone()),
            out,
        ),
        Expr::Field(_) | Expr::Diff { .. } => {
            out.pieces.push(piece(e, field, factor)?);
            Ok(())
        }
        _ => Err(NotLinear::Nonlinear),
    }
}

/// Reads `d^outer( coefficient * d^inner u )` off a field or derivative node.
fn piece(e: &Expr, field: FieldId, scale: Expr) -> Result<Piece, NotLinear> {
    if let Some(inner) = chain(e, field) {
        return Ok(Piece {
            scale,
            outer: Vec::new(),
            coefficient: Expr::Const(1.0),
            inner,
        });
    }
    let mut outer = Vec::new();
    let mut node = e;
    while let Expr::Diff { expr, wrt } = node {
        outer.push(*wrt);
        node = expr;
    }
    outer.reverse();
    let inside = linearize(node, field)?;
    match (inside.pieces.as_slice(), eval_const(&inside.free)) {
        ([p], Some(0.0)) if p.outer.is_empty() => Ok(Piece {
            scale,
            outer,
            coefficient: p.scale.clone(),
            inner: p.inner.clone(),
        }),
        _ => Err(NotLinear::Nested),
    }
}

/// The coordinates of a pure derivative chain `d(d(u, a), b)` (innermost first), if `e` is one.
fn chain(e: &Expr, field: FieldId) -> Option<Vec<CoordId>> {
    match e {
        Expr::Field(f) if *f == field => Some(Vec::new()),
        Expr::Diff { expr, wrt } => {
            let mut inner = chain(expr, field)?;
            inner.push(*wrt);
            Some(inner)
        }
        _ => None,
    }
}

/// `a * b` without multiplying by one.
pub(crate) fn mul(a: Expr, b: Expr) -> Expr {
    match (eval_const(&a), eval_const(&b)) {
        (Some(x), Some(y)) => Expr::Const(x * y),
        (Some(1.0), _) => b,
        (_, Some(1.0)) => a,
        _ => Expr::binary(BinaryOp::Mul, a, b),
    }
}

/// `a + b` without adding zero.
pub(crate) fn add(a: Expr, b: Expr) -> Expr {
    match (eval_const(&a), eval_const(&b)) {
        (Some(x), Some(y)) => Expr::Const(x + y),
        (Some(0.0), _) => b,
        (_, Some(0.0)) => a,
        _ => Expr::binary(BinaryOp::Add, a, b),
    }
}

/// `-e / d`, the value a term must take to balance `e`: the source of `L[u] + e = 0` when
/// `d = 1`, or the boundary value of `d * B[u] + e = 0`.
pub(crate) fn balance(e: &Expr, d: &Expr) -> Expr {
    let minus = mul(Expr::Const(-1.0), e.clone());
    match eval_const(d) {
        Some(1.0) => minus,
        _ => Expr::binary(BinaryOp::Div, minus, d.clone()),
    }
}

/// `1 / e`, written as `b / a` when `e = a / b` so that a coefficient with poles (the thesis
/// beam's EI = e^x / rho(x)) inverts to one without.
pub(crate) fn reciprocal(e: &Expr) -> Expr {
    match e {
        Expr::Binary(BinaryOp::Div, a, b) => match eval_const(a) {
            Some(1.0) => (**b).clone(),
            _ => Expr::binary(BinaryOp::Div, (**b).clone(), (**a).clone()),
        },
        _ => Expr::binary(BinaryOp::Div, Expr::Const(1.0), e.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(e: Expr, wrt: CoordId) -> Expr {
        Expr::diff(e, wrt)
    }

    #[test]
    fn reads_the_shapes_the_solvers_take() {
        let (u, x, y) = (Expr::Field(0), 0, 1);
        let k = Expr::binary(BinaryOp::Add, Expr::Coord(x), Expr::Const(2.0));
        // div(k grad u) - 3*u_yy + sin(x) = 0
        let e = Expr::binary(
            BinaryOp::Add,
            Expr::binary(
                BinaryOp::Sub,
                d(Expr::binary(BinaryOp::Mul, k.clone(), d(u.clone(), x)), x),
                Expr::binary(BinaryOp::Mul, Expr::Const(3.0), d(d(u.clone(), y), y)),
            ),
            Expr::Call(pinnbo_dsl::builtins::Builtin::Sin, vec![Expr::Coord(x)]),
        );
        let lin = linearize(&e, 0).expect("linear");
        assert_eq!(lin.pieces.len(), 2);
        assert_eq!(lin.pieces[0].outer, vec![x]);
        assert_eq!(lin.pieces[0].coefficient, k);
        assert_eq!(lin.pieces[0].inner, vec![x]);
        assert_eq!(lin.pieces[1].constant_scale(), Some(-3.0));
        assert_eq!(lin.pieces[1].inner, vec![y, y]);
        assert!(matches!(lin.free, Expr::Call(..)));
    }

    #[test]
    fn refuses_nonlinear_and_nested_forms() {
        let u = Expr::Field(0);
        let square = Expr::binary(BinaryOp::Mul, u.clone(), u.clone());
        assert_eq!(linearize(&square, 0).unwrap_err(), NotLinear::Nonlinear);
        let nested = d(Expr::binary(BinaryOp::Add, u.clone(), d(u, 0)), 0);
        assert_eq!(linearize(&nested, 0).unwrap_err(), NotLinear::Nested);
    }

    #[test]
    fn reciprocal_of_a_quotient_has_no_poles() {
        let ei = Expr::binary(BinaryOp::Div, Expr::Const(2.0), Expr::Coord(0));
        assert_eq!(
            reciprocal(&ei),
            Expr::binary(BinaryOp::Div, Expr::Coord(0), Expr::Const(2.0))
        );
    }
}
