//! AST -> checked [`Problem`]. Collects every error it can find instead of stopping at the first.

mod coords;
mod declare;
mod lower;
mod names;
mod objectives;
mod oracle;
mod sensors;
mod settings;

pub(crate) use lower::{Allow, Lowerer};
use names::default_name;
pub use names::is_safe_name;

use crate::ast::{self, Comparison, Ident, NoiseLevel as AstNoise, StmtKind};
use crate::builtins::{Builtin, CONSTANTS};
use crate::diag::Diagnostic;
use crate::eval::eval_const;
use crate::ir::*;
use crate::operators::{Operators, BUILTIN_OPERATORS};
use crate::source::{Source, Span};
use std::collections::HashMap;

/// Upper limits that keep a hostile or mistaken file from exhausting memory.
pub const MAX_VECTOR_LEN: usize = 10_000;
pub const MAX_SUM_TERMS: i64 = 100_000;

/// What a name refers to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Declared {
    Const(f64),
    Var {
        first: CoordId,
        len: Option<usize>,
    },
    Fn,
    Field(FieldId),
    Param(ParamId),
    /// A declaration that failed; uses stay silent to avoid follow-on errors.
    Poisoned,
}

#[derive(Clone, Debug)]
pub(crate) struct FnDef {
    pub params: Vec<Ident>,
    pub body: ast::Expr,
    pub name_span: Span,
}

pub(crate) struct Checker {
    pub source: Source,
    pub operators: Operators,
    pub diags: Vec<Diagnostic>,
    decls: HashMap<String, (Declared, Span)>,
    order: Vec<String>,
    fns: HashMap<String, FnDef>,
    /// Design variables and field coordinates, in declaration order (the problem lists the
    /// variables first: [`split_field_coords`]).
    coords: Vec<Coordinate>,
    /// Which of `coords` are field coordinates (`coord`).
    field_coords: Vec<CoordId>,
    params: Vec<Param>,
    fields: Vec<Field>,
    /// Terms unrolled by indexed sums so far, to bound the work of nested sums.
    pub sum_terms: i64,
    /// Fields whose definition had an error (not reported again as lacking one).
    pub broken_definitions: Vec<FieldId>,
}

impl Checker {
    pub fn declared(&self, name: &str) -> Option<Declared> {
        self.decls.get(name).map(|(d, _)| *d)
    }

    /// Declared names in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.order.iter().map(String::as_str)
    }

    pub fn function(&self, name: &str) -> Option<&FnDef> {
        self.fns.get(name)
    }

    pub fn field_args(&self, id: FieldId) -> &[CoordId] {
        &self.fields[id].args
    }

    pub fn field_name(&self, id: FieldId) -> &str {
        &self.fields[id].name
    }

    pub fn param(&self, id: ParamId) -> &Param {
        &self.params[id]
    }

    pub fn coord(&self, id: CoordId) -> &Coordinate {
        &self.coords[id]
    }

    /// Whether `id` is a field coordinate (`coord`), not a design variable.
    pub fn is_field_coord(&self, id: CoordId) -> bool {
        self.field_coords.contains(&id)
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Registers a name, reporting clashes with built-ins and earlier declarations. Values
    /// (constants, variables) live apart from callables, so `const d = 5` does not clash with
    /// the operator `d(u, x)`; only `pi` and `e` are reserved for them.
    fn declare(&mut self, name: &Ident, what: Declared) -> bool {
        let n = name.name.as_str();
        let callable = matches!(what, Declared::Fn | Declared::Field(_));
        let builtin = CONSTANTS.iter().any(|(c, _)| *c == n)
            || (callable
                && (Builtin::from_name(n).is_some()
                    || Reduce::from_name(n).is_some()
                    || BUILTIN_OPERATORS.contains(&n)
                    || self.operators.get(n).is_some()));
        if builtin {
            self.error(
                Diagnostic::error(
                    "pde::reserved-name",
                    name.span,
                    format!("`{n}` is a built-in name"),
                )
                .with_label("cannot be redeclared")
                .with_help("choose another name"),
            );
            self.poison(name);
            return false;
        }
        if let Some((prior, first)) = self.decls.get(n) {
            if *prior == Declared::Poisoned {
                self.decls.insert(n.to_string(), (what, name.span));
                self.order.push(n.to_string());
                return true;
            }
            let first = *first;
            self.error(
                Diagnostic::error(
                    "pde::duplicate-declaration",
                    name.span,
                    format!("`{n}` is declared twice"),
                )
                .with_label("declared again here")
                .with_related(first, "first declared here"),
            );
            return false;
        }
        self.decls.insert(n.to_string(), (what, name.span));
        self.order.push(n.to_string());
        true
    }

    /// Marks a name whose declaration failed, unless it is already declared.
    fn poison(&mut self, name: &Ident) {
        if !self.decls.contains_key(&name.name) {
            self.decls
                .insert(name.name.clone(), (Declared::Poisoned, name.span));
        }
    }

    fn lower(&mut self, allow: Allow, e: &ast::Expr) -> Option<Expr> {
        Lowerer::new(self, allow).scalar(e)
    }

    /// A constant expression's value, reporting non-finite results.
    fn constant(&mut self, e: &ast::Expr, what: &str) -> Option<f64> {
        let v = eval_const(&self.lower(Allow::CONST, e)?)?;
        // A NaN literal is the parser's stand-in for a number it already reported.
        if !v.is_finite() && !contains_nan_literal(e) {
            let text = self.source.slice(e.span).to_string();
            self.error(
                Diagnostic::error(
                    "pde::non-finite",
                    e.span,
                    format!("{what} `{text}` is not finite ({v})"),
                )
                .with_label("evaluates to a non-finite number"),
            );
            return None;
        }
        v.is_finite().then_some(v)
    }

    /// A constant non-negative integer.
    fn count(&mut self, e: &ast::Expr, what: &str, min: u64) -> Option<u64> {
        let v = self.constant(e, what)?;
        if v.fract() != 0.0 || v < min as f64 || v > 2f64.powi(63) {
            self.error(
                Diagnostic::error(
                    "pde::bad-count",
                    e.span,
                    format!("{what} must be an integer of at least {min}, found {v}"),
                )
                .with_label("not a valid count"),
            );
            return None;
        }
        Some(v as u64)
    }
}

fn contains_nan_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Number(v) => v.is_nan(),
        ast::ExprKind::Name(_) => false,
        ast::ExprKind::Index { index, .. } => contains_nan_literal(index),
        ast::ExprKind::Call { args, .. } => args.iter().any(|a| match a {
            ast::Arg::Expr(x) => contains_nan_literal(x),
            ast::Arg::Range { lo, hi, .. } => contains_nan_literal(lo) || contains_nan_literal(hi),
        }),
        ast::ExprKind::Unary(_, a) => contains_nan_literal(a),
        ast::ExprKind::Binary(_, a, b) | ast::ExprKind::IsLevel(a, b) => {
            contains_nan_literal(a) || contains_nan_literal(b)
        }
    }
}

/// Which single-use statements have been seen, for duplicate reports.
#[derive(Default)]
struct Seen(HashMap<&'static str, Span>);

impl Seen {
    fn once(&mut self, cx: &mut Checker, what: &'static str, span: Span) -> bool {
        if let Some(first) = self.0.get(what) {
            cx.error(
                Diagnostic::error(
                    "pde::duplicate-statement",
                    span,
                    format!("more than one `{what}` statement"),
                )
                .with_label("repeated here")
                .with_related(*first, "first given here"),
            );
            return false;
        }
        self.0.insert(what, span);
        true
    }
}

/// Checks a parsed file. `complete` is false when parsing failed somewhere: checks that need
/// the whole file (a missing objective, say) are then skipped to avoid follow-on errors.
pub(crate) fn check(
    source: &Source,
    file: &ast::File,
    operators: &Operators,
    complete: bool,
) -> (Option<Problem>, Vec<Diagnostic>) {
    let mut cx = Checker {
        source: source.clone(),
        operators: operators.clone(),
        diags: Vec::new(),
        decls: HashMap::new(),
        order: Vec::new(),
        fns: HashMap::new(),
        coords: Vec::new(),
        field_coords: Vec::new(),
        params: Vec::new(),
        fields: Vec::new(),
        sum_terms: 0,
        broken_definitions: Vec::new(),
    };
    for name in &file.failed_declarations {
        cx.poison(name);
    }
    declare::declarations(&mut cx, file);
    let mut seen = Seen::default();
    let mut problem = Partial::default();
    for (i, stmt) in file.statements.iter().enumerate() {
        statement(&mut cx, &mut seen, &mut problem, i, stmt);
    }
    if problem.failed_pdes == 0 {
        let used = params_used_by(&problem.pdes);
        let unused = (0..cx.params.len()).filter(|id| !used.contains(id));
        for id in unused.collect::<Vec<_>>() {
            let param = cx.param(id).clone();
            cx.diags.push(
                Diagnostic::warning(
                    "pde::unused-param",
                    param.span,
                    format!("no pde uses the param `{}`", param.name),
                )
                .with_label("never used")
                .with_help("a param is an unknown constant of a pde; use it in one or remove it"),
            );
        }
    }
    let reference = objectives::finish(&mut cx, &problem);
    let objective = match problem.objectives.first() {
        Some(o) => Some(o.clone()),
        None => {
            if complete && problem.failed_objectives == 0 {
                let end = source.text().len();
                cx.error(
                    Diagnostic::error(
                        "pde::missing-objective",
                        Span::new(end, end),
                        "this problem has no objective",
                    )
                    .with_label(
                        "expected `minimize <expr>` or `maximize <expr>` somewhere in the file",
                    ),
                );
            }
            None
        }
    };
    let oracle = objective
        .as_ref()
        .and_then(|o| oracle::check_oracle(&mut cx, &problem, o, file));
    let method = problem
        .method_stmt
        .and_then(|i| match &file.statements[i].kind {
            StmtKind::Method { name, items } => {
                settings::check_method(&mut cx, name, items, &problem.pdes).map(|m| Method {
                    statement: file.statements[i].span,
                    ..m
                })
            }
            _ => None,
        });
    if let Some(m) = &method {
        settings::fits_problem(&mut cx, m, problem.objectives.len());
    }
    if let (Some(noise), Some(span)) = (problem.noise, problem.noise_span) {
        check_noise(&mut cx, noise, span, oracle.as_ref(), method.as_ref());
    }
    if let (Some(budget), Some((init, _)), Some(span)) =
        (problem.budget, problem.init, problem.init_span)
    {
        if init > budget {
            cx.error(
                Diagnostic::error(
                    "pde::init-over-budget",
                    span,
                    format!("an initial design of {init} points does not fit a budget of {budget}"),
                )
                .with_label("more than the budget")
                .with_help("the budget counts every evaluation, the initial design's included"),
            );
        }
    }
    let diags = finish(cx.diags.clone());
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    let (Some(objective), Some(oracle)) = (objective, oracle) else {
        return (None, diags);
    };
    let problem = Problem {
        source: source.clone(),
        name: problem.name.unwrap_or_else(|| default_name(source.name())),
        coords: cx.coords,
        field_coords: Vec::new(),
        sensors: problem.sensors,
        params: cx.params,
        fields: cx.fields,
        pdes: problem.pdes,
        objective,
        other_objectives: problem.objectives.split_off(1),
        reference,
        constraints: problem.constraints,
        optimum: problem.optimum,
        oracle,
        noise: problem.noise,
        budget: problem.budget,
        init: problem.init,
        seed: problem.seed,
        method,
    };
    (
        Some(coords::split_field_coords(problem, &cx.field_coords)),
        diags,
    )
}

/// Orders diagnostics by position and drops exact repeats (a function body inlined twice).
fn finish(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::with_capacity(diags.len());
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    for d in diags {
        // Sorted by span: a repeat lies among the last entries with the same span.
        let repeat = out
            .iter()
            .rev()
            .take_while(|o| o.span == d.span)
            .any(|o| o.code == d.code && o.message == d.message);
        if !repeat {
            out.push(d);
        }
    }
    out
}

/// Added noise never touches a measurement; known noise is only worth stating to a method
/// that models it.
fn check_noise(
    cx: &mut Checker,
    noise: Noise,
    span: Span,
    oracle: Option<&Oracle>,
    method: Option<&Method>,
) {
    if noise.added && matches!(oracle, Some(Oracle::Command(_) | Oracle::External)) {
        cx.error(
            Diagnostic::error(
                "pde::added-noise-on-measurement",
                span,
                match oracle {
                    Some(Oracle::External) => {
                        "`noise added` would add synthetic noise to values measured outside pinnbo"
                    }
                    _ => "`noise added` would add synthetic noise to what the command measured",
                },
            )
            .with_label("synthetic noise")
            .with_help(
                "for the known noise of the measurements write `noise std <level>` (or \
                 `noise variance <level>`): the values are kept as measured and the \
                 Gaussian-process methods take that noise as given",
            ),
        );
    }
    if let Some(m) = method
        .filter(|m| !noise.added && !crate::methods::NOISE_AWARE_METHODS.contains(&m.name.as_str()))
    {
        cx.diags.push(
            Diagnostic::warning(
                "pde::noise-unused",
                span,
                format!(
                    "`{}` does not model observation noise: this known noise changes nothing for it",
                    m.name
                ),
            )
            .with_label("known noise")
            .with_help(format!(
                "the Gaussian-process methods ({}) take it as their noise variance; to add \
                 synthetic noise to a benchmark's values write `noise added ..`",
                crate::methods::NOISE_AWARE_METHODS.join(", ")
            )),
        );
    }
}

/// Statements collected during the second pass.
#[derive(Default)]
pub(crate) struct Partial {
    name: Option<String>,
    pub pdes: Vec<Pde>,
    pub sensors: Vec<Sensors>,
    pub objectives: Vec<Objective>,
    /// Objective statements that had errors.
    failed_objectives: usize,
    reference: Option<(Vec<(Ident, f64)>, Span)>,
    pub constraints: Vec<Constraint>,
    optimum: Option<f64>,
    optimum_span: Option<Span>,
    noise: Option<Noise>,
    noise_span: Option<Span>,
    budget: Option<u64>,
    init: Option<(u64, Design)>,
    init_span: Option<Span>,
    seed: Option<u64>,
    pub oracle_stmt: Option<usize>,
    method_stmt: Option<usize>,
    /// Pde statements that had errors: checks that need the pdes stay quiet about them.
    pub failed_pdes: usize,
}

/// Second pass: everything that is not a declaration.
fn statement(cx: &mut Checker, seen: &mut Seen, p: &mut Partial, index: usize, stmt: &ast::Stmt) {
    match &stmt.kind {
        StmtKind::Pde { lhs, rhs } => {
            let l = cx.lower(Allow::PDE, lhs);
            let r = cx.lower(Allow::PDE, rhs);
            let (Some(lhs), Some(rhs)) = (l, r) else {
                p.failed_pdes += 1;
                return;
            };
            if lhs.fields().is_empty() && rhs.fields().is_empty() {
                cx.error(
                    Diagnostic::error(
                        "pde::pde-without-field",
                        stmt.span,
                        "this pde does not mention any field",
                    )
                    .with_label("no field on either side")
                    .with_help(
                        "a pde constrains a field: declare one with `field u(x)` and use it here",
                    ),
                );
                return;
            }
            p.pdes.push(Pde {
                lhs,
                rhs,
                span: stmt.span,
            });
        }
        StmtKind::Objective { name, sense, expr } => {
            objectives::objective(cx, p, name, *sense, expr, stmt.span);
        }
        StmtKind::Reference(items) => objectives::reference(cx, p, items, stmt.span),
        StmtKind::Constraint {
            label,
            lhs,
            cmp,
            rhs,
        } => {
            let l = cx.lower(Allow::VALUE, lhs);
            let r = cx.lower(Allow::VALUE, rhs);
            let (Some(l), Some(r)) = (l, r) else { return };
            let expr = match cmp {
                Comparison::LessEq => Expr::binary(BinaryOp::Sub, l, r),
                Comparison::GreaterEq => Expr::binary(BinaryOp::Sub, r, l),
            };
            let name = match label {
                Some(l) => {
                    if let Some(first) = p.constraints.iter().find(|c| c.name == l.name) {
                        let first = first.span;
                        cx.error(
                            Diagnostic::error(
                                "pde::duplicate-declaration",
                                l.span,
                                format!("two constraints are named `{}`", l.name),
                            )
                            .with_label("repeated name")
                            .with_related(first, "first here"),
                        );
                    }
                    l.name.clone()
                }
                None => format!("c{}", p.constraints.len() + 1),
            };
            p.constraints.push(Constraint {
                name,
                expr,
                span: stmt.span,
            });
        }
        StmtKind::Optimum(e) => {
            if seen.once(cx, "optimum", stmt.span) {
                p.optimum = cx.constant(e, "the optimum");
                p.optimum_span = Some(stmt.span);
            }
        }
        StmtKind::Budget(e) => {
            if seen.once(cx, "budget", stmt.span) {
                p.budget = cx.count(e, "the budget", 1);
            }
        }
        StmtKind::Init { count, design } => {
            if !seen.once(cx, "init", stmt.span) {
                return;
            }
            let n = cx.count(count, "the initial design size", 1);
            let design = match design.as_ref().map(|d| d.name.as_str()) {
                None | Some("sobol") => Design::Sobol,
                Some("lhs") => Design::Lhs,
                _ => Design::Random,
            };
            p.init = n.map(|n| (n, design));
            p.init_span = Some(stmt.span);
        }
        StmtKind::Seed(e) => {
            if seen.once(cx, "seed", stmt.span) {
                p.seed = cx.count(e, "the seed", 0);
            }
        }
        StmtKind::Noise { added, kind, level } => {
            if !seen.once(cx, "noise", stmt.span) {
                return;
            }
            let level = match level {
                AstNoise::OfRange(f) => Some(NoiseLevel::OfRange(*f)),
                AstNoise::Absolute(e) => cx.constant(e, "the noise level").and_then(|v| {
                    if v < 0.0 {
                        cx.error(
                            Diagnostic::error(
                                "pde::negative-noise",
                                e.span,
                                format!("the noise level must not be negative, found {v}"),
                            )
                            .with_label("negative"),
                        );
                        None
                    } else {
                        Some(NoiseLevel::Absolute(v))
                    }
                }),
            };
            p.noise = level.map(|level| Noise {
                kind: kind.unwrap_or(NoiseKind::Std),
                level,
                added: *added,
            });
            p.noise_span = Some(stmt.span);
        }
        StmtKind::Oracle { .. } => {
            if seen.once(cx, "oracle", stmt.span) {
                p.oracle_stmt = Some(index);
            }
        }
        StmtKind::Method { .. } => {
            if seen.once(cx, "method", stmt.span) {
                p.method_stmt = Some(index);
            }
        }
        StmtKind::Problem(name) => {
            if !is_safe_name(name) {
                cx.error(
                    Diagnostic::error(
                        "pde::unsafe-name",
                        stmt.span,
                        format!("the problem's name {name:?} cannot name a folder"),
                    )
                    .with_label("names output folders and files")
                    .with_help(
                        "use letters, digits, `.`, `_` and `-` (at most 100, starting with a \
                         letter or digit)",
                    ),
                );
            } else if seen.once(cx, "problem", stmt.span) {
                p.name = Some(name.clone());
            }
        }
        StmtKind::Sensors { field, at } => {
            let so_far = p.sensors.iter().map(|s| s.places.len()).sum();
            if let Some(s) = sensors::sensors(cx, field, at, stmt.span, so_far) {
                p.sensors.push(s);
            }
        }
        StmtKind::Var(_)
        | StmtKind::Coord(_)
        | StmtKind::Const(_)
        | StmtKind::Param { .. }
        | StmtKind::Fn { .. }
        | StmtKind::Field { .. } => {}
    }
}

#[cfg(test)]
mod noise_tests {
    use crate::{compile, Source};

    const BASE: &str = "var x in [0, 1]\nfield f(x) = (x - 0.3)^2\nminimize f\n";

    /// Known noise means what it says for every oracle; added noise parses with its kind,
    /// and a method that cannot use known noise is warned about, at the statement.
    #[test]
    fn known_and_added_noise_are_told_apart() {
        let checked = |text: String| compile(&Source::new("t.pde", text)).unwrap();
        let known = checked(format!("{BASE}noise std 0.05\nmethod gp-ei\n"));
        let noise = known.problem.noise.unwrap();
        assert!(!noise.added && known.warnings.is_empty());
        let added = checked(format!("{BASE}noise added variance 1% of range\n"));
        let noise = added.problem.noise.unwrap();
        assert!(noise.added && noise.kind == crate::ir::NoiseKind::Variance);
        let unused = checked(format!("{BASE}noise std 0.05\nmethod neural-bo\n"));
        let codes: Vec<(&str, &str)> = (unused.warnings.iter())
            .map(|w| (w.code, w.message.as_str()))
            .collect();
        assert_eq!(
            codes,
            [(
                "pde::noise-unused",
                "`neural-bo` does not model observation noise: this known noise changes nothing for it"
            )]
        );
        let added_unused = checked(format!("{BASE}noise added std 0.05\nmethod neural-bo\n"));
        assert!(added_unused.warnings.is_empty());
    }
}
