//! A second Ctrl-C (or SIGTERM) exits at once, and ends the commands running then: they run
//! in process groups of their own, which the signal sent to pinnbo does not reach.

mod common;
mod support;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{scratch, text};

const PROBLEM: &str = "var x in [0, 1]\nfield f(x)\nminimize f\n\
    oracle command \"sh ./long.sh {x}\"\nbudget 4, init 4 sobol\nmethod random\n";
const LONG: &str = "#!/bin/sh\nif [ -f fast ]; then echo 1; exit 0; fi\n\
    sleep 60 &\necho $! >> sleeps\nwait\necho 1\n";

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
}

#[test]
fn a_second_signal_during_parallel_evaluations_ends_the_commands() {
    let dir = scratch("signals-parallel", PROBLEM, &[("long.sh", LONG)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args([
            "solve",
            "problem.pde",
            "--allow-exec",
            "--parallel",
            "2",
            "--out",
            "run",
        ])
        .arg("--quiet")
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sleeps = dir.join("sleeps");
    assert!(
        common::wait_for_lines(&sleeps, 2, Duration::from_secs(30)),
        "the commands never started"
    );
    for _ in 0..2 {
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        std::thread::sleep(Duration::from_millis(200));
    }
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    // The signal's exit; the commands it ended measured nothing and report nothing.
    assert_eq!(status.code(), Some(143), "{}", text(err.as_bytes()));
    std::thread::sleep(Duration::from_millis(100));
    for pid in std::fs::read_to_string(&sleeps).unwrap().lines() {
        assert!(!alive(pid), "the command's sleep {pid} outlived pinnbo");
    }
    // Their points stay pending, not failed (issue 53, item 2): a resume evaluates them.
    assert!(support::records(&dir.join("run")).is_empty());
    std::fs::write(dir.join("fast"), "").unwrap();
    let resumed = Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args([
            "solve",
            "--resume",
            "run",
            "--allow-exec",
            "--parallel",
            "2",
            "--quiet",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let records = support::records(&dir.join("run"));
    assert_eq!(records.len(), 4);
    assert!(
        records.iter().all(|r| r["failure"].is_null()),
        "{records:?}"
    );
}

/// A 2-D field under Laplace's equation fitted by physics-gp at 3,000 residual rows (a fit
/// of minutes), four evaluations of design and a budget of `budget`.
fn long_fit(budget: usize) -> String {
    format!(
        "var x in [0, 1], y in [0, 1]\nfield f(x, y) = sin(3*x)*exp(-3*y)\n\
         pde laplacian(f) = 0\nminimize f\nbudget {budget}, init 4 sobol\n\
         method physics-gp {{ residual_points 3000 }}\n"
    )
}

/// Solves `problem` in a scratch folder `name` and sends one SIGTERM two seconds after the
/// design's four evaluations are journaled; the exit status and stderr, once it ended (at
/// most `limit` after the signal), and the folder.
fn signalled_after_the_design(
    name: &str,
    problem: &str,
    limit: Duration,
) -> (std::process::ExitStatus, String, std::path::PathBuf) {
    let dir = scratch(name, problem, &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args(["solve", "problem.pde", "--out", "run", "--quiet"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let journal = dir.join("run/journal.jsonl");
    // The header and four records.
    assert!(
        common::wait_for_lines(&journal, 5, Duration::from_secs(120)),
        "the design was never journaled"
    );
    std::thread::sleep(Duration::from_secs(2));
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > limit {
            child.kill().unwrap();
            panic!("still running {limit:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    (status, err, dir)
}

/// A signal during a long fit ends the run at the fit's next iteration, not once the step is
/// done (issue 53, item 8): the step is not journaled, the four evaluations before it are,
/// and the run can be resumed. The fit takes minutes; the stop, one evaluation of its
/// likelihood.
#[test]
fn a_signal_during_a_long_fit_ends_the_run_without_the_step() {
    let (status, err, dir) =
        signalled_after_the_design("signals-long-fit", &long_fit(6), Duration::from_secs(120));
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(
        err.contains("error: interrupted by a signal after 4 evaluations"),
        "{err}"
    );
    assert_eq!(support::records(&dir.join("run")).len(), 4);
}

/// Once the run is journaled and its outputs are being written (here the surrogate's
/// picture, whose fit takes minutes), a signal ends `solve` at once (issue 53, item 9): the
/// signal's exit, a note that the journal is whole and how to write the outputs again.
#[test]
fn a_signal_while_the_outputs_are_written_ends_solve_at_once() {
    let (status, err, dir) =
        signalled_after_the_design("signals-outputs", &long_fit(4), Duration::from_secs(60));
    assert_eq!(status.code(), Some(143), "{err}");
    assert!(
        err.contains(
            "note: stopped while writing the outputs; the journal is whole: \
             `pinnbo solve --resume run` writes them again"
        ),
        "{err}"
    );
    assert_eq!(support::records(&dir.join("run")).len(), 4);
}
