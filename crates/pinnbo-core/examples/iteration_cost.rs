//! Wall-clock and peak memory of one optimization step with `t` observations: the issue's
//! per-iteration benchmark. One process per measurement, so the peak resident set
//! (`VmHWM`) belongs to that step alone.
//!
//! cargo run --release -p pinnbo-core --example iteration_cost -- FILE METHOD T [KEY=VALUE..]
//!
//! e.g. `.. -- problems/ackley-10.pde neural-bo 2000 candidates=50000`. The `t` points are
//! Sobol points of the problem's box with their clean objective values; KEY=VALUE pairs
//! override the file's `method` settings (numbers or names). With `start=previous` the step
//! before (t − 1 observations) runs first, untimed, so the timed step is a warm start.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use pinnbo_core::oracle::{from_problem, minimized};
use pinnbo_core::run::design::{points, Design};
use pinnbo_core::space::Space;
use pinnbo_core::strategies::methods::strategy;
use pinnbo_core::strategies::Observed;
use pinnbo_dsl::ir::{Method, SettingValue, Settings};
use pinnbo_dsl::{compile, Source};
use rand::SeedableRng;
use std::time::Instant;

fn peak_resident_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: iteration_cost FILE METHOD T [KEY=VALUE..]");
        std::process::exit(2);
    }
    let (file, method, t) = (&args[0], &args[1], args[2].parse::<usize>().expect("T"));
    let text = std::fs::read_to_string(file).expect("readable problem file");
    let mut problem = match compile(&Source::new(file.as_str(), text.as_str())) {
        Ok(checked) => checked.problem,
        Err(failed) => panic!("{}", failed.render(pinnbo_dsl::Style::Plain)),
    };
    let mut spec = match &problem.method {
        Some(m) if m.name == *method => m.clone(),
        _ => Method {
            name: method.clone(),
            settings: Settings(Default::default()),
            span: Default::default(),
        },
    };
    for pair in &args[3..] {
        let (key, value) = pair.split_once('=').expect("KEY=VALUE");
        let value = match (value.parse::<u64>(), value.parse::<f64>()) {
            (Ok(v), _) => SettingValue::Int(v),
            (_, Ok(v)) => SettingValue::Number(v),
            _ => SettingValue::Name(value.to_string()),
        };
        spec.settings.0.insert(key.to_string(), value);
    }
    problem.method = Some(spec);
    let space = Space::of(&problem);
    let mut oracle = from_problem(&problem, false).expect("a closed-form or FDM oracle");
    let history: Vec<Observed> = points(Design::Sobol, t, space.dim(), 7)
        .into_iter()
        .map(|unit| {
            let e = oracle
                .evaluate(&space.to_box(&unit))
                .expect("an evaluation");
            Observed {
                objective: minimized(&problem, e.objective),
                constraints: e.constraints,
                unit,
                proposed: false,
            }
        })
        .collect();
    let mut strategy = strategy(&problem, method, 0).expect("an available method");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    if args[3..].iter().any(|a| a == "start=previous") {
        // A warm start's step: the step before it (from θ0, untimed) leaves the network.
        strategy
            .propose(&space, &history[..t - 1], &mut rng)
            .expect("a proposal");
    }
    let before = peak_resident_mib().unwrap_or(f64::NAN);
    let clock = Instant::now();
    let proposal = strategy
        .propose(&space, &history, &mut rng)
        .expect("a proposal");
    let seconds = clock.elapsed().as_secs_f64();
    println!(
        "{method} d={} t={t}: {seconds:.3} s, peak {:.0} MiB (before the step {before:.0} MiB) {}",
        space.dim(),
        peak_resident_mib().unwrap_or(f64::NAN),
        proposal.diagnostics
    );
}
