//! Front-end and evaluator benchmarks (numbers recorded in docs/results/measurements.md).
//!
//! cargo bench -p pinnbo-dsl --bench dsl

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pinnbo_dsl::{compile, Source};
use std::path::Path;

fn problem_source(name: &str) -> Source {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../problems")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("shipped problem");
    Source::new(name, text)
}

fn parse_and_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse+check");
    for name in [
        "levy-100.pde",
        "michalewicz-100.pde",
        "ackley-100.pde",
        "cosine-mixture-50.pde",
        "beam.pde",
    ] {
        let source = problem_source(name);
        group.bench_with_input(BenchmarkId::from_parameter(name), &source, |b, s| {
            b.iter(|| compile(black_box(s)).expect("valid"))
        });
    }
    group.finish();
}

/// Ten terms over ten variables, four of them transcendental.
const TEN_TERMS: &str = "x1^2 + 2*x2 - 3*x1*x3 + sin(x4) + exp(-x5^2) + x6/(1 + x7^2) \
                         + sqrt(1 + x8^2) + 0.5*x9^3 + cos(x10) + x1*x2*x3";
/// Ten polynomial and rational terms over ten variables.
const TEN_POLYNOMIAL_TERMS: &str = "x1^2 + 2*x2 - 3*x1*x3 + x4^4 - 16*x5^2 + x6/(1 + x7^2) \
                                    + 5*x8 + 0.5*x9^3 + x10*x1 + x1*x2*x3";

fn evaluator(c: &mut Criterion) {
    let n = 1_000_000;
    let points: Vec<f64> = (0..n * 10)
        .map(|i| ((i as f64) * 0.618_033_988_75).fract() * 4.0 - 2.0)
        .collect();
    let mut out = vec![0.0; n];
    let mut group = c.benchmark_group("evaluator, 10^6 points");
    group
        .throughput(Throughput::Elements(n as u64))
        .sample_size(20);
    let vars: Vec<String> = (1..=10).map(|i| format!("x{i} in [-2, 2]")).collect();
    for (name, expr) in [
        ("ten terms, four transcendental", TEN_TERMS),
        ("ten polynomial terms", TEN_POLYNOMIAL_TERMS),
    ] {
        let text = format!("var {}\nminimize {expr}", vars.join(", "));
        let problem = compile(&Source::new("ten.pde", text))
            .expect("valid")
            .problem;
        let f = problem.closed_form_objective().expect("closed form");
        group.bench_function(name, |b| {
            b.iter(|| f.eval_batch(black_box(&points), &mut out))
        });
    }
    group.finish();
}

criterion_group!(benches, parse_and_check, evaluator);
criterion_main!(benches);
