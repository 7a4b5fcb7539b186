//! Expression pairs to AST: the Pratt parser's precedence, numbers and their units, and the
//! parser's limits on an expression's depth and size; and which pairs carry information.

use super::{Rule, MAX_DEPTH, MAX_OPERATORS};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::source::Span;
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use std::cell::RefCell;
use std::sync::LazyLock;

/// Inner pairs without keyword tokens, which carry no information beyond their rule.
pub(super) fn significant(pair: Pair<'_, Rule>) -> impl Iterator<Item = Pair<'_, Rule>> {
    pair.into_inner().filter(|p| !is_keyword(p.as_rule()))
}

fn is_keyword(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::kw_var
            | Rule::kw_coord
            | Rule::kw_sensors
            | Rule::kw_field
            | Rule::kw_fn
            | Rule::kw_const
            | Rule::kw_param
            | Rule::kw_pde
            | Rule::kw_constraint
            | Rule::kw_subject_to
            | Rule::kw_oracle
            | Rule::kw_noise
            | Rule::kw_budget
            | Rule::kw_init
            | Rule::kw_seed
            | Rule::kw_method
            | Rule::kw_optimum
            | Rule::kw_problem
            | Rule::kw_reference
            | Rule::kw_at
            | Rule::kw_in
    )
}

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::is_level, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left))
        .op(Op::prefix(Rule::neg) | Op::prefix(Rule::pos))
        .op(Op::infix(Rule::pow, Assoc::Right))
});

/// What building expressions needs: the statement's offset and the error list.
pub(super) struct ExprCx<'a> {
    pub(super) base: usize,
    pub(super) errors: RefCell<&'a mut Vec<Diagnostic>>,
}

impl ExprCx<'_> {
    fn error(&self, d: Diagnostic) {
        self.errors.borrow_mut().push(d);
    }

    /// A node over children of height `below`, unless it would make the tree deeper than
    /// [`MAX_DEPTH`]: then a placeholder leaf, reported once, so the tree stays shallow. The
    /// placeholder records an over-limit depth so that its ancestors are cut off silently.
    fn node(&self, kind: ExprKind, span: Span, below: u32) -> Expr {
        if below >= MAX_DEPTH {
            if below == MAX_DEPTH {
                self.error(
                    Diagnostic::error(
                        "pde::too-deep",
                        span,
                        format!("expression nested more than {MAX_DEPTH} levels deep"),
                    )
                    .with_label("too deep")
                    .with_help("split it with `fn` definitions or `sum(...)`"),
                );
            }
            return Expr {
                depth: MAX_DEPTH + 1,
                ..Expr::placeholder(span)
            };
        }
        Expr {
            kind,
            span,
            depth: below + 1,
        }
    }
}

/// A numeric literal's value. One too large for f64 is reported and becomes NaN, which the
/// checker recognizes as already reported.
pub(super) fn number_value(text: &str, span: Span, errors: &mut Vec<Diagnostic>) -> f64 {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => v,
        _ => {
            errors.push(
                Diagnostic::error(
                    "pde::number-out-of-range",
                    span,
                    format!("the number `{text}` is too large for a 64-bit float"),
                )
                .with_label("not finite"),
            );
            f64::NAN
        }
    }
}

fn shift(base: usize, s: pest::Span<'_>) -> Span {
    Span::new(base + s.start(), base + s.end())
}

/// Expression pairs to AST with the Pratt parser (precedence lives in `PRATT`).
pub(super) fn expr_from(pair: Pair<'_, Rule>, cx: &ExprCx<'_>) -> Expr {
    let span = shift(cx.base, pair.as_span());
    let operators = pair
        .clone()
        .into_inner()
        .filter(|p| is_operator(p.as_rule()))
        .count();
    if operators > MAX_OPERATORS {
        cx.error(
            Diagnostic::error(
                "pde::too-long",
                span,
                format!(
                    "expression with {operators} operators; at most {MAX_OPERATORS} are allowed"
                ),
            )
            .with_label("too long")
            .with_help("use `sum(...)` for long sums"),
        );
        return Expr::placeholder(span);
    }
    PRATT
        .map_primary(|p| primary(p, cx))
        .map_prefix(|op, rhs| {
            let span = shift(cx.base, op.as_span()).to(rhs.span);
            let op = if op.as_rule() == Rule::neg {
                UnaryOp::Neg
            } else {
                UnaryOp::Pos
            };
            let below = rhs.depth;
            cx.node(ExprKind::Unary(op, Box::new(rhs)), span, below)
        })
        .map_infix(|lhs, op, rhs| {
            let span = lhs.span.to(rhs.span);
            let below = lhs.depth.max(rhs.depth);
            if op.as_rule() == Rule::is_level {
                return cx.node(ExprKind::IsLevel(Box::new(lhs), Box::new(rhs)), span, below);
            }
            let op = match op.as_rule() {
                Rule::add => BinaryOp::Add,
                Rule::sub => BinaryOp::Sub,
                Rule::mul => BinaryOp::Mul,
                Rule::div => BinaryOp::Div,
                _ => BinaryOp::Pow,
            };
            cx.node(
                ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
                below,
            )
        })
        .parse(pair.into_inner())
}

fn is_operator(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::add
            | Rule::sub
            | Rule::mul
            | Rule::div
            | Rule::pow
            | Rule::neg
            | Rule::pos
            | Rule::is_level
    )
}

fn primary(pair: Pair<'_, Rule>, cx: &ExprCx<'_>) -> Expr {
    let base = cx.base;
    let span = shift(base, pair.as_span());
    let ident = |p: Pair<'_, Rule>| Ident {
        name: p.as_str().to_string(),
        span: shift(base, p.as_span()),
    };
    match pair.as_rule() {
        Rule::expr => Expr {
            span,
            ..expr_from(pair, cx)
        },
        Rule::number | Rule::percent => {
            let scale = if pair.as_rule() == Rule::percent {
                0.01
            } else {
                1.0
            };
            let text = pair.as_str().trim_end_matches('%');
            let value = number_value(text, span, &mut cx.errors.borrow_mut()) * scale;
            Expr::leaf(ExprKind::Number(value), span)
        }
        Rule::ident => Expr::leaf(ExprKind::Name(pair.as_str().to_string()), span),
        Rule::indexed => {
            let mut it = pair.into_inner();
            let name = ident(it.next().expect("grammar: indexed name"));
            let index = expr_from(it.next().expect("grammar: index"), cx);
            let below = index.depth;
            cx.node(
                ExprKind::Index {
                    name,
                    index: Box::new(index),
                },
                span,
                below,
            )
        }
        Rule::call => {
            let mut it = pair.into_inner();
            let name = ident(it.next().expect("grammar: call name"));
            let args: Vec<Arg> = it
                .map(|a| {
                    if a.as_rule() == Rule::index_range {
                        let aspan = shift(base, a.as_span());
                        let mut r = significant(a);
                        let binder = ident(r.next().expect("grammar: binder"));
                        let lo = expr_from(r.next().expect("grammar: range lo"), cx);
                        let hi = expr_from(r.next().expect("grammar: range hi"), cx);
                        Arg::Range {
                            binder,
                            lo,
                            hi,
                            span: aspan,
                        }
                    } else {
                        Arg::Expr(expr_from(a, cx))
                    }
                })
                .collect();
            let below = args
                .iter()
                .map(|a| match a {
                    Arg::Expr(e) => e.depth,
                    Arg::Range { lo, hi, .. } => lo.depth.max(hi.depth),
                })
                .max()
                .unwrap_or(0);
            cx.node(ExprKind::Call { name, args }, span, below)
        }
        _ => Expr::placeholder(span),
    }
}
