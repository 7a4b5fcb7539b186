//! The neural methods' inner loops on flat buffers: one fit of a network to observations and
//! one screening of candidates through the trained network, at the shapes the methods use
//! (Neural-Greedy: one tanh layer of 1,000, full batches; NeuralBO: two ReLU layers of 500,
//! batches of 50). Both alternate faer products with activation passes, which is where the
//! vector registers' state after faer's kernels decides the speed (vector_state.rs).
//!
//! cargo bench -p pinnbo-ad --bench dense_fit

use candle_core::{Device, Tensor};
use criterion::{criterion_group, Criterion};
use pinnbo_ad::dense_net::DenseNet;
use pinnbo_ad::train::{train, Observations, TrainConfig};
use pinnbo_ad::{Activation, Mlp, MlpConfig, Parameterization};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `count` coordinates in [-1, 1], spread by the fractional parts of multiples of `step`.
fn spread(count: usize, step: f64) -> Vec<f64> {
    (0..count)
        .map(|i| ((i as f64 * step).fract() * 2.0) - 1.0)
        .collect()
}

/// `n` points in [-1, 1]^d, and a smooth function's values there.
fn observations(n: usize, d: usize) -> Observations {
    let points = spread(n * d, 0.618_033_988_7);
    let values: Vec<f64> = points
        .chunks(d)
        .map(|p| {
            p.iter()
                .enumerate()
                .map(|(k, x)| (x * (k + 2) as f64).sin())
                .sum()
        })
        .collect();
    Observations {
        points: Tensor::from_vec(points, (n, d), &Device::Cpu).unwrap(),
        values: Tensor::from_vec(values, n, &Device::Cpu).unwrap(),
    }
}

fn network(d: usize, width: usize, depth: usize, activation: Activation) -> Mlp {
    let config = MlpConfig {
        activation,
        parameterization: Parameterization::Ntk,
        bias_std: 1.0,
        ..MlpConfig::new(d, width, depth)
    };
    Mlp::new(config, 7, &Device::Cpu).unwrap()
}

fn fits(c: &mut Criterion) {
    let mut group = c.benchmark_group("dense_fit");
    group.sample_size(10);
    // (name, inputs, points, width, depth, activation, batch, epochs)
    let cases = [
        (
            "greedy-tanh1000-d2-n40",
            2,
            40,
            1000,
            1,
            Activation::Tanh,
            None,
            100,
        ),
        (
            "neuralbo-relu500x2-d10-n100",
            10,
            100,
            500,
            2,
            Activation::Relu,
            Some(50),
            50,
        ),
    ];
    for (name, d, n, width, depth, activation, batch, epochs) in cases {
        let data = observations(n, d);
        let config = TrainConfig {
            epochs,
            patience: epochs,
            batch,
            ..TrainConfig::default()
        };
        group.bench_function(format!("fit/{name}"), |b| {
            b.iter(|| {
                let net = network(d, width, depth, activation);
                train(&net, Some(&data), &[], &config).unwrap()
            })
        });
        let net = network(d, width, depth, activation);
        let dense = DenseNet::new(&net).unwrap();
        let candidates = spread(2048 * d, 0.754_877_666);
        group.bench_function(format!("screen-2048/{name}"), |b| {
            b.iter(|| dense.forward(&candidates))
        });
    }
    group.finish();
}

criterion_group!(benches, fits);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
