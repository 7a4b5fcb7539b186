//! What physics-gp's discrepancy (`check discrepancy`) reports against what the data hold:
//! on [0, 1], observations of `f = sin(2πx) + x/2` (which satisfies the model's pde
//! `f'' = −4π² sin(2πx)`) plus `amp` times a bump the pde does not know, plus Gaussian noise
//! of std `sigma`, at `n` uniformly random points. For each case, over 10 seeds: how often
//! the fitted share exceeds 1% (the threshold above which the faces are no longer trusted),
//! and the median share against the median of the real one, the bump's variance over the
//! observations as a share of its own and the field's.
//!
//! cargo run --release -p pinnbo-core --example discrepancy_share

use pinnbo_core::numerics::moments::mean_and_deviation;
use pinnbo_core::surrogates::gp::{Mean, Prior};
use pinnbo_core::surrogates::pde_gp::kernel::{Functional, Term};
use pinnbo_core::surrogates::pde_gp::{PdeGp, PdeModel, Residuals, Scaling};
use pinnbo_core::surrogates::{KnownNoise, Starts};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use std::f64::consts::TAU;

const SEEDS: u64 = 10;
const EQUATIONS: usize = 20;

fn field(x: f64) -> f64 {
    (TAU * x).sin() + 0.5 * x
}

fn bump(x: f64) -> f64 {
    (-(x - 0.6).powi(2) / 0.01).exp()
}

/// `f'' = −4π² sin(2πx)` at evenly spread points.
fn pde() -> Residuals {
    let points: Vec<f64> = (0..EQUATIONS)
        .map(|j| (j as f64 + 0.5) / EQUATIONS as f64)
        .collect();
    Residuals {
        functionals: (points.iter())
            .map(|z| Functional {
                point: vec![*z],
                terms: vec![Term {
                    orders: vec![2],
                    coefficient: 1.0,
                }],
            })
            .collect(),
        targets: points
            .iter()
            .map(|z| -TAU * TAU * (TAU * z).sin())
            .collect(),
        value_coefficients: vec![0.0; EQUATIONS],
    }
}

fn variance(values: impl Iterator<Item = f64>) -> f64 {
    mean_and_deviation(&values.collect::<Vec<_>>()).1.powi(2)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let model = PdeModel {
        prior: Prior::DimensionScaled,
        scaling: Scaling::Point,
        mean: Mean::Constant,
        discrepancy: true,
    };
    let residuals = pde();
    println!("| bump | noise std | n | share > 1% | median share | median real share |");
    println!("|---|---|---|---|---|---|");
    for (amp, sigma) in [(0.0, 0.1), (0.0, 0.3), (0.5, 0.0), (0.5, 0.1), (1.0, 0.3)] {
        for n in [8usize, 14, 20] {
            let (mut shares, mut real) = (Vec::new(), Vec::new());
            for seed in 0..SEEDS {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let x: Vec<Vec<f64>> = (0..n).map(|_| vec![rng.random::<f64>()]).collect();
                let y: Vec<f64> = (x.iter())
                    .map(|p| {
                        let z: f64 = rng.sample(StandardNormal);
                        field(p[0]) + amp * bump(p[0]) + sigma * z
                    })
                    .collect();
                let carried = variance(x.iter().map(|p| amp * bump(p[0])));
                let governed = variance(x.iter().map(|p| field(p[0])));
                real.push(carried / (carried + governed));
                let starts = Starts {
                    previous: None,
                    restarts: 2,
                };
                let fit = PdeGp::fit(model, &x, &y, &residuals, starts, &KnownNoise::default());
                shares.push(fit.map_or(f64::NAN, |gp| gp.discrepancy_share()));
            }
            let above = shares.iter().filter(|s| **s > 0.01).count();
            println!(
                "| {amp} | {sigma} | {n} | {above} of {SEEDS} | {:.4} | {:.4} |",
                median(shares),
                median(real)
            );
        }
    }
}
