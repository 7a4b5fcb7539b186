//! The checked problem's expressions: scalars over the design coordinates, the fields and
//! the params, the functionals that read a field over its coordinates, and their printing
//! with the problem's names.

use super::{BinaryOp, Problem};
use crate::builtins::Builtin;
use std::fmt;

/// Index of a scalar coordinate: the design variables of [`Problem::coords`] first (vector
/// variables are flattened: `var x[3]` becomes `x[1]`, `x[2]`, `x[3]`), then the coordinates
/// of fields the optimizer does not choose, [`Problem::field_coords`] (`coord x in [0, 1]`).
pub type CoordId = usize;
/// Index of a field in [`Problem::fields`].
pub type FieldId = usize;
/// Index of an unknown constant in [`Problem::params`].
pub type ParamId = usize;

/// A scalar expression over the design coordinates and the fields.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(f64),
    Coord(CoordId),
    /// An unknown constant of the pde (`param`), fitted from the data; given a value by
    /// [`Expr::replace_params`] before anything evaluates it.
    Param(ParamId),
    /// A field's value at the current point.
    Field(FieldId),
    Neg(Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Call(Builtin, Vec<Expr>),
    /// The partial derivative of `expr` with respect to one coordinate.
    Diff {
        expr: Box<Expr>,
        wrt: CoordId,
    },
    /// An operator registered by a library user (see [`crate::Operators`]).
    Operator {
        name: String,
        args: Vec<Expr>,
    },
    /// A number read from a field over its `coord`s at the current design: its value at a
    /// place, or its integral, mean, maximum or minimum over coordinates' whole ranges.
    Functional(Box<Functional>),
}

/// How a [`Functional`] reduces its field over the coordinates it ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// The value at a place (`T(0.8, 0.5, a)`): every coordinate fixed.
    Point,
    Integral,
    Mean,
    Maximum,
    Minimum,
}

impl Reduce {
    /// The functional's name in the language (`T(..)` for a point value).
    pub fn name(self) -> &'static str {
        match self {
            Reduce::Point => "point",
            Reduce::Integral => "integral",
            Reduce::Mean => "mean",
            Reduce::Maximum => "maximum",
            Reduce::Minimum => "minimum",
        }
    }

    /// The reduction a call's name asks for; None for any other name.
    pub fn from_name(name: &str) -> Option<Reduce> {
        [
            Reduce::Integral,
            Reduce::Mean,
            Reduce::Maximum,
            Reduce::Minimum,
        ]
        .into_iter()
        .find(|r| r.name() == name)
    }
}

/// A field read at the current design over its field coordinates: each of them either held
/// at a value (`at`) or reduced over its whole range (`over`), so that nothing is free.
#[derive(Clone, Debug, PartialEq)]
pub struct Functional {
    pub field: FieldId,
    pub reduce: Reduce,
    /// The coordinates reduced over, in the order written (empty for a point value).
    pub over: Vec<CoordId>,
    /// The coordinates held at a value.
    pub at: Vec<(CoordId, f64)>,
}

impl Expr {
    pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    pub fn diff(expr: Expr, wrt: CoordId) -> Expr {
        Expr::Diff {
            expr: Box::new(expr),
            wrt,
        }
    }

    /// Calls `f` on this node and every node below it.
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Const(_)
            | Expr::Coord(_)
            | Expr::Param(_)
            | Expr::Field(_)
            | Expr::Functional(_) => {}
            Expr::Neg(e) | Expr::Diff { expr: e, .. } => e.visit(f),
            Expr::Binary(_, a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Expr::Call(_, args) | Expr::Operator { args, .. } => {
                args.iter().for_each(|a| a.visit(f))
            }
        }
    }

    pub fn any(&self, pred: impl Fn(&Expr) -> bool) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= pred(e));
        found
    }

    /// The number of nodes in the tree.
    pub fn size(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |_| n += 1);
        n
    }

    /// The fields this expression mentions at the current point, in first-seen order
    /// (those read through a [`Functional`] are not).
    pub fn fields(&self) -> Vec<FieldId> {
        self.ids(|e| match e {
            Expr::Field(id) => Some(*id),
            _ => None,
        })
    }

    /// The functionals this expression reads, in first-seen order (repeats kept once).
    pub fn functionals(&self) -> Vec<Functional> {
        let mut out: Vec<Functional> = Vec::new();
        self.visit(&mut |e| {
            if let Expr::Functional(f) = e {
                if !out.contains(f) {
                    out.push((**f).clone());
                }
            }
        });
        out
    }

    /// A copy with each functional replaced by what `with` gives for it.
    pub fn replace_functionals(&self, with: &impl Fn(&Functional) -> Option<Expr>) -> Expr {
        self.replace_leaves(&|e| match e {
            Expr::Functional(f) => with(f),
            _ => None,
        })
    }

    /// The ids `pick` finds in the nodes, each once, in first-seen order.
    fn ids(&self, pick: impl Fn(&Expr) -> Option<usize>) -> Vec<usize> {
        let mut out = Vec::new();
        self.visit(&mut |e| {
            if let Some(id) = pick(e).filter(|id| !out.contains(id)) {
                out.push(id);
            }
        });
        out
    }

    /// A copy with each field for which `with` gives an expression replaced by it.
    pub fn replace_fields(&self, with: &impl Fn(FieldId) -> Option<Expr>) -> Expr {
        self.replace_leaves(&|e| match e {
            Expr::Field(id) => with(*id),
            _ => None,
        })
    }

    /// A copy with every param replaced by its value in `values` (by [`ParamId`]).
    pub fn replace_params(&self, values: &[f64]) -> Expr {
        self.replace_leaves(&|e| match e {
            Expr::Param(id) => values.get(*id).map(|v| Expr::Const(*v)),
            _ => None,
        })
    }

    /// A copy with every coordinate leaf `c < values.len()` replaced by `values[c]` (the
    /// design variables fixed at one design).
    pub fn replace_coords(&self, values: &[f64]) -> Expr {
        self.replace_leaves(&|e| match e {
            Expr::Coord(c) => values.get(*c).map(|v| Expr::Const(*v)),
            _ => None,
        })
    }

    /// A copy with every coordinate `c` (a leaf, a derivative's, a functional's) renamed
    /// `new[c]`.
    pub fn renumber_coords(&self, new: &[CoordId]) -> Expr {
        let each = |args: &[Expr]| args.iter().map(|a| a.renumber_coords(new)).collect();
        match self {
            Expr::Coord(c) => Expr::Coord(new[*c]),
            Expr::Const(_) | Expr::Param(_) | Expr::Field(_) => self.clone(),
            Expr::Functional(f) => Expr::Functional(Box::new(Functional {
                over: f.over.iter().map(|c| new[*c]).collect(),
                at: f.at.iter().map(|(c, v)| (new[*c], *v)).collect(),
                ..(**f).clone()
            })),
            Expr::Neg(a) => Expr::Neg(Box::new(a.renumber_coords(new))),
            Expr::Binary(op, a, b) => {
                Expr::binary(*op, a.renumber_coords(new), b.renumber_coords(new))
            }
            Expr::Call(f, args) => Expr::Call(*f, each(args)),
            Expr::Diff { expr, wrt } => Expr::diff(expr.renumber_coords(new), new[*wrt]),
            Expr::Operator { name, args } => Expr::Operator {
                name: name.clone(),
                args: each(args),
            },
        }
    }

    /// The params this expression mentions, in first-seen order.
    pub fn params(&self) -> Vec<ParamId> {
        self.ids(|e| match e {
            Expr::Param(id) => Some(*id),
            _ => None,
        })
    }

    /// A copy with each leaf (a constant, coordinate, param or field) for which `with` gives
    /// an expression replaced by it.
    fn replace_leaves(&self, with: &impl Fn(&Expr) -> Option<Expr>) -> Expr {
        let each = |args: &[Expr]| args.iter().map(|a| a.replace_leaves(with)).collect();
        match self {
            Expr::Const(_)
            | Expr::Coord(_)
            | Expr::Param(_)
            | Expr::Field(_)
            | Expr::Functional(_) => with(self).unwrap_or_else(|| self.clone()),
            Expr::Neg(a) => Expr::Neg(Box::new(a.replace_leaves(with))),
            Expr::Binary(op, a, b) => {
                Expr::binary(*op, a.replace_leaves(with), b.replace_leaves(with))
            }
            Expr::Call(f, args) => Expr::Call(*f, each(args)),
            Expr::Diff { expr, wrt } => Expr::diff(expr.replace_leaves(with), *wrt),
            Expr::Operator { name, args } => Expr::Operator {
                name: name.clone(),
                args: each(args),
            },
        }
    }

    /// The highest number of derivatives with respect to `coord` applied to any field.
    pub fn order_in(&self, coord: CoordId) -> u32 {
        fn walk(e: &Expr, coord: CoordId, depth: u32, best: &mut u32) {
            match e {
                Expr::Field(_) => *best = (*best).max(depth),
                Expr::Diff { expr, wrt } => {
                    walk(expr, coord, depth + u32::from(*wrt == coord), best)
                }
                Expr::Const(_) | Expr::Coord(_) | Expr::Param(_) | Expr::Functional(_) => {}
                Expr::Neg(a) => walk(a, coord, depth, best),
                Expr::Binary(_, a, b) => {
                    walk(a, coord, depth, best);
                    walk(b, coord, depth, best);
                }
                Expr::Call(_, args) | Expr::Operator { args, .. } => {
                    args.iter().for_each(|a| walk(a, coord, depth, best))
                }
            }
        }
        let mut best = 0;
        walk(self, coord, 0, &mut best);
        best
    }

    /// The highest total derivative order applied to any field.
    pub fn total_order(&self) -> u32 {
        fn walk(e: &Expr, depth: u32, best: &mut u32) {
            match e {
                Expr::Field(_) => *best = (*best).max(depth),
                Expr::Diff { expr, .. } => walk(expr, depth + 1, best),
                Expr::Const(_) | Expr::Coord(_) | Expr::Param(_) | Expr::Functional(_) => {}
                Expr::Neg(a) => walk(a, depth, best),
                Expr::Binary(_, a, b) => {
                    walk(a, depth, best);
                    walk(b, depth, best);
                }
                Expr::Call(_, args) | Expr::Operator { args, .. } => {
                    args.iter().for_each(|a| walk(a, depth, best))
                }
            }
        }
        let mut best = 0;
        walk(self, 0, &mut best);
        best
    }
}

impl Problem {
    /// Formats an expression with this problem's names.
    pub fn display<'a>(&'a self, expr: &'a Expr) -> DisplayExpr<'a> {
        DisplayExpr {
            problem: self,
            expr,
        }
    }
}

/// An expression printed with coordinate and field names, fully parenthesized where needed.
pub struct DisplayExpr<'a> {
    problem: &'a Problem,
    expr: &'a Expr,
}

impl fmt::Display for DisplayExpr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.problem;
        let sub = |e: &'_ Expr| {
            DisplayExpr {
                problem: p,
                expr: e,
            }
            .to_string()
        };
        match self.expr {
            Expr::Const(v) => write!(f, "{v}"),
            Expr::Coord(c) => f.write_str(&p.coordinate(*c).name),
            Expr::Param(k) => f.write_str(&p.params[*k].name),
            Expr::Field(id) => f.write_str(&p.fields[*id].name),
            Expr::Neg(a) => write!(f, "-({})", sub(a)),
            Expr::Binary(op, a, b) => {
                let sym = match op {
                    BinaryOp::Add => "+",
                    BinaryOp::Sub => "-",
                    BinaryOp::Mul => "*",
                    BinaryOp::Div => "/",
                    BinaryOp::Pow => "^",
                };
                write!(f, "({} {sym} {})", sub(a), sub(b))
            }
            Expr::Call(b, args) => {
                let args: Vec<String> = args.iter().map(sub).collect();
                write!(f, "{}({})", b.name(), args.join(", "))
            }
            Expr::Diff { expr, wrt } => {
                write!(f, "d({}, {})", sub(expr), p.coordinate(*wrt).name)
            }
            Expr::Functional(g) => {
                let field = &p.fields[g.field].name;
                let over: Vec<&str> = (g.over.iter())
                    .map(|c| p.coordinate(*c).name.as_str())
                    .collect();
                // A point value as written: the held coordinates' numbers and the design
                // variables' names, in the field's order.
                let args: Vec<String> = (p.fields[g.field].args.iter())
                    .map(|c| match g.at.iter().find(|(d, _)| d == c) {
                        Some((_, v)) => format!("{v}"),
                        None => p.coordinate(*c).name.clone(),
                    })
                    .collect();
                match g.reduce {
                    Reduce::Point => write!(f, "{field}({})", args.join(", ")),
                    r => write!(f, "{}({field}, {})", r.name(), over.join(", ")),
                }
            }
            Expr::Operator { name, args } => {
                let args: Vec<String> = args.iter().map(sub).collect();
                write!(f, "{name}({})", args.join(", "))
            }
        }
    }
}
