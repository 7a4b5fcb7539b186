//! The syntax tree: what was written, with spans, before any name is resolved.

use crate::source::Span;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Height of the tree below and including this node (the parser bounds it).
    pub depth: u32,
}

impl Expr {
    pub fn leaf(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            depth: 1,
        }
    }

    /// Stands in for an expression the parser rejected (and reported): a NaN literal.
    pub fn placeholder(span: Span) -> Expr {
        Expr::leaf(ExprKind::Number(f64::NAN), span)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Number(f64),
    Name(String),
    /// `x[i]`
    Index {
        name: Ident,
        index: Box<Expr>,
    },
    /// `f(a, b)`: a built-in, a user function, a field at a point, or an operator.
    Call {
        name: Ident,
        args: Vec<Arg>,
    },
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `material == copper`: 1 where the categorical variable on the left takes the level
    /// named on the right, else 0 (the checker resolves both sides).
    IsLevel(Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Expr(Expr),
    /// `i in lo..hi`, the binder of an indexed sum.
    Range {
        binder: Ident,
        lo: Expr,
        hi: Expr,
        span: Span,
    },
}

impl Arg {
    pub fn span(&self) -> Span {
        match self {
            Arg::Expr(e) => e.span,
            Arg::Range { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarItem {
    pub name: Ident,
    pub size: Option<Expr>,
    pub domain: VarDomain,
    /// Where the domain is written: `[lo, hi]`, `lo..hi` or `{a, b}`.
    pub domain_span: Span,
}

/// The values a variable takes.
#[derive(Clone, Debug, PartialEq)]
pub enum VarDomain {
    /// `[lo, hi]`; `log`: searched on a log scale.
    Interval { lo: Expr, hi: Expr, log: bool },
    /// `lo..hi`: the integers from `lo` to `hi`.
    Integers { lo: Expr, hi: Expr },
    /// `{a, b, c}`: one of the named levels.
    Levels(Vec<Ident>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    Minimize,
    Maximize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    LessEq,
    GreaterEq,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseKind {
    Std,
    Variance,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NoiseLevel {
    Absolute(Expr),
    /// `1% of range`: a fraction of the objective's range over the domain.
    OfRange(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum OracleKind {
    ClosedForm,
    /// Measured outside pinnbo: the run is driven by `pinnbo ask` and `pinnbo tell`.
    External,
    Fdm,
    Command {
        template: String,
        template_span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum BlockItem {
    Condition {
        lhs: Expr,
        rhs: Expr,
        at: Vec<(Ident, Expr)>,
        span: Span,
    },
    Setting(Setting),
    /// `param k = 2.5` in an `oracle fdm` block: the experiment's true value.
    ParamValue {
        name: Ident,
        value: Expr,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub key: Ident,
    pub value: Value,
    pub value_span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    Percent(f64),
    Duration(Duration),
    Dims(Vec<f64>),
    Str(String),
    Name(String),
    List(Vec<f64>),
}

impl Value {
    /// How the value's type is named in messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Number(_) => "a number",
            Value::Percent(_) => "a percentage",
            Value::Duration(_) => "a duration",
            Value::Dims(_) => "grid dimensions",
            Value::Str(_) => "a string",
            Value::Name(_) => "a name",
            Value::List(_) => "a list",
        }
    }
}

/// `x in [lo, hi]` of a `coord` statement.
#[derive(Clone, Debug, PartialEq)]
pub struct CoordItem {
    pub name: Ident,
    pub lo: Expr,
    pub hi: Expr,
    /// Where `[lo, hi]` is written.
    pub bounds_span: Span,
}

/// The points of a `sensors` statement: each a value per named coordinate, in the order
/// the names are written (`x = 0.1, 0.5` is one name and two points of one value).
#[derive(Clone, Debug, PartialEq)]
pub struct SensorPoints {
    pub coords: Vec<Ident>,
    /// Each point's values and where the point is written.
    pub points: Vec<(Vec<Expr>, Span)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Var(Vec<VarItem>),
    /// `coord x in [0, 1], y in [0, 2]`: coordinates of fields the optimizer does not choose.
    Coord(Vec<CoordItem>),
    /// `sensors T at x = 0.1, 0.5`: where each evaluation measures the field `T`.
    Sensors {
        field: Ident,
        at: SensorPoints,
    },
    /// `const g = 9.81, rho = 1000`: each name and its value.
    Const(Vec<(Ident, Expr)>),
    /// `param k in [lo, hi] log`: an unknown constant of the pde.
    Param {
        name: Ident,
        lo: Expr,
        hi: Expr,
        bounds_span: Span,
        log: bool,
    },
    Fn {
        name: Ident,
        params: Vec<Ident>,
        body: Expr,
    },
    Field {
        name: Ident,
        params: Vec<Ident>,
        definition: Option<Expr>,
    },
    Pde {
        lhs: Expr,
        rhs: Expr,
    },
    Objective {
        name: Option<Ident>,
        sense: Sense,
        expr: Expr,
    },
    /// `reference NAME = value, ..`: the hypervolume's reference point.
    Reference(Vec<(Ident, Expr)>),
    Constraint {
        label: Option<Ident>,
        lhs: Expr,
        cmp: Comparison,
        rhs: Expr,
    },
    Optimum(Expr),
    Oracle {
        kind: OracleKind,
        items: Vec<BlockItem>,
    },
    Noise {
        /// `noise added ..`: synthetic noise the loop adds to a benchmark's values.
        added: bool,
        kind: Option<NoiseKind>,
        level: NoiseLevel,
    },
    Budget(Expr),
    Init {
        count: Expr,
        design: Option<Ident>,
    },
    Seed(Expr),
    Method {
        name: Ident,
        items: Vec<BlockItem>,
    },
    Problem(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    /// The statement's keyword, for "declared here"-style labels.
    pub keyword: Span,
    pub span: Span,
}

/// A parsed file: the statements that parsed, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    pub statements: Vec<Stmt>,
    /// Names whose declaring statement failed to parse.
    pub failed_declarations: Vec<Ident>,
}
