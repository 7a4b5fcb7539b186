//! Known constraints: a constraint on the variables alone (`subject to spend: a + b <= 1`) is
//! computed by pinnbo, held by the initial design, every method's search and `ask`, and
//! never measured or told.

mod common;

use common::text;

use std::path::{Path, PathBuf};

/// The binary run in `dir`, arguments first (as these tests read best).
fn pinnbo(args: &[&str], dir: &Path) -> std::process::Output {
    common::pinnbo(dir, args)
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("known-{name}"))
}

/// The points of a run's history.csv, as (a, b) or (x, y) pairs: its columns 2 and 3.
fn points(run: &Path) -> Vec<(f64, f64)> {
    let csv = std::fs::read_to_string(run.join("history.csv")).expect("history.csv");
    (csv.lines().skip(1))
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[2].parse().unwrap(), cells[3].parse().unwrap())
        })
        .collect()
}

/// The unconstrained optimum (0.9, 0.8) lies outside `a + b <= 1`, so every search presses
/// against the constraint.
const BOWL: &str = "problem \"spend\"\nvar a in [0, 1], b in [0, 1]\n\
                    minimize (a - 0.9)^2 + (b - 0.8)^2\nsubject to spend: a + b <= 1\n\
                    budget 12, init 6 sobol\n";

/// The same with a linear pde the field obeys, for the physics methods.
const FIELD: &str = "problem \"spend-field\"\nvar a in [0, 1], b in [0, 1]\n\
                     field u(a, b) = (a - 0.9)^2 + (b - 0.8)^2\npde laplacian(u) = 4\n\
                     minimize u\nsubject to spend: a + b <= 1\nbudget 10, init 6 sobol\n";

#[test]
fn every_method_keeps_to_the_known_constraints() {
    let dir = scratch("methods");
    let cases = [
        (BOWL, "method gp-ei"),
        (BOWL, "method gp-ucb"),
        (BOWL, "method gp-ts"),
        (BOWL, "method random"),
        (BOWL, "method neural-bo { width 50, steps 50 }"),
        (BOWL, "method neural-cbo { width 30, steps 50 }"),
        (BOWL, "method neural-greedy { width 50, epochs 50 }"),
        (FIELD, "method physics-gp"),
        (
            FIELD,
            "method pinn-bo { width 20, depth 2, epochs 50, residual_points 64 }",
        ),
    ];
    for (k, (problem, method)) in cases.iter().enumerate() {
        let file = dir.join(format!("case{k}.pde"));
        std::fs::write(&file, format!("{problem}{method}\n")).unwrap();
        let out = format!("run{k}");
        let run = pinnbo(
            &["solve", file.to_str().unwrap(), "--out", &out, "-q"],
            &dir,
        );
        assert_eq!(
            run.status.code(),
            Some(0),
            "{method}: {}",
            text(&run.stderr)
        );
        let history = points(&dir.join(&out));
        assert!(history.len() >= 10, "{method}: {history:?}");
        for (a, b) in history {
            assert!(
                a + b <= 1.0,
                "{method} evaluated ({a}, {b}), which breaks a + b <= 1"
            );
        }
    }
}

/// `ask -n 8` hands out the initial design and then model-driven points, all feasible, and
/// `tell` takes the measured constraint alone: the known one is computed into the journal.
#[test]
fn asked_points_hold_them_and_a_known_constraint_is_never_told() {
    let dir = scratch("ask");
    let file = dir.join("lab.pde");
    std::fs::write(
        &file,
        "problem \"lab\"\nvar t in [20, 80], c in [0.1, 1]\nfield cost(t, c)\nfield heat(t, c)\n\
         minimize cost\nsubject to cooling: heat <= 5\nsubject to cap: t * c <= 30\n\
         oracle external\nbudget 20, init 4 sobol\nmethod gp-ei\n",
    )
    .unwrap();
    let check = pinnbo(&["check", "lab.pde"], &dir);
    assert!(
        text(&check.stdout).contains("2 constraints (known: cap; measured: cooling)"),
        "{}",
        text(&check.stdout)
    );
    let feasible = |line: &str| {
        let (t, c) = line.split_once(",c=").unwrap();
        let t: f64 = t.split("t=").nth(1).unwrap().parse().unwrap();
        let c: f64 = c.parse().unwrap();
        t * c <= 30.0
    };
    let asked = pinnbo(&["ask", "lab.pde", "--out", "run", "-n", "4"], &dir);
    assert_eq!(asked.status.code(), Some(0), "{}", text(&asked.stderr));
    for id in 0..4 {
        let told = format!("{}", 1.0 + id as f64);
        let id = id.to_string();
        let args = [
            "tell",
            "run",
            "--id",
            &id,
            "--objective",
            &told,
            "--constraints",
            "-1",
        ];
        let out = pinnbo(&args, &dir);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let asked = pinnbo(&["ask", "run", "-n", "8"], &dir);
    assert_eq!(asked.status.code(), Some(0), "{}", text(&asked.stderr));
    let stdout = text(&asked.stdout);
    assert_eq!(stdout.lines().count(), 8, "{stdout}");
    assert!(stdout.lines().all(feasible), "{stdout}");
    let journal = std::fs::read_to_string(dir.join("run/journal.jsonl")).unwrap();
    let first = journal
        .lines()
        .find(|l| l.contains("\"observed\""))
        .unwrap();
    assert!(first.contains("\"constraints\":[-1.0,"), "{first}");
    let out = pinnbo(
        &[
            "tell",
            "run",
            "--id",
            "4",
            "--objective",
            "1",
            "--constraints",
            "cooling=-1,cap=2",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: `cap` is a known constraint: pinnbo computes it from the variables, so it is \
         never told; --constraints takes the measured ones: cooling\n"
    );
}

#[test]
fn a_box_the_known_constraints_leave_too_little_of_is_refused() {
    let dir = scratch("empty");
    let file = dir.join("none.pde");
    std::fs::write(&file, BOWL.replace("a + b <= 1", "a + b <= -1")).unwrap();
    let out = pinnbo(&["solve", "none.pde", "--out", "run"], &dir);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "the known constraints `spend` leave too little of the box: 0 of its first 65536 \
             design points hold them all, fewer than the initial design's 6"
        ),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.join("run").exists());
}
