//! The first pass: constants, variables, functions and fields, in file order.

use super::{Allow, Checker, Declared, FnDef, Lowerer, MAX_VECTOR_LEN};
use crate::ast::{self, Ident, StmtKind};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::*;
use crate::source::Span;

/// First pass: constants, variables, functions and fields, in file order.
pub(super) fn declarations(cx: &mut Checker, file: &ast::File) {
    let mut definitions = Vec::new();
    for stmt in &file.statements {
        match &stmt.kind {
            StmtKind::Const(items) => {
                for (name, value) in items {
                    match cx.constant(value, "the constant") {
                        Some(v) => {
                            cx.declare(name, Declared::Const(v));
                        }
                        None => cx.poison(name),
                    }
                }
            }
            StmtKind::Param {
                name,
                lo,
                hi,
                bounds_span,
                log,
            } if param(cx, name, (lo, hi), *bounds_span, *log).is_none() => cx.poison(name),
            StmtKind::Param { .. } => {}
            StmtKind::Var(items) => items.iter().for_each(|item| {
                if variable(cx, item).is_none() {
                    cx.poison(&item.name);
                }
            }),
            StmtKind::Coord(items) => items.iter().for_each(|item| {
                if field_coordinate(cx, item).is_none() {
                    cx.poison(&item.name);
                }
            }),
            StmtKind::Fn { name, params, body } => {
                distinct_params(cx, params);
                if cx.declare(name, Declared::Fn) {
                    cx.fns.insert(
                        name.name.clone(),
                        FnDef {
                            params: params.clone(),
                            body: body.clone(),
                            name_span: name.span,
                        },
                    );
                }
            }
            StmtKind::Field {
                name,
                params,
                definition,
            } => {
                let args = field_params(cx, name, params);
                if args.is_none() {
                    cx.poison(name);
                }
                if let Some(args) = args {
                    let id = cx.fields.len();
                    if cx.declare(name, Declared::Field(id)) {
                        cx.fields.push(Field {
                            name: name.name.clone(),
                            args,
                            definition: None,
                            span: name.span,
                        });
                        if let Some(def) = definition {
                            definitions.push((id, def));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // Function bodies are checked where they are called. Here each is also checked once on its
    // own, with opaque parameters, so that misspelt names in unused functions surface; only
    // name errors are kept, since what else is valid depends on the arguments.
    let mut fns: Vec<FnDef> = cx.fns.values().cloned().collect();
    fns.sort_by_key(|f| f.name_span.start);
    for def in fns {
        let before = cx.diags.len();
        let mut lw = Lowerer::new(cx, Allow::BOUNDARY);
        lw.opaque_calls = true;
        lw.bind_params(&def.params);
        lw.expr(&def.body);
        let mut i = before;
        while i < cx.diags.len() {
            if matches!(
                cx.diags[i].code,
                "pde::unknown-name" | "pde::unknown-function" | "pde::arity"
            ) {
                i += 1;
            } else {
                cx.diags.remove(i);
            }
        }
    }
    for (id, def) in definitions {
        cx.broken_definitions.push(id);
        if let Some(e) = cx.lower(Allow::KNOWN, def) {
            let args = cx.fields[id].args.clone();
            let mut stray = None;
            e.visit(&mut |n| {
                if let Expr::Coord(c) = n {
                    if !args.contains(c) && stray.is_none() {
                        stray = Some(*c);
                    }
                }
            });
            if let Some(c) = stray {
                let (f, v) = (cx.fields[id].name.clone(), cx.coords[c].name.clone());
                cx.error(
                    Diagnostic::error(
                        "pde::field-definition",
                        def.span,
                        format!(
                            "the definition of `{f}` uses `{v}`, which is not one of its variables"
                        ),
                    )
                    .with_label(format!("uses `{v}`"))
                    .with_help(format!("add `{v}` to the field's declaration")),
                );
            } else {
                cx.fields[id].definition = Some(e);
                cx.broken_definitions.pop();
            }
        }
    }
}

fn distinct_params(cx: &mut Checker, params: &[Ident]) {
    for (i, p) in params.iter().enumerate() {
        if let Some(first) = params[..i].iter().find(|q| q.name == p.name) {
            cx.error(
                Diagnostic::error(
                    "pde::duplicate-declaration",
                    p.span,
                    format!("parameter `{}` appears twice", p.name),
                )
                .with_label("repeated")
                .with_related(first.span, "first here"),
            );
        }
    }
}

fn variable(cx: &mut Checker, item: &ast::VarItem) -> Option<()> {
    let len = match &item.size {
        None => None,
        Some(size) => {
            let n = cx.count(size, "a vector length", 1)?;
            if n as usize > MAX_VECTOR_LEN {
                cx.error(
                    Diagnostic::error(
                        "pde::too-large",
                        size.span,
                        format!("a vector variable may have at most {MAX_VECTOR_LEN} elements"),
                    )
                    .with_label(format!("{n} elements")),
                );
                return None;
            }
            Some(n as usize)
        }
    };
    let (lo, hi, log, levels) = match &item.domain {
        ast::VarDomain::Interval { lo, hi, log } => {
            let (lo, hi) = interval(cx, &item.name, lo, hi, item.domain_span)?;
            if *log {
                log_bounds(cx, &item.name, (lo, hi), item.domain_span)?;
            }
            (lo, hi, *log, None)
        }
        ast::VarDomain::Integers { lo, hi } => {
            let (lo, hi) = interval(cx, &item.name, lo, hi, item.domain_span)?;
            integer_bounds(cx, &item.name, lo, hi, item.domain_span)?;
            (lo, hi, false, None)
        }
        ast::VarDomain::Levels(levels) => {
            let names = distinct_levels(cx, &item.name, levels, item.domain_span)?;
            (0.0, (names.len() - 1) as f64, false, Some(names))
        }
    };
    let first = cx.coords.len();
    if !cx.declare(&item.name, Declared::Var { first, len }) {
        return None;
    }
    let integer = !matches!(item.domain, ast::VarDomain::Interval { .. });
    let make = |name: String| Coordinate {
        name,
        lo,
        hi,
        log,
        integer,
        levels: levels.clone().unwrap_or_default(),
        span: item.name.span,
    };
    match len {
        None => cx.coords.push(make(item.name.name.clone())),
        Some(n) => cx
            .coords
            .extend((1..=n).map(|i| make(format!("{}[{i}]", item.name.name)))),
    }
    Some(())
}

/// `coord x in [lo, hi]`: a coordinate of fields the optimizer does not choose.
fn field_coordinate(cx: &mut Checker, item: &ast::CoordItem) -> Option<()> {
    let (lo, hi) = interval(cx, &item.name, &item.lo, &item.hi, item.bounds_span)?;
    let first = cx.coords.len();
    if !cx.declare(&item.name, Declared::Var { first, len: None }) {
        return None;
    }
    cx.coords.push(Coordinate {
        name: item.name.name.clone(),
        lo,
        hi,
        log: false,
        integer: false,
        levels: Vec::new(),
        span: item.name.span,
    });
    cx.field_coords.push(first);
    Some(())
}

/// `lo..hi` must hold integers (and not too many to number them exactly).
fn integer_bounds(cx: &mut Checker, name: &Ident, lo: f64, hi: f64, span: Span) -> Option<()> {
    if lo.fract() == 0.0 && hi.fract() == 0.0 && hi - lo <= 1e9 {
        return Some(());
    }
    cx.error(
        Diagnostic::error(
            "pde::not-an-integer",
            span,
            format!(
                "`{}` takes the integers from {lo} to {hi}: its bounds must be integers",
                name.name
            ),
        )
        .with_label("not integer bounds")
        .with_help("write `lo..hi` with integers, or `[lo, hi]` for a continuous variable"),
    );
    None
}

/// The names of a categorical variable's levels: at least two, none twice.
fn distinct_levels(
    cx: &mut Checker,
    name: &Ident,
    levels: &[Ident],
    span: Span,
) -> Option<Vec<String>> {
    for (i, level) in levels.iter().enumerate() {
        if let Some(first) = levels[..i].iter().find(|l| l.name == level.name) {
            cx.error(
                Diagnostic::error(
                    "pde::duplicate-level",
                    level.span,
                    format!(
                        "the level `{}` of `{}` appears twice",
                        level.name, name.name
                    ),
                )
                .with_label("repeated")
                .with_related(first.span, "first here"),
            );
            return None;
        }
    }
    if levels.len() < 2 {
        cx.error(
            Diagnostic::error(
                "pde::one-level",
                span,
                format!("`{}` has one level: it cannot vary", name.name),
            )
            .with_label("a single level")
            .with_help("give two or more levels, `{a, b}`, or write the value into the problem"),
        );
        return None;
    }
    Some(levels.iter().map(|l| l.name.clone()).collect())
}

/// `[lo, hi]` of a variable or a param: finite, ordered, of finite positive width.
fn interval(
    cx: &mut Checker,
    name: &Ident,
    lo: &ast::Expr,
    hi: &ast::Expr,
    bounds_span: Span,
) -> Option<(f64, f64)> {
    let lo = cx.constant(lo, "the lower bound");
    let hi = cx.constant(hi, "the upper bound");
    let (lo, hi) = (lo?, hi?);
    let name = &name.name;
    let refused = if lo > hi {
        Diagnostic::error(
            "pde::inverted-bounds",
            bounds_span,
            format!("the bounds of `{name}` are inverted: {lo} > {hi}"),
        )
        .with_label("lower bound exceeds upper bound")
        .with_help(format!("write the lower bound first: [{hi}, {lo}]"))
    } else if lo == hi {
        Diagnostic::error(
            "pde::empty-bounds",
            bounds_span,
            format!("the bounds of `{name}` are empty: both are {lo}"),
        )
        .with_label("an interval of zero width")
        .with_help("a fixed value is a constant: `const name = value`")
    } else if !(hi - lo).is_finite() {
        Diagnostic::error(
            "pde::unbounded",
            bounds_span,
            format!(
                "the bounds of `{name}` are {lo:e} and {hi:e}: their distance is not a finite \
                 number"
            ),
        )
        .with_label("too far apart")
        .with_help("points are drawn between the bounds; rescale the variable")
    } else {
        return Some((lo, hi));
    };
    cx.error(refused);
    None
}

/// The magnitudes a log-scale variable or param may span: beyond them the models' products
/// of values (a coefficient squared in a covariance, a ratio of bounds) leave f64, and a fit
/// never ends or fails without a reason. Every physical constant in SI units lies inside.
const LOG_MAGNITUDES: (f64, f64) = (1e-60, 1e60);

/// Refuses a log-scale variable's or param's bounds that are not positive or leave
/// [`LOG_MAGNITUDES`].
fn log_bounds(cx: &mut Checker, name: &Ident, (lo, hi): (f64, f64), span: Span) -> Option<()> {
    let (least, most) = LOG_MAGNITUDES;
    let (message, label, help) = if lo <= 0.0 {
        (
            format!(
                "`{}` is on a log scale, so its bounds must be positive; the lower is {lo}",
                name.name
            ),
            "not positive",
            "give a positive lower bound, or drop `log` for a linear scale".to_string(),
        )
    } else if lo < least || hi > most {
        (
            format!(
                "`{}` is on a log scale from {lo:e} to {hi:e}; its bounds must lie within \
                 [{least:e}, {most:e}]",
                name.name
            ),
            "beyond what the models can hold",
            "rescale it (choose its units so that its values lie within those magnitudes)"
                .to_string(),
        )
    } else {
        return Some(());
    };
    cx.error(
        Diagnostic::error("pde::log-bounds", span, message)
            .with_label(label)
            .with_help(help),
    );
    None
}

/// `param k in [lo, hi]` (`.. log`: a scale, fitted as its logarithm, so `0 < lo`).
fn param(
    cx: &mut Checker,
    name: &Ident,
    (lo, hi): (&ast::Expr, &ast::Expr),
    bounds_span: Span,
    log: bool,
) -> Option<()> {
    let (lo, hi) = interval(cx, name, lo, hi, bounds_span)?;
    if log {
        log_bounds(cx, name, (lo, hi), bounds_span)?;
    }
    let id = cx.params.len();
    if !cx.declare(name, Declared::Param(id)) {
        return None;
    }
    cx.params.push(Param {
        name: name.name.clone(),
        lo,
        hi,
        log,
        span: name.span,
    });
    Some(())
}

/// A field's parameters must be declared variables; vector variables contribute all elements.
fn field_params(cx: &mut Checker, name: &Ident, params: &[Ident]) -> Option<Vec<CoordId>> {
    distinct_params(cx, params);
    if params.is_empty() {
        cx.error(
            Diagnostic::error(
                "pde::field-without-variables",
                name.span,
                format!("the field `{}` has no variables", name.name),
            )
            .with_label("declare what it depends on, e.g. `field u(x, y)`"),
        );
        return None;
    }
    let mut args = Vec::new();
    let mut ok = true;
    for p in params {
        match cx.declared(&p.name) {
            Some(Declared::Var { first, len }) => args.extend(first..first + len.unwrap_or(1)),
            // A variable whose declaration failed was reported there.
            Some(Declared::Poisoned) => ok = false,
            _ => {
                let vars: Vec<&str> = cx
                    .names()
                    .filter(|n| matches!(cx.declared(n), Some(Declared::Var { .. })))
                    .collect();
                let help = suggestion(&p.name, vars).unwrap_or_else(|| {
                    "declare it first with `var name in [lo, hi]` (a design variable) or \
                     `coord name in [lo, hi]` (a coordinate the optimizer does not choose)"
                        .to_string()
                });
                cx.error(
                    Diagnostic::error(
                        "pde::field-variable",
                        p.span,
                        format!("`{}` is not a declared variable", p.name),
                    )
                    .with_label("fields depend on declared variables")
                    .with_help(help),
                );
                ok = false;
            }
        }
    }
    ok.then_some(args)
}

impl Lowerer<'_> {
    /// Binds function parameters to opaque placeholders, to check a body on its own.
    pub(crate) fn bind_params(&mut self, params: &[Ident]) {
        for p in params {
            self.bind(&p.name, Expr::Const(1.0));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{compile, Source};

    /// `const` takes several names at once, as `var` does, each usable after it; a value
    /// that is not a constant is refused at that item.
    #[test]
    fn several_constants_are_declared_at_once() {
        let text = "const a = 1, b = 2*a, c = a + b\nvar x in [0, c]\nminimize (x - b)^2\n";
        let problem = compile(&Source::new("c.pde", text)).unwrap().problem;
        assert_eq!((problem.coords[0].lo, problem.coords[0].hi), (0.0, 3.0));
        let refused = compile(&Source::new(
            "c.pde",
            "const a = 1, b = x\nvar x in [0, 1]\n",
        ));
        let e = refused.expect_err("refused");
        let first = &e.diagnostics[0];
        assert!(first.message.contains("`x`"), "{}", first.message);
    }
}
