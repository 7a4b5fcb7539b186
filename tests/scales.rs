//! Values at any magnitude: the models standardize what they see, so an objective scaled by
//! 1e200 or 1e-170 is searched exactly as the same objective in ordinary units (issue 53,
//! item 11: every step went to a box corner beyond about 1e155 and below 1e-160).

mod common;
mod support;
use common::pinnbo;
use support::{points, scratch, text};

#[test]
fn an_objective_scaled_by_any_power_of_ten_is_searched_the_same() {
    let run = |scale: &str| {
        let problem = format!(
            "var x in [0, 1]\nminimize {scale} * ((x - 0.3)^2 + 0.1)\nbudget 12, init 4\nmethod gp-ei\n"
        );
        let dir = scratch(&format!("scaled-{scale}"), &problem, &[]);
        let out = pinnbo(&dir, &["solve", "problem.pde", "--out", "run", "--quiet"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (points(&dir.join("run")).iter())
            .map(|x| x[0].as_f64().unwrap())
            .collect::<Vec<f64>>()
    };
    let ordinary = run("1");
    for scale in ["1e200", "1e-170"] {
        let scaled = run(scale);
        let apart = (scaled.iter().zip(&ordinary))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(apart < 1e-6, "{scale}: {scaled:?} against {ordinary:?}");
    }
    let near = (ordinary.iter())
        .filter(|x| (*x - 0.3).abs() < 0.01)
        .count();
    assert!(near >= 4, "{ordinary:?}");
}
