//! A second Ctrl-C (or SIGTERM) exits at once, and ends the commands running then: they run
//! in process groups of their own, which the signal sent to pinnbo does not reach.

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
