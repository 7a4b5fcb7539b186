//! Shared setup of the jets benchmarks (`jets.rs`, `nested.rs`): the residual problems, the
//! networks and the collocation points.

use candle_core::{DType, Device, Tensor};
use pinnbo_ad::sampling::{in_box, Sampling};
use pinnbo_ad::{Mlp, MlpConfig};
use pinnbo_dsl::{compile, Problem, Source};

pub const N: usize = 1000;

pub fn problem(text: &str) -> Problem {
    compile(&Source::new("bench.pde", text))
        .expect("valid")
        .problem
}

pub fn cases() -> Vec<(&'static str, Problem)> {
    let st = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../problems/styblinski-tang-10.pde"
    ))
    .expect("shipped problem");
    vec![
        ("beam", problem("var x in [0, 1]\nfield w(x)\npde dxx((1 + x^2)*dxx(w)) = exp(x)\nminimize w\noracle command \"./m {x}\"")),
        ("laplace-2d", problem("var x in [0, 1], y in [0, 1]\nfield u(x, y)\npde laplacian(u) = 0\nmaximize u\noracle command \"./m {x} {y}\"")),
        ("styblinski-tang-10", problem(&st)),
    ]
}

/// A depth-3 network on the problem's field, and N Sobol points in its domain.
pub fn setup(p: &Problem, dtype: DType, width: usize) -> (Mlp, Tensor) {
    let d = p.fields[0].args.len();
    let config = MlpConfig {
        dtype,
        ..MlpConfig::new(d, width, 3)
    };
    let net = Mlp::new(config, 1, &Device::Cpu).unwrap();
    let bounds: Vec<(f64, f64)> = p.fields[0]
        .args
        .iter()
        .map(|&c| (p.coords[c].lo, p.coords[c].hi))
        .collect();
    let points = Tensor::from_vec(in_box(&bounds, N, Sampling::Sobol, 1), (N, d), &Device::Cpu)
        .unwrap()
        .to_dtype(dtype)
        .unwrap();
    (net, points)
}
