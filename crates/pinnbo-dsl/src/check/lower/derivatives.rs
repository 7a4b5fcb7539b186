//! Derivatives and differential operators: `d(u, x)`, shorthands like `dxx(u)`, `grad`, `div`,
//! `laplacian`, `biharmonic`, `dot`, with the checks that they apply to fields.

use super::{describe, sum_exprs, Lowered, Lowerer, Value};
use crate::ast::{self, Arg, BinaryOp, ExprKind, Ident};
use crate::check::{Checker, Declared};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{CoordId, Expr};
use crate::operators::MAX_DERIVATIVE_ORDER;
use crate::source::Span;

impl Lowerer<'_> {
    /// `dxx`, `dxy`, `dt`: splits the name after `d` into declared scalar variable names.
    pub(super) fn shorthand(&self, name: &str) -> Option<Vec<CoordId>> {
        let rest = name.strip_prefix('d')?;
        fn split(cx: &Checker, rest: &str) -> Option<Vec<CoordId>> {
            if rest.is_empty() {
                return Some(Vec::new());
            }
            for end in (1..=rest.len()).rev() {
                if !rest.is_char_boundary(end) {
                    continue;
                }
                if let Some(Declared::Var { first, len: None }) = cx.declared(&rest[..end]) {
                    if let Some(mut tail) = split(cx, &rest[end..]) {
                        tail.insert(0, first);
                        return Some(tail);
                    }
                }
            }
            None
        }
        split(self.cx, rest).filter(|v| !v.is_empty())
    }

    /// `d(u, x)`, `d(u, x, y)`, `d(u, x, 4)`, `d(f, x[i])`.
    pub(super) fn derivative(&mut self, name: &Ident, args: &[Arg], span: Span) -> Lowered {
        let [Arg::Expr(inner), rest @ ..] = args else {
            return self.err(
                Diagnostic::error(
                    "pde::arity",
                    span,
                    "`d` needs an expression and at least one variable",
                )
                .with_label("e.g. `d(u, x)` or `d(u, x, 2)`")
                .with_related(name.span, "this derivative"),
            );
        };
        if rest.is_empty() {
            return self.err(
                Diagnostic::error(
                    "pde::arity",
                    span,
                    "`d` needs at least one variable to differentiate with respect to",
                )
                .with_label("e.g. `d(u, x)`"),
            );
        }
        let mut wrt: Vec<CoordId> = Vec::new();
        for arg in rest {
            let Arg::Expr(e) = arg else {
                self.plain_args(std::slice::from_ref(arg));
                return None;
            };
            match &e.kind {
                ExprKind::Number(k) if k.fract() == 0.0 && *k >= 1.0 && !wrt.is_empty() => {
                    // Checked before expanding: `d(u, x, 4000000000)` must not build the chain.
                    let order = (wrt.len() as f64 + k - 1.0).min(u32::MAX as f64) as u32;
                    self.check_order(order, span)?;
                    let last = *wrt.last()?;
                    wrt.extend(std::iter::repeat_n(last, *k as usize - 1));
                }
                _ => wrt.push(self.variable_of(e)?),
            }
        }
        self.differentiate(inner, &wrt, span).map(Value::Scalar)
    }

    /// The coordinate a derivative is taken with respect to.
    fn variable_of(&mut self, e: &ast::Expr) -> Option<CoordId> {
        let described = match &e.kind {
            ExprKind::Name(n) => match self.cx.declared(n) {
                Some(Declared::Var { first, len: None }) => return Some(first),
                Some(Declared::Var { len: Some(len), .. }) => {
                    format!("`{n}` is a vector of {len} variables; pick one with `{n}[i]`")
                }
                Some(Declared::Poisoned) => return None,
                Some(Declared::Const(_)) => format!("`{n}` is a constant"),
                Some(Declared::Fn) => format!("`{n}` is a function"),
                Some(Declared::Field(_)) => format!("`{n}` is a field"),
                Some(Declared::Param(_)) => format!("`{n}` is a param (a constant)"),
                None if self.locals.iter().any(|(l, _)| l == n) => format!("`{n}` is a local name"),
                None => {
                    let vars: Vec<&str> = self
                        .cx
                        .names()
                        .filter(|c| matches!(self.cx.declared(c), Some(Declared::Var { .. })))
                        .collect();
                    let help = suggestion(n, vars);
                    self.err(
                        Diagnostic::error(
                            "pde::unknown-name",
                            e.span,
                            format!("unknown variable `{n}`"),
                        )
                        .with_label("not declared")
                        .with_help_opt(help),
                    );
                    return None;
                }
            },
            ExprKind::Index { name, index } => {
                return self.index(name, index).and_then(|x| match x {
                    Expr::Coord(c) => Some(c),
                    _ => None,
                })
            }
            _ => "this is an expression".to_string(),
        };
        self.err(
            Diagnostic::error(
                "pde::derivative-wrt",
                e.span,
                "a derivative must be taken with respect to a variable",
            )
            .with_label(described),
        );
        None
    }

    /// Lowers `inner` and wraps it in derivatives, checking it involves a field that can vary.
    pub(super) fn differentiate(
        &mut self,
        inner: &ast::Expr,
        wrt: &[CoordId],
        span: Span,
    ) -> Option<Expr> {
        if !self.allow.derivatives {
            self.not_allowed(span, "a derivative".into());
            return None;
        }
        let mut e = self.scalar(inner)?;
        let fields = e.fields();
        if fields.is_empty() {
            let text = self.cx.source.slice(inner.span).to_string();
            self.err(
                Diagnostic::error(
                    "pde::derivative-of-non-field",
                    inner.span,
                    format!("derivative of `{text}`, which is not a field"),
                )
                .with_label("contains no field")
                .with_help("derivatives apply to fields (`field u(x)`), or to expressions that contain one"),
            );
            return None;
        }
        if let Some(&c) = wrt.iter().find(|&&c| self.cx.coord(c).integer) {
            let coord = self.cx.coord(c);
            let (var, takes) = match coord.is_categorical() {
                true => (coord.name.clone(), "which takes named levels only"),
                false => (coord.name.clone(), "which takes integer values only"),
            };
            return self.not_differentiable(span, format!("a derivative in `{var}`, {takes}"));
        }
        for &c in wrt {
            let depends = e.any(|n| matches!(n, Expr::Coord(k) if *k == c))
                || fields.iter().any(|f| self.cx.field_args(*f).contains(&c));
            if !depends {
                let text = self.cx.source.slice(inner.span).to_string();
                let var = self.cx.coord(c).name.to_string();
                self.err(
                    Diagnostic::error(
                        "pde::derivative-wrt",
                        span,
                        format!("`{text}` does not depend on `{var}`"),
                    )
                    .with_label(format!("derivative with respect to `{var}`"))
                    .with_help("the derivative would be identically zero; list the variable in the field's declaration if it should depend on it"),
                );
                return None;
            }
            e = Expr::diff(e, c);
        }
        let order = e.total_order();
        self.check_order(order, span)?;
        Some(e)
    }

    /// Jets carry derivatives up to [`MAX_DERIVATIVE_ORDER`]; higher orders are refused here.
    fn check_order(&mut self, order: u32, span: Span) -> Option<()> {
        if order <= MAX_DERIVATIVE_ORDER {
            return Some(());
        }
        self.err(
            Diagnostic::error(
                "pde::derivative-order",
                span,
                format!("derivative of order {order} exceeds the supported maximum of {MAX_DERIVATIVE_ORDER}"),
            )
            .with_label(format!("order {order}"))
            .with_help("rewrite the equation as a system of lower-order equations"),
        );
        None
    }

    /// `grad(u)`, `div(v)`, `laplacian(u)`, `biharmonic(u)`, `dot(a, b)`.
    pub(super) fn vector_operator(&mut self, name: &Ident, args: &[Arg], span: Span) -> Lowered {
        let n = name.name.as_str();
        let arity = if n == "dot" { 2 } else { 1 };
        self.check_arity(name, args, arity, span)?;
        let values = self.plain_args(args)?;
        if n == "dot" {
            let mut it = values.into_iter();
            return match (it.next()?, it.next()?) {
                (Value::Vector(a), Value::Vector(b)) if a.len() == b.len() => {
                    Some(Value::Scalar(sum_exprs(
                        a.into_iter()
                            .zip(b)
                            .map(|(x, y)| Expr::binary(BinaryOp::Mul, x, y))
                            .collect(),
                    )))
                }
                (a, b) => self.err(
                    Diagnostic::error(
                        "pde::operator-argument",
                        span,
                        "`dot` needs two vectors of the same length",
                    )
                    .with_label(format!(
                        "found {} and {}",
                        describe(&a),
                        describe(&b)
                    )),
                ),
            };
        }
        let arg_span = args[0].span();
        let value = values.into_iter().next()?;
        let coords = self.operator_coords(&value, arg_span)?;
        let lap = |u: Expr, coords: &[CoordId]| {
            sum_exprs(
                coords
                    .iter()
                    .map(|&c| Expr::diff(Expr::diff(u.clone(), c), c))
                    .collect(),
            )
        };
        let out = match (n, value) {
            ("grad", Value::Scalar(u)) => {
                Value::Vector(coords.iter().map(|&c| Expr::diff(u.clone(), c)).collect())
            }
            ("laplacian", Value::Scalar(u)) => Value::Scalar(lap(u, &coords)),
            ("biharmonic", Value::Scalar(u)) => Value::Scalar(lap(lap(u, &coords), &coords)),
            ("div", Value::Vector(v)) if v.len() == coords.len() => Value::Scalar(sum_exprs(
                v.into_iter()
                    .zip(&coords)
                    .map(|(e, &c)| Expr::diff(e, c))
                    .collect(),
            )),
            (_, v) => {
                let wants = if n == "div" {
                    format!("a vector of length {}", coords.len())
                } else {
                    "a scalar".to_string()
                };
                return self.err(
                    Diagnostic::error(
                        "pde::operator-argument",
                        arg_span,
                        format!("`{n}` expects {wants}"),
                    )
                    .with_label(format!("found {}", describe(&v))),
                );
            }
        };
        if !self.allow.derivatives {
            return self.not_allowed(span, format!("the operator `{n}`"));
        }
        let order = match &out {
            Value::Scalar(e) => e.total_order(),
            Value::Vector(v) => v.iter().map(Expr::total_order).max().unwrap_or(0),
        };
        self.check_order(order, span)?;
        Some(out)
    }

    /// The coordinates a vector operator acts along: the continuous ones of the (single) field
    /// involved.
    fn operator_coords(&mut self, value: &Value, span: Span) -> Option<Vec<CoordId>> {
        let exprs: Vec<&Expr> = match value {
            Value::Scalar(e) => vec![e],
            Value::Vector(v) => v.iter().collect(),
        };
        let mut fields: Vec<usize> = Vec::new();
        for e in exprs {
            for f in e.fields() {
                if !fields.contains(&f) {
                    fields.push(f);
                }
            }
        }
        let Some(&first) = fields.first() else {
            let text = self.cx.source.slice(span).to_string();
            self.err(
                Diagnostic::error(
                    "pde::derivative-of-non-field",
                    span,
                    format!("derivative of `{text}`, which is not a field"),
                )
                .with_label("contains no field")
                .with_help("differential operators apply to fields (`field u(x, y)`)"),
            );
            return None;
        };
        let coords = self.cx.field_args(first).to_vec();
        if let Some(&other) = fields
            .iter()
            .find(|f| self.cx.field_args(**f) != coords.as_slice())
        {
            let (a, b) = (
                self.cx.field_name(first).to_string(),
                self.cx.field_name(other).to_string(),
            );
            self.err(
                Diagnostic::error(
                    "pde::operator-argument",
                    span,
                    format!("the fields `{a}` and `{b}` depend on different variables"),
                )
                .with_label("ambiguous: which variables does the operator act along?")
                .with_help("write the derivatives explicitly with `d(u, x)`"),
            );
            return None;
        }
        // Along the field's own coordinates (`coord`) when it has any: the design variables
        // are its parameters there. Along the continuous variables only: an integer or
        // categorical argument selects the field's coefficients and has no derivative.
        let own = coords.iter().any(|&c| self.cx.is_field_coord(c));
        let continuous: Vec<CoordId> = (coords.iter().copied())
            .filter(|&c| !self.cx.coord(c).integer && (!own || self.cx.is_field_coord(c)))
            .collect();
        if continuous.is_empty() {
            let name = self.cx.field_name(first).to_string();
            let message =
                format!("the field `{name}` has no continuous variable to differentiate along");
            return self.not_differentiable(span, message);
        }
        Some(continuous)
    }

    /// A derivative along an integer or categorical variable, refused.
    fn not_differentiable<T>(&mut self, span: Span, message: String) -> Option<T> {
        let _: Lowered = self.err(
            Diagnostic::error("pde::derivative-of-integer", span, message)
                .with_label("not differentiable")
                .with_help(
                    "a pde is over continuous variables; an integer or categorical variable may \
                     select its coefficients, as a function of it",
                ),
        );
        None
    }
}
