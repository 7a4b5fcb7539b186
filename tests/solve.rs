//! End-to-end tests of `pinnbo solve`: determinism per seed, failing and NaN-returning
//! oracles, and the `--allow-exec` gate (a killed, stopped or edited run: tests/resume.rs).

mod common;
mod support;
use common::pinnbo;
use serde_json::Value;
use support::{points, records, scratch, summary, text, SLOW, SLOW_SH};

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
        let summary = summary(&dir.join(format!("{method}-a")));
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
        summary(&dir.join(out))["best"]["objective"]
            .as_f64()
            .unwrap()
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
