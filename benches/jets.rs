//! Forward + backward of a residual loss over jets, against the plain network's.
//!
//! cargo bench -p pinnbo-ad --bench jets
//!
//! Width 64 and 128, depth 3, N = 1000 points, f32 and f64: (a) the plain network, with as many
//! inputs as the residual it is compared with; (b) the beam residual (order 4);
//! (c) the 2-D Laplacian; (d) the Styblinski–Tang pde in d = 10 (first order in every input).

use candle_core::{DType, Device, Tensor};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pinnbo_ad::sampling::{in_box, Sampling};
use pinnbo_ad::{Mlp, MlpConfig, Residual};
use pinnbo_dsl::{compile, Problem, Source};

const N: usize = 1000;

fn problem(text: &str) -> Problem {
    compile(&Source::new("bench.pde", text))
        .expect("valid")
        .problem
}

fn cases() -> Vec<(&'static str, Problem)> {
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

fn jets(c: &mut Criterion) {
    let mut group = c.benchmark_group("jets");
    group.sample_size(10);
    for dtype in [DType::F32, DType::F64] {
        for width in [64, 128] {
            for (name, p) in cases() {
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
                let points =
                    Tensor::from_vec(in_box(&bounds, N, Sampling::Sobol, 1), (N, d), &Device::Cpu)
                        .unwrap()
                        .to_dtype(dtype)
                        .unwrap();
                let residual = Residual::new(&p, &p.pdes[0], 0).unwrap();
                let tag = format!("{dtype:?}/w{width}");
                group.bench_with_input(
                    BenchmarkId::new(format!("plain-{d}d"), &tag),
                    &(),
                    |b, _| {
                        b.iter(|| {
                            let loss = net
                                .forward(&points)
                                .unwrap()
                                .sqr()
                                .unwrap()
                                .mean_all()
                                .unwrap();
                            loss.backward().unwrap()
                        })
                    },
                );
                group.bench_with_input(BenchmarkId::new(name, &tag), &(), |b, _| {
                    b.iter(|| {
                        let r = residual.evaluate(&net, &points).unwrap();
                        r.sqr().unwrap().mean_all().unwrap().backward().unwrap()
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, jets);
criterion_main!(benches);
