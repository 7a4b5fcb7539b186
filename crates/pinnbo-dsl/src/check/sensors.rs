//! `sensors T at x = 0.1, 0.5` (or `x = grid(0, 1, 9)`, or `(x, t) = (0.1, 1), (0.3, 1)`):
//! the places where each evaluation measures a field besides the objective, every field
//! coordinate of the field given at each, each inside its range.

use super::{Checker, Declared};
use crate::ast::{self, Arg, ExprKind, Ident, SensorPoints};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{CoordId, Sensors};
use crate::source::Span;

/// The most sensor values one evaluation may measure: each becomes a column of the history
/// and rows of a model.
pub const MAX_SENSORS: usize = 10_000;

pub(super) fn sensors(
    cx: &mut Checker,
    field: &Ident,
    at: &SensorPoints,
    span: Span,
    so_far: usize,
) -> Option<Sensors> {
    let id = match cx.declared(&field.name) {
        Some(Declared::Field(id)) => id,
        Some(Declared::Poisoned) => return None,
        _ => {
            let fields: Vec<&str> = (cx.names())
                .filter(|n| matches!(cx.declared(n), Some(Declared::Field(_))))
                .collect();
            cx.error(
                Diagnostic::error(
                    "pde::unknown-name",
                    field.span,
                    format!("`{}` is not a field", field.name),
                )
                .with_label("sensors measure a field")
                .with_help_opt(suggestion(&field.name, fields)),
            );
            return None;
        }
    };
    let own: Vec<CoordId> = (cx.field_args(id).iter())
        .copied()
        .filter(|c| cx.is_field_coord(*c))
        .collect();
    if own.is_empty() {
        cx.error(
            Diagnostic::error(
                "pde::sensors-without-coordinates",
                field.span,
                format!(
                    "the field `{}` has no coordinates (`coord`) to place sensors along",
                    field.name
                ),
            )
            .with_label("depends on design variables only")
            .with_help(
                "sensors read a field at places the optimizer does not choose: declare them \
                 with `coord x in [lo, hi]` and give the field them, `field T(x, a)`",
            ),
        );
        return None;
    }
    let coords = named_coordinates(cx, &field.name, &own, &at.coords)?;
    let names_span = at.coords[0].span.to(at.coords[at.coords.len() - 1].span);
    if let Some(missing) = own.iter().find(|c| !coords.contains(c)) {
        let name = cx.coord(*missing).name.clone();
        let listed: Vec<String> = own.iter().map(|c| cx.coord(*c).name.clone()).collect();
        cx.error(
            Diagnostic::error(
                "pde::sensor-coordinate-missing",
                names_span,
                format!("each sensor of `{}` must give `{name}`", field.name),
            )
            .with_label(format!("`{name}` is missing"))
            .with_help(format!(
                "give every coordinate of the field at each place: `sensors {} at ({}) = ({})`",
                field.name,
                listed.join(", "),
                listed.iter().map(|_| "..").collect::<Vec<_>>().join(", ")
            )),
        );
        return None;
    }
    let mut places = Vec::new();
    let mut ok = true;
    for (values, point_span) in &at.points {
        match place_values(cx, &coords, values, *point_span) {
            Some(mut expanded) => places.append(&mut expanded),
            None => ok = false,
        }
        if so_far + places.len() > MAX_SENSORS {
            cx.error(
                Diagnostic::error(
                    "pde::too-large",
                    *point_span,
                    format!("an evaluation may measure at most {MAX_SENSORS} sensor values"),
                )
                .with_label("too many places"),
            );
            return None;
        }
    }
    ok.then_some(Sensors {
        field: id,
        coords,
        places,
        span,
    })
}

/// The coordinates a statement names, each a coordinate of the field, once.
fn named_coordinates(
    cx: &mut Checker,
    field: &str,
    own: &[CoordId],
    names: &[Ident],
) -> Option<Vec<CoordId>> {
    let mut coords = Vec::new();
    for name in names {
        let id = match cx.declared(&name.name) {
            Some(Declared::Var { first, len: None }) if own.contains(&first) => first,
            Some(Declared::Poisoned) => return None,
            _ => {
                let listed: Vec<&str> = own.iter().map(|c| cx.coord(*c).name.as_str()).collect();
                let help = format!(
                    "the coordinates of `{field}` are {}",
                    listed
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                cx.error(
                    Diagnostic::error(
                        "pde::sensor-coordinate",
                        name.span,
                        format!("`{}` is not a coordinate (`coord`) of `{field}`", name.name),
                    )
                    .with_label("not one of the field's coordinates")
                    .with_help(help),
                );
                return None;
            }
        };
        if coords.contains(&id) {
            cx.error(
                Diagnostic::error(
                    "pde::sensor-coordinate",
                    name.span,
                    format!("`{}` is named twice", name.name),
                )
                .with_label("named again"),
            );
            return None;
        }
        coords.push(id);
    }
    Some(coords)
}

/// One written place's values (a `grid(lo, hi, n)` of one coordinate expands to n places),
/// each checked against its coordinate's range.
fn place_values(
    cx: &mut Checker,
    coords: &[CoordId],
    values: &[ast::Expr],
    span: Span,
) -> Option<Vec<Vec<f64>>> {
    if let ([only], [coord]) = (values, coords) {
        if let ExprKind::Call { name, args } = &only.kind {
            if name.name == "grid" {
                return grid(cx, *coord, args, only.span);
            }
        }
    }
    if values.len() != coords.len() {
        cx.error(
            Diagnostic::error(
                "pde::sensor-coordinate-missing",
                span,
                format!(
                    "this place gives {} value(s) for {} coordinate(s)",
                    values.len(),
                    coords.len()
                ),
            )
            .with_label("one value per coordinate named")
            .with_help("write each place as a tuple in the order the coordinates are named"),
        );
        return None;
    }
    let mut place = Vec::new();
    for (value, coord) in values.iter().zip(coords) {
        if matches!(&value.kind, ExprKind::Call { name, .. } if name.name == "grid") {
            cx.error(
                Diagnostic::error(
                    "pde::sensor-grid",
                    value.span,
                    "`grid(lo, hi, n)` gives the places of one coordinate: `sensors T at x = grid(0, 1, 9)`",
                )
                .with_label("inside a tuple"),
            );
            return None;
        }
        place.push(inside(cx, *coord, value)?);
    }
    Some(vec![place])
}

/// `grid(lo, hi, n)`: n equally spaced places from lo to hi, both included.
fn grid(cx: &mut Checker, coord: CoordId, args: &[Arg], span: Span) -> Option<Vec<Vec<f64>>> {
    let exprs: Vec<&ast::Expr> = (args.iter())
        .filter_map(|a| match a {
            Arg::Expr(e) => Some(e),
            Arg::Range { .. } => None,
        })
        .collect();
    let [lo, hi, n] = exprs.as_slice() else {
        cx.error(
            Diagnostic::error(
                "pde::arity",
                span,
                format!(
                    "`grid` takes 3 arguments (lo, hi, count), but {} were given",
                    args.len()
                ),
            )
            .with_label("expected `grid(lo, hi, n)`"),
        );
        return None;
    };
    let (lo, hi) = (inside(cx, coord, lo)?, inside(cx, coord, hi)?);
    let n = cx.count(n, "the number of places", 1)? as usize;
    if n > MAX_SENSORS {
        cx.error(
            Diagnostic::error(
                "pde::too-large",
                span,
                format!("an evaluation may measure at most {MAX_SENSORS} sensor values"),
            )
            .with_label(format!("{n} places")),
        );
        return None;
    }
    Some(match n {
        1 => vec![vec![lo]],
        // Rounded to 12 significant digits, so that `grid(0.1, 0.9, 5)`'s places are 0.3 and
        // 0.7 (as a user writes them and `history.csv` heads them), not 0.30000000000000004.
        _ => (0..n)
            .map(|i| {
                let v = lo + (hi - lo) * i as f64 / (n - 1) as f64;
                vec![format!("{v:.11e}").parse().unwrap_or(v)]
            })
            .collect(),
    })
}

/// A constant value of `coord`, inside its range.
fn inside(cx: &mut Checker, coord: CoordId, value: &ast::Expr) -> Option<f64> {
    let v = cx.constant(value, "a sensor's place")?;
    let c = cx.coord(coord).clone();
    let slack = 1e-9 * (c.hi - c.lo).abs().max(1.0);
    if v < c.lo - slack || v > c.hi + slack {
        cx.error(
            Diagnostic::error(
                "pde::sensor-outside",
                value.span,
                format!(
                    "a sensor at `{}` = {v} is outside [{}, {}]",
                    c.name, c.lo, c.hi
                ),
            )
            .with_label("outside the coordinate's range")
            .with_related(c.span, "declared here"),
        );
        return None;
    }
    Some(v.clamp(c.lo, c.hi))
}
