//! Finite-difference benchmarks (numbers in the issue notes).
//!
//! cargo bench -p pinnbo-fdm --bench fdm

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use pinnbo_fdm::beam::{Beam, BeamCondition::*};
use pinnbo_fdm::grid::DEFAULT_MEMORY_LIMIT;
use pinnbo_fdm::poisson::{EdgeData, Edges, Poisson2d};
use pinnbo_fdm::Axis;
use std::time::Instant;

/// u = e^x sin y on [0, 1]^2: harmonic, so the Laplace solve has an exact answer.
fn exact(x: f64, y: f64) -> f64 {
    x.exp() * y.sin()
}

fn laplace(c: &mut Criterion) {
    let one = |_: f64, _: f64| 1.0;
    let zero = |_: f64, _: f64| 0.0;
    let (left, right) = (|y: f64| exact(0.0, y), |y: f64| exact(1.0, y));
    let (bottom, top) = (|x: f64| exact(x, 0.0), |x: f64| exact(x, 1.0));
    let mut group = c.benchmark_group("laplace");
    group.sample_size(10);
    for n in [128usize, 256, 512, 1024] {
        let problem = Poisson2d {
            x: Axis::new(0.0, 1.0, n).unwrap(),
            y: Axis::new(0.0, 1.0, n).unwrap(),
            conductivity: &one,
            source: &zero,
            edges: Edges {
                left: EdgeData::Dirichlet(&left),
                right: EdgeData::Dirichlet(&right),
                bottom: EdgeData::Dirichlet(&bottom),
                top: EdgeData::Dirichlet(&top),
            },
        };
        // One end-to-end run, reported with its accuracy.
        let start = Instant::now();
        let field = problem.solve().unwrap();
        let total = start.elapsed();
        let err = (0..n * n)
            .map(|k| {
                (field.values[k] - exact(field.axes[0].x(k % n), field.axes[1].x(k / n))).abs()
            })
            .fold(0.0, f64::max);
        let (a, _) = problem.assemble(DEFAULT_MEMORY_LIMIT).unwrap();
        let kind = a.factor().unwrap().kind();
        eprintln!(
            "laplace n = {n}: end to end {total:.3?}, max error {err:.2e}, factorization {kind}"
        );
        group.bench_with_input(BenchmarkId::new("assemble", n), &n, |b, _| {
            b.iter(|| problem.assemble(DEFAULT_MEMORY_LIMIT).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("factor", n), &n, |b, _| {
            b.iter_batched(
                || problem.assemble(DEFAULT_MEMORY_LIMIT).unwrap().0,
                |a| a.factor().unwrap(),
                BatchSize::LargeInput,
            )
        });
        let (a, rhs) = problem.assemble(DEFAULT_MEMORY_LIMIT).unwrap();
        let lu = a.factor().unwrap();
        group.bench_with_input(BenchmarkId::new("solve", n), &n, |b, _| {
            b.iter(|| lu.solve(&rhs).unwrap())
        });
    }
    group.finish();
}

fn beam(c: &mut Criterion) {
    let compliance = |x: f64| 1.0 / (1.0 + x * x);
    let load = |x: f64| x.exp();
    let mut group = c.benchmark_group("beam");
    group.sample_size(10);
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        let beam = Beam {
            axis: Axis::new(0.0, 1.0, n).unwrap(),
            compliance: &compliance,
            load: &load,
            left: [Deflection(0.0), Moment(0.0)],
            right: [Deflection(0.0), Moment(0.0)],
        };
        group.bench_with_input(BenchmarkId::new("solve", n), &n, |b, _| {
            b.iter(|| beam.solve().unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, laplace, beam);
criterion_main!(benches);
