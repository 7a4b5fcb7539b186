//! Forward + backward of a residual loss over jets, against the plain network's.
//!
//! cargo bench -p pinnbo-ad --bench jets
//!
//! Width 64 and 128, depth 3, N = 1000 points, f32 and f64: (a) the plain network, with as many
//! inputs as the residual it is compared with; (b) the beam residual (order 4);
//! (c) the 2-D Laplacian; (d) the Styblinski–Tang pde in d = 10 (first order in every input).
//! The nested reverse-mode baseline is `benches/nested.rs`.

use candle_core::DType;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pinnbo_ad::Residual;

#[path = "common/jets_setup.rs"]
mod setup;
use setup::{cases, setup};

/// The allocator the `pinnbo` binary uses (see docs/decisions.md): jets allocate many
/// short-lived buffers larger than glibc's mmap threshold.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn jets(c: &mut Criterion) {
    let mut group = c.benchmark_group("jets");
    group.sample_size(10);
    for dtype in [DType::F32, DType::F64] {
        for width in [64, 128] {
            for (name, p) in cases() {
                let d = p.fields[0].args.len();
                let (net, points) = setup(&p, dtype, width);
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
