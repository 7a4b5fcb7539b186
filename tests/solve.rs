//! End-to-end tests of `pinnbo solve`: determinism per seed, the journal surviving a killed
//! process, failing and NaN-returning oracles, and the `--allow-exec` gate.

mod common;
mod support;
use common::pinnbo;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{points, records, scratch, text};

const QUADRATIC: &str = "problem \"quadratic\"\nvar x1 in [-2, 3], x2 in [0, 1]\n\
    minimize (x1 - 1)^2 + 10*(x2 - 0.25)^2\noptimum 0\nbudget 9, init 4 sobol\n";

#[test]
fn every_method_runs_a_seeded_deterministic_optimization_inside_the_bounds() {
    let dir = scratch("solve-methods", QUADRATIC, &[]);
    for method in [
        "neural-bo",
        "neural-cbo",
        "neural-greedy",
        "gp-ei",
        "gp-ucb",
        "gp-ts",
        "random",
    ] {
        let run = |out: &str, seed: &str| {
            let o = pinnbo(
                &dir,
                &[
                    "solve",
                    "problem.pde",
                    "--method",
                    method,
                    "--seed",
                    seed,
                    "--out",
                    out,
                    "--quiet",
                ],
            );
            assert!(o.status.success(), "{method}: {}", text(&o.stderr));
            points(&dir.join(out))
        };
        let a = run(&format!("{method}-a"), "7");
        let b = run(&format!("{method}-b"), "7");
        let c = run(&format!("{method}-c"), "8");
        assert_eq!(a.len(), 9, "{method}");
        assert_eq!(a, b, "{method}: the same seed gives the same run");
        assert_ne!(a, c, "{method}: another seed gives another run");
        for p in &a {
            let (x1, x2) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
            assert!(
                (-2.0..=3.0).contains(&x1) && (0.0..=1.0).contains(&x2),
                "{method}: {p}"
            );
        }
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{method}-a/summary.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(summary["evaluations"], 9);
        let history = std::fs::read_to_string(dir.join(format!("{method}-a/history.csv"))).unwrap();
        assert_eq!(history.lines().count(), 10);
        // The journal's words for the phases.
        assert!(
            history.lines().nth(1).unwrap().starts_with("0,init,"),
            "{history}"
        );
        assert!(dir.join(format!("{method}-a/convergence.png")).exists());
        assert!(dir.join(format!("{method}-a/evaluations.png")).exists());
        // The surrogate's picture, for the methods that keep one model of the objective.
        let has_surrogate = !matches!(method, "random" | "neural-greedy");
        assert_eq!(
            dir.join(format!("{method}-a/surrogate.png")).exists(),
            has_surrogate,
            "{method}"
        );
    }
    // The model-based methods beat the initial design on this smooth bowl.
    let best = |out: &str| {
        let s: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(out).join("summary.json")).unwrap(),
        )
        .unwrap();
        s["best"]["objective"].as_f64().unwrap()
    };
    // Every method's run with seed 7 starts from the same initial design.
    let init_best = records(&dir.join("gp-ei-a"))[..4]
        .iter()
        .map(|r| r["observed"]["objective"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    for method in ["gp-ei", "neural-bo", "neural-greedy"] {
        assert!(
            best(&format!("{method}-a")) < init_best,
            "{method} did not improve on its initial design"
        );
    }
}

/// A 1-D field with a closed form and the pde it satisfies: PINN-BO's kind of problem.
const BOWL_PDE: &str = "problem \"bowl-pde\"\nvar x in [0, 2]\nfield f(x) = (x - 0.6)^2\n\
    pde dxx(f) = 2\nminimize f\noptimum 0\nbudget 7, init 4 sobol\n\
    method pinn-bo { width 16, depth 2, residual_points 32, epochs 300 }\n";

#[test]
fn pinn_bo_runs_a_seeded_deterministic_optimization_that_improves() {
    let dir = scratch("solve-pinn-bo", BOWL_PDE, &[]);
    let run = |out: &str, seed: &str| {
        let args = [
            "solve",
            "problem.pde",
            "--method",
            "pinn-bo",
            "--seed",
            seed,
            "--out",
            out,
            "--quiet",
        ];
        let o = pinnbo(&dir, &args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        records(&dir.join(out))
    };
    let (a, b) = (run("a", "3"), run("b", "3"));
    let xs = |r: &[Value]| r.iter().map(|r| r["x"].clone()).collect::<Vec<_>>();
    assert_eq!(xs(&a), xs(&b), "the same seed gives the same run");
    assert_eq!(a.len(), 7);
    for x in xs(&a) {
        assert!((0.0..=2.0).contains(&x[0].as_f64().unwrap()), "{x}");
    }
    let value = |r: &Value| r["observed"]["objective"].as_f64().unwrap();
    let init_best = a[..4].iter().map(value).fold(f64::INFINITY, f64::min);
    let best = a.iter().map(value).fold(f64::INFINITY, f64::min);
    assert!(
        best < init_best,
        "no improvement on the initial design: {best} vs {init_best}"
    );
    assert!(dir.join("a/surrogate.png").exists());
    for r in &a[4..] {
        assert!(r["diagnostics"]["nu"].as_f64().unwrap() >= 1.0, "{r}");
        assert!(
            r["diagnostics"]["interaction_information"]
                .as_f64()
                .unwrap()
                >= 0.0,
            "{r}"
        );
    }
}

/// A slow command oracle, so that the process can be killed between evaluations.
const SLOW: &str =
    "problem \"slow\"\nvar x1 in [0, 1], x2 in [0, 1]\nfield f(x1, x2)\nminimize f\n\
    oracle command \"./slow.sh {x1} {x2}\"\nbudget 10, init 3 sobol\n";
const SLOW_SH: &str = "#!/bin/sh\nsleep 0.15\nawk -v a=\"$1\" -v b=\"$2\" 'BEGIN { print (a - 0.3)^2 + (b - 0.6)^2 }'\n";

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
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let lines = std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count());
        if lines > kill_after || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
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

const FLAKY: &str =
    "problem \"flaky\"\nvar x1 in [0, 1], x2 in [0, 1]\nfield f(x1, x2)\nminimize f\n\
    oracle command \"./flaky.sh {x1}\"\nbudget 12, init 6 sobol\nmethod random\n";
/// Fails (exit 3, a message on stderr) for x1 > 0.7, prints `nan` for x1 < 0.2.
const FLAKY_SH: &str = "#!/bin/sh\nif awk -v x=\"$1\" 'BEGIN { exit !(x > 0.7) }'; then echo 'solver diverged' >&2; exit 3; fi\n\
    awk -v x=\"$1\" 'BEGIN { if (x < 0.2) print \"nan\"; else print x }'\n";

#[test]
fn failed_and_nan_evaluations_are_journaled_and_the_run_goes_on() {
    let dir = scratch("solve-flaky", FLAKY, &[("flaky.sh", FLAKY_SH)]);
    let o = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--out",
            "run",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let summary: Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert_eq!(summary["evaluations"], 12);
    let rs = records(&dir.join("run"));
    let reasons: Vec<&str> = rs.iter().filter_map(|r| r["failure"].as_str()).collect();
    assert_eq!(
        summary["failures"].as_u64().unwrap() as usize,
        reasons.len()
    );
    assert!(
        reasons.contains(&"the command exited with exit status: 3: solver diverged"),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&"not a finite value: the objective is NaN"),
        "{reasons:?}"
    );
    for r in &rs {
        let x1 = r["x"][0].as_f64().unwrap();
        assert_eq!(r["failure"].is_null(), (0.2..=0.7).contains(&x1), "{r}");
    }
    let best = summary["best"]["objective"].as_f64().unwrap();
    assert!((0.2..=0.7).contains(&best));
    assert!(text(&o.stderr).contains("warning: evaluation") || text(&o.stderr).is_empty());
}

#[test]
fn too_many_failures_in_a_row_stop_the_run_with_exit_3_and_keep_the_journal() {
    let always = "problem \"broken\"\nvar x1 in [0, 1]\nfield f(x1)\nminimize f\n\
        oracle command \"./broken.sh {x1}\" { max_failures 3 }\nbudget 10\nmethod random\n";
    let dir = scratch(
        "solve-broken",
        always,
        &[("broken.sh", "#!/bin/sh\necho 'no licence' >&2\nexit 1\n")],
    );
    let o = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--out",
            "run",
            "--quiet",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("error: stopped after 3 failed evaluations in a row; the last: the command exited with exit status: 1: no licence"),
        "{err}"
    );
    assert!(err.contains("continue with --resume run"), "{err}");
    assert_eq!(records(&dir.join("run")).len(), 3);
    assert!(dir.join("run/summary.json").exists());

    // Mended, the run resumes with new tries and finishes.
    std::fs::write(dir.join("broken.sh"), "#!/bin/sh\necho 0.5\n").unwrap();
    let o = pinnbo(
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
    assert!(o.status.success(), "{}", text(&o.stderr));
    let all = records(&dir.join("run"));
    assert_eq!(all.len(), 10);
    assert!(all[3..].iter().all(|r| r["observed"]["objective"] == 0.5));
}

/// A model-based method with no successful evaluation yet proposes uniformly (marked in the
/// journal) instead of stopping; once something succeeds, the model takes over.
#[test]
fn failures_before_the_first_success_follow_max_failures() {
    let problem = "problem \"flaky\"\nvar x1 in [0, 1]\nfield f(x1)\nminimize f\n\
        oracle command \"./flaky.sh {x1}\" { max_failures 5 }\nbudget 7, init 2 sobol\n\
        method gp-ei\n";
    let script = "#!/bin/sh\nn=$(cat count 2>/dev/null || echo 0)\necho $((n + 1)) > count\n\
        if [ $n -lt 4 ]; then echo 'warming up' >&2; exit 1; fi\necho \"$1\"\n";
    let dir = scratch("solve-flaky", problem, &[("flaky.sh", script)]);
    let o = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--out",
            "run",
            "--quiet",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let all = records(&dir.join("run"));
    assert_eq!(all.len(), 7);
    assert!(all[..4].iter().all(|r| r["failure"].is_string()));
    assert!(all[4..]
        .iter()
        .all(|r| r["observed"]["objective"].is_number()));
    for (i, r) in all.iter().enumerate() {
        let fallback = r["diagnostics"]["fallback"].as_str();
        let expected = (2..=4)
            .contains(&i)
            .then_some("no successful evaluation yet");
        assert_eq!(fallback, expected, "record {i}");
    }
}

#[test]
fn a_command_oracle_needs_allow_exec() {
    let dir = scratch("solve-exec", SLOW, &[("slow.sh", SLOW_SH)]);
    let o = pinnbo(&dir, &["solve", "problem.pde", "--out", "run"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("this problem runs an external command; pass --allow-exec (Python: allow_exec=True) to let it"),
        "{err}"
    );
    assert!(err.contains("problem.pde:5:"), "{err}");
    assert!(!dir.join("run/journal.jsonl").exists());
}

#[test]
fn the_default_folder_never_overwrites_an_earlier_run() {
    let dir = scratch("solve-default-folder", QUADRATIC, &[]);
    for expected in [
        "quadratic-random-seed0",
        "quadratic-random-seed0-2",
        "quadratic-random-seed0-3",
    ] {
        let o = pinnbo(
            &dir,
            &[
                "solve",
                "problem.pde",
                "--method",
                "random",
                "--budget",
                "5",
                "--quiet",
            ],
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(records(&dir.join(expected)).len(), 5, "{expected}");
    }
    // An explicit --out that holds a run is refused, pointing at --resume.
    let o = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--method",
            "random",
            "--out",
            "quadratic-random-seed0",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr)
        .contains("already holds a run; continue it with --resume quadratic-random-seed0"));
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
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 3
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(10));
    }
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

#[test]
fn a_missing_working_directory_is_refused_at_the_oracle_that_names_it() {
    let file = "problem \"nowhere\"\nvar x1 in [0, 1]\nfield f(x1)\nminimize f\n\
        oracle command \"./sim.sh {x1}\" { workdir \"no-such-dir\" }\nbudget 4\nmethod random\n";
    let dir = scratch(
        "solve-no-workdir",
        file,
        &[("sim.sh", "#!/bin/sh\necho 1\n")],
    );
    let o = pinnbo(&dir, &["solve", "problem.pde", "--allow-exec", "--quiet"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("oracle::no-workdir"), "{err}");
    assert!(err.contains("[problem.pde:5:1]"), "{err}");
    assert!(
        err.contains("the command's working directory no-such-dir does not exist"),
        "{err}"
    );
    assert!(
        !dir.join("nowhere-random-seed0").exists(),
        "nothing is started"
    );
}

/// A budget below the file's initial design shrinks the design, and says so (issue 53 item
/// 5); a budget that fits it says nothing.
#[test]
fn a_budget_below_the_initial_design_says_so() {
    let dir = scratch("budget-below-init", QUADRATIC, &[]);
    let out = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--budget",
            "3",
            "--out",
            "short",
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr).trim(),
        "note: --budget 3 leaves room for 3 of the initial design's 4 points; no step of the \
         method will run"
    );
    assert_eq!(records(&dir.join("short")).len(), 3);
    let fits = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--budget",
            "5",
            "--out",
            "fits",
            "--quiet",
        ],
    );
    assert!(fits.status.success());
    assert_eq!(text(&fits.stderr), "");
}
