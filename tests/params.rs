//! What `solve` reports about the pde's unknown constants: each one's marginal standard
//! deviation, or why it has none, and a fit that ended on its box's bound; and how often
//! the check kept the pde.

mod common;
mod support;
use common::pinnbo;
use serde_json::Value;
use support::{assert_each_step_decided_once, assert_pde_kept_at_every_step};
use support::{scratch, summary, text};

/// Solves `body` (a 1-D closed-form field with params) with physics-gp and `settings`,
/// eight evaluations: the printed report and `summary.json`'s `parameters`.
fn solved(name: &str, body: &str, settings: &str) -> (String, Value) {
    let (report, summary) = solved_summary(name, body, settings);
    (report, summary["parameters"].clone())
}

/// [`solved`] with the whole `summary.json`.
fn solved_summary(name: &str, body: &str, settings: &str) -> (String, Value) {
    let problem = format!(
        "problem \"{name}\"\n{body}budget 8, init 6 sobol\n\
         method physics-gp {{ residual_points 64{settings} }}\n"
    );
    let dir = scratch(name, &problem, &[]);
    let out = pinnbo(
        &dir,
        &["solve", "problem.pde", "--out", "run", "--seed", "1"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    (text(&out.stdout), summary(&dir.join("run")))
}

/// The summary counts the check's verdicts over the model-driven steps and the report
/// says the same; `check none` keeps the pde at every one.
#[test]
fn the_report_says_how_often_the_pde_was_kept() {
    let body = "var x in [0, 1]\nparam k in [0.5, 5]\nfield u(x) = 1.5*x*(1 - x)\n\
                pde dxx(u) = -k\nminimize u\n";
    let (report, summary) = solved_summary("unchecked", body, ", check none");
    assert_pde_kept_at_every_step(&report, &summary["pde_checks"], 2);
    let (report, summary) = solved_summary("checked", body, "");
    assert_each_step_decided_once(&report, &summary["pde_checks"], 2);
}

/// Where the data determine only a ratio, neither param has a standard deviation and the
/// report says which combination is determined, in `summary.json` and on the screen
/// (`check none`: whatever the model check would say of the pde at the last step).
#[test]
fn a_ratio_alone_is_reported_as_such() {
    let (report, parameters) = solved(
        "ratio",
        "var x in [0, 1]\nparam a in [0.5, 5] log\nparam b in [0.5, 5] log\n\
         field u(x) = 1.5*x*(1 - x)\npde a*dxx(u) = -b\nminimize u\n",
        ", check none",
    );
    for name in ["a", "b"] {
        assert_eq!(parameters[name]["std"], Value::Null, "{parameters}");
        let why = "only a/b is determined by the data";
        assert_eq!(parameters[name]["undetermined"], why, "{parameters}");
        assert!(
            report.contains(&format!("(no standard deviation: {why})")),
            "{report}"
        );
    }
}

/// A param whose truth lies outside its box ends on the bound: `summary.json` says which,
/// and the report warns and advises widening the box.
#[test]
fn a_param_on_its_bound_is_flagged() {
    let (report, parameters) = solved(
        "bound",
        "var x in [0, 1]\nparam k in [0.5, 2.8]\nfield u(x) = 1.5*x*(1 - x)\n\
         pde dxx(u) = -k\nminimize u\n",
        "",
    );
    assert_eq!(parameters["k"]["at_bound"], "upper", "{parameters}");
    assert!(
        report.contains(
            "warning: k ended on the upper bound of its box; the data may want a value \
             outside it: widen the box"
        ),
        "{report}"
    );
}
