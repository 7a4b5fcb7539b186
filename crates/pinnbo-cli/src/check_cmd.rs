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

/// One line describing a valid problem.
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
        plural(p.constraints.len(), "constraint"),
        sense.to_string(),
        format!("oracle {oracle}"),
    ];
    if let Some(m) = &p.method {
        parts.push(format!("method {}", m.name));
    }
    format!("{} ({}): {}", p.source.name(), p.name, parts.join(", "))
}
