//! `pinnbo methods`: the methods and their settings, printed from the one table the checker
//! and the constructors use (`pinnbo_dsl::methods`).

use crate::exit::Exit;
use pinnbo_dsl::methods::{method, method_names, METHODS};
use std::io::Write;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pinnbo methods\n  pinnbo methods neural-bo\n  \
                        pinnbo methods --markdown"
)]
pub struct Options {
    /// Show this method's settings only.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(method_names()))]
    pub method: Option<String>,
    /// Print the table as docs/dsl.md holds it (Markdown).
    #[arg(long, conflicts_with = "method")]
    pub markdown: bool,
}

pub fn run(o: &Options) -> Exit {
    let text = match &o.method {
        _ if o.markdown => pinnbo_dsl::methods::markdown(),
        None => list(),
        Some(name) => settings(name),
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().write_all(text.as_bytes());
    Exit::Success
}

fn list() -> String {
    let width = METHODS.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for m in METHODS {
        out += &format!("{:width$}  {}\n", m.name, m.summary);
    }
    out + "\nSettings of one method: pinnbo methods <METHOD>\n"
        + &format!("{}\n", pinnbo_core::device::cuda_line())
}

fn settings(name: &str) -> String {
    let m = method(name).expect("clap accepts only the table's names");
    let mut out = format!("{}: {}\n", m.name, m.summary);
    if m.settings().next().is_none() {
        out += "\nno settings\n";
    }
    for s in m.settings() {
        out += &format!(
            "\n  {} ({}; default {})\n      {}\n",
            s.key,
            s.kind.describe(),
            s.default.describe(),
            s.doc
        );
    }
    out
}
