//! Several objectives: each named, measured by a closed form, a command's JSON or the caller,
//! and reported as the Pareto set of the feasible evaluations with its hypervolume
//! (docs/dsl.md, docs/decisions.md "Several objectives").

mod common;
mod support;
use common::pinnbo;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::{records, scratch, summary, text};

/// A two-objective problem (a ZDT1 in three variables, one constraint): the summary's
/// Pareto set holds feasible points no evaluation dominates, its hypervolume is the one of
/// those points from the reference, near the true front's (11.7635 = 9.5 + ⅔·0.95^1.5 +
/// 0.15·(10 + √0.95) under the constraint f1 ≤ 0.95), and history.csv has a
/// column per objective and the hypervolume so far, which never falls.
#[test]
fn a_two_objective_run_reports_its_pareto_set_and_hypervolume() {
    let problem = "var x[3] in [0, 1]\nfn g() = 1 + 9*(x[2] + x[3])/2\n\
                   minimize f1: x[1]\nmaximize minus_f2: -g()*(1 - sqrt(x[1]/g()))\n\
                   subject to x[1] <= 0.95\nreference f1 = 1.1, minus_f2 = -11\n\
                   optimum 11.7635\nbudget 30, init 8\nmethod gp-ei\n";
    let dir = scratch("objectives-zdt", problem, &[]);
    let run = pinnbo(&dir, &["solve", "problem.pde", "--out", "out"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let out = dir.join("out");
    let s = summary(&out);
    assert!(s["best"].is_null(), "{s}");
    let front = s["pareto"]["points"].as_array().unwrap();
    let value = |p: &Value| {
        (
            p["objectives"]["f1"].as_f64().unwrap(),
            -p["objectives"]["minus_f2"].as_f64().unwrap(),
        )
    };
    let all: Vec<(f64, f64)> = records(&out)
        .iter()
        .filter(|r| r["observed"]["constraints"][0].as_f64().unwrap() <= 0.0)
        .map(|r| {
            let o = &r["observed"];
            (
                o["objective"].as_f64().unwrap(),
                -o["other_objectives"][0].as_f64().unwrap(),
            )
        })
        .collect();
    for p in front {
        let (a, b) = value(p);
        assert!(a <= 0.95, "{p}");
        let dominated = all
            .iter()
            .any(|(c, d)| c <= &a && d <= &b && (c < &a || d < &b));
        assert!(!dominated, "{p} is dominated");
    }
    // The staircase under the reference (1.1, 11), by hand from the listed points.
    let mut pts: Vec<(f64, f64)> = front.iter().map(value).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut area = 0.0;
    let mut ceiling = 11.0;
    for (k, (a, b)) in pts.iter().enumerate() {
        let right = pts.get(k + 1).map_or(1.1, |p| p.0);
        ceiling = f64::min(ceiling, *b);
        area += (right - a) * (11.0 - ceiling);
    }
    let hv = s["pareto"]["hypervolume"].as_f64().unwrap();
    assert!((hv - area).abs() < 1e-9, "{hv} against {area}");
    assert!(hv > 11.5 && hv <= 11.7635, "{hv}");
    let report = text(&run.stdout);
    assert!(
        report.contains("known optimum hypervolume 11.7635"),
        "{report}"
    );
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let header = history.lines().next().unwrap();
    assert!(header.contains(",f1,minus_f2,c1,hypervolume,"), "{header}");
    let column: Vec<f64> = (history.lines().skip(1))
        .map(|l| l.split(',').nth(8).unwrap().parse().unwrap())
        .collect();
    // Never falls (beyond the last digit: the same front summed in another order).
    assert!(
        column.windows(2).all(|w| w[1] >= w[0] - 1e-12 * w[0]),
        "{column:?}"
    );
    assert!(out.join("pareto.png").exists());
}

/// A command prints each objective by name; a run killed after a few evaluations and
/// resumed ends with the same Pareto set and hypervolume as one never interrupted.
#[test]
fn the_pareto_set_after_resume_equals_an_uninterrupted_runs() {
    let problem = "var w in [0.1, 1], h in [0.1, 1]\nminimize weight: 0\nminimize sag: 0\n\
                   oracle command \"./beam.sh {w} {h}\" { output json }\n\
                   budget 14, init 5 sobol\nmethod gp-ei\n";
    let beam = "#!/bin/sh\nsleep 0.1\nawk -v w=\"$1\" -v h=\"$2\" \
                'BEGIN { printf \"{\\\"sag\\\": %.12g, \\\"weight\\\": %.12g}\\n\", 1/(w*h^3), w*h }'\n";
    let dir = scratch("objectives-resume", problem, &[("beam.sh", beam)]);
    let solve = |out: &str| -> Vec<String> {
        [
            "solve",
            "problem.pde",
            "--allow-exec",
            "--quiet",
            "--out",
            out,
        ]
        .map(String::from)
        .to_vec()
    };
    let whole = pinnbo(
        &dir,
        &solve("whole")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let mut child = Command::new(env!("CARGO_BIN_EXE_pinnbo"))
        .args(solve("cut"))
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.join("cut/journal.jsonl");
    common::wait_for_lines(&journal, 9, Duration::from_secs(60));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(records(&dir.join("cut")).len() < 14);
    let resumed = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--quiet",
            "--resume",
            "cut",
        ],
    );
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let (a, b) = (summary(&dir.join("whole")), summary(&dir.join("cut")));
    assert_eq!(a["pareto"], b["pareto"]);
    assert!(a["pareto"]["points"].as_array().unwrap().len() >= 3, "{a}");
}

/// Measured by the caller: `tell --objective` takes each objective by name (refusing a
/// missing or unknown one).
#[test]
fn several_objectives_are_told_by_name() {
    let problem = "var x in [0, 1]\nminimize cost: 0\nmaximize yield: 0\noracle external\n\
                   budget 6, init 2\n";
    let dir = scratch("objectives-tell", problem, &[]);
    let asked = pinnbo(&dir, &["ask", "problem.pde", "--out", "out"]);
    assert!(asked.status.success(), "{}", text(&asked.stderr));
    let id = text(&asked.stdout).split('\t').next().unwrap().to_string();
    let told = |value: &str| pinnbo(&dir, &["tell", "out", "--id", &id, "--objective", value]);
    let missing = told("cost=1");
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr).contains("--objective gives no value for yield"),
        "{}",
        text(&missing.stderr)
    );
    let unknown = told("cost=1,yeild=2");
    assert!(
        text(&unknown.stderr).contains(
            "`yeild` is not an objective; --objective takes each objective by name: cost=..,yield=.."
        ),
        "{}",
        text(&unknown.stderr)
    );
    assert!(told("cost=0.3,yield=2.5").status.success());
    let s = summary(&dir.join("out"));
    let points = s["pareto"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "{s}");
    assert_eq!(points[0]["objectives"]["cost"], 0.3);
    assert_eq!(points[0]["objectives"]["yield"], 2.5);
}

/// `--import` reads a column per objective, by name.
#[test]
fn several_objectives_are_imported_by_name() {
    let problem = "var x in [0, 1]\nminimize cost: x\nmaximize yield: x^2\nbudget 4, init 2\n";
    let imported = "yield,x,cost\n0.04,0.2,0.2\n";
    let dir = scratch("objectives-import", problem, &[("earlier.csv", imported)]);
    let run = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--out",
            "out",
            "--quiet",
            "--import",
            "earlier.csv",
        ],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let first = &records(&dir.join("out"))[0];
    assert_eq!(first["observed"]["objective"], 0.2);
    assert_eq!(first["observed"]["other_objectives"][0], 0.04);
}

/// `pinnbo bench` judges several objectives by the hypervolume regret where the true front's
/// hypervolume is the file's `optimum`: every run's regret is that less its hypervolume.
#[test]
fn a_benchmark_of_several_objectives_reports_the_hypervolume_regret() {
    // The front of (x, 1 − x) over [0, 1] from (1, 1) dominates half the unit square.
    let problem = "var x in [0, 1], y in [0, 1]\nminimize a: x + y\nminimize b: 1 - x + y\n\
                   reference a = 1, b = 1\noptimum 0.5\nbudget 8, init 4\n";
    let dir = scratch("objectives-bench", problem, &[]);
    let bench = pinnbo(
        &dir,
        &[
            "bench",
            "problem.pde",
            "--methods",
            "gp-ei,random",
            "--seeds",
            "2",
            "--out",
            "b",
        ],
    );
    assert!(bench.status.success(), "{}", text(&bench.stderr));
    let report = std::fs::read_to_string(dir.join("b/report.md")).unwrap();
    assert!(
        report.contains("Metric at the final budget: hypervolume regret"),
        "{report}"
    );
    let results = std::fs::read_to_string(dir.join("b/results.csv")).unwrap();
    let last: Vec<&str> = (results.lines().skip(1))
        .filter(|l| l.split(',').nth(3) == Some("8"))
        .collect();
    assert_eq!(last.len(), 4, "{results}");
    for line in last {
        let cells: Vec<&str> = line.split(',').collect();
        let (hv, regret): (f64, f64) = (cells[4].parse().unwrap(), cells[5].parse().unwrap());
        assert!((0.5 - hv - regret).abs() < 1e-12 && regret >= 0.0, "{line}");
    }
}
