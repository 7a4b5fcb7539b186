//! Pest pairs to AST nodes. Spans are shifted by the statement's offset in the file, and
//! expression trees are kept within the parser's limits.

use super::{Rule, MAX_DEPTH, MAX_OPERATORS};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::source::Span;
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use std::cell::RefCell;
use std::sync::LazyLock;
use std::time::Duration;

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::is_level, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left) | Op::infix(Rule::div, Assoc::Left))
        .op(Op::prefix(Rule::neg) | Op::prefix(Rule::pos))
        .op(Op::infix(Rule::pow, Assoc::Right))
});

/// Builds AST nodes from pest pairs, shifting spans by the statement's offset in the file.
pub(super) struct Builder<'e> {
    pub(super) base: usize,
    pub(super) errors: &'e mut Vec<Diagnostic>,
}

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

impl Builder<'_> {
    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.base + s.start(), self.base + s.end())
    }

    fn ident(&self, pair: Pair<'_, Rule>) -> Ident {
        Ident {
            name: pair.as_str().to_string(),
            span: self.span(&pair),
        }
    }

    pub(super) fn statement(mut self, pair: Pair<'_, Rule>) -> Option<Stmt> {
        let inner = pair.into_inner().next()?;
        let span = self.span(&inner);
        let keyword = inner
            .clone()
            .into_inner()
            .next()
            .map_or(span, |k| self.span(&k));
        let rule = inner.as_rule();
        let mut it = significant(inner.clone());
        let kind = match rule {
            Rule::var_decl => StmtKind::Var(it.map(|p| self.var_item(p)).collect()),
            Rule::coord_decl => StmtKind::Coord(it.filter_map(|p| self.coord_item(p)).collect()),
            Rule::sensors_stmt => {
                let field = self.ident(it.next()?);
                StmtKind::Sensors {
                    field,
                    at: self.sensor_points(it.next()?)?,
                }
            }
            Rule::const_decl => StmtKind::Const(
                it.filter_map(|item| {
                    let mut parts = significant(item);
                    Some((self.ident(parts.next()?), self.expr(parts.next()?)))
                })
                .collect(),
            ),
            Rule::param_decl => {
                let name = self.ident(it.next()?);
                let bounds = it.next()?;
                let bounds_span = self.span(&bounds);
                let mut b = bounds.into_inner();
                let lo = self.expr(b.next()?);
                let hi = self.expr(b.next()?);
                StmtKind::Param {
                    name,
                    lo,
                    hi,
                    bounds_span,
                    log: it.next().is_some(),
                }
            }
            Rule::fn_decl => {
                let name = self.ident(it.next()?);
                let params = self.params(it.next()?);
                StmtKind::Fn {
                    name,
                    params,
                    body: self.expr(it.next()?),
                }
            }
            Rule::field_decl => {
                let name = self.ident(it.next()?);
                let params = self.params(it.next()?);
                StmtKind::Field {
                    name,
                    params,
                    definition: it.next().map(|p| self.expr(p)),
                }
            }
            Rule::pde_stmt => {
                let lhs = self.expr(it.next()?);
                StmtKind::Pde {
                    lhs,
                    rhs: self.expr(it.next()?),
                }
            }
            Rule::objective => {
                let kw = inner.clone().into_inner().next()?;
                let sense = if kw.as_rule() == Rule::kw_minimize {
                    Sense::Minimize
                } else {
                    Sense::Maximize
                };
                let mut rest = inner.into_inner().skip(1);
                let mut next = rest.next()?;
                let name = match next.as_rule() {
                    Rule::label => {
                        let name = self.ident(next.into_inner().next()?);
                        next = rest.next()?;
                        Some(name)
                    }
                    _ => None,
                };
                StmtKind::Objective {
                    name,
                    sense,
                    expr: self.expr(next),
                }
            }
            Rule::constraint_stmt => {
                let mut next = it.next()?;
                let label = if next.as_rule() == Rule::label {
                    let l = self.ident(next.into_inner().next()?);
                    next = it.next()?;
                    Some(l)
                } else {
                    None
                };
                let lhs = self.expr(next);
                let cmp = match it.next()?.as_str() {
                    "<=" | "≤" => Comparison::LessEq,
                    _ => Comparison::GreaterEq,
                };
                StmtKind::Constraint {
                    label,
                    lhs,
                    cmp,
                    rhs: self.expr(it.next()?),
                }
            }
            Rule::optimum_stmt => StmtKind::Optimum(self.expr(it.next()?)),
            Rule::budget_stmt => StmtKind::Budget(self.expr(it.next()?)),
            Rule::seed_stmt => StmtKind::Seed(self.expr(it.next()?)),
            Rule::init_stmt => {
                let count = self.expr(it.next()?);
                StmtKind::Init {
                    count,
                    design: it.next().map(|p| self.ident(p)),
                }
            }
            Rule::problem_stmt => StmtKind::Problem(self.string(it.next()?)),
            Rule::reference_stmt => StmtKind::Reference(
                it.filter_map(|a| {
                    let mut a = a.into_inner();
                    let name = self.ident(a.next()?);
                    Some((name, self.expr(a.next()?)))
                })
                .collect(),
            ),
            Rule::noise_stmt => self.noise(it)?,
            Rule::oracle_stmt => self.oracle(it.next()?)?,
            Rule::method_stmt => {
                let name = self.ident(it.next()?);
                let items = it.next().map(|b| self.block(b)).unwrap_or_default();
                StmtKind::Method { name, items }
            }
            _ => return None,
        };
        Some(Stmt {
            kind,
            keyword,
            span,
        })
    }

    fn coord_item(&mut self, pair: Pair<'_, Rule>) -> Option<CoordItem> {
        let mut it = significant(pair);
        let name = self.ident(it.next()?);
        let bounds = it.next()?;
        let bounds_span = self.span(&bounds);
        let mut b = bounds.into_inner();
        let lo = self.expr(b.next()?);
        let hi = self.expr(b.next()?);
        Some(CoordItem {
            name,
            lo,
            hi,
            bounds_span,
        })
    }

    /// `x = 0.1, 0.5` (`sensor_values`) or `(x, t) = (0.1, 1), (0.3, 1)` (`sensor_tuples`).
    fn sensor_points(&mut self, pair: Pair<'_, Rule>) -> Option<SensorPoints> {
        let rule = pair.as_rule();
        let mut it = pair.into_inner();
        match rule {
            Rule::sensor_values => {
                let coord = self.ident(it.next()?);
                let points = it
                    .map(|p| {
                        let span = self.span(&p);
                        (vec![self.expr(p)], span)
                    })
                    .collect();
                Some(SensorPoints {
                    coords: vec![coord],
                    points,
                })
            }
            _ => {
                let coords = it.next()?.into_inner().map(|p| self.ident(p)).collect();
                let points = it
                    .map(|p| {
                        let span = self.span(&p);
                        (p.into_inner().map(|e| self.expr(e)).collect(), span)
                    })
                    .collect();
                Some(SensorPoints { coords, points })
            }
        }
    }

    fn var_item(&mut self, pair: Pair<'_, Rule>) -> VarItem {
        let mut it = significant(pair);
        let name = self.ident(it.next().expect("grammar: var name"));
        let mut next = it.next().expect("grammar: var bounds");
        let size = if next.as_rule() == Rule::expr {
            let e = self.expr(next);
            next = it.next().expect("grammar: var bounds");
            Some(e)
        } else {
            None
        };
        let domain_span = self.span(&next);
        let rule = next.as_rule();
        let mut b = next.into_inner();
        let domain = match rule {
            Rule::levels => VarDomain::Levels(b.map(|p| self.ident(p)).collect()),
            _ => {
                let lo = self.expr(b.next().expect("grammar: lower bound"));
                let hi = self.expr(b.next().expect("grammar: upper bound"));
                match rule {
                    Rule::int_range => VarDomain::Integers { lo, hi },
                    _ => VarDomain::Interval {
                        lo,
                        hi,
                        log: it.next().is_some_and(|p| p.as_rule() == Rule::log_scale),
                    },
                }
            }
        };
        VarItem {
            name,
            size,
            domain,
            domain_span,
        }
    }

    fn params(&self, pair: Pair<'_, Rule>) -> Vec<Ident> {
        pair.into_inner().map(|p| self.ident(p)).collect()
    }

    fn string(&self, pair: Pair<'_, Rule>) -> String {
        let raw = pair.into_inner().next().map_or("", |p| p.as_str());
        unescape(raw)
    }

    fn noise<'a>(&mut self, it: impl Iterator<Item = Pair<'a, Rule>>) -> Option<StmtKind> {
        let mut kind = None;
        let mut level = None;
        let mut added = false;
        for p in it {
            match p.as_rule() {
                Rule::noise_added => added = true,
                Rule::noise_kind => {
                    kind = Some(if p.as_str() == "std" {
                        NoiseKind::Std
                    } else {
                        NoiseKind::Variance
                    })
                }
                Rule::relative_noise => {
                    let pct = p.into_inner().next()?;
                    level = Some(NoiseLevel::OfRange(self.percent(pct)));
                }
                _ => level = Some(NoiseLevel::Absolute(self.expr(p))),
            }
        }
        Some(StmtKind::Noise {
            added,
            kind,
            level: level?,
        })
    }

    fn oracle(&mut self, pair: Pair<'_, Rule>) -> Option<StmtKind> {
        let rule = pair.as_rule();
        let mut it = pair.into_inner();
        Some(match rule {
            Rule::oracle_fdm => StmtKind::Oracle {
                kind: OracleKind::Fdm,
                items: self.block(it.next()?),
            },
            Rule::oracle_command => {
                let s = it.next()?;
                let template_span = self.span(&s);
                let template = self.string(s);
                let items = it.next().map(|b| self.block(b)).unwrap_or_default();
                StmtKind::Oracle {
                    kind: OracleKind::Command {
                        template,
                        template_span,
                    },
                    items,
                }
            }
            Rule::oracle_external => StmtKind::Oracle {
                kind: OracleKind::External,
                items: Vec::new(),
            },
            _ => StmtKind::Oracle {
                kind: OracleKind::ClosedForm,
                items: Vec::new(),
            },
        })
    }

    fn block(&mut self, pair: Pair<'_, Rule>) -> Vec<BlockItem> {
        pair.into_inner()
            .filter_map(|p| self.block_item(p))
            .collect()
    }

    fn block_item(&mut self, pair: Pair<'_, Rule>) -> Option<BlockItem> {
        let span = self.span(&pair);
        match pair.as_rule() {
            Rule::condition => {
                let mut it = pair.into_inner();
                let lhs = self.expr(it.next()?);
                let rhs = self.expr(it.next()?);
                let at = match it.next() {
                    Some(clause) => significant(clause)
                        .filter_map(|a| {
                            let mut a = a.into_inner();
                            let var = self.ident(a.next()?);
                            Some((var, self.expr(a.next()?)))
                        })
                        .collect(),
                    None => Vec::new(),
                };
                Some(BlockItem::Condition { lhs, rhs, at, span })
            }
            Rule::param_value => {
                let mut it = significant(pair);
                let name = self.ident(it.next()?);
                let value = self.expr(it.next()?);
                Some(BlockItem::ParamValue { name, value, span })
            }
            Rule::setting => {
                let mut it = pair.into_inner();
                let key = self.ident(it.next()?);
                let v = it.next()?;
                let value_span = self.span(&v);
                let value = self.value(v)?;
                Some(BlockItem::Setting(Setting {
                    key,
                    value,
                    value_span,
                }))
            }
            _ => None,
        }
    }

    fn number(&mut self, pair: &Pair<'_, Rule>) -> f64 {
        number_value(pair.as_str(), self.span(pair), self.errors)
    }

    fn percent(&mut self, pair: Pair<'_, Rule>) -> f64 {
        let n = pair.into_inner().next().expect("grammar: percent number");
        self.number(&n) / 100.0
    }

    fn value(&mut self, pair: Pair<'_, Rule>) -> Option<Value> {
        Some(match pair.as_rule() {
            Rule::signed => Value::Number(self.number(&pair)),
            Rule::percent => Value::Percent(self.percent(pair)),
            Rule::string => Value::Str(self.string(pair)),
            Rule::name => Value::Name(pair.as_str().to_string()),
            Rule::list => Value::List(pair.into_inner().map(|p| self.number(&p)).collect()),
            Rule::dims => Value::Dims(pair.into_inner().map(|p| self.number(&p)).collect()),
            Rule::duration => {
                let span = self.span(&pair);
                let written = pair.as_str().to_string();
                let mut it = pair.into_inner();
                let amount = self.number(&it.next()?);
                let scale = match it.next()?.as_str() {
                    "ms" => 1e-3,
                    "s" | "sec" => 1.0,
                    "min" => 60.0,
                    _ => 3600.0,
                };
                if amount < 0.0 {
                    self.errors.push(
                        Diagnostic::error(
                            "pde::bad-duration",
                            span,
                            format!("a duration cannot be negative: `{written}`"),
                        )
                        .with_label("negative"),
                    );
                    return None;
                }
                match Duration::try_from_secs_f64(amount * scale) {
                    Ok(d) => Value::Duration(d),
                    Err(_) => {
                        self.errors.push(
                            Diagnostic::error(
                                "pde::bad-duration",
                                span,
                                "this duration is too long",
                            )
                            .with_label("out of range"),
                        );
                        return None;
                    }
                }
            }
            _ => return None,
        })
    }

    fn expr(&mut self, pair: Pair<'_, Rule>) -> Expr {
        let cx = ExprCx {
            base: self.base,
            errors: RefCell::new(&mut *self.errors),
        };
        expr_from(pair, &cx)
    }
}

/// What building expressions needs: the statement's offset and the error list.
struct ExprCx<'a> {
    base: usize,
    errors: RefCell<&'a mut Vec<Diagnostic>>,
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
fn number_value(text: &str, span: Span, errors: &mut Vec<Diagnostic>) -> f64 {
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
fn expr_from(pair: Pair<'_, Rule>, cx: &ExprCx<'_>) -> Expr {
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

fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}
