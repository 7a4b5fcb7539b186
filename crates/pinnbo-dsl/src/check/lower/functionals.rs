//! Fields read over their field coordinates (`coord`) in objectives and constraints: the
//! value at a place, `T(0.8, 0.5, a)`, and `integral`, `mean`, `maximum`, `minimum` over
//! coordinates' whole ranges. Each becomes one [`Functional`]: a number per design.

use super::{Lowered, Lowerer, Value};
use crate::ast::{Arg, ExprKind, Ident};
use crate::check::Declared;
use crate::diag::Diagnostic;
use crate::ir::{CoordId, Expr, FieldId, Functional, Reduce};
use crate::source::Span;

impl Lowerer<'_> {
    /// Whether the field depends on a field coordinate.
    pub(super) fn has_field_coords(&self, field: FieldId) -> bool {
        (self.cx.field_args(field).iter()).any(|c| self.cx.is_field_coord(*c))
    }

    /// `T(0.8, 0.5, a, b)`: each field coordinate at a number inside its range, each design
    /// variable passed through as itself.
    pub(super) fn point_functional(
        &mut self,
        name: &Ident,
        field: FieldId,
        args: &[Arg],
        span: Span,
    ) -> Lowered {
        let field_args = self.cx.field_args(field).to_vec();
        self.check_arity(name, args, field_args.len(), span)?;
        let mut at = Vec::new();
        for (arg, &coord) in args.iter().zip(&field_args) {
            let Arg::Expr(e) = arg else { return None };
            let c = self.cx.coord(coord).clone();
            if !self.cx.is_field_coord(coord) {
                // The design variable itself: the field is measured at the evaluation's
                // design, and nowhere else.
                let passed = matches!(&e.kind, ExprKind::Name(n) if *n == c.name);
                if !passed {
                    return self.err(
                        Diagnostic::error(
                            "pde::field-argument",
                            e.span,
                            format!(
                                "the design variable `{}` must be passed through as itself",
                                c.name
                            ),
                        )
                        .with_label(format!("write `{}` here", c.name))
                        .with_help(
                            "an evaluation measures the field at its own design: only the \
                             field's coordinates (`coord`) take numbers",
                        ),
                    );
                }
                continue;
            }
            let saved = std::mem::replace(&mut self.allow, super::Allow::CONST);
            let value = self.scalar(e);
            self.allow = saved;
            let value = crate::eval::eval_const(&value?)?;
            let slack = 1e-9 * (c.hi - c.lo).abs().max(1.0);
            if !value.is_finite() || value < c.lo - slack || value > c.hi + slack {
                return self.err(
                    Diagnostic::error(
                        "pde::outside-coordinate",
                        e.span,
                        format!(
                            "`{}` = {value} is outside the coordinate's range [{}, {}]",
                            c.name, c.lo, c.hi
                        ),
                    )
                    .with_label("outside the range")
                    .with_related(c.span, "declared here"),
                );
            }
            at.push((coord, value.clamp(c.lo, c.hi)));
        }
        Some(Value::Scalar(Expr::Functional(Box::new(Functional {
            field,
            reduce: Reduce::Point,
            over: Vec::new(),
            at,
        }))))
    }

    /// `integral(T, x)`, `mean(T, x)`, `maximum(T, x, y)`, `minimum(T, x)`: the field named
    /// first, reduced over the field coordinates named after it (every one it has).
    pub(super) fn reduced_functional(
        &mut self,
        reduce: Reduce,
        args: &[Arg],
        span: Span,
    ) -> Lowered {
        let r = reduce.name();
        if !self.allow.functionals {
            return self.err(
                Diagnostic::error(
                    "pde::not-allowed-here",
                    span,
                    format!("`{r}` of a field can appear only in an objective or a constraint"),
                )
                .with_label("not allowed here"),
            );
        }
        let usage = format!(
            "`{r}(T, x)` takes a field and the coordinates (`coord`) to reduce it over: \
             `{r}(T, x, y)` for several"
        );
        let field_name = match args.first() {
            Some(Arg::Expr(e)) => match &e.kind {
                ExprKind::Name(n) => Some((n.clone(), e.span)),
                _ => None,
            },
            _ => None,
        };
        let field = field_name
            .as_ref()
            .and_then(|(n, _)| match self.cx.declared(n) {
                Some(Declared::Field(id)) => Some(id),
                _ => None,
            });
        let (Some(field), Some((field_name, field_span))) = (field, field_name.clone()) else {
            if field_name
                .as_ref()
                .is_some_and(|(n, _)| self.cx.declared(n) == Some(Declared::Poisoned))
            {
                return None;
            }
            let at = args.first().map_or(span, Arg::span);
            return self.err(
                Diagnostic::error(
                    "pde::functional",
                    at,
                    format!("the first argument of `{r}` must be a field's name"),
                )
                .with_label("not a field")
                .with_help(usage),
            );
        };
        if !self.has_field_coords(field) {
            return self.err(
                Diagnostic::error(
                    "pde::functional",
                    field_span,
                    format!("the field `{field_name}` has no coordinates (`coord`) to reduce over"),
                )
                .with_label("depends on design variables only")
                .with_help(format!(
                    "write `{field_name}` for its value at the design, or declare the \
                     coordinates it varies over with `coord x in [lo, hi]`"
                )),
            );
        }
        let mut over: Vec<CoordId> = Vec::new();
        for arg in &args[1..] {
            let named = match arg {
                Arg::Expr(e) => match &e.kind {
                    ExprKind::Name(n) => Some(n.clone()),
                    _ => None,
                },
                _ => None,
            };
            let coord = named.as_ref().and_then(|n| match self.cx.declared(n) {
                Some(Declared::Var { first, len: None }) => Some(first),
                _ => None,
            });
            let own = coord
                .filter(|c| self.cx.field_args(field).contains(c) && self.cx.is_field_coord(*c));
            let Some(c) = own else {
                return self.err(
                    Diagnostic::error(
                        "pde::functional",
                        arg.span(),
                        format!(
                            "`{r}` reduces over a coordinate (`coord`) of `{field_name}`; this is not one"
                        ),
                    )
                    .with_label("not a coordinate of the field")
                    .with_help(format!(
                        "the coordinates of `{field_name}` are {}",
                        self.coordinate_list(field)
                    )),
                );
            };
            if over.contains(&c) {
                return self.err(
                    Diagnostic::error(
                        "pde::functional",
                        arg.span(),
                        format!("`{}` is named twice", self.cx.coord(c).name),
                    )
                    .with_label("named again"),
                );
            }
            over.push(c);
        }
        let free = (self.cx.field_args(field).iter())
            .copied()
            .find(|c| self.cx.is_field_coord(*c) && !over.contains(c));
        if let Some(c) = free {
            let coord = self.cx.coord(c).name.clone();
            return self.free_coordinate(span, &coord, Some((&field_name, field)));
        }
        Some(Value::Scalar(Expr::Functional(Box::new(Functional {
            field,
            reduce,
            over,
            at: Vec::new(),
        }))))
    }

    /// A field's coordinates as a message lists them: `` `x`, `y` ``.
    fn coordinate_list(&self, field: FieldId) -> String {
        let names: Vec<String> = (self.cx.field_args(field).iter())
            .filter(|c| self.cx.is_field_coord(**c))
            .map(|c| format!("`{}`", self.cx.coord(*c).name))
            .collect();
        names.join(", ")
    }
}
