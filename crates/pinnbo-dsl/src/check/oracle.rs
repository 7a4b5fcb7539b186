//! Checks that the oracle fits the problem: closed forms exist where needed, FDM boundary
//! data covers every face the pde's order requires, command templates name real variables.

use super::settings::{check_settings, reject_conditions};
use super::{Allow, Checker, Lowerer, Partial};
use crate::ast::{self, BlockItem, OracleKind, StmtKind};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::*;
use crate::oracles::{COMMAND, FDM};
use crate::source::Span;

pub(crate) fn check_oracle(
    cx: &mut Checker,
    p: &Partial,
    objective: &Objective,
    file: &ast::File,
) -> Option<Oracle> {
    let stmt = p.oracle_stmt.map(|i| &file.statements[i]);
    let unknown = unknown_fields(cx, &p.objectives, &p.constraints, &p.sensors);
    let Some(stmt) = stmt else {
        if let Some(&f) = unknown.first() {
            let name = cx.field_name(f).to_string();
            cx.diags.push(
                Diagnostic::error(
                    "pde::missing-oracle",
                    objective.span,
                    format!("the field `{name}` has no closed form, so something must measure it"),
                )
                .with_label(format!("needs values of `{name}`"))
                .with_help(format!(
                    "add an oracle: `oracle fdm {{ ... }}` to simulate it, `oracle command \"...\"` to run a program, \
                     `oracle external` to measure it yourself (`pinnbo ask`/`tell`), or give it a closed form: \
                     `field {name}(...) = <expr>`"
                )),
            );
            return None;
        }
        return Some(Oracle::ClosedForm);
    };
    let StmtKind::Oracle { kind, items } = &stmt.kind else {
        return None;
    };
    match kind {
        OracleKind::ClosedForm => {
            if let Some(&f) = unknown.first() {
                let name = cx.field_name(f).to_string();
                cx.diags.push(
                    Diagnostic::error(
                        "pde::oracle-mismatch",
                        stmt.span,
                        format!("a closed-form oracle cannot evaluate `{name}`, which has no definition"),
                    )
                    .with_label("closed-form oracle")
                    .with_related(objective.span, format!("needs `{name}`")),
                );
                return None;
            }
            Some(Oracle::ClosedForm)
        }
        OracleKind::External => Some(Oracle::External),
        OracleKind::Fdm if p.objectives.len() > 1 => {
            cx.diags.push(
                Diagnostic::error(
                    "pde::oracle-mismatch",
                    stmt.span,
                    "an fdm oracle with several objectives is not built yet",
                )
                .with_label("one objective per fdm oracle")
                .with_help(
                    "give the objectives closed forms, or measure them with `oracle command` \
                     (`output json`) or `oracle external`",
                ),
            );
            None
        }
        OracleKind::Fdm => fdm(cx, p, objective, items, stmt.span).map(Oracle::Fdm),
        OracleKind::Command {
            template,
            template_span,
        } => command(cx, p, template, *template_span, items, stmt.span).map(Oracle::Command),
    }
}

/// Fields without a closed form that the objective or a constraint needs.
fn unknown_fields(
    cx: &Checker,
    objectives: &[Objective],
    constraints: &[Constraint],
    sensors: &[Sensors],
) -> Vec<FieldId> {
    let mut out = Vec::new();
    let exprs = (objectives.iter().map(|o| &o.expr)).chain(constraints.iter().map(|c| &c.expr));
    // A field read at the current point, through a functional, or by a sensor.
    let read = |e: &Expr| -> Vec<FieldId> {
        let mut fields = e.fields();
        fields.extend(e.functionals().iter().map(|f| f.field));
        fields
    };
    let sensed = sensors.iter().map(|s| s.field);
    for f in exprs.flat_map(read).chain(sensed) {
        let unknown = cx.fields[f].definition.is_none() && !cx.broken_definitions.contains(&f);
        if unknown && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

fn fdm(
    cx: &mut Checker,
    p: &Partial,
    objective: &Objective,
    items: &[BlockItem],
    span: Span,
) -> Option<FdmOracle> {
    let field = oracle_field(cx, p, objective, span)?;
    let fname = cx.field_name(field).to_string();
    let args = solved_args(cx, field);
    if args.len() > 3 {
        cx.diags.push(
            Diagnostic::error(
                "pde::oracle-mismatch",
                span,
                format!(
                    "the fdm solvers handle fields of 1 to 3 variables; `{fname}` has {}",
                    args.len()
                ),
            )
            .with_label("too many dimensions for a grid"),
        );
        return None;
    }
    let pdes: Vec<&Pde> = p.pdes.iter().filter(|pde| pde.mentions(field)).collect();
    if pdes.is_empty() && p.failed_pdes > 0 {
        return None;
    }
    if pdes.is_empty() {
        cx.diags.push(
            Diagnostic::error(
                "pde::oracle-mismatch",
                span,
                format!("an fdm oracle needs a pde for `{fname}`"),
            )
            .with_label("no equation to solve")
            .with_help(format!("add e.g. `pde laplacian({fname}) = 0`")),
        );
        return None;
    }
    if !refuse_design_derivatives(cx, &pdes, &args) {
        return None;
    }
    let settings = check_settings(cx, "an fdm oracle", items, FDM.iter());
    let orders: Vec<u32> = args
        .iter()
        .map(|&c| pdes.iter().map(|pde| pde.order_in(c)).max().unwrap_or(0))
        .collect();
    check_resolution(cx, &settings, &orders, items, span);
    let mut conditions = Vec::new();
    let mut failed = false;
    for item in items {
        if let BlockItem::Condition { lhs, rhs, at, span } = item {
            match condition(cx, field, &args, lhs, rhs, at, *span) {
                Some(bc) => conditions.push(bc),
                None => failed = true,
            }
        }
    }
    let truth = param_truth(cx, &p.pdes, items, span);
    // Counting faces after a malformed condition would report it a second time.
    let complete = !failed && count_conditions(cx, &fname, &args, &orders, &conditions, span);
    (complete && truth.is_some()).then(|| FdmOracle {
        field,
        conditions,
        settings,
        truth: truth.unwrap_or_default(),
        span,
    })
}

/// The field an fdm oracle simulates: the one the objective reads. With field coordinates
/// (`coord`), the one field without a closed form that the objectives, constraints and
/// sensors read (at places or through functionals).
fn oracle_field(
    cx: &mut Checker,
    p: &Partial,
    objective: &Objective,
    span: Span,
) -> Option<FieldId> {
    let fields = if cx.field_coords.is_empty() {
        objective.expr.fields()
    } else {
        unknown_fields(cx, &p.objectives, &p.constraints, &p.sensors)
    };
    match fields.as_slice() {
        [f] => Some(*f),
        [] => {
            cx.diags.push(
                Diagnostic::error(
                    "pde::oracle-mismatch",
                    span,
                    "an fdm oracle solves for a field, but the objective mentions none",
                )
                .with_label("nothing to solve for")
                .with_related(objective.span, "the objective"),
            );
            None
        }
        _ => {
            cx.diags.push(
                Diagnostic::error(
                    "pde::oracle-mismatch",
                    objective.span,
                    "an fdm oracle solves for one field; the objective mentions several",
                )
                .with_label("several fields"),
            );
            None
        }
    }
}

/// The coordinates the solver grids: a field's own coordinates (`coord`) when it has any,
/// the design variables it depends on otherwise.
fn solved_args(cx: &Checker, field: FieldId) -> Vec<CoordId> {
    let args = cx.field_args(field);
    let own: Vec<CoordId> = args
        .iter()
        .copied()
        .filter(|&c| cx.is_field_coord(c))
        .collect();
    if own.is_empty() {
        args.to_vec()
    } else {
        own
    }
}

/// With field coordinates each simulation solves over them at one design, so a pde may not
/// differentiate along a design variable (without, the design variables are the grid's).
fn refuse_design_derivatives(cx: &mut Checker, pdes: &[&Pde], args: &[CoordId]) -> bool {
    let mut ok = true;
    for pde in pdes {
        let along = (0..cx.coords.len())
            .find(|&c| !cx.is_field_coord(c) && !args.contains(&c) && pde.order_in(c) > 0);
        if let Some(c) = along {
            let name = cx.coord(c).name.clone();
            cx.diags.push(
                Diagnostic::error(
                    "pde::oracle-mismatch",
                    pde.span,
                    format!(
                        "an fdm oracle solves over the field's coordinates at each design, but this \
                         pde differentiates along the design variable `{name}`"
                    ),
                )
                .with_label(format!("derivative along `{name}`"))
                .with_help(
                    "differentiate along `coord`s only, or measure the design with \
                     `oracle command \"..\"` or `oracle external`",
                ),
            );
            ok = false;
        }
    }
    ok
}

/// The simulated experiment's `param k = value` lines: one finite value for each param a
/// pde uses (the optimizer never reads them), none twice, none for an undeclared name.
fn param_truth(
    cx: &mut Checker,
    pdes: &[Pde],
    items: &[BlockItem],
    span: Span,
) -> Option<Vec<Option<f64>>> {
    let count = cx.params.len();
    let mut truth: Vec<Option<(f64, Span)>> = vec![None; count];
    let mut ok = true;
    for item in items {
        let BlockItem::ParamValue { name, value, span } = item else {
            continue;
        };
        let Some(super::Declared::Param(id)) = cx.declared(&name.name) else {
            let params: Vec<&str> = cx.params.iter().map(|p| p.name.as_str()).collect();
            let help = suggestion(&name.name, params)
                .unwrap_or_else(|| "declare it with `param name in [lo, hi]`".to_string());
            cx.diags.push(
                Diagnostic::error(
                    "pde::unknown-param",
                    name.span,
                    format!("`{}` is not a declared param", name.name),
                )
                .with_label("not a param")
                .with_help(help),
            );
            ok = false;
            continue;
        };
        if let Some((_, first)) = truth[id] {
            cx.diags.push(
                Diagnostic::error(
                    "pde::duplicate-setting",
                    *span,
                    format!("the true value of `{}` is given twice", name.name),
                )
                .with_label("given again here")
                .with_related(first, "first given here"),
            );
            ok = false;
            continue;
        }
        match cx.constant(value, "a param's true value") {
            Some(v) => truth[id] = Some((v, *span)),
            None => ok = false,
        }
    }
    for id in params_used_by(pdes) {
        if truth[id].is_none() {
            let param = cx.param(id).clone();
            cx.diags.push(
                Diagnostic::error(
                    "pde::missing-param-value",
                    span,
                    format!(
                        "the simulated experiment does not say what `{}` truly is",
                        param.name
                    ),
                )
                .with_label(format!("needs `param {} = <value>`", param.name))
                .with_related(param.span, "the pde's unknown constant, declared here")
                .with_help(format!(
                    "an fdm oracle simulates the experiment, so it must know the constants the \
                     optimizer does not: add `param {} = <value>` to this block (within [{}, {}])",
                    param.name, param.lo, param.hi
                )),
            );
            ok = false;
        }
    }
    ok.then(|| truth.into_iter().map(|t| t.map(|(v, _)| v)).collect())
}

/// `points` fits one spatial dimension and `grid` one entry per spatial dimension, where the
/// spatial coordinates are those of second order or more (first-order ones are time-like).
fn check_resolution(
    cx: &mut Checker,
    settings: &Settings,
    orders: &[u32],
    items: &[BlockItem],
    span: Span,
) {
    let spatial = orders.iter().filter(|&&o| o >= 2).count();
    let value_span = |key: &str| {
        items
            .iter()
            .find_map(|i| match i {
                BlockItem::Setting(s) if s.key.name == key => Some(s.value_span),
                _ => None,
            })
            .unwrap_or(span)
    };
    if settings.get("points").is_some() && spatial != 1 {
        cx.diags.push(
            Diagnostic::error(
                "pde::setting-type",
                value_span("points"),
                format!("`points` is for one spatial dimension; this problem has {spatial}"),
            )
            .with_label("use `grid n x m` instead"),
        );
    }
    if let Some(dims) = settings.dims("grid") {
        if dims.len() != spatial {
            cx.diags.push(
                Diagnostic::error(
                    "pde::setting-type",
                    value_span("grid"),
                    format!("`grid` has {} dimensions, but the problem has {spatial} spatial dimensions", dims.len()),
                )
                .with_label("wrong number of dimensions"),
            );
        }
    }
}

/// One boundary condition: `lhs = rhs`, located by `at` assignments or field-at arguments.
fn condition(
    cx: &mut Checker,
    field: FieldId,
    args: &[CoordId],
    lhs: &ast::Expr,
    rhs: &ast::Expr,
    at: &[(ast::Ident, ast::Expr)],
    span: Span,
) -> Option<BoundaryCondition> {
    let mut lw = Lowerer::new(cx, Allow::BOUNDARY);
    let l = lw.scalar(lhs);
    let mut fixed: Vec<(CoordId, f64, Span)> = lw
        .fixed
        .iter()
        .map(|f| (f.coord, f.value, f.span))
        .collect();
    let r = cx.lower(Allow::KNOWN, rhs);
    let fname = cx.field_name(field).to_string();
    for (var, value) in at {
        let coord = match cx.declared(&var.name) {
            Some(super::Declared::Var { first, len: None }) if args.contains(&first) => first,
            _ => {
                let names: Vec<String> =
                    args.iter().map(|&c| cx.coord(c).name.to_string()).collect();
                let what = if args.iter().any(|&c| cx.is_field_coord(c)) {
                    "a coordinate"
                } else {
                    "a variable"
                };
                cx.diags.push(
                    Diagnostic::error(
                        "pde::condition-location",
                        var.span,
                        format!("`{}` is not {what} of `{fname}`", var.name),
                    )
                    .with_label("not one of the field's variables")
                    .with_help_opt(suggestion(&var.name, names.iter().map(String::as_str))),
                );
                return None;
            }
        };
        let v = cx.constant(value, "the location")?;
        fixed.push((coord, v, value.span));
    }
    let (l, r) = (l?, r?);
    let fields = l.fields();
    if fields != [field] {
        cx.diags.push(
            Diagnostic::error(
                "pde::condition-field",
                lhs.span,
                format!(
                    "a boundary condition's left side must involve `{fname}` (and no other field)"
                ),
            )
            .with_label(format!("does not constrain `{fname}`")),
        );
        return None;
    }
    let [(coord, value, vspan)] = fixed.as_slice() else {
        let msg = if fixed.is_empty() {
            "this condition does not say where it holds"
        } else {
            "a condition must fix exactly one variable (it holds on one face of the domain)"
        };
        cx.diags.push(
            Diagnostic::error("pde::condition-location", span, msg)
                .with_label("location missing or ambiguous")
                .with_help("write `lhs = rhs at x = 0`, or evaluate the field at the face: `T(x, 0) = ...`"),
        );
        return None;
    };
    let c = &cx.coords[*coord];
    let tol = 1e-12 * (c.hi - c.lo).abs().max(1.0);
    let side = if (value - c.lo).abs() <= tol {
        Side::Lower
    } else if (value - c.hi).abs() <= tol {
        Side::Upper
    } else {
        cx.diags.push(
            Diagnostic::error(
                "pde::condition-location",
                *vspan,
                format!(
                    "{} = {value} is not on the boundary; `{}` ranges over [{}, {}]",
                    c.name, c.name, c.lo, c.hi
                ),
            )
            .with_label("not a boundary value"),
        );
        return None;
    };
    Some(BoundaryCondition {
        lhs: l,
        rhs: r,
        coord: *coord,
        side,
        span,
    })
}

/// Each face needs as many conditions as the pde's order in its variable requires:
/// ceil(order/2) at the lower end and floor(order/2) at the upper end (so a first-order time
/// variable needs one initial condition and none at the final time).
fn count_conditions(
    cx: &mut Checker,
    fname: &str,
    args: &[CoordId],
    orders: &[u32],
    conditions: &[BoundaryCondition],
    span: Span,
) -> bool {
    let mut ok = true;
    for (&coord, &order) in args.iter().zip(orders) {
        for side in [Side::Lower, Side::Upper] {
            let needed = match side {
                Side::Lower => order.div_ceil(2),
                Side::Upper => order / 2,
            } as usize;
            let given: Vec<&BoundaryCondition> = conditions
                .iter()
                .filter(|b| b.coord == coord && b.side == side)
                .collect();
            let c = &cx.coords[coord];
            let at = match side {
                Side::Lower => c.lo,
                Side::Upper => c.hi,
            };
            let plural = if needed == 1 { "" } else { "s" };
            if given.len() < needed {
                ok = false;
                cx.diags.push(
                    Diagnostic::error(
                        "pde::missing-condition",
                        span,
                        format!(
                            "missing boundary condition for `{fname}` at {} = {at}: the pde is of order {order} in `{}`, \
                             so {needed} condition{plural} must hold there; {} given",
                            c.name,
                            c.name,
                            given.len()
                        ),
                    )
                    .with_label("incomplete boundary data")
                    .with_help(format!("add e.g. `{fname} = 0 at {} = {at}`", c.name)),
                );
            } else if given.len() > needed {
                ok = false;
                let extra = given[needed];
                cx.diags.push(
                    Diagnostic::error(
                        "pde::extra-condition",
                        extra.span,
                        format!(
                            "too many conditions at {} = {at}: the pde is of order {order} in `{}` and needs {needed} there",
                            c.name, c.name
                        ),
                    )
                    .with_label("one too many"),
                );
            }
        }
    }
    ok
}

fn command(
    cx: &mut Checker,
    p: &Partial,
    template: &str,
    template_span: Span,
    items: &[BlockItem],
    span: Span,
) -> Option<CommandOracle> {
    reject_conditions(cx, "a command oracle", items);
    let settings = check_settings(cx, "a command oracle", items, COMMAND.iter());
    let output = crate::oracles::command(&settings).choice::<CommandOutput>("output");
    if output == CommandOutput::Number && !p.constraints.is_empty() {
        cx.diags.push(
            Diagnostic::error(
                "pde::oracle-mismatch",
                span,
                "this problem has constraints, but the command prints a single number",
            )
            .with_label("cannot report constraint values")
            .with_help("add `output json` and print {\"objective\": .., \"constraints\": [..]}"),
        );
    }
    if output == CommandOutput::Number && p.objectives.len() > 1 {
        let names: Vec<String> = (p.objectives.iter())
            .map(|o| format!("\"{}\": ..", o.name.as_deref().unwrap_or("objective")))
            .collect();
        cx.diags.push(
            Diagnostic::error(
                "pde::oracle-mismatch",
                span,
                "this problem has several objectives, but the command prints a single number",
            )
            .with_label("cannot report every objective")
            .with_help(format!(
                "add `output json` and print {{{}}}",
                names.join(", ")
            )),
        );
    }
    if template.trim().is_empty() {
        cx.diags.push(
            Diagnostic::error("pde::empty-command", template_span, "the command is empty")
                .with_label("nothing to run")
                .with_help("name the program and its arguments, e.g. \"./simulate {x}\""),
        );
        return None;
    }
    let parts = parse_template(cx, template, template_span)?;
    Some(CommandOracle {
        template: parts,
        timeout: settings.duration("timeout"),
        output,
        settings,
        span,
    })
}

/// Splits `./sim --re {x1} --angle {x[2]}` into text and coordinates. `{{` and `}}` escape braces.
fn parse_template(cx: &mut Checker, template: &str, span: Span) -> Option<Vec<TemplatePart>> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    let mut offset = 0;
    let mut ok = true;
    // Spans inside the string literal are exact when it has no escape sequences.
    let inner = |from: usize, to: usize| {
        let start = (span.start + 1 + from).min(span.end);
        Span::new(start, (span.start + 1 + to).min(span.end).max(start))
    };
    while let Some(i) = rest.find(['{', '}']) {
        text.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            text.push(tail.as_bytes()[0] as char);
            rest = &tail[2..];
            offset += i + 2;
            continue;
        }
        let Some(close) = tail.find('}').filter(|_| tail.starts_with('{')) else {
            cx.diags.push(
                Diagnostic::error(
                    "pde::template",
                    inner(offset + i, offset + i + 1),
                    "unbalanced brace in the command",
                )
                .with_label("write `{{` or `}}` for a literal brace"),
            );
            return None;
        };
        let name = tail[1..close].trim();
        match coordinate_by_name(cx, name) {
            Some(c) => {
                if !text.is_empty() {
                    parts.push(TemplatePart::Text(std::mem::take(&mut text)));
                }
                parts.push(TemplatePart::Coord(c));
            }
            None => {
                ok = false;
                let names: Vec<String> = cx.coords.iter().map(|c| c.name.clone()).collect();
                cx.diags.push(
                    Diagnostic::error(
                        "pde::template",
                        inner(offset + i, offset + i + close + 1),
                        format!("`{{{name}}}` does not name a variable"),
                    )
                    .with_label("unknown placeholder")
                    .with_help_opt(suggestion(name, names.iter().map(String::as_str))),
                );
            }
        }
        rest = &tail[close + 1..];
        offset += i + close + 1;
    }
    text.push_str(rest);
    if !text.is_empty() {
        parts.push(TemplatePart::Text(text));
    }
    ok.then_some(parts)
}

fn coordinate_by_name(cx: &Checker, name: &str) -> Option<CoordId> {
    cx.coords.iter().position(|c| c.name == name)
}
