//! Calls: built-in functions, user functions (inlined), indexed sums, registered operators,
//! fields evaluated at a point, and dispatch to the derivative operators.

use super::{map, sum_exprs, Fixed, Local, Lowered, Lowerer, Value};
use crate::ast::{self, Arg, ExprKind, Ident};
use crate::builtins::Builtin;
use crate::check::Declared;
use crate::check::MAX_SUM_TERMS;
use crate::diag::{suggestion, Diagnostic};
use crate::ir::Expr;
use crate::operators::BUILTIN_OPERATORS;
use crate::source::Span;

/// How deeply user functions may call one another.
const MAX_INLINE_DEPTH: usize = 32;

/// The most nodes one inlined call may expand to. A function that uses another's result
/// twice doubles per level when inlined (60 such lines would be 2^60 nodes).
const MAX_INLINED_NODES: usize = 50_000;

/// The most nodes all inlined calls in one expression may produce together. Passing a large
/// argument down a chain of calls (`f(f(a))` per level) copies it at every call while each
/// result stays under [`MAX_INLINED_NODES`]; work is proportional to what the calls produce,
/// so this bound keeps checking linear in the file's size.
const MAX_INLINED_TOTAL: usize = 250_000;

impl Lowerer<'_> {
    pub(super) fn call(&mut self, name: &Ident, args: &[Arg], span: Span) -> Lowered {
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
        if let Some(reduce) = crate::ir::Reduce::from_name(n) {
            return self.reduced_functional(reduce, args, span);
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

    pub(super) fn check_arity(
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

    pub(super) fn plain_args(&mut self, args: &[Arg]) -> Option<Vec<Value>> {
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

    pub(super) fn scalar_args(&mut self, args: &[Arg]) -> Option<Vec<Expr>> {
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
        if self.opaque_calls {
            return Some(Value::Scalar(Expr::Const(1.0)));
        }
        if self.inlining_exhausted {
            return None;
        }
        if self.inlining.is_empty() {
            self.outermost_call = Some(span);
        }
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
        let size = match &result {
            Some(Value::Scalar(e)) => e.size(),
            Some(Value::Vector(v)) => v.iter().map(Expr::size).sum(),
            None => 0,
        };
        self.inlined_nodes += size;
        let over = size > MAX_INLINED_NODES || self.inlined_nodes > MAX_INLINED_TOTAL;
        if over && std::mem::replace(&mut self.inlining_exhausted, true) {
            return None;
        }
        if self.inlined_nodes > MAX_INLINED_TOTAL {
            // Reported at the call written in this expression, not deep inside the expansion.
            let outermost = self.outermost_call.unwrap_or(span);
            return self.err(
                Diagnostic::error(
                    "pde::too-large",
                    outermost,
                    format!(
                        "inlining the functions this call uses makes more than \
                         {MAX_INLINED_TOTAL} expression nodes"
                    ),
                )
                .with_label("expands too far")
                .with_help(
                    "functions are inlined at each use, their arguments copied into them: a \
                     function that uses another's result twice (`f(a) * f(a)`) or nests it \
                     (`f(f(a))`) doubles the work with each level",
                ),
            );
        }
        if size > MAX_INLINED_NODES {
            return self.err(
                Diagnostic::error(
                    "pde::too-large",
                    span,
                    format!(
                        "`{}` expands to {size} expression nodes when inlined, more than \
                         {MAX_INLINED_NODES}",
                        name.name
                    ),
                )
                .with_label("expands too far")
                .with_related(def.name_span, "defined here")
                .with_help(
                    "functions are inlined at each use: one that uses another's result several \
                     times doubles with each level",
                ),
            );
        }
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
        if hi - lo >= MAX_SUM_TERMS || self.cx.sum_terms > 10 * MAX_SUM_TERMS {
            return self.err(
                Diagnostic::error(
                    "pde::too-large",
                    span,
                    format!(
                        "a sum may have at most {} terms; this one has {}",
                        MAX_SUM_TERMS,
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
        if self.allow.functionals && self.has_field_coords(id) {
            return self.point_functional(name, id, args, span);
        }
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
                        let var = self.cx.coord(coord).name.to_string();
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
        ExprKind::Binary(_, a, b) | ExprKind::IsLevel(a, b) => {
            visit_ast(a, f);
            visit_ast(b, f);
        }
    }
}
