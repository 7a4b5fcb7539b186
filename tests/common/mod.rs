//! What the end-to-end tests of the `pinnbo` binary share.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary in `dir` with colours off.
#[allow(dead_code)] // not every test file runs it this way
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

/// Waits until the file at `path` holds at least `lines` lines (a journal a running process
/// writes), polling; false when `within` passes first.
#[allow(dead_code)] // not every test file follows a running process
pub fn wait_for_lines(path: &Path, lines: usize, within: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + within;
    loop {
        if std::fs::read_to_string(path).map_or(0, |t| t.lines().count()) >= lines {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A fresh, empty folder for one test under the test build's own temporary folder.
#[allow(dead_code)] // not every test file needs one
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
