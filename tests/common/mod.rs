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

/// A process's output as text.
#[allow(dead_code)] // not every test file reads output as text
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh, empty folder for one test under the test build's own temporary folder.
#[allow(dead_code)] // not every test file needs one
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
