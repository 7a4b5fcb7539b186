//! `pinnbo check`.

use crate::exit::Exit;
use pinnbo_dsl::ir::{Oracle, Sense};
use pinnbo_dsl::{LoadError, Problem, Style};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  pinnbo check problems/*.pde")]
pub struct Options {
    /// The files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print nothing for valid files.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(o: &Options, style: Style) -> Exit {
    let (files, quiet) = (&o.files, o.quiet);
    let mut failed = 0;
    for path in files {
        match pinnbo_dsl::load(path) {
            Ok(checked) => {
                if !checked.warnings.is_empty() {
                    eprint!(
                        "{}",
                        pinnbo_dsl::render(&checked.problem.source, &checked.warnings, style)
                    );
                }
                if let Some(refused) = method_refusal(&checked.problem) {
                    failed += 1;
                    eprint!(
                        "{}",
                        pinnbo_dsl::render(&checked.problem.source, &[refused], style)
                    );
                    eprintln!("error: 1 error(s) in {}", path.display());
                    continue;
                }
                if !quiet {
                    println!("ok: {}", summary(&checked.problem));
                }
            }
            Err(LoadError::Invalid(failed_file)) => {
                failed += 1;
                eprint!("{}", failed_file.render(style));
                eprintln!("error: {}", failed_file);
            }
            Err(e @ LoadError::Io { .. }) => {
                failed += 1;
                eprintln!("error: {e}");
            }
        }
    }
    if failed > 0 {
        if files.len() > 1 {
            eprintln!("{failed} of {} files failed", files.len());
        }
        Exit::Invalid
    } else {
        Exit::Success
    }
}

/// What `solve` would refuse about the file's method (its own, or the one it would choose)
/// on this problem, as a diagnostic at the `method` statement (or the objective without
/// one): `check` says what `solve` will say.
fn method_refusal(problem: &Problem) -> Option<pinnbo_dsl::Diagnostic> {
    let method = pinnbo_core::run::RunConfig::from_problem(problem).method;
    let refused = pinnbo_core::strategies::registry::strategy(problem, &method, 0).err()?;
    let (span, label) = match &problem.method {
        Some(m) => (m.span, "this method"),
        None => (
            problem.objective.span,
            "the default method for this objective",
        ),
    };
    Some(
        pinnbo_dsl::Diagnostic::error(
            "pde::method-unfit",
            span,
            format!("`{method}` cannot run this problem: {refused}"),
        )
        .with_label(label)
        .with_help("`pinnbo methods` lists the methods and what each takes"),
    )
}

/// One line describing a valid problem.
/// Which constraints pinnbo computes from the variables and which are measured:
/// ` (known: spend; measured: cooling, purity)`, empty without constraints.
fn constraint_kinds(p: &Problem) -> String {
    let names = |known: bool| {
        (p.constraints.iter())
            .filter(|c| c.is_known() == known)
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let kinds: Vec<String> = [("known", names(true)), ("measured", names(false))]
        .into_iter()
        .filter(|(_, n)| !n.is_empty())
        .map(|(kind, n)| format!("{kind}: {n}"))
        .collect();
    match kinds.is_empty() {
        true => String::new(),
        false => format!(" ({})", kinds.join("; ")),
    }
}

fn summary(p: &Problem) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let sense = match p.objective.sense {
        Sense::Minimize => "minimize",
        Sense::Maximize => "maximize",
    };
    let oracle = match &p.oracle {
        Oracle::ClosedForm => "closed form",
        Oracle::External => "external (pinnbo ask/tell)",
        Oracle::Fdm(_) => "fdm",
        Oracle::Command(_) => "command",
    };
    let mut parts = vec![
        plural(p.dim(), "variable"),
        plural(p.fields.len(), "field"),
        plural(p.pdes.len(), "pde"),
        plural(p.constraints.len(), "constraint") + &constraint_kinds(p),
        sense.to_string(),
        format!("oracle {oracle}"),
    ];
    if let Some(m) = &p.method {
        parts.push(format!("method {}", m.name));
    }
    format!("{} ({}): {}", p.source.name(), p.name, parts.join(", "))
}
