//! Symbolic differentiation of closed-form expressions.
//!
//! Used to evaluate a pde on a field that has a closed form (so `pinnbo eval` can show the
//! residual, and tests can prove that a problem's closed form satisfies its own pde), and to
//! differentiate a pde in one of its params (how physics-gp's likelihood moves with an
//! unknown constant). The network side (pinnbo-ad) differentiates in coordinates by jets.

use crate::builtins::Builtin;
use crate::ir::{BinaryOp, CoordId, Expr, ParamId};

/// What a derivative is taken with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wrt {
    Coord(CoordId),
    Param(ParamId),
}

/// Replaces every derivative node by its symbolic expansion. Returns `None` if a derivative
/// applies to something that has no closed form (a field or an extension operator).
pub fn expand(e: &Expr) -> Option<Expr> {
    Some(match e {
        Expr::Const(_) | Expr::Coord(_) | Expr::Param(_) => e.clone(),
        Expr::Field(_) | Expr::Operator { .. } | Expr::Functional(_) => return None,
        Expr::Neg(a) => neg(expand(a)?),
        Expr::Binary(op, a, b) => Expr::binary(*op, expand(a)?, expand(b)?),
        Expr::Call(f, args) => Expr::Call(*f, args.iter().map(expand).collect::<Option<_>>()?),
        Expr::Diff { expr, wrt } => derivative(&expand(expr)?, *wrt),
    })
}

fn c(v: f64) -> Expr {
    Expr::Const(v)
}

fn is(e: &Expr, v: f64) -> bool {
    matches!(e, Expr::Const(x) if *x == v)
}

fn neg(a: Expr) -> Expr {
    match a {
        Expr::Const(v) => c(-v),
        other => Expr::Neg(Box::new(other)),
    }
}

fn add(a: Expr, b: Expr) -> Expr {
    if is(&a, 0.0) {
        b
    } else if is(&b, 0.0) {
        a
    } else {
        Expr::binary(BinaryOp::Add, a, b)
    }
}

fn sub(a: Expr, b: Expr) -> Expr {
    if is(&b, 0.0) {
        a
    } else if is(&a, 0.0) {
        neg(b)
    } else {
        Expr::binary(BinaryOp::Sub, a, b)
    }
}

fn mul(a: Expr, b: Expr) -> Expr {
    if is(&a, 0.0) || is(&b, 0.0) {
        c(0.0)
    } else if is(&a, 1.0) {
        b
    } else if is(&b, 1.0) {
        a
    } else {
        Expr::binary(BinaryOp::Mul, a, b)
    }
}

fn div(a: Expr, b: Expr) -> Expr {
    if is(&a, 0.0) {
        c(0.0)
    } else {
        Expr::binary(BinaryOp::Div, a, b)
    }
}

fn call(f: Builtin, args: Vec<Expr>) -> Expr {
    Expr::Call(f, args)
}

fn depends_on(e: &Expr, wrt: Wrt) -> bool {
    e.any(|n| match (n, wrt) {
        (Expr::Coord(k), Wrt::Coord(w)) | (Expr::Param(k), Wrt::Param(w)) => *k == w,
        _ => false,
    })
}

/// d(a^b)/dx, with the power rule when the exponent does not depend on x.
fn power_derivative(a: &Expr, b: &Expr, wrt: Wrt) -> Expr {
    let da = derivative_in(a, wrt);
    if !depends_on(b, wrt) {
        let lowered = Expr::binary(BinaryOp::Pow, a.clone(), sub(b.clone(), c(1.0)));
        return mul(mul(b.clone(), lowered), da);
    }
    let db = derivative_in(b, wrt);
    let pow = Expr::binary(BinaryOp::Pow, a.clone(), b.clone());
    let inner = add(
        mul(db, call(Builtin::Log, vec![a.clone()])),
        div(mul(b.clone(), da), a.clone()),
    );
    mul(pow, inner)
}

/// The derivative of a derivative-free expression with respect to one coordinate.
pub fn derivative(e: &Expr, wrt: CoordId) -> Expr {
    derivative_in(e, Wrt::Coord(wrt))
}

/// The derivative of a pde's side in one of its params: the field and its derivatives in the
/// coordinates do not depend on a param, so `d(k d(u, x), k) = d(u, x)`. None when the param
/// is inside a registered operator's arguments (lower operators first).
pub fn param_derivative(e: &Expr, param: ParamId) -> Option<Expr> {
    let inside_operator = |n: &Expr| matches!(n, Expr::Operator { args, .. } if args.iter().any(|a| a.params().contains(&param)));
    (!e.any(inside_operator)).then(|| derivative_in(e, Wrt::Param(param)))
}

fn derivative_in(e: &Expr, wrt: Wrt) -> Expr {
    match e {
        Expr::Const(_) => c(0.0),
        Expr::Coord(k) => c(f64::from(wrt == Wrt::Coord(*k))),
        Expr::Param(k) => c(f64::from(wrt == Wrt::Param(*k))),
        Expr::Field(_) | Expr::Operator { .. } | Expr::Functional(_)
            if matches!(wrt, Wrt::Param(_)) =>
        {
            c(0.0)
        }
        Expr::Diff { expr, wrt: along } if matches!(wrt, Wrt::Param(_)) => {
            match derivative_in(expr, wrt) {
                zero @ Expr::Const(_) if is(&zero, 0.0) => zero,
                inner => Expr::diff(inner, *along),
            }
        }
        // `expand` never hands these over; they have no closed form.
        Expr::Field(_) | Expr::Operator { .. } | Expr::Diff { .. } | Expr::Functional(_) => {
            c(f64::NAN)
        }
        Expr::Neg(a) => neg(derivative_in(a, wrt)),
        Expr::Binary(op, a, b) => {
            let (da, db) = (derivative_in(a, wrt), derivative_in(b, wrt));
            let (a, b) = ((**a).clone(), (**b).clone());
            match op {
                BinaryOp::Add => add(da, db),
                BinaryOp::Sub => sub(da, db),
                BinaryOp::Mul => add(mul(da, b.clone()), mul(a, db)),
                BinaryOp::Div => div(
                    sub(mul(da, b.clone()), mul(a, db)),
                    Expr::binary(BinaryOp::Pow, b, c(2.0)),
                ),
                BinaryOp::Pow => power_derivative(&a, &b, wrt),
            }
        }
        Expr::Call(f, args) => {
            let a = args[0].clone();
            let da = derivative_in(&a, wrt);
            let sq = |x: Expr| Expr::binary(BinaryOp::Pow, x, c(2.0));
            match f {
                Builtin::Sin => mul(call(Builtin::Cos, vec![a]), da),
                Builtin::Cos => mul(neg(call(Builtin::Sin, vec![a])), da),
                Builtin::Tan => div(da, sq(call(Builtin::Cos, vec![a]))),
                Builtin::Asin => div(da, call(Builtin::Sqrt, vec![sub(c(1.0), sq(a))])),
                Builtin::Acos => neg(div(da, call(Builtin::Sqrt, vec![sub(c(1.0), sq(a))]))),
                Builtin::Atan => div(da, add(c(1.0), sq(a))),
                Builtin::Sinh => mul(call(Builtin::Cosh, vec![a]), da),
                Builtin::Cosh => mul(call(Builtin::Sinh, vec![a]), da),
                Builtin::Tanh => mul(sub(c(1.0), sq(call(Builtin::Tanh, vec![a]))), da),
                Builtin::Exp => mul(call(Builtin::Exp, vec![a]), da),
                Builtin::Log => div(da, a),
                Builtin::Sqrt => div(da, mul(c(2.0), call(Builtin::Sqrt, vec![a]))),
                Builtin::Abs => mul(div(a.clone(), call(Builtin::Abs, vec![a])), da),
                Builtin::Atan2 => {
                    let (y, x) = (a, args[1].clone());
                    let dx = derivative_in(&x, wrt);
                    div(
                        sub(mul(x.clone(), da), mul(y.clone(), dx)),
                        add(sq(x), sq(y)),
                    )
                }
                // min(a, b) = (a + b - |a - b|) / 2 and max(a, b) = (a + b + |a - b|) / 2.
                Builtin::Min | Builtin::Max => {
                    let b = args[1].clone();
                    let spread = call(Builtin::Abs, vec![sub(a.clone(), b.clone())]);
                    let sum = add(a, b);
                    let form = if *f == Builtin::Min {
                        sub(sum, spread)
                    } else {
                        add(sum, spread)
                    };
                    derivative_in(&div(form, c(2.0)), wrt)
                }
                Builtin::Pow => power_derivative(&a, &args[1], wrt),
            }
        }
    }
}
