//! Every method built by name: its settings reach it, its defaults are the table's.

use super::*;
use crate::numerics::design::{points, Design};
use crate::space::Space;
use crate::strategies::{Diagnostics, Observed, Proposal};
use pinnbo_dsl::spec::Kind;
use pinnbo_dsl::{compile, Source};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A 2-D bowl (with a constraint for Neural-CBO) and, for PINN-BO and the physics-informed
/// GP, a field that obeys a pde; `settings` go into the file's method block.
fn problem(method: &str, settings: &str) -> Problem {
    let body = match method {
        "pinn-bo" => "var x in [0, 1], y in [0, 1]\nfield f(x, y) = (x - 0.3)^2 + (y - 0.6)^2\n\
                      pde d(f, x) = 2*(x - 0.3)\nminimize f\n"
            .to_string(),
        // A coefficient that varies, so that per-point and global scaling differ.
        "physics-gp" => "var x in [0, 1], y in [0, 1]\nfield f(x, y) = (x - 0.3)^2 + (y - 0.6)^2\n\
                      pde (1 + 3*x)*d(f, x) = (1 + 3*x)*2*(x - 0.3)\nminimize f\n"
            .to_string(),
        _ => "var x[2] in [0, 1]\nminimize (x[1] - 0.3)^2 + (x[2] - 0.6)^2\n\
              subject to c: x[1] + x[2] <= 0.75\n"
            .to_string(),
    };
    let text = format!("problem \"bowl\"\n{body}method {method} {{ {settings} }}\n");
    match compile(&Source::new("bowl.pde", text.as_str())) {
        Ok(checked) => checked.problem,
        Err(failed) => panic!("{}", failed.render(pinnbo_dsl::Style::Plain)),
    }
}

/// The bowl observed at `unit` (the constraint's value is the problem's).
fn observed(unit: Vec<f64>, proposed: bool) -> Observed {
    Observed {
        sems: Vec::new(),
        objectives: vec![(unit[0] - 0.3).powi(2) + (unit[1] - 0.6).powi(2)],
        constraints: vec![unit[0] + unit[1] - 0.75],
        unit,
        proposed,
        fantasy: false,
        sensors: Vec::new(),
    }
}

/// Six Sobol points of the bowl, as an initial design.
fn design() -> Vec<Observed> {
    points(Design::Sobol, 6, 2, 1)
        .into_iter()
        .map(|unit| observed(unit, false))
        .collect()
}

/// Two steps of `method` configured by `settings` from fixed streams (two, so that what
/// a step carries to the next shows): the second proposal and its diagnostics, timings
/// removed.
fn second_step(method: &str, settings: &str) -> Proposal {
    let problem = problem(method, settings);
    let mut history = design();
    let space = Space::of(&problem);
    let mut strategy = strategy(&problem, method, 0).unwrap();
    let first = strategy
        .propose(&space, &history, &mut ChaCha8Rng::seed_from_u64(2))
        .unwrap();
    history.push(observed(first.unit, true));
    let mut second = strategy
        .propose(&space, &history, &mut ChaCha8Rng::seed_from_u64(3))
        .unwrap();
    second.diagnostics.train_seconds = None;
    second.diagnostics.acquisition_seconds = None;
    for key in ["seconds", "information_seconds"] {
        second.diagnostics.extra.remove(key);
    }
    second
}

/// physics-gp models the objective as minimized: a field maximized, observed as its
/// negation, has the pde of its negation (`N[−f] = −g`), so maximizing `f` and minimizing
/// it give the same predictions of `f`, and knowing the source beats not knowing it.
#[test]
fn physics_gp_predicts_a_maximized_field_as_a_minimized_one() {
    let field = |u: &[f64]| (3.0 * u[0]).sin() + u[1] * u[1];
    let grid = points(Design::Sobol, 50, 2, 7);
    let predictions = |sense: &str, pde: &str| -> Vec<f64> {
        let text = format!(
            "var x in [0, 1], y in [0, 1]\nfield f(x, y) = sin(3*x) + y^2\npde {pde}\n{sense} f\n\
             method physics-gp {{ residual_points 64, check none }}\n"
        );
        let problem = match compile(&Source::new("f.pde", text.as_str())) {
            Ok(checked) => checked.problem,
            Err(failed) => panic!("{}", failed.render(pinnbo_dsl::Style::Plain)),
        };
        let sign = if sense == "maximize" { -1.0 } else { 1.0 };
        let history: Vec<Observed> = points(Design::Sobol, 8, 2, 1)
            .into_iter()
            .map(|unit| Observed::initial(sign * field(&unit), Vec::new(), unit))
            .collect();
        let mut strategy = strategy(&problem, "physics-gp", 0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let means = strategy
            .predict(&Space::of(&problem), &history, &grid, &mut rng)
            .unwrap()
            .unwrap();
        means.iter().map(|m| sign * m).collect()
    };
    let pde = "laplacian(f) = -9*sin(3*x) + 2";
    let (minimized, maximized) = (predictions("minimize", pde), predictions("maximize", pde));
    for (a, b) in minimized.iter().zip(&maximized) {
        assert!((a - b).abs() < 1e-6 * (1.0 + a.abs()), "{a} against {b}");
    }
    let rms = |means: &[f64]| {
        let total: f64 = grid
            .iter()
            .zip(means)
            .map(|(u, m)| (field(u) - m).powi(2))
            .sum();
        (total / means.len() as f64).sqrt()
    };
    let without_source = predictions("maximize", "laplacian(f) = 0");
    assert!(
        rms(&maximized) < 0.5 * rms(&without_source),
        "{} against {}",
        rms(&maximized),
        rms(&without_source)
    );
}

/// One step of `method` configured by `settings`, on the bowl, from a fixed stream.
fn first_step(method: &str, settings: &str) -> Diagnostics {
    let problem = problem(method, settings);
    let space = Space::of(&problem);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut strategy = strategy(&problem, method, 0).unwrap();
    strategy
        .propose(&space, &design(), &mut rng)
        .unwrap()
        .diagnostics
}

/// `acquisition random` reaches the search: from the same stream, refining can only
/// lower the minimized sample (or mean), and with 8 candidates in 2-D it does.
#[test]
fn the_acquisition_setting_reaches_neural_bo_and_neural_greedy() {
    for (method, network) in [
        ("neural-bo", "width 16, steps 20"),
        ("neural-greedy", "width 16, epochs 20"),
    ] {
        let value = |acquisition: &str| {
            let settings = format!("{network}, candidates 8, acquisition {acquisition}");
            let d = first_step(method, &settings);
            match method {
                "neural-bo" => d.get("sample").and_then(|v| v.as_f64()).unwrap(),
                _ => d.predicted.unwrap(),
            }
        };
        let (plain, refined) = (value("random"), value("refine"));
        assert!(refined < plain, "{method}: {refined} vs {plain}");
    }
}

/// `region trust` reaches every searching method, even in 2-D, and `auto` is global there.
#[test]
fn the_region_setting_reaches_the_search() {
    for (method, network) in [
        ("neural-bo", "width 16, steps 20, "),
        ("neural-greedy", "width 16, epochs 20, "),
        ("neural-cbo", "width 16, steps 20, "),
        ("gp-ei", ""),
    ] {
        let trust = first_step(method, &format!("{network}candidates 64, region trust"));
        assert_eq!(trust.region_side, Some(0.1), "{method}");
        let auto = first_step(method, &format!("{network}candidates 64, region auto"));
        assert!(auto.region_side.is_none(), "{method}");
    }
}

/// Small, fast settings per method, and for each declared setting a value other than the
/// base's (so every setting is exercised from a base where it matters: candidates are
/// compared unrefined, or refinement could reach the same point from both sets).
fn cases(method: &str) -> (&'static str, Vec<(&'static str, &'static str)>) {
    let search = [
        ("candidates", "8"),
        ("acquisition", "refine"),
        ("region", "trust"),
    ];
    let surrogate = [
        ("width", "24"),
        ("depth", "3"),
        ("activation", "tanh"),
        ("bias", "0.5"),
        ("lambda", "0.1"),
        ("epochs", "40"),
        ("batch", "3"),
        ("steps", "30"),
        ("lr", "0.001"),
        ("dtype", "f32"),
    ];
    let gp = [
        ("warp", "power"),
        ("kernel", "se"),
        ("prior", "none"),
        ("mean", "average"),
        ("restarts", "1"),
    ];
    match method {
        "neural-bo" => (
            "width 16, epochs 2, steps 20, start previous, warm_steps 5, candidates 256, acquisition random",
            [
                &surrogate[..],
                &[
                    ("features", "dynamic"),
                    ("nu", "3"),
                    ("draw", "independent"),
                    ("start", "initial"),
                    ("warm_steps", "15"),
                    ("warp", "power"),
                ],
                &search,
            ]
            .concat(),
        ),
        "neural-cbo" => (
            "width 16, epochs 2, steps 20, candidates 256, acquisition random",
            [&surrogate[..], &[("beta", "0.5")], &search].concat(),
        ),
        "neural-greedy" => (
            "width 16, epochs 20, candidates 256, acquisition random",
            [
                &[
                    ("width", "24"),
                    ("depth", "2"),
                    ("activation", "sin"),
                    ("lambda", "0.5"),
                    ("epochs", "30"),
                    ("lr", "0.01"),
                ][..],
                &search,
            ]
            .concat(),
        ),
        "pinn-bo" => (
            "width 16, depth 2, epochs 120, residual_points 16, retrain_every 2, \
             candidates 256, acquisition random",
            [
                &[
                    ("width", "24"),
                    ("depth", "1"),
                    ("activation", "sin"),
                    ("bias", "0.3"),
                    ("lambda", "0.1"),
                    ("nu", "2"),
                    ("residual_points", "24"),
                    ("residual_batch", "8"),
                    ("lambda_r", "0.1"),
                    ("sampling", "uniform"),
                    ("scaling", "global"),
                    ("init", "fixed"),
                    ("retrain_every", "1"),
                    ("warm_epochs", "40"),
                    ("surrogate", "ntk-gp"),
                    ("epochs", "150"),
                    ("lr", "0.05"),
                    ("lr_decay", "0.5"),
                ][..],
                &search,
            ]
            .concat(),
        ),
        "gp-ei" => (
            "candidates 256, acquisition random",
            [&gp[..], &search, &[("stop", "0.9")]].concat(),
        ),
        "gp-ucb" => (
            "candidates 256, acquisition random",
            [&gp[..], &[("beta", "9")], &search].concat(),
        ),
        "gp-ts" => ("", [&gp[..], &[("region", "trust")]].concat()),
        "physics-gp" => (
            "criterion ucb, residual_points 16, candidates 256, acquisition random",
            [
                &[
                    ("criterion", "ei"),
                    ("residual_points", "9"),
                    ("scaling", "global"),
                    ("prior", "none"),
                    ("mean", "average"),
                    ("check", "none"),
                    ("check", "prequential"),
                    ("check", "discrepancy"),
                    ("stretch", "always"),
                    ("restarts", "3"),
                    ("beta", "9"),
                    ("stop", "0.9, criterion ei"),
                ][..],
                &search,
            ]
            .concat(),
        ),
        _ => ("", vec![]),
    }
}

/// Settings that choose where the work is done, not what it is: `device`'s effect (a
/// refusal where CUDA cannot run, the same run on the CPU) is tested in tests/device.rs.
const PLACEMENT: &[&str] = &["device"];

/// Every setting a method declares (and so accepts and documents) changes what the
/// method does: its second proposal or its diagnostics differ from the base settings'.
/// A setting added to a table without a case here fails too.
#[test]
fn every_declared_setting_has_an_effect() {
    for info in pinnbo_dsl::METHODS {
        let (base, cases) = cases(info.name);
        for spec in info.settings().filter(|s| !PLACEMENT.contains(&s.key)) {
            assert!(
                cases.iter().any(|(key, _)| *key == spec.key),
                "{}: no case exercises `{}`",
                info.name,
                spec.key
            );
        }
        let reference = second_step(info.name, base);
        for (key, value) in cases {
            // A value may set other settings too (`0.9, criterion ei`): each replaces the
            // base's.
            let case = format!("{key} {value}");
            let keys: Vec<&str> = case
                .split(", ")
                .filter_map(|s| s.split(' ').next())
                .collect();
            let settings = base
                .split(", ")
                .filter(|s| !s.is_empty() && !keys.iter().any(|k| s.starts_with(&format!("{k} "))))
                .chain(case.split(", "))
                .collect::<Vec<_>>()
                .join(", ");
            assert_ne!(
                second_step(info.name, &settings),
                reference,
                "{}: `{key} {value}` changed nothing",
                info.name
            );
        }
    }
}

/// Every option of every choice builds its method (the constructors know every name the
/// tables offer), and every default is a value its setting accepts.
#[test]
fn every_option_and_default_is_known() {
    for info in pinnbo_dsl::METHODS {
        for spec in info.settings() {
            if let Kind::Choice(options) = spec.kind {
                for option in options {
                    let problem = problem(info.name, &format!("{} {option}", spec.key));
                    match strategy(&problem, info.name, 0) {
                        Ok(_) => {}
                        // No GPU here (or no CUDA compiled in): refused for that reason alone.
                        Err(MethodError::Unfit(e)) if *option == "cuda" => {
                            assert!(matches!(*e, StrategyError::Device(_)), "{e}")
                        }
                        Err(e) => panic!("{} {} {option}: {e}", info.name, spec.key),
                    }
                }
            }
            match (spec.kind, spec.default) {
                (Kind::Int { min }, pinnbo_dsl::spec::Default::Int(v)) => assert!(v >= min),
                (Kind::Positive, pinnbo_dsl::spec::Default::Number(v)) => assert!(v >= 0.0),
                (Kind::Choice(o), pinnbo_dsl::spec::Default::Name(n)) => {
                    assert!(o.contains(&n))
                }
                (_, pinnbo_dsl::spec::Default::Computed(_)) => {}
                (kind, default) => panic!("{}: {kind:?} with {default:?}", spec.key),
            }
        }
    }
}

/// Without a `method`, a linear pde gets the physics-informed GP, a nonlinear one PINN-BO
/// (and the physics-informed GP, asked for by name, says why it cannot run), no pde GP-EI.
#[test]
fn the_default_method_follows_the_pde() {
    let compiled = |body: &str| {
        let text = format!("var x in [0, 1]\nfield u(x) = x^2\n{body}minimize u\n");
        compile(&Source::new("d.pde", text.as_str()))
            .unwrap()
            .problem
    };
    let linear = compiled("pde d(u, x) = 2*x\n");
    let nonlinear = compiled("pde d(u, x)^2 = 4*x^2\n");
    assert_eq!(default_method(&linear), "physics-gp");
    assert_eq!(default_method(&nonlinear), "pinn-bo");
    assert_eq!(default_method(&compiled("")), "gp-ei");
    let e = strategy(&nonlinear, "physics-gp", 0)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.starts_with("physics-gp: pde 1: the pde is not linear in the field")
            && e.ends_with("use `method pinn-bo`, whose network is trained on any pde"),
        "{e}"
    );
}

/// Settings built in code are checked against the table like a file's.
#[test]
fn settings_built_in_code_are_checked() {
    let mut problem = problem("gp-ei", "");
    let settings = &mut problem.method.as_mut().unwrap().settings;
    settings
        .0
        .insert("retrain_every".into(), pinnbo_dsl::ir::SettingValue::Int(3));
    let e = strategy(&problem, "gp-ei", 0).err().unwrap();
    assert_eq!(
        e.to_string(),
        "method `gp-ei` has no setting `retrain_every`"
    );
    let e = strategy(&problem, "gp-eii", 0).err().unwrap();
    assert_eq!(
        e.to_string(),
        "unknown method `gp-eii`; did you mean `gp-ei`?"
    );
}

/// The settings table's defaults are the configurations' defaults.
#[test]
fn the_defaults_come_from_the_table() {
    let c = NeuralBoConfig::default();
    assert_eq!(
        (
            c.surrogate.width,
            c.surrogate.depth,
            c.search.candidates,
            c.warm_steps
        ),
        (500, 1, 10_000, 100)
    );
    let c = NeuralCboConfig::default();
    assert_eq!((c.surrogate.width, c.surrogate.depth), (100, 2));
    let p = PinnBoConfig::default();
    assert_eq!((p.width, p.depth, p.epochs, p.nu), (100, 3, 1000, None));
}
