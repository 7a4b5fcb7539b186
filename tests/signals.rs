//! A second Ctrl-C (or SIGTERM) exits at once, and ends the commands running then: they run
//! in process groups of their own, which the signal sent to pinnbo does not reach.

mod support;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{scratch, text};

const PROBLEM: &str = "var x in [0, 1]\nfield f(x)\nminimize f\n\
    oracle command \"sh ./long.sh {x}\"\nbudget 4, init 4 sobol\nmethod random\n";
const LONG: &str = "#!/bin/sh\nsleep 60 &\necho $! >> sleeps\nwait\necho 1\n";

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
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&sleeps).map_or(0, |t| t.lines().count()) < 2 {
        assert!(Instant::now() < deadline, "the commands never started");
        std::thread::sleep(Duration::from_millis(20));
    }
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
    // Ending the commands ends their evaluations: the run may stop cleanly (3, its outputs
    // written) before the signal's exit (143) comes; either way nothing is left running.
    assert!(
        matches!(status.code(), Some(143 | 3)),
        "{:?}: {}",
        status.code(),
        text(err.as_bytes())
    );
    std::thread::sleep(Duration::from_millis(100));
    for pid in std::fs::read_to_string(&sleeps).unwrap().lines() {
        assert!(!alive(pid), "the command's sleep {pid} outlived pinnbo");
    }
}
