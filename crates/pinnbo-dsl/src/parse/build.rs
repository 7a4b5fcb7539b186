//! Pest pairs to AST statements. Spans are shifted by the statement's offset in the file;
//! expressions are built by `expressions`.

use super::expressions::{expr_from, number_value, significant, ExprCx};
use super::Rule;
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::source::Span;
use pest::iterators::Pair;
use std::cell::RefCell;
use std::time::Duration;

/// Builds AST nodes from pest pairs, shifting spans by the statement's offset in the file.
pub(super) struct Builder<'e> {
    pub(super) base: usize,
    pub(super) errors: &'e mut Vec<Diagnostic>,
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
