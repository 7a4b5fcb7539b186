//! End-to-end tests of a run interrupted and continued: killed between evaluations or
//! stopped by a signal, every method resumes to the trajectory it would have had, nothing
//! lost or repeated; a journal that no longer fits its header or problem is refused.

mod common;
mod support;
use common::pinnbo;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{records, scratch, text, SLOW, SLOW_SH};

#[test]
fn a_killed_run_resumes_to_the_same_trajectory_with_nothing_lost_or_repeated() {
    killed_and_resumed("solve-resume", "method gp-ei\n");
}

/// NeuralBO warm-started from the previous step's network: a stateful strategy whose
/// network is saved with the journal and read back on resume.
#[test]
fn a_killed_warm_started_run_resumes_to_the_same_trajectory() {
    killed_and_resumed(
        "solve-resume-warm",
        "method neural-bo { width 16, steps 20, start previous, warm_steps 5, candidates 64 }\n",
    );
    let saved: Vec<String> = std::fs::read_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("solve-resume-warm/cut/strategy"),
    )
    .unwrap()
    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
    .collect();
    assert!(
        saved.contains(&"after-9.bin".to_string()) && saved.len() == 2,
        "{saved:?}"
    );

    // A journal whose last proposal's network is gone cannot continue exactly: it says so.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("solve-resume-warm");
    let journal = std::fs::read_to_string(dir.join("whole/journal.jsonl")).unwrap();
    let first_step: Vec<&str> = journal.lines().take(5).collect();
    std::fs::create_dir_all(dir.join("lost")).unwrap();
    std::fs::write(dir.join("lost/journal.jsonl"), first_step.join("\n") + "\n").unwrap();
    let refused = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--resume",
            "lost",
            "--quiet",
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "error: lost/strategy/after-3.bin: cannot continue the run exactly: NeuralBO: it is \
         missing, and `start previous` trains on from the network saved there\n"
    );
}

/// The physics-informed GP starts each fit from the previous step's hyperparameters, saved
/// with the journal: a killed run resumes to the same trajectory.
#[test]
fn a_killed_physics_informed_run_resumes_to_the_same_trajectory() {
    killed_and_resumed(
        "solve-resume-physics",
        "pde d(f, x1) = 2*(x1 - 0.3)\nmethod physics-gp { residual_points 16 }\n",
    );
}

/// With a param, each fit starts from the previous step's estimate of it as well, saved with
/// the hyperparameters.
#[test]
fn a_killed_run_fitting_a_param_resumes_to_the_same_trajectory() {
    killed_and_resumed(
        "solve-resume-param",
        "param a in [0.5, 4] log\npde d(f, x1) = a*(x1 - 0.3)\n\
         method physics-gp { residual_points 16 }\n",
    );
}

/// With `check prequential` the choice between the models with and without the pde depends
/// on the record of their predictions, saved with the journal.
#[test]
fn a_killed_prequentially_checked_run_resumes_to_the_same_trajectory() {
    killed_and_resumed(
        "solve-resume-prequential",
        "pde d(f, x1) = 2*(x1 - 0.3)\nmethod physics-gp { residual_points 16, check prequential }\n",
    );
}

/// PINN-BO between cold fits trains on from the previous step's network, saved with the
/// journal; its cold fits start from fresh draws of the random stream.
#[test]
fn a_killed_warm_started_pinn_bo_run_resumes_to_the_same_trajectory() {
    killed_and_resumed(
        "solve-resume-pinn",
        "pde d(f, x1) = 2*(x1 - 0.3)\nmethod pinn-bo { width 8, depth 1, epochs 30, \
         warm_epochs 10, residual_points 8, retrain_every 3, candidates 64 }\n",
    );
}

fn killed_and_resumed(name: &str, method: &str) {
    let problem = format!("{SLOW}{method}");
    let dir = scratch(name, &problem, &[("slow.sh", SLOW_SH)]);
    let solve = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "problem.pde",
            "--allow-exec",
            "--seed",
            "3",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let whole = pinnbo(
        &dir,
        &solve(&["--out", "whole"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(whole.status.success(), "{}", text(&whole.stderr));

    // Kill at a point that depends on the clock, after 2..8 evaluations.
    let kill_after =
        2 + (Instant::now().elapsed().subsec_nanos() as usize + std::process::id() as usize) % 7;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args(solve(&["--out", "cut"]))
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.join("cut/journal.jsonl");
    common::wait_for_lines(&journal, kill_after + 1, Duration::from_secs(60));
    child.kill().unwrap();
    child.wait().unwrap();
    let before = records(&dir.join("cut")).len();
    assert!(
        before >= kill_after && before < 10,
        "killed after {before} evaluations"
    );

    let resume = [
        "solve",
        "problem.pde",
        "--allow-exec",
        "--resume",
        "cut",
        "--quiet",
    ];
    // While another process writes the journal, a resume is refused and changes nothing.
    let holder = std::fs::File::open(&journal).unwrap();
    holder.lock().unwrap();
    let refused = pinnbo(&dir, &resume);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "error: cut/journal.jsonl is locked: another process is writing this run; \
         wait for it to finish or stop it\n"
    );
    assert_eq!(records(&dir.join("cut")).len(), before);
    drop(holder);

    let resumed = pinnbo(&dir, &resume);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let (a, b) = (records(&dir.join("whole")), records(&dir.join("cut")));
    let indices: Vec<u64> = b.iter().map(|r| r["index"].as_u64().unwrap()).collect();
    assert_eq!(
        indices,
        (0..10).collect::<Vec<u64>>(),
        "each evaluation once, in order"
    );
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            x["x"], y["x"],
            "killed after {before}: trajectories differ at {}",
            x["index"]
        );
        assert_eq!(x["observed"], y["observed"]);
    }
}

/// A resumed journal is checked record by record against its header and the problem: an
/// edit that would change the run (or crash a surrogate) is refused with its line.
#[test]
fn resume_refuses_records_that_do_not_fit_the_header_or_the_problem() {
    let problem = "problem \"bowl\"\nvar x1 in [0, 1], x2 in [0, 2]\n\
                   minimize (x1 - 0.3)^2 + (x2 - 0.6)^2\nbudget 5, init 3 sobol\nmethod gp-ei\n";
    let dir = scratch("solve-resume-validate", problem, &[]);
    let made = pinnbo(&dir, &["solve", "problem.pde", "--out", "run", "--quiet"]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    let journal = std::fs::read_to_string(dir.join("run/journal.jsonl")).unwrap();
    let edited = |name: &str, line: usize, edit: &dyn Fn(&mut Value)| {
        let lines: Vec<String> = journal
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i + 1 == line {
                    let mut v: Value = serde_json::from_str(l).unwrap();
                    edit(&mut v);
                    v.to_string()
                } else {
                    l.to_string()
                }
            })
            .collect();
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(
            dir.join(name).join("journal.jsonl"),
            lines.join("\n") + "\n",
        )
        .unwrap();
        let out = pinnbo(&dir, &["solve", "problem.pde", "--resume", name, "--quiet"]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        text(&out.stderr)
    };
    assert_eq!(
        edited("short", 5, &|v| v["x"] = serde_json::json!([0.5])),
        "error: short/journal.jsonl: line 5: record 3: x has 1 value(s), the problem has 2 \
         variable(s)\n"
    );
    assert_eq!(
        edited("outside", 6, &|v| v["x"][1] = serde_json::json!(2.5)),
        "error: outside/journal.jsonl: line 6: record 4: `x2` = 2.5 is outside its bounds \
         [0, 2]\n"
    );
    let seed = edited("seed", 1, &|v| v["seed"] = serde_json::json!(4));
    assert!(
        seed.ends_with(
            "line 2: record 0: it was drawn from seed 0 at index 0, not from the header's seed 4\n"
        ),
        "{seed}"
    );
    let design = edited("design", 3, &|v| v["x"][0] = serde_json::json!(0.123));
    assert!(
        design.contains("line 3: record 1: x = [0.123, ")
            && design.contains("is not the initial design's point"),
        "{design}"
    );
}

/// SIGTERM (as Ctrl-C) stops the run before its next evaluation: the outputs are written,
/// the exit code is 3, and the run resumes to its budget.
#[test]
fn a_signal_stops_the_run_cleanly_and_it_resumes() {
    let dir = scratch(
        "solve-signal",
        &format!("{SLOW}method random\n"),
        &[("slow.sh", SLOW_SH)],
    );
    let child = Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args([
            "solve",
            "problem.pde",
            "--allow-exec",
            "--out",
            "run",
            "--quiet",
        ])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let journal = dir.join("run/journal.jsonl");
    common::wait_for_lines(&journal, 3, Duration::from_secs(60));
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    let done = records(&dir.join("run")).len();
    assert!(done < 10, "the run went on to {done} evaluations");
    assert!(
        err.contains(&format!(
            "error: interrupted by a signal after {done} evaluations"
        )),
        "{err}"
    );
    assert!(err.contains("continue with --resume run"), "{err}");
    assert!(dir.join("run/summary.json").exists());

    let resumed = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--resume",
            "run",
            "--quiet",
        ],
    );
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(records(&dir.join("run")).len(), 10);
}
