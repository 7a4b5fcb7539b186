//! The `pinnbo` command line: argument parsing, IO and exit codes. The work is done by the
//! library crates; this crate only connects them to files and terminals. Each subcommand is a
//! module with its flags (`Options`, declared once with `clap::Args`) and its `run`; exit codes
//! are named in [`exit::Exit`].

mod ask_tell_cmd;
mod bench_cmd;
mod check_cmd;
mod eval_cmd;
pub mod exit;
mod fdm_cmd;
pub mod formats;
mod help_cmd;
mod methods_cmd;
mod predict_cmd;
mod solve_cmd;
mod solve_report;
mod threads;

use clap::{Parser, Subcommand};
use exit::Exit;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Physics-informed black-box optimization.
#[derive(Debug, Parser)]
#[command(
    name = "pinnbo",
    version = VERSION,
    about,
    long_about = None,
    propagate_version = true,
    after_help = "Exit codes: 0 success; 1 an invalid file or a failure on its input; 2 a wrong \
                  command line; 3 a run stopped early or every evaluation failed (its \
                  evaluations are journaled)."
)]
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
    Check(check_cmd::Options),
    /// Evaluate a closed-form problem at a point: objective, constraints, pde right-hand sides.
    Eval(eval_cmd::Options),
    /// Solve a problem's `oracle fdm` block alone: report the field's minimum and maximum and
    /// where they are, and write the field as CSV and a picture.
    Fdm(fdm_cmd::Options),
    /// Optimize a problem: journaled, resumable; writes summary.json, history.csv and a plot.
    Solve(solve_cmd::Options),
    /// Hand out the next points of a run whose evaluations are made elsewhere, journaled as
    /// pending (starting the run from a problem file, or continuing one).
    Ask(ask_tell_cmd::AskOptions),
    /// Record what a point asked with `pinnbo ask` gave (or a point evaluated unasked).
    Tell(ask_tell_cmd::TellOptions),
    /// What a run's model says at points: the objective's and each constraint's mean and
    /// standard deviation, and the pde's constants as last estimated (nothing is evaluated).
    Predict(predict_cmd::Options),
    /// Compare methods: every (problem, method, seed) run journaled under --out (re-running
    /// continues unfinished runs and reuses finished ones); writes results.csv, a regret plot
    /// per problem, one-sided Welch and paired signed-rank tests with Benjamini–Hochberg
    /// (stats.csv) and report.md.
    Bench(bench_cmd::Options),
    /// List the methods, or one method's settings with their values, defaults and meaning.
    Methods(methods_cmd::Options),
    /// Print a shell's completion script for pinnbo.
    Completions(help_cmd::Completions),
    /// Write pinnbo's manual pages (roff), one per command.
    Man(help_cmd::Man),
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

/// `--device`: where the methods that train networks train them (docs/gpu.md).
#[derive(Debug, Clone, clap::Args)]
pub struct DeviceArg {
    /// Train the method's networks on this device, whatever the file's `device` says
    /// (neural-bo, neural-cbo, neural-greedy, pinn-bo; `cuda` needs a CUDA build).
    #[arg(long, value_name = "DEVICE", value_parser = clap::builder::PossibleValuesParser::new(
        <pinnbo_core::device::Hardware as pinnbo_dsl::choices::Choice>::NAMES
    ))]
    pub device: Option<String>,
}

impl DeviceArg {
    pub fn hardware(&self) -> Option<pinnbo_core::device::Hardware> {
        use pinnbo_dsl::choices::Choice;
        let name = self.device.as_deref()?;
        Some(pinnbo_core::device::Hardware::from_name(name).expect("clap offers only the names"))
    }
}

/// `--version`: the version and whether CUDA is compiled in.
#[cfg(feature = "cuda")]
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (CUDA compiled in)");
#[cfg(not(feature = "cuda"))]
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (CPU only: built without CUDA)");

/// How often a progress bar redraws between evaluations: its clock and spinner move on their
/// own, so an hour-long evaluation does not look like a hang.
pub(crate) const STEADY_TICK: std::time::Duration = std::time::Duration::from_millis(250);

/// Loads and checks a problem file, printing its warnings (a setting without effect, known
/// noise a method ignores) on stderr, or its diagnostics (or the read error) on failure.
pub(crate) fn load_or_report(
    path: &std::path::Path,
    style: pinnbo_dsl::Style,
) -> Option<pinnbo_dsl::Checked> {
    checked_or_report(pinnbo_dsl::load(path), style)
}

/// [`load_or_report`] for a problem's text already read.
pub(crate) fn compile_or_report(
    source: &pinnbo_dsl::Source,
    style: pinnbo_dsl::Style,
) -> Option<pinnbo_dsl::Checked> {
    checked_or_report(pinnbo_dsl::compile(source).map_err(Into::into), style)
}

fn checked_or_report(
    loaded: Result<pinnbo_dsl::Checked, pinnbo_dsl::LoadError>,
    style: pinnbo_dsl::Style,
) -> Option<pinnbo_dsl::Checked> {
    match loaded {
        Ok(checked) => {
            if !checked.warnings.is_empty() {
                let source = &checked.problem.source;
                eprint!("{}", pinnbo_dsl::render(source, &checked.warnings, style));
            }
            Some(checked)
        }
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
            return if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Success
            }
            .into();
        }
    };
    let style = style(cli.no_color);
    match &cli.command {
        Command::Check(o) => check_cmd::run(o, style),
        Command::Eval(o) => eval_cmd::run(o, style),
        Command::Fdm(o) => fdm_cmd::run(o, style),
        Command::Solve(o) => solve_cmd::run(o, style),
        Command::Bench(o) => bench_cmd::run(o, style),
        Command::Ask(o) => ask_tell_cmd::ask(o, style),
        Command::Tell(o) => ask_tell_cmd::tell(o, style),
        Command::Predict(o) => predict_cmd::run(o, style),
        Command::Methods(o) => methods_cmd::run(o),
        Command::Completions(o) => help_cmd::completions(o),
        Command::Man(o) => help_cmd::man(o),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every subcommand and every argument says what it is, and every subcommand shows an
    /// example, so `--help`, the completions and the manual pages are complete.
    #[test]
    fn every_argument_is_described_and_every_command_has_an_example() {
        let cli = Cli::command();
        cli.clone().debug_assert();
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            assert!(sub.get_about().is_some(), "`{name}` has no description");
            let after = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                after.contains(&format!("pinnbo {name}")),
                "`{name}` shows no example"
            );
            for arg in sub.get_arguments() {
                if arg.get_id() == "help" || arg.get_id() == "version" {
                    continue;
                }
                assert!(
                    arg.get_help().is_some(),
                    "`{name} {}` has no description",
                    arg.get_id()
                );
            }
        }
    }

    #[test]
    fn exit_codes_are_the_documented_numbers() {
        let codes = [Exit::Success, Exit::Invalid, Exit::Usage, Exit::Stopped].map(|e| e as u8);
        assert_eq!(codes, [0, 1, 2, 3]);
    }
}
