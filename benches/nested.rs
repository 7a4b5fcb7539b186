//! The baseline for `benches/jets.rs`: the same residual losses with input derivatives by
//! nested reverse mode (`pinnbo_ad::nested`), forward + backward, f64 and f32, width 64/128.
//!
//! cargo bench -p pinnbo-ad --bench nested

use candle_core::{DType, Tensor, Var};
use criterion::{criterion_group, BenchmarkId, Criterion};
use pinnbo_ad::nested;

#[path = "common/jets_setup.rs"]
mod setup;
use setup::{cases, setup};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The residual written out by hand in nested reverse mode, for the cases that have one.
fn nested_residual(name: &str, u: &Tensor, x: &Var) -> Option<Tensor> {
    let xs = x.as_tensor();
    let r = match name {
        "beam" => {
            let curvature = nested::derivative(u, x, &[0, 0]).unwrap();
            let moment = ((xs.sqr().unwrap() + 1.0).unwrap() * curvature).unwrap();
            (nested::derivative(&moment, x, &[0, 0]).unwrap() - xs.exp().unwrap()).unwrap()
        }
        "laplace-2d" => (nested::derivative(u, x, &[0, 0]).unwrap()
            + nested::derivative(u, x, &[1, 1]).unwrap())
        .unwrap(),
        _ => return None,
    };
    Some(r)
}

fn nested_baseline(c: &mut Criterion) {
    let mut group = c.benchmark_group("nested");
    group.sample_size(10);
    for dtype in [DType::F32, DType::F64] {
        for width in [64, 128] {
            for (name, p) in cases() {
                let (net, points) = setup(&p, dtype, width);
                let x = Var::from_tensor(&points).unwrap();
                if nested_residual(name, &net.forward(&points).unwrap(), &x).is_none() {
                    continue;
                }
                let tag = format!("{dtype:?}/w{width}");
                group.bench_with_input(BenchmarkId::new(name, &tag), &(), |b, _| {
                    b.iter(|| {
                        let u = net.forward(x.as_tensor()).unwrap();
                        let r = nested_residual(name, &u, &x).unwrap();
                        r.sqr().unwrap().mean_all().unwrap().backward().unwrap()
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, nested_baseline);

fn main() {
    // candle reads this once per thread, at the first backward pass; no thread exists yet.
    std::env::set_var(nested::ENABLE, "1");
    benches();
    Criterion::default().configure_from_args().final_summary();
}
