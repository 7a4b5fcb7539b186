//! Times one beam solve at N = 10^6 (for profiling: `perf record` on this example).
use pinnbo_fdm::beam::{Beam, BeamCondition::*};
use pinnbo_fdm::Axis;
fn main() {
    let compliance = |x: f64| 1.0 / (1.0 + x * x);
    let load = |x: f64| x.exp();
    let beam = Beam {
        axis: Axis::new(0.0, 1.0, 1_000_000).unwrap(),
        compliance: &compliance,
        load: &load,
        left: [Deflection(0.0), Moment(0.0)],
        right: [Deflection(0.0), Moment(0.0)],
    };
    let start = std::time::Instant::now();
    let s = beam.solve().unwrap();
    println!("{:?} {}", start.elapsed(), s.deflection.values[500_000]);
}
