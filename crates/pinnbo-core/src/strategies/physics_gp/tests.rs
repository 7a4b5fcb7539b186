//! physics-gp's strategy-level tests: a step on small problems, read through its diagnostics.

use super::model_check::CONFIRMED;
use super::*;
use crate::numerics::design::{points, Design};
use crate::strategies::registry::strategy;
use pinnbo_dsl::{compile, Source};
use rand::SeedableRng;

/// A harmonic pde (a maximum principle: the maximum lies on the faces) over data from
/// `field`, maximized: the problem and 12 observations.
fn harmonic(field: &str) -> (Problem, Vec<Observed>) {
    harmonic_with(field, "")
}

/// [`harmonic`] with more of physics-gp's settings.
fn harmonic_with(field: &str, settings: &str) -> (Problem, Vec<Observed>) {
    let text = format!(
        "var x in [0, 1], y in [0, 1]\nfield f(x, y) = {field}\npde laplacian(f) = 0\n\
         maximize f\nmethod physics-gp {{ residual_points 64{settings} }}\n"
    );
    let problem = compile(&Source::new("faces.pde", text.as_str()))
        .unwrap()
        .problem;
    let value = problem.closed_form_objective().unwrap();
    let history: Vec<Observed> = points(Design::Sobol, 12, 2, 1)
        .into_iter()
        .map(|unit| Observed::initial(-value.eval(&unit), Vec::new(), unit))
        .collect();
    (problem, history)
}

/// A bump inside the box: not harmonic, its maximum inside.
fn bump() -> (Problem, Vec<Observed>) {
    harmonic("exp(-20*((x - 0.5)^2 + (y - 0.4)^2))")
}

/// physics-gp's step on [`harmonic`]'s data: its diagnostics.
fn step_on(field: &str) -> Diagnostics {
    step_with(field, "")
}

fn step_with(field: &str, settings: &str) -> Diagnostics {
    let (problem, history) = harmonic_with(field, settings);
    let mut strategy = strategy(&problem, "physics-gp", 0).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let space = Space::of(&problem);
    strategy
        .propose(&space, &history, &mut rng)
        .unwrap()
        .diagnostics
}

/// The faces are searched while the data keep the pde, and never once they drop it: a
/// bump inside the box is not harmonic, and its maximum is inside.
#[test]
fn the_faces_are_searched_only_while_the_pde_is_kept() {
    let harmonic = step_on("x^2 - y^2 + x*y");
    assert_eq!(harmonic.get("pde_kept"), Some(&true.into()));
    assert_eq!(harmonic.get("search"), Some(&"faces".into()));
    assert_eq!(harmonic.get("pde_dropped_by"), None);
    let bump = step_on("exp(-20*((x - 0.5)^2 + (y - 0.4)^2))");
    assert_eq!(bump.get("pde_kept"), Some(&false.into()));
    assert_eq!(bump.get("pde_dropped_by"), Some(&"leave-one-out".into()));
    assert_eq!(bump.get("search"), None);
}

/// Where the faces hold, the pde's model is fitted in the unit and the stretched
/// coordinates and the better by leave-one-out is used (`pde_stretched` says which); with
/// `stretch none` only the unit coordinates, and nothing is reported.
#[test]
fn the_pde_model_in_stretched_coordinates_is_used_when_it_predicts_better() {
    let mut chosen = Vec::new();
    // Steep towards a face, and curved about the centre: one of each.
    for field in ["exp(5*x)*cos(5*y)", "cos(3*(x - 0.5))*cosh(3*(y - 0.5))"] {
        let both = step_on(field);
        let plain = step_with(field, ", stretch none");
        assert_eq!(plain.get("pde_stretched"), None);
        let loo = |d: &Diagnostics| d.get("loo_with_pde").and_then(|v| v.as_f64()).unwrap();
        let stretched = both.get("pde_stretched").and_then(|v| v.as_bool()).unwrap();
        match stretched {
            true => assert!(loo(&both) > loo(&plain), "{field}"),
            false => assert_eq!(loo(&both), loo(&plain), "{field}"),
        }
        chosen.push(stretched);
    }
    assert_eq!(chosen, [true, false], "each coordinates chosen once");
}

/// With a discrepancy, the faces are searched while its share is small, and not once it
/// carries the data.
#[test]
fn with_a_discrepancy_the_faces_follow_its_share() {
    let harmonic = step_with("x^2 - y^2 + x*y", ", check discrepancy");
    assert_eq!(harmonic.get("pde_kept"), Some(&true.into()));
    assert_eq!(harmonic.get("search"), Some(&"faces".into()));
    let share = |d: &Diagnostics| d.get("discrepancy_share").and_then(|v| v.as_f64());
    assert!(share(&harmonic) < Some(CONFIRMED));
    let bump = step_with(
        "exp(-20*((x - 0.5)^2 + (y - 0.4)^2))",
        ", check discrepancy",
    );
    assert_eq!(bump.get("pde_kept"), Some(&false.into()));
    assert_eq!(bump.get("pde_dropped_by"), Some(&"discrepancy".into()));
    assert_eq!(bump.get("search"), None);
    assert!(share(&bump) > Some(CONFIRMED));
}

/// Pending points' stand-ins (the worst value so far, inside the box) are not data: with a
/// discrepancy, the pde's verdict and the faces are what the real observations alone say.
/// Here the field has a small bump the pde does not know, which the discrepancy's share
/// (0.0014) leaves below 1%; conditioned on the stand-ins too, it would be above.
#[test]
fn with_a_discrepancy_pending_points_leave_the_verdict() {
    let field = "x^2 - y^2 + x*y + 0.1*exp(-20*((x - 0.5)^2 + (y - 0.4)^2))";
    let (problem, real) = harmonic_with(field, ", check discrepancy");
    let worst = (real.iter()).fold(f64::NEG_INFINITY, |w, o| w.max(o.objective()));
    let pending = [[0.5, 0.5], [0.3, 0.6], [0.6, 0.3], [0.45, 0.55]];
    let with_pending: Vec<Observed> = (real.iter().cloned())
        .chain(pending.iter().map(|p| Observed {
            fantasy: true,
            ..Observed::initial(worst, Vec::new(), p.to_vec())
        }))
        .collect();
    let step = |history: &[Observed]| {
        let mut strategy = strategy(&problem, "physics-gp", 0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let d = (strategy.propose(&Space::of(&problem), history, &mut rng)).unwrap();
        (
            d.diagnostics.get("pde_kept").cloned(),
            d.diagnostics.get("search").cloned(),
        )
    };
    assert_eq!(step(&real), (Some(true.into()), Some("faces".into())));
    assert_eq!(step(&with_pending), step(&real));
}

/// Once the check drops the pde, physics-gp's model of the objective is gp-ei's: the
/// same predictions from the same data and stream.
#[test]
fn without_the_pde_the_model_is_gp_eis() {
    let (problem, history) = bump();
    let grid = points(Design::Sobol, 32, 2, 4);
    let space = Space::of(&problem);
    let predict = |method: &str| {
        let mut strategy = strategy(&problem, method, 0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        strategy
            .predict(&space, &history, &grid, &mut rng)
            .unwrap()
            .unwrap()
    };
    assert_eq!(predict("physics-gp"), predict("gp-ei"));
}

/// A heat source concentrated between the residual points: at those points the pde
/// looks like Laplace's, whose maximum lies on the faces, but the field's maximum is at
/// the source. The denser check finds the source and keeps the whole box.
#[test]
fn a_source_between_the_residual_points_keeps_the_whole_box() {
    let text = "var x in [0, 1], y in [0, 1]\nfield f(x, y)\n\
                pde laplacian(f) = -exp(-200000*((x - 0.53)^2 + (y - 0.41)^2))\n\
                maximize f\noracle external\nmethod physics-gp\n";
    let problem = compile(&Source::new("spike.pde", text)).unwrap().problem;
    let field = objective_field(&problem, "test").unwrap();
    let operators = OperatorRegistry::new();
    let seed = 7;
    let sparse = crate::strategies::pde::residuals(&problem, field, &operators, 256, seed).unwrap();
    assert!(
        optimum_on_faces(&sparse, true),
        "the residual points miss the source"
    );
    let strategy = PhysicsGp::new(
        &MethodSettings::defaults("physics-gp"),
        &problem,
        &operators,
        seed,
    )
    .unwrap();
    assert!(!strategy.faces);
}

/// With a categorical variable the pde is conditioned on within each level: observed at
/// one level only, the model's field at the other already bends as that level's pde
/// says (its conductivity three times the first's), which a model without the pde
/// cannot know.
#[test]
fn the_pde_holds_within_a_level_without_observations() {
    let text = "var x in [0, 1], m in {a, b}\nfn k() = 1*(m == a) + 3*(m == b)\n\
                field T(x, m) = sin(3*x)/k() + 0.2*(m == b)*x\n\
                pde k()*dxx(T) = -9*sin(3*x)\nminimize T\n\
                method physics-gp { check none }\n";
    let problem = compile(&Source::new("levels.pde", text)).unwrap().problem;
    let value = problem.closed_form_objective().unwrap();
    let history: Vec<Observed> = (points(Design::Sobol, 8, 1, 1).into_iter())
        .map(|u| {
            // Level a's share of the unit interval is [0, ½), its centre ¼.
            let unit = vec![u[0], 0.25];
            Observed::initial(value.eval(&[u[0], 0.0]), Vec::new(), unit)
        })
        .collect();
    let space = Space::of(&problem);
    let h = 0.02;
    let xs: Vec<f64> = (0..=12).map(|i| 0.2 + 0.05 * i as f64).collect();
    let grid: Vec<Vec<f64>> = (xs.iter())
        .flat_map(|&x| [x - h, x, x + h].map(|x| vec![x, 0.75]))
        .collect();
    let bending = |method: &str| {
        let mut strategy = strategy(&problem, method, 0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mean = (strategy.predict(&space, &history, &grid, &mut rng))
            .unwrap()
            .unwrap();
        let worst = (mean.chunks(3).zip(&xs))
            .map(|(m, &x)| ((m[0] - 2.0 * m[1] + m[2]) / (h * h) + 3.0 * (3.0 * x).sin()).abs())
            .fold(0.0, f64::max);
        worst
    };
    let with_pde = bending("physics-gp");
    assert!(with_pde < 0.3, "T'' misses -3 sin 3x by {with_pde}");
    assert!(bending("gp-ei") > 1.0);
}
