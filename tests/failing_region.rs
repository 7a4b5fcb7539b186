//! A simulator that fails in a region: each failure informs the next proposal, so a failed
//! point is never proposed again and the run does not spend its failures in a row on one
//! point (docs/decisions.md "Failed evaluations inform the model").

mod common;
mod support;
use common::pinnbo;
use std::path::Path;
use std::process::Output;
use support::{records, scratch, text};

/// `pinnbo solve problem.pde` in `dir`, commands allowed, into `out`.
fn solve(dir: &Path) -> Output {
    pinnbo(
        dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--out",
            "out",
            "--quiet",
        ],
    )
}

/// The minimum of `(x - 0.05)^2 + (y - 0.5)^2` lies where the simulator fails (x < 0.1).
const PROBLEM: &str = "var x in [0, 1], y in [0, 1]\nfield f(x, y)\nminimize f\n\
    oracle command \"./flaky.sh {x} {y}\" { max_failures 4 }\nbudget 16, init 4 sobol\n";
const FLAKY: &str = "#!/bin/sh\nawk -v a=\"$1\" -v b=\"$2\" \
    'BEGIN { if (a < 0.1) exit 1; print (a - 0.05)^2 + (b - 0.5)^2 }'\n";

#[test]
fn a_failed_point_is_never_proposed_again() {
    for method in ["gp-ei", "gp-ucb"] {
        let dir = scratch(
            &format!("failing-region-{method}"),
            &format!("{PROBLEM}method {method}\n"),
            &[("flaky.sh", FLAKY)],
        );
        let run = solve(&dir);
        assert!(run.status.success(), "{method}: {}", text(&run.stderr));
        let records = records(&dir.join("out"));
        assert_eq!(records.len(), 16, "{method}");
        let failed: Vec<&serde_json::Value> =
            records.iter().filter(|r| !r["failure"].is_null()).collect();
        for (i, a) in failed.iter().enumerate() {
            for b in &failed[i + 1..] {
                assert_ne!(
                    a["x"], b["x"],
                    "{method}: a failed point was proposed again"
                );
            }
        }
    }
}

/// A run whose every evaluation failed has no result: it stops with exit code 3 (not 0),
/// saying so, even when its budget ends before `max_failures` would.
#[test]
fn a_run_where_every_evaluation_failed_is_not_a_success() {
    let problem = "var x in [0, 1]\nfield f(x)\nminimize f\n\
        oracle command \"./fail.sh {x}\" { max_failures 5 }\nbudget 3, init 2 sobol\n\
        method gp-ei\n";
    let dir = scratch("all-failed", problem, &[("fail.sh", "#!/bin/sh\nexit 1\n")]);
    let run = solve(&dir);
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stderr));
    assert!(
        text(&run.stderr).starts_with(
            "error: every one of the 3 evaluations failed, so there is no result; the last: \
             the command exited with exit status: 1"
        ),
        "{}",
        text(&run.stderr)
    );
    assert_eq!(records(&dir.join("out")).len(), 3);
}

/// Values near 1e200 overflow PINN-BO's loss: the run stops with exit code 3 (a method
/// error, everything journaled), and the pictures that can be drawn still are.
#[test]
fn a_method_failing_on_huge_values_stops_the_run_and_keeps_the_outputs() {
    let problem = "var x in [0, 1]\nfield f(x)\npde d(f, x, 2) = 0\nminimize f\n\
        oracle command \"./huge.sh {x}\"\nbudget 5, init 3 sobol\n\
        method pinn-bo { width 8, depth 1, epochs 20, residual_points 16 }\n";
    let huge = "#!/bin/sh\nawk -v a=\"$1\" 'BEGIN { print (1 + a) * 1e200 }'\n";
    let dir = scratch("huge-values", problem, &[("huge.sh", huge)]);
    let run = solve(&dir);
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stderr));
    assert_eq!(
        records(&dir.join("out")).len(),
        3,
        "the design is journaled"
    );
    for output in ["summary.json", "history.csv", "convergence.png"] {
        assert!(dir.join("out").join(output).is_file(), "{output}");
    }
}
