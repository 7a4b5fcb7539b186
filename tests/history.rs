//! End-to-end tests of a run's history: known noise kept as measured, exact oracles fitted
//! without noise, extending and resuming runs (an edited problem file refused until
//! accepted), importing earlier evaluations.

mod common;
mod support;
use common::pinnbo;
use serde_json::Value;
use support::{points, records, scratch, summary, text};

/// `noise std ..` on a command oracle is the known noise of its measurements: every value
/// is journaled exactly as the program printed it (nothing added, no "clean" twin), and the
/// GP holds that noise fixed; `noise added ..` there is refused before anything runs.
#[test]
fn known_noise_never_alters_what_a_command_measured() {
    const MEASURE: &str =
        "#!/bin/sh\nv=$(awk -v a=\"$1\" 'BEGIN { printf \"%.6f\", (a - 0.3)^2 }')\n\
        echo \"$v\" >> printed.txt\necho \"$v\"\n";
    let problem = "var x in [0, 1]\nfield f(x)\nminimize f\noracle command \"./measure.sh {x}\"\n\
        noise std 0.05\nbudget 6, init 3 sobol\nmethod gp-ei\n";
    let dir = scratch("solve-known-noise", problem, &[("measure.sh", MEASURE)]);
    let run = pinnbo(
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
    assert!(run.status.success(), "{}", text(&run.stderr));
    let printed: Vec<f64> = std::fs::read_to_string(dir.join("printed.txt"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let all = records(&dir.join("run"));
    let journaled: Vec<f64> = all
        .iter()
        .map(|r| r["observed"]["objective"].as_f64().unwrap())
        .collect();
    assert_eq!(journaled, printed);
    assert!(all
        .iter()
        .all(|r| r.get("clean").is_none_or(Value::is_null)));
    // The GP's noise variance is the known one, standardized, at every step.
    for (t, r) in all.iter().enumerate().skip(3) {
        let seen = &journaled[..t];
        let mean = seen.iter().sum::<f64>() / t as f64;
        let var = seen.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / t as f64;
        // Clamped into the fit's bounds on its logarithm, [-13.8, 0].
        let expected = (0.05f64.powi(2) / var).ln().clamp(-13.8, 0.0).exp();
        let fitted = r["diagnostics"]["noise_variance"].as_f64().unwrap();
        assert!(
            (fitted - expected).abs() < 1e-9 * expected,
            "step {t}: {fitted} vs {expected}"
        );
    }

    let added = problem.replace("noise std", "noise added std");
    std::fs::write(dir.join("added.pde"), added).unwrap();
    let refused = pinnbo(&dir, &["solve", "added.pde", "--allow-exec", "--quiet"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr)
            .contains("`noise added` would add synthetic noise to what the command measured"),
        "{}",
        text(&refused.stderr)
    );
}

/// A closed form without a `noise` statement is exact: the GP holds its noise at the floor
/// that keeps the kernel matrix factorable, at every step. The same function measured by a
/// command may be noisy, and its noise is fitted.
#[test]
fn an_exact_oracle_is_fitted_without_noise() {
    const MEASURE: &str = "#!/bin/sh
awk -v a=\"$1\" 'BEGIN { printf \"%.12f\", sin(6 * a) + a }'\n";
    let closed = "var x in [0, 1]\nminimize sin(6*x) + x\nbudget 8, init 4 sobol\nmethod gp-ei\n";
    let command = "var x in [0, 1]\nfield f(x)\nminimize f\noracle command \"./measure.sh {x}\"\n\
        budget 8, init 4 sobol\nmethod gp-ei\n";
    let dir = scratch("solve-exact-noise", closed, &[("measure.sh", MEASURE)]);
    std::fs::write(dir.join("command.pde"), command).unwrap();
    let noise = |file: &str, out: &str| -> Vec<f64> {
        let run = pinnbo(
            &dir,
            &["solve", file, "--allow-exec", "--out", out, "--quiet"],
        );
        assert!(run.status.success(), "{}", text(&run.stderr));
        records(&dir.join(out))
            .iter()
            .skip(4)
            .map(|r| r["diagnostics"]["noise_variance"].as_f64().unwrap())
            .collect()
    };
    let floor = (-13.8f64).exp();
    let exact = noise("problem.pde", "closed");
    assert_eq!(exact.len(), 4);
    assert!(
        exact.iter().all(|v| (v - floor).abs() < 1e-12 * floor),
        "{exact:?}"
    );
    let fitted = noise("command.pde", "command");
    assert!(fitted.iter().any(|v| *v > 10.0 * floor), "{fitted:?}");
}

/// `--resume DIR --budget N` extends a finished run (recorded, so `--resume DIR` alone
/// continues to N, reading the problem file from the journal's header), and the extended
/// run equals one that had N from the start. An edited problem file is refused with its
/// first changed line until the edit is accepted.
#[test]
fn a_run_is_extended_and_an_edited_problem_is_refused_until_accepted() {
    let problem = "problem \"bowl\"\nvar x1 in [0, 1], x2 in [0, 2]\n\
                   minimize (x1 - 0.3)^2 + (x2 - 0.6)^2\nbudget 6, init 3 sobol\nmethod gp-ei\n";
    let dir = scratch("solve-extend", problem, &[]);
    let solve = |args: &[&str]| {
        let mut all = vec!["solve"];
        all.extend_from_slice(args);
        all.push("--quiet");
        pinnbo(&dir, &all)
    };
    let ok = |o: std::process::Output| assert!(o.status.success(), "{}", text(&o.stderr));
    ok(solve(&["problem.pde", "--out", "run"]));
    ok(solve(&["problem.pde", "--out", "whole", "--budget", "9"]));
    ok(solve(&["--resume", "run", "--budget", "9"]));
    assert_eq!(points(&dir.join("run")), points(&dir.join("whole")));
    ok(solve(&["--resume", "run"]));
    assert_eq!(
        records(&dir.join("run")).len(),
        9,
        "the budget of 9 was recorded"
    );
    let summary = summary(&dir.join("run"));
    let best = &summary["best"];
    assert_eq!(
        best["evaluation"].as_u64(),
        best["index"].as_u64().map(|i| i + 1),
        "one convention: index from 0, evaluation from 1"
    );

    let shorter = solve(&["--resume", "run", "--budget", "4"]);
    assert_eq!(
        text(&shorter.stderr),
        "error: run holds 9 evaluations already: a budget of 4 would end it before them\n"
    );
    std::fs::write(
        dir.join("problem.pde"),
        problem.replace("budget 6", "budget 7"),
    )
    .unwrap();
    let refused = solve(&["--resume", "run", "--budget", "10"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "error: problem.pde changed since the run in run started (line 4 was `budget 6, init 3 \
         sobol`, now `budget 7, init 3 sobol`); continue with the edited file with \
         --accept-changed, or restore it\n"
    );
    assert_eq!(
        records(&dir.join("run")).len(),
        9,
        "a refused resume changes nothing"
    );
    // An accepted edit that the journal then refuses (its points outside the new bounds) is
    // not recorded: the run still follows the original file.
    let narrowed = problem.replace("x1 in [0, 1]", "x1 in [0, 0.01]");
    std::fs::write(dir.join("problem.pde"), narrowed).unwrap();
    let refused = solve(&["--resume", "run", "--accept-changed"]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    std::fs::write(dir.join("problem.pde"), problem).unwrap();
    ok(solve(&["--resume", "run"]));
    let followed = std::fs::read_to_string(dir.join("run/journal.pde")).unwrap();
    assert_eq!(followed, problem);
    std::fs::write(
        dir.join("problem.pde"),
        problem.replace("budget 6", "budget 7"),
    )
    .unwrap();
    ok(solve(&[
        "--resume",
        "run",
        "--budget",
        "10",
        "--accept-changed",
    ]));
    ok(solve(&["--resume", "run", "--budget", "11"]));
    assert_eq!(
        records(&dir.join("run")).len(),
        11,
        "the accepted edit was recorded"
    );

    // The file moved: the run continues from the text it keeps (its accepted edit included).
    std::fs::rename(dir.join("problem.pde"), dir.join("moved.pde")).unwrap();
    ok(solve(&["--resume", "run", "--budget", "12"]));
    assert_eq!(records(&dir.join("run")).len(), 12);
    std::fs::remove_file(dir.join("run/journal.pde")).unwrap();
    let lost = solve(&["--resume", "run", "--budget", "13"]);
    assert!(
        text(&lost.stderr).starts_with(
            "error: the run in run started from problem.pde, which is not there from this \
             folder, and its copy run/journal.pde cannot be read"
        ),
        "{}",
        text(&lost.stderr)
    );
}

/// `--import` journals earlier evaluations first, exactly as given (never re-evaluated),
/// in place of as many initial-design points; the run resumes over them; a bad cell is
/// refused at its line and column before anything runs.
#[test]
fn imported_evaluations_lead_the_journal_and_bad_rows_are_located() {
    let problem = "problem \"bowl\"\nvar x1 in [0, 1], x2 in [0, 2]\n\
                   minimize (x1 - 0.3)^2 + (x2 - 0.6)^2\nbudget 8, init 4 sobol\nmethod gp-ei\n";
    let prior = "x2,x1,objective\n0.5,0.5,123\n1.5,0.1,0.25\n0.6,0.35,0.0025\n";
    let dir = scratch(
        "solve-import",
        problem,
        &[
            ("prior.csv", prior),
            ("text.csv", "x1,x2,objective\n0.5,0.5,1\n0.5,abc,1\n"),
            ("outside.csv", "x1,x2,objective\n1.5,0.5,1\n"),
            ("missing.csv", "x1,x2\n0.5,0.5\n"),
            ("twice.csv", "x1,x2,objective,x1\n0.5,0.5,1,0.7\n"),
        ],
    );
    let solve = |args: &[&str]| {
        let mut all = vec!["solve", "problem.pde", "--quiet"];
        all.extend_from_slice(args);
        pinnbo(&dir, &all)
    };
    let run = solve(&["--import", "prior.csv", "--out", "run"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let all = records(&dir.join("run"));
    assert_eq!(all.len(), 8);
    let phases: Vec<&str> = all.iter().map(|r| r["phase"].as_str().unwrap()).collect();
    assert_eq!(phases[..4], ["import", "import", "import", "init"]);
    assert_eq!(all[0]["x"], serde_json::json!([0.5, 0.5]));
    assert_eq!(all[0]["observed"]["objective"], 123.0, "kept as given");
    assert_eq!(all[1]["x"], serde_json::json!([0.1, 1.5]));
    let resumed = pinnbo(
        &dir,
        &["solve", "--resume", "run", "--budget", "10", "--quiet"],
    );
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(records(&dir.join("run")).len(), 10);

    for (file, message) in [
        (
            "text.csv",
            "text.csv:3:2: `x2` must be a number, found `abc`",
        ),
        (
            "outside.csv",
            "outside.csv:2:1: `x1` = 1.5 is outside its bounds [0, 1]",
        ),
        (
            "missing.csv",
            "missing.csv:1: no column `objective`; the header needs x1, x2, objective",
        ),
        ("twice.csv", "twice.csv:1:4: the column `x1` is named twice"),
    ] {
        let out = format!("bad-{file}");
        let refused = solve(&["--import", file, "--out", &out]);
        assert_eq!(refused.status.code(), Some(1), "{file}");
        assert_eq!(text(&refused.stderr), format!("error: {message}\n"));
        assert!(!dir.join(&out).exists(), "nothing started for {file}");
    }
}

/// An import is journaled whole or not at all: a run killed while it imports leaves no
/// journal (the import starts over) or one with every row, never some of them.
#[test]
fn an_interrupted_import_leaves_all_its_rows_or_none() {
    let rows = 20_000;
    let problem = format!(
        "problem \"bowl\"\nvar x1 in [0, 1], x2 in [0, 2]\n\
         minimize (x1 - 0.3)^2 + (x2 - 0.6)^2\nbudget {}, init 4 sobol\nmethod random\n",
        rows + 10
    );
    let mut csv = String::from("x1,x2,objective\n");
    for i in 0..rows {
        let (a, b) = ((i % 97) as f64 / 97.0, (i % 89) as f64 / 44.5);
        csv.push_str(&format!(
            "{a},{b},{}\n",
            (a - 0.3).powi(2) + (b - 0.6).powi(2)
        ));
    }
    let dir = scratch("import-killed", &problem, &[("prior.csv", &csv)]);
    for (attempt, wait) in [5u64, 20, 60, 150].into_iter().enumerate() {
        let out = format!("run{attempt}");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pinnbo"))
            .args([
                "solve",
                "problem.pde",
                "--import",
                "prior.csv",
                "--out",
                &out,
                "--quiet",
            ])
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(wait));
        child.kill().unwrap();
        child.wait().unwrap();
        let journal = dir.join(&out).join("journal.jsonl");
        if !journal.exists() {
            continue;
        }
        let imported = records(&dir.join(&out))
            .iter()
            .filter(|r| r["phase"] == "import")
            .count();
        assert_eq!(
            imported, rows,
            "attempt {attempt}: {imported} of {rows} rows journaled"
        );
    }
}

/// A resume refused for another run's journal names what differs; a journal whose recorded
/// hash was edited is told apart from an edited problem file.
#[test]
fn a_refused_resume_names_what_differs() {
    let problem = "var x in [0, 1]\nminimize (x - 0.3)^2\nbudget 6, init 4 sobol\nmethod gp-ei\n";
    let dir = scratch("resume-differs", problem, &[]);
    let solve =
        |args: &[&str]| pinnbo(&dir, &[&["solve", "problem.pde", "--quiet"], args].concat());
    assert!(solve(&["--out", "run"]).status.success());
    std::fs::write(dir.join("problem.pde"), problem.replace("sobol", "lhs")).unwrap();
    let design = solve(&["--resume", "run", "--budget", "7"]);
    assert_eq!(
        text(&design.stderr),
        "error: run was written by a different run: its initial design is sobol, this one's lhs\n"
    );
    std::fs::write(dir.join("problem.pde"), problem).unwrap();
    let journal = dir.join("run/journal.jsonl");
    let edited = std::fs::read_to_string(&journal).unwrap();
    let start = edited.find("\"source_sha256\":\"").unwrap() + 17;
    let edited = format!("{}deadbeef{}", &edited[..start], &edited[start + 64..]);
    std::fs::write(&journal, edited).unwrap();
    let hash = solve(&["--resume", "run", "--budget", "7"]);
    assert!(
        text(&hash.stderr).contains(
            "its text is the run's own (journal.pde), but the journal records another hash for \
             it: the journal's header or resume.json was edited"
        ),
        "{}",
        text(&hash.stderr)
    );
}

/// A long history (here 501 imported evaluations) does not make the pictures cost minutes:
/// the model is not refitted for a picture past 500 evaluations, which is said; the other
/// pictures and the files are written (issue 53, item 9).
#[test]
fn a_long_history_draws_its_pictures_in_seconds() {
    let problem = "var x in [0, 1]\nminimize (x - 0.3)^2\nbudget 501, init 2\nmethod gp-ei\n";
    let mut rows = String::from("x,objective\n");
    for k in 0..501 {
        let x = (k as f64 + 0.5) / 501.0;
        rows.push_str(&format!("{x},{}\n", (x - 0.3f64).powi(2)));
    }
    let dir = scratch("long-history", problem, &[("earlier.csv", rows.as_str())]);
    let out = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--import",
            "earlier.csv",
            "--out",
            "run",
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("surrogate.png not drawn: 501 evaluations, more than the 500"),
        "{err}"
    );
    for file in [
        "summary.json",
        "history.csv",
        "convergence.png",
        "evaluations.png",
    ] {
        assert!(dir.join("run").join(file).exists(), "{file}");
    }
    assert!(!dir.join("run/surrogate.png").exists());
}

/// A journal that cannot grow (here a file-size limit, as a full disk) keeps whole records
/// only; the error names the journal and gives the evaluation that could not be saved as
/// the `pinnbo tell` that records it later, which then works (issue 53, item 3).
#[test]
fn an_evaluation_that_cannot_be_saved_is_shown_to_tell_later() {
    let problem = "var x in [0, 1], y in [0, 1]\nminimize (x - 0.3)^2 + (y - 0.6)^2\n\
        budget 30, init 4\nmethod random\n";
    let dir = scratch("journal-full", problem, &[]);
    let binary = env!("CARGO_BIN_EXE_pinnbo");
    let limited =
        format!("trap '' XFSZ; ulimit -f 8; exec {binary} solve problem.pde --out run --quiet");
    let out = std::process::Command::new("sh")
        .args(["-c", &limited])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let said = err
        .lines()
        .find(|l| l.starts_with("error: run/journal.jsonl: "))
        .unwrap_or_else(|| panic!("{err}"));
    // Every line of the journal is a whole record.
    let journal = std::fs::read_to_string(dir.join("run/journal.jsonl")).unwrap();
    assert!(journal.ends_with('\n'));
    for line in journal.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    let before = records(&dir.join("run")).len();
    let tell = said
        .split_once("tell it later with `")
        .and_then(|(_, rest)| rest.strip_suffix('`'))
        .unwrap_or_else(|| panic!("{said}"));
    let args: Vec<&str> = tell.split_whitespace().skip(1).collect();
    let told = pinnbo(&dir, &args);
    assert!(told.status.success(), "{}", text(&told.stderr));
    assert_eq!(records(&dir.join("run")).len(), before + 1);
}
