//! Lowering of AST expressions to IR: name resolution, function inlining, unrolled sums,
//! vector operators, derivative checks.

use super::{Checker, Declared};
use crate::ast::{self, BinaryOp, ExprKind, Ident, UnaryOp};
use crate::builtins::CONSTANTS;
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{CoordId, Expr, FieldId, ParamId};
use crate::source::Span;

mod calls;
mod derivatives;
mod functionals;
mod levels;

/// What an expression may refer to where it appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Allow {
    pub coords: bool,
    pub fields: bool,
    pub derivatives: bool,
    /// `w(0)`, `T(x, 0)`: a field at a fixed point, in boundary conditions.
    pub field_at: bool,
    /// The pde's unknown constants: in a pde alone (and the functions it calls).
    pub params: bool,
    /// A field read over its field coordinates (`T(0.8, a)`, `integral(T, x)`), and no
    /// field coordinate left free: objectives and constraints.
    pub functionals: bool,
}

impl Allow {
    pub const CONST: Allow = Allow {
        coords: false,
        fields: false,
        derivatives: false,
        field_at: false,
        params: false,
        functionals: false,
    };
    pub const KNOWN: Allow = Allow {
        coords: true,
        ..Allow::CONST
    };
    pub const VALUE: Allow = Allow {
        fields: true,
        functionals: true,
        ..Allow::KNOWN
    };
    pub const PDE: Allow = Allow {
        derivatives: true,
        params: true,
        functionals: false,
        ..Allow::VALUE
    };
    /// An experiment's boundary data: known, so no param.
    pub const BOUNDARY: Allow = Allow {
        field_at: true,
        params: false,
        ..Allow::PDE
    };

    fn context(self) -> &'static str {
        if !self.coords {
            "a constant expression"
        } else if !self.fields {
            "a known expression"
        } else if !self.derivatives {
            "an objective or constraint"
        } else {
            "this expression"
        }
    }
}

/// A lowered value: a scalar, or a vector (from a vector variable, `grad`, ...).
#[derive(Clone, Debug)]
pub(crate) enum Value {
    Scalar(Expr),
    Vector(Vec<Expr>),
}

#[derive(Clone, Debug)]
enum Local {
    Value(Value),
    Index(i64),
}

/// A coordinate fixed by a field-at call such as `T(x, 0)`.
#[derive(Clone, Debug)]
pub(crate) struct Fixed {
    pub coord: CoordId,
    pub value: f64,
    pub span: Span,
}

pub(crate) struct Lowerer<'a> {
    pub cx: &'a mut Checker,
    allow: Allow,
    locals: Vec<(String, Local)>,
    inlining: Vec<String>,
    /// Nodes produced by inlining so far in this expression, and whether that passed its bound
    /// (after which further calls fail quietly: the one error has been reported).
    inlined_nodes: usize,
    inlining_exhausted: bool,
    /// The call being inlined that is written in the expression itself.
    outermost_call: Option<Span>,
    /// User functions' calls stand for an opaque value instead of being inlined (for checking
    /// one function's body on its own: its callees are checked on theirs).
    pub opaque_calls: bool,
    pub fixed: Vec<Fixed>,
}

type Lowered = Option<Value>;

impl<'a> Lowerer<'a> {
    pub fn new(cx: &'a mut Checker, allow: Allow) -> Self {
        Lowerer {
            cx,
            allow,
            locals: Vec::new(),
            inlining: Vec::new(),
            inlined_nodes: 0,
            inlining_exhausted: false,
            outermost_call: None,
            opaque_calls: false,
            fixed: Vec::new(),
        }
    }

    /// Binds a local name (a function parameter) to a scalar.
    pub fn bind(&mut self, name: &str, value: Expr) {
        self.locals
            .push((name.to_string(), Local::Value(Value::Scalar(value))));
    }

    fn err(&mut self, d: Diagnostic) -> Lowered {
        self.cx.diags.push(d);
        None
    }

    /// Lowers an expression that must be a scalar.
    pub fn scalar(&mut self, e: &ast::Expr) -> Option<Expr> {
        match self.expr(e)? {
            Value::Scalar(s) => Some(s),
            Value::Vector(v) => {
                self.err(
                    Diagnostic::error(
                        "pde::expected-scalar",
                        e.span,
                        format!("expected a scalar, found a vector of length {}", v.len()),
                    )
                    .with_label("this is a vector")
                    .with_help("reduce it with `sum(...)`, `dot(a, b)` or index it with `[i]`"),
                );
                None
            }
        }
    }

    pub fn expr(&mut self, e: &ast::Expr) -> Lowered {
        match &e.kind {
            ExprKind::Number(v) => Some(Value::Scalar(Expr::Const(*v))),
            ExprKind::Name(name) => self.name(name, e.span),
            ExprKind::Index { name, index } => self.index(name, index).map(Value::Scalar),
            ExprKind::Call { name, args } => self.call(name, args, e.span),
            ExprKind::Unary(op, inner) => {
                let v = self.expr(inner)?;
                Some(match op {
                    UnaryOp::Pos => v,
                    UnaryOp::Neg => map(v, fold_neg),
                })
            }
            ExprKind::Binary(op, a, b) => {
                let (a_span, b_span) = (a.span, b.span);
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                self.binary(*op, a, b, a_span, b_span)
            }
            ExprKind::IsLevel(var, level) => self.is_level(var, level).map(Value::Scalar),
        }
    }

    fn binary(&mut self, op: BinaryOp, a: Value, b: Value, a_span: Span, b_span: Span) -> Lowered {
        let f = |x: Expr, y: Expr| Expr::binary(op, x, y);
        Some(match (a, b) {
            (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(f(x, y)),
            (Value::Vector(xs), Value::Scalar(y)) => {
                Value::Vector(xs.into_iter().map(|x| f(x, y.clone())).collect())
            }
            (Value::Scalar(x), Value::Vector(ys)) => {
                Value::Vector(ys.into_iter().map(|y| f(x.clone(), y)).collect())
            }
            (Value::Vector(xs), Value::Vector(ys)) => {
                if xs.len() != ys.len() {
                    return self.err(
                        Diagnostic::error(
                            "pde::length-mismatch",
                            a_span.to(b_span),
                            format!(
                                "vectors of different lengths ({} and {})",
                                xs.len(),
                                ys.len()
                            ),
                        )
                        .with_label("lengths differ")
                        .with_related(a_span, format!("length {}", xs.len()))
                        .with_related(b_span, format!("length {}", ys.len())),
                    );
                }
                Value::Vector(xs.into_iter().zip(ys).map(|(x, y)| f(x, y)).collect())
            }
        })
    }

    fn name(&mut self, name: &str, span: Span) -> Lowered {
        if let Some((_, local)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return Some(match local.clone() {
                Local::Value(v) => v,
                Local::Index(i) => Value::Scalar(Expr::Const(i as f64)),
            });
        }
        if let Some((_, v)) = CONSTANTS.iter().find(|(n, _)| *n == name) {
            return Some(Value::Scalar(Expr::Const(*v)));
        }
        match self.cx.declared(name) {
            Some(Declared::Const(v)) => Some(Value::Scalar(Expr::Const(v))),
            Some(Declared::Var { first, len }) => {
                if !self.allow.coords {
                    return self.not_allowed(span, format!("the variable `{name}`"));
                }
                if self.allow.functionals && self.cx.is_field_coord(first) {
                    return self.free_coordinate(span, name, None);
                }
                if self.cx.coord(first).is_categorical() {
                    return self.categorical_as_number(name, first, span);
                }
                Some(match len {
                    None => Value::Scalar(Expr::Coord(first)),
                    Some(n) => Value::Vector((first..first + n).map(Expr::Coord).collect()),
                })
            }
            Some(Declared::Field(id)) => {
                if !self.allow.fields {
                    return self.not_allowed(span, format!("the field `{name}`"));
                }
                if self.allow.functionals {
                    let free =
                        (self.cx.field_args(id).iter()).find(|c| self.cx.is_field_coord(**c));
                    if let Some(&c) = free {
                        let coord = self.cx.coord(c).name.clone();
                        return self.free_coordinate(span, &coord, Some((name, id)));
                    }
                }
                Some(Value::Scalar(Expr::Field(id)))
            }
            Some(Declared::Param(id)) => {
                if !self.allow.params {
                    return self.param_not_allowed(name, id, span);
                }
                Some(Value::Scalar(Expr::Param(id)))
            }
            Some(Declared::Poisoned) => None,
            Some(Declared::Fn) => self.err(
                Diagnostic::error(
                    "pde::function-not-called",
                    span,
                    format!("`{name}` is a function"),
                )
                .with_label("used as a value")
                .with_help(format!("call it with arguments, e.g. `{name}(x)`")),
            ),
            None => {
                let help = suggestion(name, self.value_names());
                self.err(
                    Diagnostic::error("pde::unknown-name", span, format!("unknown name `{name}`"))
                        .with_label("not declared")
                        .with_help_opt(help),
                )
            }
        }
    }

    /// A field coordinate left free where a number is needed (an objective, a constraint):
    /// `coord` itself, or the field `field` that depends on it.
    pub(super) fn free_coordinate(
        &mut self,
        span: Span,
        coord: &str,
        field: Option<(&str, FieldId)>,
    ) -> Lowered {
        // Every coordinate of the field, as the functionals' help names them.
        let all = match field {
            Some((_, id)) => (self.cx.field_args(id).iter())
                .filter(|c| self.cx.is_field_coord(**c))
                .map(|c| self.cx.coord(*c).name.clone())
                .collect::<Vec<_>>()
                .join(", "),
            None => coord.to_string(),
        };
        let field = field.map(|(name, _)| name);
        let (message, label) = match field {
            Some(f) => (
                format!(
                    "the field `{f}` depends on the coordinate `{coord}`, which is left free here"
                ),
                format!("`{f}` over all of `{coord}`"),
            ),
            None => (
                format!("the coordinate `{coord}` is left free here"),
                "not chosen by the optimizer".to_string(),
            ),
        };
        let f = field.unwrap_or("T");
        self.err(
            Diagnostic::error("pde::free-coordinate", span, message)
                .with_label(label)
                .with_help(format!(
                    "an objective or constraint is one number per design: read the field at a \
                     place (`{f}(0.5, ..)` with the coordinates as numbers and the design \
                     variables passed through) or over its coordinates with `integral({f}, \
                     {all})`, `mean({f}, {all})`, `maximum({f}, {all})` or `minimum({f}, {all})`"
                )),
        )
    }

    fn not_allowed(&mut self, span: Span, what: String) -> Lowered {
        let context = self.allow.context();
        self.err(
            Diagnostic::error(
                "pde::not-allowed-here",
                span,
                format!("{what} cannot appear in {context}"),
            )
            .with_label("not allowed here"),
        )
    }

    /// A param outside a pde: the place where the file states what is known.
    fn param_not_allowed(&mut self, name: &str, id: ParamId, span: Span) -> Lowered {
        let place = if !self.allow.coords {
            "a constant expression"
        } else if !self.allow.fields {
            "a field's closed form"
        } else if self.allow.field_at {
            "an experiment's boundary data"
        } else {
            "an objective or a constraint"
        };
        let declared = self.cx.param(id).span;
        self.err(
            Diagnostic::error(
                "pde::param-outside-pde",
                span,
                format!("the param `{name}` cannot appear in {place}"),
            )
            .with_label("an unknown constant")
            .with_related(declared, "declared as a param here")
            .with_help(
                "a closed form is the truth and a param is what is not known: a param may \
                 appear only in a `pde` (and the `fn`s it calls); write a number here",
            ),
        )
    }

    /// Names a value position can refer to, for suggestions.
    fn value_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.locals.iter().map(|(n, _)| n.as_str()).collect();
        names.extend(CONSTANTS.iter().map(|(n, _)| *n));
        names.extend(
            self.cx
                .names()
                .filter(|n| !matches!(self.cx.declared(n), Some(Declared::Fn))),
        );
        names
    }

    /// Evaluates a constant integer (an index, a range bound).
    fn const_int(&mut self, e: &ast::Expr, what: &str) -> Option<i64> {
        let saved = std::mem::replace(&mut self.allow, Allow::CONST);
        let v = self.scalar(e);
        self.allow = saved;
        let v = crate::eval::eval_const(&v?)?;
        if v.fract() != 0.0 || !v.is_finite() || v.abs() > 1e15 {
            self.err(
                Diagnostic::error(
                    "pde::not-an-integer",
                    e.span,
                    format!("{what} must be an integer, found {v}"),
                )
                .with_label("not an integer"),
            );
            return None;
        }
        Some(v as i64)
    }

    fn index(&mut self, name: &Ident, index: &ast::Expr) -> Option<Expr> {
        let i = self.const_int(index, "an index")?;
        match self.cx.declared(&name.name) {
            Some(Declared::Var {
                first,
                len: Some(n),
            }) => {
                if i < 1 || i as usize > n {
                    self.err(
                        Diagnostic::error(
                            "pde::index-out-of-range",
                            index.span,
                            format!("index {i} is out of range for `{}[{n}]`", name.name),
                        )
                        .with_label(format!("valid indices are 1..{n}")),
                    );
                    return None;
                }
                if !self.allow.coords {
                    self.not_allowed(name.span, format!("the variable `{}`", name.name));
                    return None;
                }
                Some(Expr::Coord(first + i as usize - 1))
            }
            Some(Declared::Poisoned) => None,
            Some(Declared::Var { len: None, .. }) => {
                self.err(
                    Diagnostic::error(
                        "pde::index-on-scalar",
                        name.span,
                        format!("`{}` is a scalar variable and cannot be indexed", name.name),
                    )
                    .with_label("not a vector")
                    .with_help(format!(
                        "declare it as a vector, e.g. `var {}[10] in [lo, hi]`",
                        name.name
                    )),
                );
                None
            }
            _ => {
                let vectors: Vec<&str> = self
                    .cx
                    .names()
                    .filter(|n| {
                        matches!(
                            self.cx.declared(n),
                            Some(Declared::Var { len: Some(_), .. })
                        )
                    })
                    .collect();
                self.err(
                    Diagnostic::error(
                        "pde::unknown-name",
                        name.span,
                        format!("`{}` is not a vector variable", name.name),
                    )
                    .with_label("cannot index this")
                    .with_help_opt(suggestion(&name.name, vectors)),
                );
                None
            }
        }
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Scalar(_) => "a scalar".into(),
        Value::Vector(v) => format!("a vector of length {}", v.len()),
    }
}

fn map(v: Value, f: impl Fn(Expr) -> Expr) -> Value {
    match v {
        Value::Scalar(s) => Value::Scalar(f(s)),
        Value::Vector(xs) => Value::Vector(xs.into_iter().map(f).collect()),
    }
}

fn fold_neg(x: Expr) -> Expr {
    match x {
        Expr::Const(v) => Expr::Const(-v),
        other => Expr::Neg(Box::new(other)),
    }
}

/// A balanced sum tree (depth log2 n, so long sums cannot exhaust the stack of the
/// recursive passes over the IR); the empty sum is 0.
pub(crate) fn sum_exprs(mut terms: Vec<Expr>) -> Expr {
    match terms.len() {
        0 => Expr::Const(0.0),
        1 => terms.pop().unwrap_or(Expr::Const(0.0)),
        n => {
            let right = terms.split_off(n / 2);
            Expr::binary(BinaryOp::Add, sum_exprs(terms), sum_exprs(right))
        }
    }
}
