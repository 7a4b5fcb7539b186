//! The objectives: one, or two or more each named (`minimize weight: ..`), and the
//! hypervolume's reference point (`reference weight = 10, sag = 0.5`).

use super::{Allow, Checker, Partial};
use crate::ast::{self, Ident};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{Objective, Sense};
use crate::source::Span;

/// `minimize [NAME:] expr`, lowered and kept in file order.
pub(super) fn objective(
    cx: &mut Checker,
    p: &mut Partial,
    name: &Option<Ident>,
    sense: ast::Sense,
    expr: &ast::Expr,
    span: Span,
) {
    if let Some(name) = name {
        if let Some(first) = p
            .objectives
            .iter()
            .find(|o| o.name.as_ref() == Some(&name.name))
        {
            let first = first.span;
            cx.error(
                Diagnostic::error(
                    "pde::duplicate-declaration",
                    name.span,
                    format!("two objectives are named `{}`", name.name),
                )
                .with_label("repeated name")
                .with_related(first, "first here"),
            );
        }
    }
    let Some(expr) = cx.lower(Allow::VALUE, expr) else {
        p.failed_objectives += 1;
        return;
    };
    let sense = match sense {
        ast::Sense::Minimize => Sense::Minimize,
        ast::Sense::Maximize => Sense::Maximize,
    };
    p.objectives.push(Objective {
        name: name.as_ref().map(|n| n.name.clone()),
        sense,
        expr,
        span,
    });
}

/// `reference NAME = value, ..`: kept until every objective is known.
pub(super) fn reference(
    cx: &mut Checker,
    p: &mut Partial,
    items: &[(Ident, ast::Expr)],
    span: Span,
) {
    if let Some((_, first)) = &p.reference {
        let first = *first;
        cx.error(
            Diagnostic::error(
                "pde::duplicate-statement",
                span,
                "a second `reference` statement",
            )
            .with_label("repeated")
            .with_related(first, "first here"),
        );
        return;
    }
    // An objective given twice: which value was meant is anyone's guess.
    for (k, (name, _)) in items.iter().enumerate() {
        if let Some((first, _)) = items[..k].iter().find(|(n, _)| n.name == name.name) {
            cx.error(
                Diagnostic::error(
                    "pde::duplicate-declaration",
                    name.span,
                    format!("the reference gives `{}` twice", name.name),
                )
                .with_label("given again here")
                .with_related(first.span, "first given here"),
            );
            return;
        }
    }
    let values: Option<Vec<(Ident, f64)>> = (items.iter())
        .map(|(name, e)| Some((name.clone(), cx.constant(e, "a reference value")?)))
        .collect();
    if let Some(values) = values {
        p.reference = Some((values, span));
    }
}

/// Several objectives are each named, other names than the variables' and constraints'
/// (they name `history.csv`'s and `--import`'s columns); the reference point gives every
/// objective one value and names no other. The reference in objective order.
pub(super) fn finish(cx: &mut Checker, p: &Partial) -> Option<Vec<f64>> {
    let several = p.objectives.len() + p.failed_objectives > 1;
    for o in &p.objectives {
        let clash = o.name.as_ref().filter(|n| {
            cx.coords.iter().any(|c| c.name == **n)
                || p.constraints.iter().any(|c| c.name == **n)
                || *n == "objective"
        });
        if let Some(name) = clash {
            cx.error(
                Diagnostic::error(
                    "pde::duplicate-declaration",
                    o.span,
                    format!("the objective `{name}` has the name of a variable, a constraint or `objective`"),
                )
                .with_label("name taken")
                .with_help("each value has its own column in history.csv and --import: give the objective another name"),
            );
        }
        if several && o.name.is_none() {
            cx.error(
                Diagnostic::error(
                    "pde::unnamed-objective",
                    o.span,
                    "with several objectives, each is named",
                )
                .with_label("no name")
                .with_help(
                    "write `minimize weight: ..` (a name and a colon before the expression)",
                ),
            );
        }
    }
    if let (true, Some(span)) = (several, p.noise_span) {
        cx.error(
            Diagnostic::error(
                "pde::noise-with-objectives",
                span,
                "a noise statement with several objectives is not built yet",
            )
            .with_label("one objective's noise")
            .with_help("remove it: the GP methods fit each objective's noise level"),
        );
    }
    if several && p.optimum.is_some() && p.reference.is_none() {
        cx.error(
            Diagnostic::error(
                "pde::optimum-without-reference",
                p.optimum_span.unwrap_or_default(),
                "with several objectives, `optimum` is the hypervolume of the true Pareto front, \
                 which is measured from a reference point",
            )
            .with_label("a hypervolume needs a reference")
            .with_help("add `reference NAME = value, ..` with every objective's value"),
        );
    }
    let (values, span) = p.reference.as_ref()?;
    if p.failed_objectives > 0 {
        // Its names cannot be checked against objectives that were not understood.
        return None;
    }
    if !several {
        cx.error(
            Diagnostic::error(
                "pde::reference-with-one-objective",
                *span,
                "a reference point is for several objectives; this problem has one",
            )
            .with_label("not used")
            .with_help("remove it, or add a second named objective"),
        );
        return None;
    }
    let names: Vec<&str> = (p.objectives.iter())
        .filter_map(|o| o.name.as_deref())
        .collect();
    let mut broken = false;
    for (name, _) in values {
        if !names.contains(&name.name.as_str()) {
            broken = true;
            cx.error(
                Diagnostic::error(
                    "pde::unknown-objective",
                    name.span,
                    format!("`{}` is not an objective", name.name),
                )
                .with_label(format!("the objectives are {}", names.join(", ")))
                .with_help_opt(suggestion(&name.name, names.iter().copied())),
            );
        }
    }
    let missing: Vec<&str> = (names.iter().copied())
        .filter(|n| !values.iter().any(|(v, _)| v.name == *n))
        .collect();
    if !missing.is_empty() {
        cx.error(
            Diagnostic::error(
                "pde::incomplete-reference",
                *span,
                format!("the reference point gives no value for {}", missing.join(", ")),
            )
            .with_label("one value per objective")
            .with_help("leave `reference` out for the default (from the initial design), or give every objective its value"),
        );
        return None;
    }
    if broken {
        return None;
    }
    let value = |n: &str| values.iter().find(|(v, _)| v.name == n).map(|(_, x)| *x);
    names.iter().map(|n| value(n)).collect()
}
