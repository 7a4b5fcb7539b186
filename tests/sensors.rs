//! End-to-end tests of design problems measured by sensors: a field over a coordinate the
//! optimizer does not choose (`coord`), `sensors` read by every oracle kind, journaled,
//! written to `history.csv`, told with `pinnbo tell --sensors` and imported again.

mod common;
mod support;
use common::pinnbo;
use support::{assert_each_step_decided_once, assert_pde_kept_at_every_step};
use support::{records, scratch, summary, text};

/// A source at `a` of power `Q` on a rod; the objective reads the field at a detector and
/// the sensors at three places and one more.
const ROD: &str = "var a in [0.1, 0.9], Q in [0.5, 2]\ncoord x in [0, 1]\n\
    field T(x, a, Q) = Q * exp(-(x - a)^2 / 0.02)\n\
    sensors T at x = grid(0, 1, 3)\nsensors T at x = 0.8\n\
    minimize (T(0.8, a, Q) - 1)^2\nbudget 7, init 4\nmethod gp-ei\n";

/// The field at `x` for the design `(a, Q)`, as the file defines it.
fn field(x: f64, a: f64, q: f64) -> f64 {
    q * (-(x - a).powi(2) / 0.02).exp()
}

/// Every evaluation of a closed form journals its sensors, the field at each place, in the
/// file's order; `history.csv` heads a column by each and holds the same values.
#[test]
fn a_closed_form_measures_its_sensors_at_every_evaluation() {
    let dir = scratch("sensors-closed", ROD, &[]);
    let out = pinnbo(&dir, &["solve", "problem.pde", "--out", "run", "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records = records(&dir.join("run"));
    assert_eq!(records.len(), 7);
    for r in &records {
        let (a, q) = (r["x"][0].as_f64().unwrap(), r["x"][1].as_f64().unwrap());
        let sensors: Vec<f64> = (r["observed"]["sensors"].as_array().unwrap().iter())
            .map(|v| v.as_f64().unwrap())
            .collect();
        let truth: Vec<f64> = [0.0, 0.5, 1.0, 0.8]
            .iter()
            .map(|x| field(*x, a, q))
            .collect();
        assert_eq!(sensors.len(), 4);
        for (got, want) in sensors.iter().zip(&truth) {
            assert!(
                (got - want).abs() <= 1e-14 * want.abs().max(1.0),
                "{sensors:?} {truth:?}"
            );
        }
    }
    let history = std::fs::read_to_string(dir.join("run/history.csv")).unwrap();
    let header = history.lines().next().unwrap();
    assert!(
        header.contains(",T@0,T@0.5,T@1,T@0.8,best_so_far,"),
        "{header}"
    );
    let last: Vec<&str> = history.lines().last().unwrap().split(',').collect();
    let at = header.split(',').position(|h| h == "T@0.8").unwrap();
    let journaled = records.last().unwrap()["observed"]["sensors"][3]
        .as_f64()
        .unwrap();
    assert_eq!(last[at].parse::<f64>().unwrap(), journaled);
}

/// A command prints its sensors by field; one that leaves them out fails with the reason,
/// and a run told by hand takes `--sensors` by field, refusing a wrong count.
#[test]
fn commands_and_tell_give_sensors_by_field() {
    let script = "import json, sys, math\na, Q = float(sys.argv[1]), float(sys.argv[2])\n\
        T = lambda x: Q * math.exp(-(x - a) ** 2 / 0.02)\n\
        print(json.dumps({\"objective\": (T(0.8) - 1) ** 2, \"sensors\": {\"T\": [T(0.0), T(0.5), T(1.0), T(0.8)]}}))\n";
    let problem = ROD.replace(
        "method gp-ei\n",
        "method gp-ei\noracle command \"python3 sim.py {a} {Q}\" { output json }\n",
    );
    let dir = scratch("sensors-command", &problem, &[("sim.py", script)]);
    let out = pinnbo(
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
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = &records(&dir.join("run"))[0];
    let (a, q) = (
        first["x"][0].as_f64().unwrap(),
        first["x"][1].as_f64().unwrap(),
    );
    let told = first["observed"]["sensors"][3].as_f64().unwrap();
    assert!((told - field(0.8, a, q)).abs() < 1e-12);

    let silent = script.replace(
        ", \"sensors\": {\"T\": [T(0.0), T(0.5), T(1.0), T(0.8)]}",
        "",
    );
    assert_ne!(silent, script);
    std::fs::write(dir.join("sim.py"), silent).unwrap();
    let out = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--allow-exec",
            "--out",
            "silent",
            "--quiet",
        ],
    );
    assert!(!out.status.success());
    let failure = records(&dir.join("silent"))[0]["failure"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(failure.contains("the JSON has no \"sensors\""), "{failure}");

    let external = ROD.replace("method gp-ei\n", "method gp-ei\noracle external\n");
    let lab = scratch("sensors-tell", &external, &[]);
    let out = pinnbo(&lab, &["ask", "problem.pde", "--out", "lab", "-n", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let short = pinnbo(
        &lab,
        &[
            "tell",
            "lab",
            "--id",
            "0",
            "--objective",
            "0.5",
            "--sensors",
            "T=1,2,3",
        ],
    );
    assert_eq!(
        text(&short.stderr).trim(),
        "error: --sensors: `T` has 4 sensor(s), 3 value(s) were given"
    );
    let none = pinnbo(&lab, &["tell", "lab", "--id", "0", "--objective", "0.5"]);
    assert_eq!(
        text(&none.stderr).trim(),
        "error: --sensors: no sensor values for `T`"
    );
    let told = pinnbo(
        &lab,
        &[
            "tell",
            "lab",
            "--id",
            "0",
            "--objective",
            "0.5",
            "--sensors",
            "T=1,2,3,4",
        ],
    );
    assert!(told.status.success(), "{}", text(&told.stderr));
    assert_eq!(
        records(&lab.join("lab"))[0]["observed"]["sensors"],
        serde_json::json!([1.0, 2.0, 3.0, 4.0])
    );
}

/// `history.csv` is an import file: its sensor columns come back as they were written.
#[test]
fn imported_rows_keep_their_sensor_values() {
    let dir = scratch("sensors-import", ROD, &[]);
    let out = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--out",
            "first",
            "--quiet",
            "--budget",
            "4",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let history = std::fs::read_to_string(dir.join("first/history.csv")).unwrap();
    let mut rows = history.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    let keep = ["a", "Q", "objective", "T@0", "T@0.5", "T@1", "T@0.8"];
    let index: Vec<usize> = keep
        .iter()
        .map(|k| header.iter().position(|h| h == k).unwrap())
        .collect();
    let mut csv = keep.join(",") + "\n";
    for row in rows {
        let cells: Vec<&str> = row.split(',').collect();
        csv += &(index
            .iter()
            .map(|i| cells[*i])
            .collect::<Vec<_>>()
            .join(",")
            + "\n");
    }
    std::fs::write(dir.join("earlier.csv"), &csv).unwrap();
    let out = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--out",
            "second",
            "--import",
            "earlier.csv",
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = records(&dir.join("first"));
    let second = records(&dir.join("second"));
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a["observed"]["sensors"], b["observed"]["sensors"]);
    }
}

/// gp-ei reads the objective from a model of the field fitted to every sensor value where
/// that predicts it better than the objective alone (its diagnostics count the rows); a run
/// stopped and resumed proposes exactly what one run
/// does, its field model's optimum saved between steps; gp-ts reads the objective alone.
#[test]
fn gp_ei_models_the_sensed_field_and_resumes_exactly() {
    let dir = scratch("sensors-gp-ei", &ROD.replace("budget 7", "budget 9"), &[]);
    let whole = pinnbo(&dir, &["solve", "problem.pde", "--out", "whole", "--quiet"]);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let records_whole = records(&dir.join("whole"));
    // Each step says whether the field's model predicted the objective better than the
    // objective alone, and where it did, how many rows it was fitted to.
    let steps: Vec<Option<u64>> = (records_whole.iter())
        .filter(|r| r["phase"] == "step")
        .map(|r| {
            let kept = r["diagnostics"]["sensed_kept"]
                .as_bool()
                .expect("the check");
            kept.then(|| r["diagnostics"]["sensed_rows"].as_u64().expect("its rows"))
        })
        .collect();
    let rows = [16, 20, 24, 28, 32];
    assert!(steps.iter().any(Option::is_some), "{steps:?}");
    for (step, rows) in steps.iter().zip(rows) {
        assert!(step.is_none_or(|r| r == rows), "{steps:?}");
    }
    let first = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--out",
            "parts",
            "--quiet",
            "--budget",
            "7",
        ],
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let rest = pinnbo(
        &dir,
        &["solve", "--resume", "parts", "--quiet", "--budget", "9"],
    );
    assert!(rest.status.success(), "{}", text(&rest.stderr));
    let points = |d: &str| -> Vec<serde_json::Value> {
        records(&dir.join(d))
            .iter()
            .map(|r| r["x"].clone())
            .collect()
    };
    assert_eq!(points("whole"), points("parts"));
    let ts = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--out",
            "ts",
            "--quiet",
            "--method",
            "gp-ts",
        ],
    );
    assert!(ts.status.success(), "{}", text(&ts.stderr));
    assert!(records(&dir.join("ts"))
        .iter()
        .all(|r| r["diagnostics"].get("sensed_rows").is_none()));
}

/// A finished run's `summary.json` gives the model's field at the best design: at each
/// sensor's place (near what the sensors read there, the model fits its data) and of each
/// functional the objective reads; `field.png` draws it along the coordinate.
#[test]
fn the_summary_reports_the_field_at_the_best_design() {
    let dir = scratch("sensors-summary", ROD, &[]);
    let out = pinnbo(&dir, &["solve", "problem.pde", "--out", "run", "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary = summary(&dir.join("run"));
    let field = &summary["field"];
    assert_eq!(field["field"], "T");
    let index = summary["best"]["index"].as_u64().unwrap() as usize;
    let measured = records(&dir.join("run"))[index]["observed"]["sensors"].clone();
    let sensors = field["sensors"].as_array().unwrap();
    let names: Vec<&str> = sensors
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["T@0", "T@0.5", "T@1", "T@0.8"]);
    for (k, s) in sensors.iter().enumerate() {
        let (mean, std) = (s["mean"].as_f64().unwrap(), s["std"].as_f64().unwrap());
        let told = measured[k].as_f64().unwrap();
        assert!(
            (mean - told).abs() <= 1e-3 + 3.0 * std,
            "{} {mean} ± {std} against {told}",
            names[k]
        );
    }
    assert_eq!(field["functionals"][0]["name"], "T(0.8, a, Q)");
    assert!(dir.join("run/field.png").is_file());
}

/// An fdm oracle simulates each design: the rod `-T'' = q` with `T(0) = T0`, `T(1) = 0` has
/// the exact field `T0 (1 - x) + q x (1 - x) / 2`, which its journaled sensors and objective
/// match; the run draws its field picture and no landscape of the true objective (each of its
/// points would be a solve).
#[test]
fn an_fdm_oracle_simulates_every_design() {
    let rod = "var q in [0, 10], T0 in [0, 1]\ncoord x in [0, 1]\nfield T(x, q, T0)\n\
        pde -dxx(T) = q\nsensors T at x = 0.25, 0.5\nminimize (T(0.7, q, T0) - 0.9)^2\n\
        oracle fdm {\n T = T0 at x = 0\n T = 0 at x = 1\n}\nbudget 7, init 5\nmethod gp-ei\n";
    let dir = scratch("sensors-fdm", rod, &[]);
    let out = pinnbo(&dir, &["solve", "problem.pde", "--out", "run", "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let exact = |x: f64, q: f64, t0: f64| t0 * (1.0 - x) + q * x * (1.0 - x) / 2.0;
    let records = records(&dir.join("run"));
    assert_eq!(records.len(), 7);
    for r in &records {
        let (q, t0) = (r["x"][0].as_f64().unwrap(), r["x"][1].as_f64().unwrap());
        let sensors = r["observed"]["sensors"].as_array().unwrap();
        for (v, x) in sensors.iter().zip([0.25, 0.5]) {
            assert!((v.as_f64().unwrap() - exact(x, q, t0)).abs() < 1e-9, "{r}");
        }
        let objective = r["observed"]["objective"].as_f64().unwrap();
        let truth = (exact(0.7, q, t0) - 0.9).powi(2);
        assert!(
            (objective - truth).abs() < 1e-5,
            "{objective} against {truth}"
        );
    }
    assert!(dir.join("run/field.png").exists());
    assert!(!dir.join("run/evaluations.png").exists());
}

/// physics-gp on a design problem counts its steps' pde verdicts as on any other problem:
/// `check none` keeps the pde at every step, the default check decides each step once, and
/// `summary.json` and `solve`'s report say so.
#[test]
fn a_design_run_says_how_often_it_used_the_physics() {
    let rod = |check: &str| {
        format!(
            "var q in [0, 10], T0 in [0, 1]\ncoord x in [0, 1]\n\
             field T(x, q, T0) = T0*(1 - x) + q*x*(1 - x)/2\npde -dxx(T) = q\n\
             sensors T at x = 0.25, 0.5\nminimize (T(0.7, q, T0) - 0.9)^2\n\
             budget 7, init 4\nmethod physics-gp {{ residual_points 32{check} }}\n"
        )
    };
    let run = |name: &str, check: &str| {
        let dir = scratch(name, &rod(check), &[]);
        let out = pinnbo(&dir, &["solve", "problem.pde", "--out", "run"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (
            text(&out.stdout),
            summary(&dir.join("run"))["pde_checks"].clone(),
        )
    };
    let (report, checks) = run("sensors-pde-unchecked", ", check none");
    assert_pde_kept_at_every_step(&report, &checks, 3);
    let (report, checks) = run("sensors-pde-checked", "");
    assert_each_step_decided_once(&report, &checks, 3);
}
