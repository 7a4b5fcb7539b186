//! `pinnbo methods`: the methods and their settings, printed from the one table the checker
//! and the constructors use (`pinnbo_dsl::methods`).

use crate::exit::Exit;
use pinnbo_dsl::methods::{method, method_names, METHODS};

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
    if o.markdown {
        print!("{}", pinnbo_dsl::methods::markdown());
        return Exit::Success;
    }
    let Some(name) = &o.method else {
        let width = METHODS.iter().map(|m| m.name.len()).max().unwrap_or(0);
        for m in METHODS {
            println!("{:width$}  {}", m.name, m.summary);
        }
        println!("\nSettings of one method: pinnbo methods <METHOD>");
        return Exit::Success;
    };
    let m = method(name).expect("clap accepts only the table's names");
    println!("{}: {}", m.name, m.summary);
    if m.settings().next().is_none() {
        println!("\nno settings");
    }
    for s in m.settings() {
        println!(
            "\n  {} ({}; default {})",
            s.key,
            s.kind.describe(),
            s.default.describe()
        );
        println!("      {}", s.doc);
    }
    Exit::Success
}
