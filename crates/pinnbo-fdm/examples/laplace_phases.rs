//! Times the phases of one Laplace solve at n x n nodes (default 1024), for profiling.
use pinnbo_fdm::grid::DEFAULT_MEMORY_LIMIT;
use pinnbo_fdm::poisson::{EdgeData, Edges, Poisson2d};
use pinnbo_fdm::Axis;
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).map_or(1024, |s| s.parse().unwrap());
    let exact = |x: f64, y: f64| x.exp() * y.sin();
    let (one, zero) = (|_: f64, _: f64| 1.0, |_: f64, _: f64| 0.0);
    let (left, right) = (|y: f64| exact(0.0, y), |y: f64| exact(1.0, y));
    let (bottom, top) = (|x: f64| exact(x, 0.0), |x: f64| exact(x, 1.0));
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
    let t = Instant::now();
    let (a, rhs) = problem.assemble(DEFAULT_MEMORY_LIMIT).unwrap();
    let t_assemble = t.elapsed();
    let t = Instant::now();
    let f = a.factor().unwrap();
    let t_factor = t.elapsed();
    let t = Instant::now();
    let x = f.solve(&rhs).unwrap();
    let t_solve = t.elapsed();
    println!("n = {n}: assemble {t_assemble:.3?}, factor ({}) {t_factor:.3?}, solve {t_solve:.3?}; u(centre) = {}", f.kind(), x[n * n / 2 + n / 2]);
}
