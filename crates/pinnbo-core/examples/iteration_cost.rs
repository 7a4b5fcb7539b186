//! Wall-clock and peak memory of one optimization step with `t` observations: the issue's
//! per-iteration benchmark. One process per measurement, so the peak resident set
//! (`VmHWM`) belongs to that step alone.
//!
//! cargo run --release -p pinnbo-core --example iteration_cost -- FILE METHOD T [--warm] [KEY=VALUE..]
//!
//! e.g. `.. -- problems/ackley-10.pde neural-bo 2000 candidates=50000`. The `t` points are
//! Sobol points of the problem's box with their clean objective values; KEY=VALUE pairs
//! override the file's `method` settings (numbers or names). With `--warm` (or NeuralBO's
//! `start=previous`) the step before (t − 1 observations) runs first, untimed, so the timed
//! step is a warm start: the step as it runs within a run.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;

use pinnbo_core::oracle::from_problem;
use pinnbo_core::space::Space;
use pinnbo_core::strategies::registry::strategy;
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
        eprintln!("usage: iteration_cost FILE METHOD T [--warm] [KEY=VALUE..]");
        std::process::exit(2);
    }
    let (file, method, t) = (&args[0], &args[1], args[2].parse::<usize>().expect("T"));
    let warm = args[3..]
        .iter()
        .any(|a| a == "--warm" || a == "start=previous");
    let overrides: Vec<String> = args[3..]
        .iter()
        .filter(|a| *a != "--warm")
        .cloned()
        .collect();
    let problem = common::load(file, method, &overrides);
    let space = Space::of(&problem);
    let mut oracle = from_problem(&problem, false).expect("a closed-form or FDM oracle");
    let history = common::observe(&problem, oracle.as_mut(), &space, t);
    let mut strategy = strategy(&problem, method, 0).expect("an available method");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    if warm {
        // A warm start's step: the step before it (untimed) leaves its fit behind.
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
    // The proposal too, so that two devices' steps can be compared point for point.
    println!(
        "{method} d={} t={t}: {seconds:.3} s, peak {:.0} MiB (before the step {before:.0} MiB) {} \
         proposal {:?}",
        space.dim(),
        peak_resident_mib().unwrap_or(f64::NAN),
        proposal.diagnostics,
        proposal.unit
    );
}
