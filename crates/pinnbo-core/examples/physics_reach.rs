//! Does the physics reach the surrogate? Each method's model is fitted to k clean
//! observations of a problem's true field (Sobol points), and its mean is compared with the
//! field over the whole box: the RMS error as a fraction of the field's range there.
//!
//! cargo run --release -p pinnbo-core --example physics_reach -- FILE K.. [methods=A,B,..]
//!     [KEY=VALUE..]
//!
//! e.g. `.. -- problems/beam.pde 5 10 20`. Methods default to `gp-ei` (the plain GP) and
//! `physics-gp` (the same data and the pde); KEY=VALUE pairs override every method's
//! settings where the method has them. The box is covered by 2,001 points in 1-D, a 101 x 101
//! grid in 2-D, else 4,000 Sobol points (seed 99).

mod common;

use pinnbo_core::numerics::design::{points, Design};
use pinnbo_core::oracle::{from_problem, minimized};
use pinnbo_core::space::Space;
use pinnbo_core::strategies::registry::strategy;
use rand::SeedableRng;
use std::time::Instant;

fn cover(d: usize) -> Vec<Vec<f64>> {
    match d {
        1 => (0..=2000).map(|i| vec![i as f64 / 2000.0]).collect(),
        2 => (0..=100)
            .flat_map(|i| (0..=100).map(move |j| vec![i as f64 / 100.0, j as f64 / 100.0]))
            .collect(),
        _ => points(Design::Sobol, 4000, d, 99),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: physics_reach FILE K.. [methods=A,B,..] [KEY=VALUE..]");
        std::process::exit(2);
    };
    let ks: Vec<usize> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
    let methods: Vec<String> = args
        .iter()
        .find_map(|a| a.strip_prefix("methods="))
        .unwrap_or("gp-ei,physics-gp")
        .split(',')
        .map(str::to_string)
        .collect();
    let overrides: Vec<String> = args[1..]
        .iter()
        .filter(|a| a.contains('=') && !a.starts_with("methods="))
        .cloned()
        .collect();
    let base = common::load(file, &methods[0], &[]);
    let space = Space::of(&base);
    let mut oracle = from_problem(&base, false).expect("a closed-form or FDM oracle");
    let grid = cover(space.dim());
    let truth: Vec<f64> = grid
        .iter()
        .map(|u| {
            let e = oracle.evaluate(&space.to_box(u)).expect("an evaluation");
            minimized(&base, e.objective())
        })
        .collect();
    let range = truth.iter().cloned().fold(f64::MIN, f64::max)
        - truth.iter().cloned().fold(f64::MAX, f64::min);
    println!("{file}: field range {range:.4} over {} points", grid.len());
    println!("| k | method | RMS error / range | max error / range | seconds |");
    println!("|---|---|---|---|---|");
    for &k in &ks {
        let history = common::observe(&base, oracle.as_mut(), &space, k);
        for method in &methods {
            let info = pinnbo_dsl::methods::method(method).expect("a method name");
            let own: Vec<String> = overrides
                .iter()
                .filter(|o| info.setting(o.split('=').next().unwrap_or("")).is_some())
                .cloned()
                .collect();
            let problem = common::load(file, method, &own);
            let mut s = strategy(&problem, method, 0).expect("an available method");
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
            let clock = Instant::now();
            let Some(mean) = s.predict(&space, &history, &grid, &mut rng).expect("a fit") else {
                println!("| {k} | {method} | (no surrogate) | | |");
                continue;
            };
            let seconds = clock.elapsed().as_secs_f64();
            let errors: Vec<f64> = mean
                .iter()
                .zip(&truth)
                .map(|(m, t)| (m - t).abs())
                .collect();
            let rms = (errors.iter().map(|e| e * e).sum::<f64>() / errors.len() as f64).sqrt();
            let max = errors.iter().cloned().fold(0.0, f64::max);
            println!(
                "| {k} | {method} | {:.4} | {:.4} | {seconds:.2} |",
                rms / range,
                max / range
            );
        }
    }
}
