//! Forward PINN solves from `.pde` text: the pde at collocation points and the fdm oracle's
//! boundary conditions as residual terms, trained by Adam; relative L2 error against the exact
//! solution.

use candle_core::{DType, Device};
use pinnbo_ad::collocation::{residual_terms, CollocationConfig};
use pinnbo_ad::train::{train, TrainConfig};
use pinnbo_ad::{Activation, Mlp, MlpConfig, OperatorRegistry, Parameterization};
use pinnbo_dsl::{compile, Problem, Source};
use std::time::Instant;

fn problem(text: &str) -> Problem {
    match compile(&Source::new("test.pde", text)) {
        Ok(c) => c.problem,
        Err(f) => panic!("{}", f.render(pinnbo_dsl::Style::Plain)),
    }
}

/// Adam from 1e-2, decayed by 0.9 every 200 epochs, 1,500 epochs.
const TRAINING: TrainConfig = TrainConfig {
    epochs: 1500,
    lr: 1e-2,
    lr_decay: 0.9,
    decay_every: 200,
    anchor: 0.0,
    patience: 500,
    min_improvement: 1e-4,
    batch: None,
    residual_batch: None,
    shuffle_seed: 0,
};

/// Trains a PINN for the problem's field and returns its relative L2 error against `exact` at
/// `probe` points.
fn solve(
    p: &Problem,
    width: usize,
    exact: impl Fn(&[f64]) -> f64,
    probe: &[Vec<f64>],
    train_config: &TrainConfig,
    collocation: &CollocationConfig,
) -> f64 {
    let d = p.fields[0].args.len();
    let config = MlpConfig::new(d, width, 3);
    let net = Mlp::new(config, 1, &Device::Cpu).unwrap();
    let (terms, dropped) =
        residual_terms(p, 0, &net, collocation, &OperatorRegistry::new(), true).unwrap();
    assert!(dropped.is_empty(), "{dropped:?}");
    let start = Instant::now();
    let report = train(&net, None, &terms, train_config).unwrap();
    let flat: Vec<f64> = probe.iter().flatten().copied().collect();
    let rel = net.relative_l2_error(&flat, exact).unwrap();
    eprintln!(
        "{}: {} epochs in {:.1?}, loss {:.2e}, relative L2 error {rel:.2e}",
        p.name,
        report.epochs,
        start.elapsed(),
        report.final_loss
    );
    rel
}

#[test]
fn beam_with_non_uniform_rigidity() {
    // w = sin(pi x), EI = 1 + x/2, simply supported: q = (EI w'')''.
    let p = problem(
        "problem \"beam-manufactured\"\nvar x in [0, 1]\nfield w(x)\n\
         pde dxx((1 + x/2)*dxx(w)) = (1 + x/2)*pi^4*sin(pi*x) - pi^3*cos(pi*x)\nminimize w\n\
         oracle fdm {\n  w = 0 at x = 0\n  (1 + x/2)*dxx(w) = 0 at x = 0\n  w = 0 at x = 1\n  \
         (1 + x/2)*dxx(w) = 0 at x = 1\n}",
    );
    let probe: Vec<Vec<f64>> = (0..101).map(|i| vec![i as f64 / 100.0]).collect();
    let collocation = CollocationConfig {
        pde_weight: 1.0 / std::f64::consts::PI.powi(8),
        ..CollocationConfig::sobol(64, 1, 1)
    };
    let rel = solve(
        &p,
        32,
        |q| (std::f64::consts::PI * q[0]).sin(),
        &probe,
        &TRAINING,
        &collocation,
    );
    assert!(rel < 1e-2, "relative L2 error {rel:e}");
}

/// Laplace's equation on the unit square with the data of u = eˣ sin y, and a 21 × 21 grid
/// to measure the error on.
fn laplace() -> (Problem, Vec<Vec<f64>>) {
    let p = problem(
        "problem \"laplace-manufactured\"\nvar x in [0, 1], y in [0, 1]\nfield u(x, y)\n\
         pde laplacian(u) = 0\nmaximize u\noracle fdm {\n  u(0, y) = sin(y)\n  u(1, y) = exp(1)*sin(y)\n  \
         u(x, 0) = 0\n  u(x, 1) = exp(x)*sin(1)\n}",
    );
    let probe: Vec<Vec<f64>> = (0..21)
        .flat_map(|i| (0..21).map(move |j| vec![i as f64 / 20.0, j as f64 / 20.0]))
        .collect();
    (p, probe)
}

#[test]
fn laplace_with_dirichlet_data() {
    let (p, probe) = laplace();
    let collocation = CollocationConfig::sobol(256, 32, 1);
    let rel = solve(
        &p,
        32,
        |q| q[0].exp() * q[1].sin(),
        &probe,
        &TRAINING,
        &collocation,
    );
    assert!(rel < 1e-2, "relative L2 error {rel:e}");
}

/// Residual points dealt out a quarter per Adam step (each step a quarter of the cost): the
/// same number of steps still solves the pde.
#[test]
fn laplace_with_residual_batches() {
    let (p, probe) = laplace();
    let batched = TrainConfig {
        residual_batch: Some(64),
        ..TRAINING
    };
    let rel = solve(
        &p,
        32,
        |q| q[0].exp() * q[1].sin(),
        &probe,
        &batched,
        &CollocationConfig::sobol(256, 32, 1),
    );
    assert!(rel < 1e-2, "relative L2 error {rel:e}");
}

fn small_net(activation: Activation, dtype: DType, inputs: usize) -> Mlp {
    let config = MlpConfig {
        inputs,
        width: 8,
        depth: 2,
        activation,
        parameterization: Parameterization::Ntk,
        bias_std: 0.0,
        dtype,
    };
    Mlp::new(config, 2, &Device::Cpu).unwrap()
}

fn config(interior: usize) -> CollocationConfig {
    CollocationConfig::sobol(interior, 4, 4)
}

#[test]
fn points_where_a_coefficient_is_not_finite_are_dropped_and_reported() {
    let p = problem(
        "var x in [0, 1]\nfield u(x)\npde log(x - 0.25)*dxx(u) = 1\nminimize u\noracle command \"./m {x}\"",
    );
    let net = small_net(Activation::Tanh, DType::F64, 1);
    let (terms, dropped) =
        residual_terms(&p, 0, &net, &config(200), &OperatorRegistry::new(), false).unwrap();
    let kept = terms[0].points.dim(0).unwrap();
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].count + kept, 200);
    assert!(
        (30..70).contains(&dropped[0].count),
        "about a quarter dropped: {dropped:?}"
    );
    assert!(dropped[0].example[0].1 <= 0.25, "{dropped:?}");
    let xs: Vec<f64> = terms[0].points.flatten_all().unwrap().to_vec1().unwrap();
    assert!(xs.iter().all(|&x| x > 0.25), "only finite points are kept");
}

#[test]
fn relu_cannot_enforce_a_second_order_pde() {
    let p = problem(
        "var x in [0, 1]\nfield u(x)\npde dxx(u) = 1\nminimize u\noracle command \"./m {x}\"",
    );
    let net = small_net(Activation::Relu, DType::F64, 1);
    let err =
        residual_terms(&p, 0, &net, &config(10), &OperatorRegistry::new(), false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a relu network has zero second derivatives, so it cannot satisfy a pde of order 2; use tanh, sin or softplus"
    );
}

#[test]
fn training_is_deterministic_and_works_in_f32() {
    let p = problem(
        "var x in [0, 1]\nfield u(x)\npde dxx(u) = -sin(x)\nminimize u\noracle command \"./m {x}\"",
    );
    let run = |dtype: DType| {
        let net = small_net(Activation::Tanh, dtype, 1);
        let (terms, _) =
            residual_terms(&p, 0, &net, &config(32), &OperatorRegistry::new(), false).unwrap();
        let train_config = TrainConfig {
            epochs: 50,
            ..TrainConfig::default()
        };
        train(&net, None, &terms, &train_config).unwrap().final_loss
    };
    assert_eq!(run(DType::F64), run(DType::F64), "same seed, same run");
    let (double, single) = (run(DType::F64), run(DType::F32));
    assert!(
        (double - single).abs() < 1e-3 * double.abs(),
        "f64 {double} vs f32 {single}"
    );
}
