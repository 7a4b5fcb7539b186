//! No file is ever written through a link: links planted in an output folder, at the names
//! pinnbo writes under and at the outputs themselves, leave the files they point to as they
//! were.

mod common;
mod support;
use common::pinnbo;
use std::os::unix::fs::symlink;
use std::path::Path;
use support::{scratch, text};

const QUADRATIC: &str = "var x in [0, 1], y in [0, 1]\nminimize (x - 0.3)^2 + (y - 0.6)^2\n\
    budget 6, init 4 sobol\nmethod gp-ei\n";

/// What a run writes besides its journal, and the temporary names it writes them under.
const OUTPUTS: [&str; 6] = [
    "summary.json",
    "history.csv",
    "journal.pde",
    "evaluations.png",
    "convergence.png",
    "surrogate.png",
];

fn partial(name: &str) -> String {
    let (stem, ext) = name.rsplit_once('.').unwrap();
    format!(".{stem}.partial.{ext}")
}

/// A run of `problem.pde` into `out` with `budget` evaluations, which must succeed.
fn start(dir: &Path, budget: &str) {
    let args = [
        "solve",
        "problem.pde",
        "--out",
        "out",
        "--budget",
        budget,
        "--quiet",
    ];
    let started = pinnbo(dir, &args);
    assert!(started.status.success(), "{}", text(&started.stderr));
}

/// The run in `out` resumed to `budget` evaluations.
fn resume(dir: &Path, budget: &str) -> std::process::Output {
    let args = [
        "solve",
        "problem.pde",
        "--resume",
        "out",
        "--budget",
        budget,
        "--quiet",
    ];
    pinnbo(dir, &args)
}

/// Links to `victim` at every output's temporary name in `out`.
fn plant(out: &Path, victim: &Path) {
    std::fs::create_dir_all(out).unwrap();
    for name in OUTPUTS {
        symlink(victim, out.join(partial(name))).unwrap();
    }
}

#[test]
fn a_solve_never_writes_through_a_link_in_its_folder() {
    let dir = scratch("links-solve", QUADRATIC, &[("victim", "precious")]);
    // Planted once the run exists (a folder holding anything else is never taken over).
    start(&dir, "5");
    for name in OUTPUTS.iter().filter(|n| **n != "journal.pde") {
        let _ = std::fs::remove_file(dir.join("out").join(name));
    }
    plant(&dir.join("out"), &dir.join("victim"));
    let run = resume(&dir, "6");
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.join("victim")).unwrap(),
        "precious"
    );
    for name in OUTPUTS {
        let meta = std::fs::symlink_metadata(dir.join("out").join(name)).unwrap();
        assert!(meta.is_file(), "{name} is not a file of its own");
    }
}

#[test]
fn a_journal_that_is_a_link_is_not_resumed() {
    let dir = scratch("links-resume", QUADRATIC, &[]);
    let run = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--out",
            "out",
            "--budget",
            "5",
            "--quiet",
        ],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    std::fs::rename(dir.join("out/journal.jsonl"), dir.join("elsewhere.jsonl")).unwrap();
    symlink(dir.join("elsewhere.jsonl"), dir.join("out/journal.jsonl")).unwrap();
    let before = std::fs::read(dir.join("elsewhere.jsonl")).unwrap();
    let resumed = pinnbo(
        &dir,
        &["solve", "problem.pde", "--resume", "out", "--quiet"],
    );
    assert_eq!(resumed.status.code(), Some(1), "{}", text(&resumed.stderr));
    assert!(
        text(&resumed.stderr).contains("it is a link"),
        "{}",
        text(&resumed.stderr)
    );
    assert_eq!(std::fs::read(dir.join("elsewhere.jsonl")).unwrap(), before);
}

#[test]
fn ask_never_writes_through_a_link_in_its_folder() {
    let text_ =
        "var x in [0, 1]\nfield f(x)\nminimize f\noracle external\nbudget 6\nmethod gp-ei\n";
    let dir = scratch("links-ask", text_, &[("victim", "precious")]);
    let first = pinnbo(&dir, &["ask", "problem.pde", "--out", "out", "-n", "1"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    for name in OUTPUTS.iter().filter(|n| **n != "journal.pde") {
        let _ = std::fs::remove_file(dir.join("out").join(name));
    }
    plant(&dir.join("out"), &dir.join("victim"));
    let asked = pinnbo(&dir, &["ask", "out", "-n", "2"]);
    assert!(asked.status.success(), "{}", text(&asked.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.join("victim")).unwrap(),
        "precious"
    );
}

#[test]
fn a_bench_never_creates_a_file_through_a_link() {
    let dir = scratch("links-bench", QUADRATIC, &[]);
    std::fs::create_dir_all(dir.join("bench")).unwrap();
    symlink(dir.join("elsewhere"), dir.join("bench/bench.lock")).unwrap();
    let run = pinnbo(
        &dir,
        &[
            "bench",
            "problem.pde",
            "--methods",
            "random",
            "--quick",
            "--quiet",
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert!(
        !dir.join("elsewhere").exists(),
        "a file was created through the link"
    );
}

/// A folder link planted inside a bench's --out (where a problem's runs would go) stops
/// those runs with the reason; nothing is written where it points (issue 53, item 6).
#[test]
fn a_bench_never_writes_its_runs_through_a_folder_link() {
    let dir = scratch("links-bench-folder", QUADRATIC, &[]);
    std::fs::create_dir_all(dir.join("bench")).unwrap();
    std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
    symlink(dir.join("elsewhere"), dir.join("bench/problem")).unwrap();
    let run = pinnbo(
        &dir,
        &[
            "bench",
            "problem.pde",
            "--methods",
            "random",
            "--seeds",
            "1",
            "--quick",
        ],
    );
    let err = text(&run.stderr) + &text(&run.stdout);
    assert!(
        err.contains("is a link; a bench writes its runs only"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.join("elsewhere")).unwrap().count(), 0);
}

/// A link planted where the run keeps its saved states (a folder whose files it writes and
/// removes) stops the run (exit 3, what was evaluated journaled); the folder it names is
/// left as it was.
#[test]
fn a_linked_folder_of_saved_states_is_refused() {
    let text_ = "var x in [0, 1]\nminimize (x - 0.3)^2\nbudget 6, init 3 sobol\nmethod gp-ei\n";
    let dir = scratch("links-state", text_, &[]);
    std::fs::create_dir_all(dir.join("victim")).unwrap();
    std::fs::write(dir.join("victim/after-3.bin"), "precious").unwrap();
    // Planted once the run exists (a folder holding anything else is never taken over).
    start(&dir, "3");
    let _ = std::fs::remove_dir_all(dir.join("out/strategy"));
    symlink(dir.join("victim"), dir.join("out/strategy")).unwrap();
    let run = resume(&dir, "6");
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stderr));
    assert!(
        text(&run.stderr).contains("a link where the run's own folder"),
        "{}",
        text(&run.stderr)
    );
    let kept: Vec<_> = std::fs::read_dir(dir.join("victim")).unwrap().collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        std::fs::read_to_string(dir.join("victim/after-3.bin")).unwrap(),
        "precious"
    );
}
