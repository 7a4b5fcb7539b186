//! Jets against nested reverse mode (an independent oracle): fourth derivatives of a network,
//! a 2-D Laplacian, and the parameter gradients of a residual loss, to 1e-10.
//!
//! Runs without the test harness because candle reads `CANDLE_GRAD_DO_NOT_DETACH` once per
//! thread: `main` sets it before any gradient is taken.

use candle_core::{Device, Tensor, Var};
use pinnbo_ad::{nested, IndexSet, Mlp, MlpConfig, Residual};
use pinnbo_dsl::{compile, Source};
use std::sync::Arc;

fn values(t: &Tensor) -> Vec<f64> {
    t.flatten_all().unwrap().to_vec1().unwrap()
}

fn assert_close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-10 * w.abs().max(1.0),
            "{what} [{i}]: jets {g}, nested {w}"
        );
    }
}

fn points(rows: &[[f64; 2]], d: usize) -> Tensor {
    let flat: Vec<f64> = rows.iter().flat_map(|r| r[..d].to_vec()).collect();
    Tensor::from_vec(flat, (rows.len(), d), &Device::Cpu).unwrap()
}

const ROWS: [[f64; 2]; 4] = [[0.1, 0.7], [0.35, 0.2], [0.6, 0.9], [0.95, 0.45]];

fn every_derivative_to_fourth_order_and_the_laplacian() {
    for d in [1, 2] {
        let net = Mlp::new(MlpConfig::new(d, 16, 3), 5, &Device::Cpu).unwrap();
        let x = Var::from_tensor(&points(&ROWS, d)).unwrap();
        let u = net.forward(x.as_tensor()).unwrap();
        let wanted: Vec<Vec<usize>> = if d == 1 {
            (1..=4).map(|k| vec![0; k]).collect()
        } else {
            vec![vec![0, 0], vec![1, 1], vec![0, 1], vec![0, 0, 1]]
        };
        let set = Arc::new(IndexSet::closure(&wanted));
        let jet = net.forward_jet(x.as_tensor(), &set).unwrap();
        for alpha in &wanted {
            let want = values(&nested::derivative(&u, &x, alpha).unwrap());
            let got = values(&jet.derivative(alpha).unwrap());
            assert_close(&format!("d = {d}, {alpha:?}"), &got, &want);
        }
    }
}

/// The beam residual `(EI w'')'' - q` with EI = 1 + x², by nested reverse mode written out
/// by hand, and its loss's parameter gradients, against the compiled jet residual.
fn beam_residual_and_parameter_gradients() {
    let text = "var x in [0, 1]\nfield w(x)\npde dxx((1 + x^2)*dxx(w)) = exp(x)\nminimize w\noracle command \"./m {x}\"";
    let problem = compile(&Source::new("beam.pde", text)).unwrap().problem;
    let net = Mlp::new(MlpConfig::new(1, 16, 3), 9, &Device::Cpu).unwrap();
    let x = Var::from_tensor(&points(&ROWS, 1)).unwrap();
    let xs = x.as_tensor();
    let u = net.forward(xs).unwrap();
    let curvature = nested::derivative(&u, &x, &[0, 0]).unwrap();
    let moment = ((xs.sqr().unwrap() + 1.0).unwrap() * curvature).unwrap();
    let nested_residual =
        (nested::derivative(&moment, &x, &[0, 0]).unwrap() - xs.exp().unwrap()).unwrap();
    let compiled = Residual::new(&problem, &problem.pdes[0], 0).unwrap();
    let jet_residual = compiled.evaluate(&net, xs).unwrap();
    assert_close(
        "beam residual",
        &values(&jet_residual),
        &values(&nested_residual),
    );

    let gradients = |r: &Tensor| {
        let grads = r.sqr().unwrap().mean_all().unwrap().backward().unwrap();
        net.vars()
            .iter()
            // A parameter the residual does not depend on (the output bias) has no gradient.
            .flat_map(|v| match grads.get(v.as_tensor()) {
                Some(g) => values(g),
                None => vec![0.0; v.as_tensor().elem_count()],
            })
            .collect::<Vec<f64>>()
    };
    let (nested_grads, jet_grads) = (gradients(&nested_residual), gradients(&jet_residual));
    assert!(!jet_grads.is_empty());
    assert_close("parameter gradients", &jet_grads, &nested_grads);
}

fn main() {
    // Safe: no other thread exists yet.
    std::env::set_var(nested::ENABLE, "1");
    every_derivative_to_fourth_order_and_the_laplacian();
    println!("test every_derivative_to_fourth_order_and_the_laplacian ... ok");
    beam_residual_and_parameter_gradients();
    println!("test beam_residual_and_parameter_gradients ... ok");
}
