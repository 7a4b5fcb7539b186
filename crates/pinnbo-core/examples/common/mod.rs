//! What the measuring examples share: a problem file with `method` settings overridden from
//! the command line, and Sobol observations of its clean objective.

use pinnbo_core::oracle::{minimized, Oracle};
use pinnbo_core::run::design::{points, Design};
use pinnbo_core::space::Space;
use pinnbo_core::strategies::Observed;
use pinnbo_dsl::ir::{Method, SettingValue, Settings};
use pinnbo_dsl::{compile, Problem, Source};

/// The problem in `file`, its `method` block replaced by `method` with `overrides`
/// (`KEY=VALUE`, numbers or names) on top of the file's settings for that method.
pub fn load(file: &str, method: &str, overrides: &[String]) -> Problem {
    let text = std::fs::read_to_string(file).expect("readable problem file");
    let mut problem = match compile(&Source::new(file, text.as_str())) {
        Ok(checked) => checked.problem,
        Err(failed) => panic!("{}", failed.render(pinnbo_dsl::Style::Plain)),
    };
    let mut spec = match &problem.method {
        Some(m) if m.name == method => m.clone(),
        _ => Method {
            name: method.to_string(),
            settings: Settings(Default::default()),
            span: Default::default(),
            statement: Default::default(),
        },
    };
    for pair in overrides {
        let (key, value) = pair.split_once('=').expect("KEY=VALUE");
        let value = match (value.parse::<u64>(), value.parse::<f64>()) {
            (Ok(v), _) => SettingValue::Int(v),
            (_, Ok(v)) => SettingValue::Number(v),
            _ => SettingValue::Name(value.to_string()),
        };
        spec.settings.0.insert(key.to_string(), value);
    }
    problem.method = Some(spec);
    problem
}

/// `t` Sobol points of the box (seed 7) with their clean objective values, minimized.
pub fn observe(
    problem: &Problem,
    oracle: &mut dyn Oracle,
    space: &Space,
    t: usize,
) -> Vec<Observed> {
    points(Design::Sobol, t, space.dim(), 7)
        .into_iter()
        .map(|unit| {
            let e = oracle
                .evaluate(&space.to_box(&unit))
                .expect("an evaluation");
            // What the sensors read too: a design problem's models condition on them.
            Observed {
                sensors: e.sensors.clone(),
                ..Observed::initial(minimized(problem, e.objective()), e.constraints, unit)
            }
        })
        .collect()
}
