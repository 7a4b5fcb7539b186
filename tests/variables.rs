//! The variables real design problems have: a continuous variable on a log scale is
//! searched over its decades (docs/dsl.md).

mod common;
mod support;
use common::pinnbo;
use support::{records, scratch, text};

/// A learning rate over three decades: the initial design spreads over the decades (a
/// linear design would put one point in ten below 1e-2), and gp-ei finds the optimum at
/// 10^-2.5 within a factor 1.5.
#[test]
fn a_log_scale_variable_is_searched_over_its_decades() {
    let problem = "var lr in [1e-4, 1e-1] log\nminimize (log(lr)/log(10) + 2.5)^2\n\
                   budget 14, init 6 sobol\nmethod gp-ei\n";
    let dir = scratch("log-variable", problem, &[]);
    let run = pinnbo(&dir, &["solve", "problem.pde", "--out", "out", "--quiet"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let lr: Vec<f64> = records(&dir.join("out"))
        .iter()
        .map(|r| r["x"][0].as_f64().unwrap())
        .collect();
    assert!(lr.iter().all(|v| (1e-4..=1e-1).contains(v)), "{lr:?}");
    let below = lr[..6].iter().filter(|v| **v < 1e-2).count();
    assert!(
        below >= 3,
        "the design has {below} of 6 points below 1e-2: {lr:?}"
    );
    let best = lr
        .iter()
        .copied()
        .min_by(|a, b| (a.log10() + 2.5).abs().total_cmp(&(b.log10() + 2.5).abs()))
        .unwrap();
    let optimum = 10f64.powf(-2.5);
    assert!(best / optimum < 1.5 && optimum / best < 1.5, "best {best}");
}

/// The physics methods model the field in its variables' linear coordinates: a log-scale
/// variable of the field is refused with the reason.
#[test]
fn a_physics_method_refuses_a_log_scale_variable_of_its_field() {
    let problem = "var x in [0.1, 10] log\nfield u(x)\npde d(u, x, 2) = 0\nminimize u\n\
                   oracle external\nmethod physics-gp\n";
    let dir = scratch("log-physics", problem, &[]);
    let asked = pinnbo(&dir, &["ask", "problem.pde", "--out", "out"]);
    assert_eq!(asked.status.code(), Some(2), "{}", text(&asked.stderr));
    assert!(
        text(&asked.stderr).contains("`x` is on a log scale: drop `log`"),
        "{}",
        text(&asked.stderr)
    );
}

/// physics-gp over a categorical variable: the pde (its conductivity selected by the level)
/// is conditioned on within each level, and the run finds the best level and the optimum
/// within it (−3.86305 at titanium, x = 0.982); PINN-BO refuses the variable with the reason.
#[test]
fn physics_gp_conditions_on_the_pde_within_each_level() {
    let problem = "var x in [0, 1], material in {steel, copper, titanium}\n\
                   fn k() = 1*(material == steel) + 2.5*(material == copper) + 0.6*(material == titanium)\n\
                   fn left() = 0.2*(material == steel) - 0.1*(material == copper) + 0.5*(material == titanium)\n\
                   field T(x, material) = sin(5*x)*exp(x)/k() + left()\n\
                   pde k()*dxx(T) = (10*cos(5*x) - 24*sin(5*x))*exp(x)\n\
                   minimize T\nbudget 14, init 6 sobol\nmethod physics-gp\n";
    let dir = scratch("physics-gp-levels", problem, &[]);
    let run = pinnbo(&dir, &["solve", "problem.pde", "--out", "out", "--quiet"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    let best = &summary["best"];
    assert_eq!(best["at"]["material"], "titanium", "{summary}");
    let regret = best["objective"].as_f64().unwrap() + 3.863053477;
    assert!(regret < 1e-3, "regret {regret}");
    // Once the data confirm it (its targets plausible under the fitted prior), the steps use
    // the pde's model: the last three here.
    let steps: Vec<serde_json::Value> = (records(&dir.join("out")).into_iter())
        .filter(|r| r["phase"] == "step")
        .collect();
    let kept = |r: &serde_json::Value| r["diagnostics"]["pde_kept"] == true;
    assert!(steps[steps.len() - 3..].iter().all(kept), "{steps:?}");
    let pinn = pinnbo(
        &dir,
        &["solve", "problem.pde", "--method", "pinn-bo", "--out", "p"],
    );
    assert_eq!(pinn.status.code(), Some(2), "{}", text(&pinn.stderr));
    assert!(
        text(&pinn.stderr).contains("`material` takes named levels: choose physics-gp"),
        "{}",
        text(&pinn.stderr)
    );
}

/// Integer variables: every proposal is a point of the lattice, and none repeats an
/// evaluated one while the lattice has unevaluated points (20 of its 24 are evaluated).
#[test]
fn integer_proposals_are_integers_and_never_repeat() {
    let problem = "var n in 1..6, m in 0..3\nminimize (n - 3.3)^2 + (m - 1.2)^2\n\
                   budget 20, init 5 sobol\nmethod gp-ei\n";
    let dir = scratch("integer-variables", problem, &[]);
    let run = pinnbo(&dir, &["solve", "problem.pde", "--out", "out", "--quiet"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let points: Vec<Vec<f64>> = records(&dir.join("out"))
        .iter()
        .map(|r| serde_json::from_value(r["x"].clone()).unwrap())
        .collect();
    assert!(
        points.iter().flatten().all(|v| v.fract() == 0.0),
        "{points:?}"
    );
    let steps = &points[5..];
    for (i, p) in steps.iter().enumerate() {
        let earlier = points[..5 + i].iter().any(|q| q == p);
        assert!(!earlier, "step {} repeats {p:?}", i + 1);
    }
    assert!(
        points.contains(&vec![3.0, 1.0]),
        "the optimum was not found"
    );
    // A value told for an integer variable must be one.
    let told = pinnbo(
        &dir,
        &["tell", "out", "--at", "n=2.5,m=1", "--objective", "1"],
    );
    assert_eq!(told.status.code(), Some(1), "{}", text(&told.stderr));
    assert!(
        text(&told.stderr).contains("`n` = 2.5 is not an integer"),
        "{}",
        text(&told.stderr)
    );
}

/// A categorical variable: proposals are levels, the search finds the best level (the
/// second of four, in no order) and the continuous optimum within it; levels are read and
/// written by name in `--import`, `ask`, `history.csv` and `summary.json`.
#[test]
fn a_categorical_variable_is_searched_by_level_and_named_everywhere() {
    let problem = "var t in [0, 3], wood in {oak, pine, steel, glass}\n\
                   fn cost() = 2*(wood == oak) + 3*(wood == steel) + (wood == glass)\n\
                   minimize (t - 1.3)^2 + cost()\n\
                   budget 16, init 4 sobol\nmethod gp-ei\n";
    let imported = "t,wood,objective\n0.5,oak,2.64\n";
    let dir = scratch("categorical", problem, &[("earlier.csv", imported)]);
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
    let points: Vec<Vec<f64>> = records(&dir.join("out"))
        .iter()
        .map(|r| serde_json::from_value(r["x"].clone()).unwrap())
        .collect();
    assert_eq!(points[0], vec![0.5, 0.0], "the imported row");
    assert!(points.iter().all(|p| [0.0, 1.0, 2.0, 3.0].contains(&p[1])));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    let best = &summary["best"]["at"];
    assert_eq!(best["wood"], "pine", "{summary}");
    let t = best["t"].as_f64().unwrap();
    assert!((t - 1.3).abs() < 0.05, "{summary}");
    let history = std::fs::read_to_string(dir.join("out/history.csv")).unwrap();
    assert!(
        history
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("0,import,0.5,oak,"),
        "{history}"
    );
    // ask names the levels; a level that does not exist is refused at its line and column.
    let more = pinnbo(&dir, &["ask", "out", "--budget", "17"]);
    let line = text(&more.stdout);
    assert!(
        ["oak", "pine", "steel", "glass"]
            .iter()
            .any(|l| line.contains(&format!("wood={l}"))),
        "{line}"
    );
    std::fs::write(dir.join("bad.csv"), "t,wood,objective\n1,brass,2\n").unwrap();
    let refused = pinnbo(
        &dir,
        &[
            "solve",
            "problem.pde",
            "--out",
            "other",
            "--import",
            "bad.csv",
        ],
    );
    assert!(
        text(&refused.stderr).contains(
            "bad.csv:2:2: `brass` is not a level of `wood`; its levels are oak, pine, steel, glass"
        ),
        "{}",
        text(&refused.stderr)
    );
}

/// A space of discrete variables alone can be used up: `solve` stops once every point has
/// been evaluated (and says so), and `ask` never hands out more points than are left nor a
/// pending point twice (issue 53, item 21).
#[test]
fn an_exhausted_lattice_ends_the_run_and_is_never_asked_twice() {
    let solved = "var n in 1..3\nminimize (n - 2)^2\nbudget 8, init 2\nmethod gp-ei\n";
    let dir = scratch("lattice-solve", solved, &[]);
    let out = pinnbo(&dir, &["solve", "problem.pde", "--out", "run"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("every point of the space was evaluated"),
        "{}",
        text(&out.stdout)
    );
    let mut points: Vec<f64> = (records(&dir.join("run")).iter())
        .map(|r| r["x"][0].as_f64().unwrap())
        .collect();
    points.sort_by(f64::total_cmp);
    assert_eq!(points, [1.0, 2.0, 3.0]);
    let summary = std::fs::read_to_string(dir.join("run/summary.json")).unwrap();
    assert!(summary.contains("\"exhausted_at\": 4"), "{summary}");

    let external = "var n in 1..3\nfield f(n)\nminimize f\noracle external\nbudget 8, init 2\n";
    let dir = scratch("lattice-ask", external, &[]);
    let refused = pinnbo(&dir, &["ask", "problem.pde", "--out", "lab", "-n", "6"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("ask for at most 3"),
        "{}",
        text(&refused.stderr)
    );
    let asked = pinnbo(&dir, &["ask", "lab", "-n", "3"]);
    assert!(asked.status.success(), "{}", text(&asked.stderr));
    let mut handed: Vec<String> = (text(&asked.stdout).lines())
        .map(|l| l.split('\t').nth(1).unwrap().to_string())
        .collect();
    handed.sort();
    assert_eq!(handed, ["n=1", "n=2", "n=3"]);
}
