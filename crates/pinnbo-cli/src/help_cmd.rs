//! `pinnbo completions` and `pinnbo man`: generated from the same clap declarations as the
//! parser, so they cannot disagree with it.

use crate::exit::Exit;
use crate::Cli;
use clap::CommandFactory;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pinnbo completions bash > ~/.local/share/bash-completion/completions/pinnbo\n  \
                        pinnbo completions zsh > ~/.zfunc/_pinnbo"
)]
pub struct Completions {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  pinnbo man --out man && man -l man/pinnbo-solve.1")]
pub struct Man {
    /// The folder for `pinnbo.1` and one `pinnbo-<command>.1` per command (created).
    #[arg(long, default_value = "man")]
    pub out: PathBuf,
}

pub fn completions(o: &Completions) -> Exit {
    let mut command = Cli::command();
    clap_complete::generate(o.shell, &mut command, "pinnbo", &mut std::io::stdout());
    Exit::Success
}

pub fn man(o: &Man) -> Exit {
    let written = std::fs::create_dir_all(&o.out)
        .and_then(|()| clap_mangen::generate_to(Cli::command(), &o.out));
    match written {
        Ok(()) => {
            println!("manual pages written to {}", o.out.display());
            Exit::Success
        }
        Err(e) => {
            eprintln!("error: {}: {e}", o.out.display());
            Exit::Invalid
        }
    }
}
