//! The `.pde` problem language.
//!
//! `text --parse--> ast::File --check--> ir::Problem`. The checked [`ir::Problem`] is the API
//! boundary the other pinnbo crates consume. This crate knows nothing of candle or of solvers.
//!
//! ```
//! use pinnbo_dsl::{compile, Source};
//! let src = Source::new("quad.pde", "var x in [-1, 2]\nminimize (x - 1)^2");
//! let problem = compile(&src).expect("valid").problem;
//! let f = problem.closed_form_objective().expect("closed form");
//! assert_eq!(f.eval(&[0.0]), 1.0);
//! ```

pub mod ast;
pub mod builtins;
mod check;
pub mod choices;
pub mod diag;
pub mod diff;
pub mod eval;
mod excerpt;
pub mod functional;
pub mod ir;
pub mod methods;
pub mod operators;
pub mod oracles;
pub mod parse;
pub mod source;
pub mod spec;

pub use diag::{render, Diagnostic, Severity, Style};
pub use eval::{CompileError, Compiled};
pub use functional::FieldReader;
pub use ir::Problem;
pub use methods::{method, method_names, MethodInfo, METHODS};
pub use operators::{OperatorSignature, Operators};
pub use source::{Source, Span};

use std::path::Path;

/// A checked problem and the warnings found on the way.
#[derive(Debug)]
pub struct Checked {
    pub problem: Problem,
    pub warnings: Vec<Diagnostic>,
}

/// A file that did not check: every diagnostic found, errors and warnings, in source order.
#[derive(Debug, thiserror::Error)]
#[error("{} error(s) in {}", self.error_count(), self.file.name())]
pub struct Failed {
    pub file: Source,
    pub diagnostics: Vec<Diagnostic>,
}

impl Failed {
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub fn render(&self, style: Style) -> String {
        render(&self.file, &self.diagnostics, style)
    }
}

/// Parses and checks a source with the built-in operators only.
pub fn compile(source: &Source) -> Result<Checked, Failed> {
    compile_with(source, &Operators::default())
}

/// Stack for parsing and checking: the passes are recursive over expression trees, whose
/// depth the parser bounds; this leaves ample room whatever thread calls in.
const COMPILE_STACK: usize = 256 << 20;

/// Parses and checks a source, accepting the extra operators in `operators`.
pub fn compile_with(source: &Source, operators: &Operators) -> Result<Checked, Failed> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("pinnbo-dsl".into())
            .stack_size(COMPILE_STACK)
            .spawn_scoped(scope, || compile_here(source, operators))
            .expect("spawning the compiler thread")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn compile_here(source: &Source, operators: &Operators) -> Result<Checked, Failed> {
    let (file, mut diagnostics) = parse::parse(source);
    let complete = diagnostics.is_empty();
    let (problem, check_diags) = check::check(source, &file, operators, complete);
    diagnostics.extend(check_diags);
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    match problem {
        Some(problem) if !diagnostics.iter().any(Diagnostic::is_error) => Ok(Checked {
            problem,
            warnings: diagnostics,
        }),
        _ => Err(Failed {
            file: source.clone(),
            diagnostics,
        }),
    }
}

/// Why a file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Invalid(#[from] Failed),
}

/// Reads, parses and checks a `.pde` file.
pub fn load(path: &Path) -> Result<Checked, LoadError> {
    Ok(compile(&read(path)?)?)
}

/// Reads a `.pde` file. A file that is not UTF-8 fails with a diagnostic at its first invalid
/// byte.
pub fn read(path: &Path) -> Result<Source, LoadError> {
    let name = path.display().to_string();
    let bytes =
        source::read_bounded(path, source::MAX_PROBLEM_BYTES).map_err(|source| LoadError::Io {
            path: name.clone(),
            source,
        })?;
    let invalid = match String::from_utf8(bytes) {
        Ok(text) => return Ok(Source::new(name, text)),
        Err(invalid) => invalid,
    };
    let at = invalid.utf8_error().valid_up_to();
    let byte = invalid.as_bytes()[at];
    let shown = String::from_utf8_lossy(invalid.as_bytes()).into_owned();
    let file = Source::new(name, shown.as_str());
    // The shown text has U+FFFD (three bytes) in place of the byte; a dropped byte-order mark
    // moves it.
    let at = at - (shown.len() - file.text().len());
    let diagnostic = Diagnostic::error(
        "pde::not-utf8",
        Span::new(at, at + '\u{fffd}'.len_utf8()),
        format!("the file is not UTF-8: byte 0x{byte:02X} here cannot be read as text"),
    )
    .with_label("not UTF-8")
    .with_help("save the file as UTF-8");
    Err(LoadError::Invalid(Failed {
        file,
        diagnostics: vec![diagnostic],
    }))
}

impl Problem {
    /// An expression with closed-form fields substituted and derivatives expanded, ready to
    /// compile; fails if it needs a field without a closed form.
    pub fn closed_form(&self, expr: &ir::Expr) -> Result<Compiled, CompileError> {
        let e = self.substitute_definitions(expr);
        if let Some(&id) = e.fields().first() {
            return Err(CompileError::UnknownField(self.fields[id].name.clone()));
        }
        // Each functional becomes an input after the design's, read at every point.
        let functionals = e.functionals();
        let readers = (functionals.iter())
            .map(|f| self.field_reader(f))
            .collect::<Result<Vec<_>, _>>()?;
        let e = e.replace_functionals(&|f| {
            let k = functionals.iter().position(|g| g == f)?;
            Some(ir::Expr::Coord(self.dim() + k))
        });
        let e = diff::expand(&e).ok_or(CompileError::Derivative)?;
        let readers = (readers.into_iter())
            .map(|r| std::sync::Arc::new(r) as std::sync::Arc<dyn eval::Reader>)
            .collect::<Vec<_>>();
        Ok(Compiled::new(&e, self.dim() + readers.len())?.with_readers(readers))
    }

    /// A reader of a functional of a field with a closed form.
    pub fn field_reader(&self, f: &ir::Functional) -> Result<FieldReader, CompileError> {
        let field = &self.fields[f.field];
        let Some(definition) = &field.definition else {
            return Err(CompileError::UnknownField(field.name.clone()));
        };
        let definition = self.substitute_definitions(definition);
        if let Some(&id) = definition.fields().first() {
            return Err(CompileError::UnknownField(self.fields[id].name.clone()));
        }
        let definition = diff::expand(&definition).ok_or(CompileError::Derivative)?;
        let all = self.dim() + self.field_coords.len();
        let compiled = Compiled::new(&definition, all)?;
        let over: Vec<(ir::CoordId, f64, f64)> = (f.over.iter())
            .map(|&c| (c, self.coordinate(c).lo, self.coordinate(c).hi))
            .collect();
        Ok(FieldReader::new(compiled, f.reduce, &over, f.at.clone()))
    }

    /// Readers of every sensor value an evaluation measures, in [`Problem::sensor_names`]'
    /// order; an error for a field without a closed form.
    pub fn sensor_readers(&self) -> Result<Vec<FieldReader>, CompileError> {
        (self.sensor_functionals().iter())
            .map(|f| self.field_reader(f))
            .collect()
    }

    /// Each sensor value as the field's value at its place, in `sensor_names`' order.
    pub fn sensor_functionals(&self) -> Vec<ir::Functional> {
        (self.sensors.iter())
            .flat_map(|s| {
                s.places.iter().map(move |place| ir::Functional {
                    field: s.field,
                    reduce: ir::Reduce::Point,
                    over: Vec::new(),
                    at: s
                        .coords
                        .iter()
                        .copied()
                        .zip(place.iter().copied())
                        .collect(),
                })
            })
            .collect()
    }

    /// The objective as written in the file (not negated for `maximize`).
    pub fn closed_form_objective(&self) -> Result<Compiled, CompileError> {
        self.closed_form(&self.objective.expr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Expr;

    const ADVECTION: &str =
        "var x in [0, 1], t in [0, 1]\nfield u(x, t)\npde advect(u) = 0\nminimize u\n\
                             oracle command \"./measure {x} {t}\"";

    #[test]
    fn registered_operators_are_accepted_and_kept_for_the_residual_compiler() {
        let src = Source::new("adv.pde", ADVECTION);
        let failed = compile(&src).expect_err("advect is unknown by default");
        assert_eq!(failed.diagnostics[0].code, "pde::unknown-function");

        let mut ops = Operators::new();
        let sig = OperatorSignature {
            name: "advect".into(),
            arity: 1,
            order: 1,
            summary: "u_t + u_x".into(),
        };
        ops.register(sig.clone()).unwrap();
        assert!(ops.register(sig).is_err(), "duplicates are refused");
        let problem = compile_with(&src, &ops)
            .expect("valid with the operator")
            .problem;
        assert!(
            matches!(&problem.pdes[0].lhs, Expr::Operator { name, args } if name == "advect" && args.len() == 1)
        );

        let reserved = OperatorSignature {
            name: "grad".into(),
            arity: 1,
            order: 1,
            summary: String::new(),
        };
        assert!(matches!(
            ops.register(reserved),
            Err(operators::RegisterError::Reserved(_))
        ));
    }

    #[test]
    fn expressions_display_with_the_problems_names() {
        let text =
            "var x in [0, 1], y[2] in [0, 1]\nfield u(x, y)\npde dxx(u) + 2*d(u, y[2]) = -sin(x)\n\
                    minimize u\noracle command \"./m {x} {y[1]} {y[2]}\"";
        let p = compile(&Source::new("d.pde", text)).expect("valid").problem;
        assert_eq!(
            p.display(&p.pdes[0].lhs).to_string(),
            "(d(d(u, x), x) + (2 * d(u, y[2])))"
        );
        assert_eq!(p.display(&p.pdes[0].rhs).to_string(), "-(sin(x))");
    }
}
