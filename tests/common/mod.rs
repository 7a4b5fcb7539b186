//! What the end-to-end tests of the `pinnbo` binary share.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary in `dir` with colours off.
pub fn pinnbo(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the pinnbo binary runs")
}
