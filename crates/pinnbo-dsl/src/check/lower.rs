//! Lowering of AST expressions to IR: name resolution, function inlining, unrolled sums,
//! vector operators, derivative checks.

use super::{Checker, Declared};
use crate::ast::{self, Arg, BinaryOp, ExprKind, Ident, UnaryOp};
use crate::builtins::{Builtin, CONSTANTS};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{CoordId, Expr};
use crate::operators::BUILTIN_OPERATORS;
use crate::source::Span;

mod derivatives;

/// What an expression may refer to where it appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Allow {
    pub coords: bool,
    pub fields: bool,
    pub derivatives: bool,
    /// `w(0)`, `T(x, 0)`: a field at a fixed point, in boundary conditions.
    pub field_at: bool,
}

impl Allow {
    pub const CONST: Allow = Allow {
        coords: false,
        fields: false,
        derivatives: false,
        field_at: false,
    };
    pub const KNOWN: Allow = Allow {
        coords: true,
        ..Allow::CONST
    };
    pub const VALUE: Allow = Allow {
        fields: true,
        ..Allow::KNOWN
    };
    pub const PDE: Allow = Allow {
        derivatives: true,
        ..Allow::VALUE
    };
    pub const BOUNDARY: Allow = Allow {
        field_at: true,
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
    pub fixed: Vec<Fixed>,
}

type Lowered = Option<Value>;

/// How deeply user functions may call one another.
const MAX_INLINE_DEPTH: usize = 32;

impl<'a> Lowerer<'a> {
    pub fn new(cx: &'a mut Checker, allow: Allow) -> Self {
        Lowerer {
            cx,
            allow,
            locals: Vec::new(),
            inlining: Vec::new(),
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
                Some(match len {
                    None => Value::Scalar(Expr::Coord(first)),
                    Some(n) => Value::Vector((first..first + n).map(Expr::Coord).collect()),
                })
            }
            Some(Declared::Field(id)) => {
                if !self.allow.fields {
                    return self.not_allowed(span, format!("the field `{name}`"));
                }
                Some(Value::Scalar(Expr::Field(id)))
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

    fn call(&mut self, name: &Ident, args: &[Arg], span: Span) -> Lowered {
        let n = name.name.as_str();
        if self.locals.iter().any(|(l, _)| l == n) {
            return self.err(
                Diagnostic::error(
                    "pde::not-a-function",
                    name.span,
                    format!("`{n}` is not a function"),
                )
                .with_label("a parameter or index, not a function"),
            );
        }
        match n {
            "sum" => return self.sum(name, args, span),
            "d" => return self.derivative(name, args, span),
            "grad" | "div" | "laplacian" | "biharmonic" | "dot" => {
                return self.vector_operator(name, args, span)
            }
            _ => {}
        }
        if let Some(b) = Builtin::from_name(n) {
            self.check_arity(name, args, b.arity(), span)?;
            let values = self.plain_args(args)?;
            return self.apply_builtin(b, values, span);
        }
        match self.cx.declared(n) {
            Some(Declared::Poisoned) => return None,
            Some(Declared::Fn) => return self.inline(name, args, span),
            Some(Declared::Field(id)) => return self.field_at(name, id, args, span),
            _ => {}
        }
        if let Some(sig) = self.cx.operators.get(n).cloned() {
            self.check_arity(name, args, sig.arity, span)?;
            if !self.allow.derivatives {
                return self.not_allowed(span, format!("the operator `{n}`"));
            }
            let values = self.scalar_args(args)?;
            return Some(Value::Scalar(Expr::Operator {
                name: sig.name,
                args: values,
            }));
        }
        if let Some(wrt) = self.shorthand(n) {
            self.check_arity(name, args, 1, span)?;
            let Some(Arg::Expr(inner)) = args.first() else {
                return None;
            };
            return self.differentiate(inner, &wrt, span).map(Value::Scalar);
        }
        let mut candidates: Vec<&str> = Builtin::ALL.iter().map(|b| b.name()).collect();
        candidates.extend(BUILTIN_OPERATORS);
        candidates.extend(self.cx.operators.names());
        candidates.extend(self.cx.names().filter(|c| {
            matches!(
                self.cx.declared(c),
                Some(Declared::Fn) | Some(Declared::Field(_))
            )
        }));
        let help = suggestion(n, candidates).or_else(|| {
            n.starts_with('d').then(|| {
                "derivatives are written `d(u, x)`, `d(u, x, y)` or shorthands like `dxx(u)` \
                 built from declared variable names"
                    .to_string()
            })
        });
        self.err(
            Diagnostic::error(
                "pde::unknown-function",
                name.span,
                format!("unknown function or operator `{n}`"),
            )
            .with_label("not a built-in, declared function, field or operator")
            .with_help_opt(help),
        )
    }

    fn check_arity(
        &mut self,
        name: &Ident,
        args: &[Arg],
        expected: usize,
        span: Span,
    ) -> Option<()> {
        if args.len() == expected {
            return Some(());
        }
        let plural = if expected == 1 { "" } else { "s" };
        self.err(
            Diagnostic::error(
                "pde::arity",
                span,
                format!(
                    "`{}` takes {expected} argument{plural}, but {} were given",
                    name.name,
                    args.len()
                ),
            )
            .with_label(format!("expected {expected} argument{plural}")),
        );
        None
    }

    fn plain_args(&mut self, args: &[Arg]) -> Option<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len());
        let mut ok = true;
        for a in args {
            match a {
                Arg::Expr(e) => match self.expr(e) {
                    Some(v) => out.push(v),
                    None => ok = false,
                },
                Arg::Range { span, .. } => {
                    self.err(
                        Diagnostic::error(
                            "pde::unexpected-range",
                            *span,
                            "an index range is only valid in `sum`",
                        )
                        .with_label("not in a sum"),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    fn scalar_args(&mut self, args: &[Arg]) -> Option<Vec<Expr>> {
        let mut out = Vec::new();
        for a in args {
            let Arg::Expr(e) = a else {
                self.plain_args(std::slice::from_ref(a))?;
                return None;
            };
            out.push(self.scalar(e)?);
        }
        Some(out)
    }

    fn apply_builtin(&mut self, b: Builtin, values: Vec<Value>, span: Span) -> Lowered {
        if b.arity() == 1 {
            let v = values.into_iter().next()?;
            return Some(map(v, |x| Expr::Call(b, vec![x])));
        }
        let mut it = values.into_iter();
        let (a, c) = (it.next()?, it.next()?);
        match (a, c) {
            (Value::Scalar(a), Value::Scalar(c)) => Some(Value::Scalar(Expr::Call(b, vec![a, c]))),
            (Value::Vector(xs), Value::Scalar(y)) => Some(Value::Vector(
                xs.into_iter()
                    .map(|x| Expr::Call(b, vec![x, y.clone()]))
                    .collect(),
            )),
            (Value::Scalar(x), Value::Vector(ys)) => Some(Value::Vector(
                ys.into_iter()
                    .map(|y| Expr::Call(b, vec![x.clone(), y]))
                    .collect(),
            )),
            (Value::Vector(xs), Value::Vector(ys)) if xs.len() == ys.len() => Some(Value::Vector(
                xs.into_iter()
                    .zip(ys)
                    .map(|(x, y)| Expr::Call(b, vec![x, y]))
                    .collect(),
            )),
            (Value::Vector(xs), Value::Vector(ys)) => self.err(
                Diagnostic::error(
                    "pde::length-mismatch",
                    span,
                    format!(
                        "vectors of different lengths ({} and {})",
                        xs.len(),
                        ys.len()
                    ),
                )
                .with_label("lengths differ"),
            ),
        }
    }

    /// Inlines a user function: arguments are lowered here, the body in a scope of its parameters.
    fn inline(&mut self, name: &Ident, args: &[Arg], span: Span) -> Lowered {
        let def = self.cx.function(&name.name)?.clone();
        self.check_arity(name, args, def.params.len(), span)?;
        if self.inlining.len() >= MAX_INLINE_DEPTH {
            return self.err(
                Diagnostic::error(
                    "pde::too-deep",
                    span,
                    format!("functions call each other more than {MAX_INLINE_DEPTH} levels deep"),
                )
                .with_label("too deep"),
            );
        }
        if self.inlining.contains(&name.name) {
            return self.err(
                Diagnostic::error(
                    "pde::recursive-function",
                    span,
                    format!(
                        "`{}` calls itself; functions cannot be recursive",
                        name.name
                    ),
                )
                .with_label("recursive call")
                .with_related(def.name_span, "defined here"),
            );
        }
        let values = self.plain_args(args)?;
        let saved = std::mem::take(&mut self.locals);
        self.locals = def
            .params
            .iter()
            .map(|p| p.name.clone())
            .zip(values.into_iter().map(Local::Value))
            .collect();
        self.inlining.push(name.name.clone());
        let result = self.expr(&def.body);
        self.inlining.pop();
        self.locals = saved;
        result
    }

    /// `sum(i, body)` over the range inferred from the vectors indexed by `i`,
    /// `sum(i in lo..hi, body)`, or `sum(v)` of a vector.
    fn sum(&mut self, name: &Ident, args: &[Arg], span: Span) -> Lowered {
        let (binder, lo, hi, body) = match args {
            [Arg::Expr(e)] => {
                return match self.expr(e)? {
                    Value::Vector(v) => Some(Value::Scalar(sum_exprs(v))),
                    Value::Scalar(s) => Some(Value::Scalar(s)),
                }
            }
            [Arg::Range { binder, lo, hi, .. }, Arg::Expr(body)] => {
                let lo = self.const_int(lo, "a range bound")?;
                let hi = self.const_int(hi, "a range bound")?;
                (binder.clone(), lo, hi, body)
            }
            [Arg::Expr(ast::Expr {
                kind: ExprKind::Name(b),
                span: bspan,
                ..
            }), Arg::Expr(body)] => {
                let binder = Ident {
                    name: b.clone(),
                    span: *bspan,
                };
                let n = self.infer_range(&binder, body)?;
                (binder, 1, n as i64, body)
            }
            _ => {
                return self.err(
                    Diagnostic::error("pde::bad-sum", span, "malformed sum")
                        .with_label(
                            "expected `sum(i, body)`, `sum(i in 1..n, body)` or `sum(vector)`",
                        )
                        .with_related(name.span, "this sum"),
                )
            }
        };
        if self.cx.declared(&binder.name).is_some() {
            return self.err(
                Diagnostic::error(
                    "pde::shadowed-name",
                    binder.span,
                    format!(
                        "the index `{}` hides a declaration of the same name",
                        binder.name
                    ),
                )
                .with_label("choose another index name"),
            );
        }
        self.cx.sum_terms += (hi - lo + 1).max(0);
        if hi - lo >= super::MAX_SUM_TERMS || self.cx.sum_terms > 10 * super::MAX_SUM_TERMS {
            return self.err(
                Diagnostic::error(
                    "pde::too-large",
                    span,
                    format!(
                        "a sum may have at most {} terms; this one has {}",
                        super::MAX_SUM_TERMS,
                        hi - lo + 1
                    ),
                )
                .with_label("too many terms"),
            );
        }
        let mut terms = Vec::new();
        for i in lo..=hi {
            self.locals.push((binder.name.clone(), Local::Index(i)));
            let term = self.scalar(body);
            self.locals.pop();
            terms.push(term?);
        }
        Some(Value::Scalar(sum_exprs(terms)))
    }

    /// The length of the vectors that `body` indexes with the bare index `binder`.
    fn infer_range(&mut self, binder: &Ident, body: &ast::Expr) -> Option<usize> {
        let mut uses: Vec<(usize, Span)> = Vec::new();
        let cx = &*self.cx;
        visit_ast(body, &mut |e| {
            if let ExprKind::Index { name, index } = &e.kind {
                if matches!(&index.kind, ExprKind::Name(i) if *i == binder.name) {
                    if let Some(Declared::Var { len: Some(n), .. }) = cx.declared(&name.name) {
                        uses.push((n, e.span));
                    }
                }
            }
        });
        let Some(&(n, first_span)) = uses.first() else {
            self.err(
                Diagnostic::error(
                    "pde::sum-range",
                    binder.span,
                    format!("cannot infer the range of `{}`", binder.name),
                )
                .with_label("no vector variable is indexed by it")
                .with_help(format!(
                    "give the range explicitly: `sum({} in 1..n, ...)`",
                    binder.name
                )),
            );
            return None;
        };
        if let Some(&(m, span)) = uses.iter().find(|(m, _)| *m != n) {
            self.err(
                Diagnostic::error(
                    "pde::sum-range",
                    binder.span,
                    format!(
                        "`{}` indexes vectors of different lengths ({n} and {m})",
                        binder.name
                    ),
                )
                .with_label("ambiguous range")
                .with_related(first_span, format!("length {n}"))
                .with_related(span, format!("length {m}")),
            );
            return None;
        }
        Some(n)
    }

    /// `w(0)` or `T(x, 0)`: the field with some coordinates fixed (boundary conditions only).
    fn field_at(&mut self, name: &Ident, id: usize, args: &[Arg], span: Span) -> Lowered {
        let field_args = self.cx.field_args(id).to_vec();
        if !self.allow.field_at {
            return self.err(
                Diagnostic::error(
                    "pde::field-at-point",
                    span,
                    format!("the field `{}` can be evaluated at a given point only in boundary conditions", name.name),
                )
                .with_label("field at a point")
                .with_help(format!("write `{}` alone for its value at the current point", name.name)),
            );
        }
        self.check_arity(name, args, field_args.len(), span)?;
        for (arg, &coord) in args.iter().zip(&field_args) {
            let Arg::Expr(e) = arg else { return None };
            let v = self.expr(e)?;
            match v {
                Value::Scalar(Expr::Coord(c)) if c == coord => {}
                Value::Scalar(other) => match crate::eval::eval_const(&other) {
                    Some(value) => self.fixed.push(Fixed {
                        coord,
                        value,
                        span: e.span,
                    }),
                    None => {
                        let var = self.cx.coord_name(coord).to_string();
                        return self.err(
                            Diagnostic::error(
                                "pde::field-argument",
                                e.span,
                                format!("each argument must be the field's own variable `{var}` or a constant"),
                            )
                            .with_label("neither the variable nor a constant"),
                        );
                    }
                },
                Value::Vector(_) => {
                    return self.err(
                        Diagnostic::error(
                            "pde::field-argument",
                            e.span,
                            "a field argument must be a scalar",
                        )
                        .with_label("a vector"),
                    )
                }
            }
        }
        Some(Value::Scalar(Expr::Field(id)))
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

fn visit_ast(e: &ast::Expr, f: &mut impl FnMut(&ast::Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Number(_) | ExprKind::Name(_) => {}
        ExprKind::Index { index, .. } => visit_ast(index, f),
        ExprKind::Call { args, .. } => {
            for a in args {
                match a {
                    Arg::Expr(x) => visit_ast(x, f),
                    Arg::Range { lo, hi, .. } => {
                        visit_ast(lo, f);
                        visit_ast(hi, f);
                    }
                }
            }
        }
        ExprKind::Unary(_, a) => visit_ast(a, f),
        ExprKind::Binary(_, a, b) => {
            visit_ast(a, f);
            visit_ast(b, f);
        }
    }
}
