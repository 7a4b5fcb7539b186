//! How well NeuralBO's network generalizes against how it is trained: the error on 4,000
//! held-out points (standardized units) after a fit from θ0 of each given length, and after
//! a chain of warm starts (`start previous`) that adds the last K points one at a time.
//!
//! cargo run --release -p pinnbo-core --example fit_quality -- T [STEPS..] [chain=K]
//!     [warm=W] [f32] [smooth]
//!
//! Ackley-10 on its box by default; `smooth`: `Σ x² + sin(3x)/2` on [-1, 1]^10. Networks
//! of two ReLU layers of 500, the files' NeuralBO settings, trained on random points.

use candle_core::{DType, Device, Tensor};
use pinnbo_core::space::Standardizer;
use pinnbo_core::surrogates::neural::{FitStart, NeuralSurrogate, Posterior, SurrogateConfig};
use rand::{Rng, SeedableRng};
use std::time::Instant;

const D: usize = 10;

fn ackley(x: &[f64]) -> f64 {
    let d = x.len() as f64;
    let squares = x.iter().map(|v| v * v).sum::<f64>() / d;
    let cosines = x
        .iter()
        .map(|v| (std::f64::consts::TAU * v).cos())
        .sum::<f64>()
        / d;
    -20.0 * (-0.2 * squares.sqrt()).exp() - cosines.exp() + 20.0 + std::f64::consts::E
}

/// `n` random points of [-1, 1]^D (the networks' centred inputs) and their values.
fn sample(n: usize, smooth: bool, rng: &mut impl Rng) -> (Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = (0..n * D)
        .map(|_| rng.random::<f64>() * 2.0 - 1.0)
        .collect();
    let y = x
        .chunks(D)
        .map(|r| match smooth {
            true => r.iter().map(|v| v * v + 0.5 * (3.0 * v).sin()).sum(),
            false => ackley(&r.iter().map(|v| v * 32.768).collect::<Vec<_>>()),
        })
        .collect();
    (x, y)
}

fn rmse(posterior: &Posterior, x: &[f64], y: &[f64]) -> f64 {
    let predicted = posterior.mean(x);
    let sum: f64 = predicted.iter().zip(y).map(|(p, v)| (p - v).powi(2)).sum();
    (sum / y.len() as f64).sqrt()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(t) = args.first().and_then(|a| a.parse::<usize>().ok()) else {
        eprintln!("usage: fit_quality T [STEPS..] [chain=K] [warm=W] [f32] [smooth]");
        std::process::exit(2);
    };
    let option = |key: &str| {
        args.iter().find_map(|a| {
            a.strip_prefix(key)?
                .strip_prefix('=')?
                .parse::<usize>()
                .ok()
        })
    };
    let flag = |name: &str| args.iter().any(|a| a == name);
    let steps: Vec<usize> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
    let dtype = if flag("f32") { DType::F32 } else { DType::F64 };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let (x, y) = sample(t, flag("smooth"), &mut rng);
    let (held_x, held_y) = sample(4000, flag("smooth"), &mut rng);
    let standardizer = Standardizer::fit(&y);
    let standard = |v: &[f64]| -> Vec<f64> { v.iter().map(|v| standardizer.forward(*v)).collect() };
    let (y, held_y) = (standard(&y), standard(&held_y));
    let observed = |n: usize| Tensor::from_vec(x[..n * D].to_vec(), (n, D), &Device::Cpu);
    let surrogate = |min_steps: Option<usize>| {
        let defaults = SurrogateConfig::default();
        let config = SurrogateConfig {
            width: 500,
            dtype,
            // Exactly `min_steps` when given (whole epochs), else the default schedule.
            epochs: min_steps.map_or(defaults.epochs, |_| 1),
            min_steps: min_steps.unwrap_or(defaults.min_steps),
            ..defaults
        };
        NeuralSurrogate::new(config, D, 0, &Device::Cpu).expect("a network")
    };
    let report = |what: &str, p: &Posterior, n: usize, seconds: f64| {
        println!(
            "t={t} {what}: train rmse {:.4}, held-out rmse {:.4} ({seconds:.2} s)",
            rmse(p, &x[..n * D], &y[..n]),
            rmse(p, &held_x, &held_y)
        );
    };
    let lengths = steps.iter().map(|s| Some(*s)).chain([None]);
    for length in lengths {
        let s = surrogate(length);
        let clock = Instant::now();
        let fitted = s.fit(&observed(t).unwrap(), y.clone(), 11).unwrap();
        let what = length.map_or("default schedule".into(), |s| format!("{s} steps"));
        report(&what, &fitted, t, clock.elapsed().as_secs_f64());
    }
    if let Some(k) = option("chain") {
        let warm = option("warm").unwrap_or(100);
        let s = surrogate(None);
        let clock = Instant::now();
        let mut net = s
            .fit(&observed(t - k).unwrap(), y[..t - k].to_vec(), 11)
            .unwrap()
            .net;
        let mut last = None;
        for n in t - k + 1..=t {
            let start = FitStart::Warm {
                net: &net,
                steps: warm,
            };
            let fitted = s.fit_from(start, &observed(n).unwrap(), y[..n].to_vec(), n as u64);
            let fitted = fitted.unwrap();
            net = fitted.net.clone();
            last = Some(fitted);
        }
        let what = format!("default schedule at t-{k}, then {k} warm starts of {warm} steps");
        report(
            &what,
            &last.expect("k >= 1"),
            t,
            clock.elapsed().as_secs_f64(),
        );
    }
}
