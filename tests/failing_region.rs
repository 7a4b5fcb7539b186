//! A simulator that fails in a region: each failure informs the next proposal, so a failed
//! point is never proposed again and the run does not spend its failures in a row on one
//! point (docs/decisions.md "Failed evaluations inform the model").

mod common;
mod support;
use common::pinnbo;
use support::{records, scratch, text};

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
        let run = pinnbo(
            &dir,
            &[
                "solve",
                "problem.pde",
                "--allow-exec",
                "--out",
                "out",
                "--quiet",
            ],
        );
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
