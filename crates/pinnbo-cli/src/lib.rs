//! The `pinnbo` command line: argument parsing, IO and exit codes. The work is done by the
//! library crates; this crate only connects them to files and terminals.
//!
//! Exit codes: 0 success; 1 a file is invalid or a command failed on its input;
//! 2 the command line itself is wrong (clap's usage errors, a malformed flag value, an unknown
//! or unavailable method); 3 `solve` stopped early (too many failed evaluations, a method
//! error), with everything computed so far journaled and summarized.

mod bench_cmd;
mod check_cmd;
mod eval_cmd;
mod fdm_cmd;
pub mod formats;
pub mod plot;
mod solve_cmd;
mod threads;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Physics-informed black-box optimization.
#[derive(Debug, Parser)]
#[command(name = "pinnbo", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Never colour the output (also: the NO_COLOR environment variable).
    #[arg(long, global = true)]
    pub no_color: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse and check .pde files; report every problem found with its location.
    Check {
        /// The files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print nothing for valid files.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Evaluate a closed-form problem at a point: objective, constraints, pde right-hand sides.
    Eval {
        /// The problem file.
        file: PathBuf,
        /// The point: `x=0.3,y=1`; vector variables as `x=[1,2,3]`, `x[2]=0.5`, or `x=0.5` for all.
        #[arg(long)]
        at: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Solve a problem's `oracle fdm` block alone: report the field's minimum and maximum and
    /// where they are, and write the field as CSV and a picture.
    Fdm {
        /// The problem file.
        file: PathBuf,
        /// Where to write `<field>.csv` and the picture [default: ./<problem>-fdm].
        #[arg(long)]
        out: Option<PathBuf>,
        /// The picture's format.
        #[arg(long, value_enum, default_value = "png")]
        format: fdm_cmd::Format,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Optimize a problem: journaled, resumable; writes summary.json, history.csv and a plot.
    Solve {
        file: PathBuf,
        /// One of pinn-bo, neural-bo, neural-cbo, neural-greedy, gp-ei, gp-ucb, gp-ts, random
        /// (default: the file's `method`, else gp-ei).
        #[arg(long)]
        method: Option<String>,
        #[arg(long)]
        seed: Option<u64>,
        /// Total evaluations, the initial design included.
        #[arg(long)]
        budget: Option<usize>,
        /// Output folder (default ./<problem>-<method>-seed<seed>, or with -2, -3, .. appended
        /// when that holds a run already).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Continue the run journaled in this folder.
        #[arg(long, conflicts_with = "out")]
        resume: Option<PathBuf>,
        /// Let an `oracle command` run its program.
        #[arg(long)]
        allow_exec: bool,
        #[arg(long, short, conflicts_with = "json")]
        quiet: bool,
        /// Print the summary as JSON (no progress bar).
        #[arg(long)]
        json: bool,
    },
    /// Compare methods: every (problem, method, seed) run journaled under --out (re-running
    /// continues unfinished runs and reuses finished ones); writes results.csv, a regret plot
    /// per problem, one-sided Welch t-tests with Benjamini–Hochberg (stats.csv) and report.md.
    Bench(bench_cmd::Options),
}

/// How diagnostics are drawn on this terminal.
pub(crate) fn style(no_color: bool) -> pinnbo_dsl::Style {
    let color =
        !no_color && std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal();
    if color {
        pinnbo_dsl::Style::Color
    } else {
        pinnbo_dsl::Style::Plain
    }
}

/// Loads and checks a problem file, printing its diagnostics (or the read error) on failure.
pub(crate) fn load_or_report(
    path: &std::path::Path,
    style: pinnbo_dsl::Style,
) -> Option<pinnbo_dsl::Checked> {
    match pinnbo_dsl::load(path) {
        Ok(checked) => Some(checked),
        Err(pinnbo_dsl::LoadError::Invalid(failed)) => {
            eprint!("{}", failed.render(style));
            eprintln!("error: {failed}");
            None
        }
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

/// Runs the command line; returns the process exit code. It fixes the thread counts in the
/// environment first (`threads`), so call it from `main` before starting other threads.
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> ExitCode {
    threads::fix_defaults();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let style = style(cli.no_color);
    match cli.command {
        Command::Check { files, quiet } => check_cmd::run(&files, quiet, style),
        // Parsed here rather than by clap so the error can underline the offending column.
        Command::Eval { file, at, json } => match formats::point(&at) {
            Ok(point) => eval_cmd::run(&file, &point, json, style),
            Err(e) => {
                eprint!("{}", e.render(style));
                ExitCode::from(2)
            }
        },
        Command::Fdm {
            file,
            out,
            format,
            json,
        } => fdm_cmd::run(&file, &fdm_cmd::Options { out, format, json }, style),
        Command::Solve {
            file,
            method,
            seed,
            budget,
            out,
            resume,
            allow_exec,
            quiet,
            json,
        } => solve_cmd::run(
            &file,
            &solve_cmd::Options {
                method,
                seed,
                budget,
                out,
                resume,
                allow_exec,
                quiet,
                json,
            },
            style,
        ),
        Command::Bench(options) => bench_cmd::run(&options, style),
    }
}
