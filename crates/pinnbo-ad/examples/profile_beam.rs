//! Repeats the beam residual's forward + backward (for `perf record`).
use candle_core::{Device, Tensor};
use pinnbo_ad::{Mlp, MlpConfig, Residual};
fn main() {
    let text = "var x in [0, 1]\nfield w(x)\npde dxx((1 + x^2)*dxx(w)) = exp(x)\nminimize w\noracle command \"./m {x}\"";
    let p = pinnbo_dsl::compile(&pinnbo_dsl::Source::new("b.pde", text))
        .unwrap()
        .problem;
    let config = MlpConfig::new(1, 64, 3);
    let net = Mlp::new(config, 1, &Device::Cpu).unwrap();
    let xs: Vec<f64> = (0..1000).map(|i| i as f64 / 1000.0).collect();
    let points = Tensor::from_vec(xs, (1000, 1), &Device::Cpu).unwrap();
    let r = Residual::new(&p, &p.pdes[0], 0).unwrap();
    let start = std::time::Instant::now();
    for _ in 0..20 {
        let loss = r
            .evaluate(&net, &points)
            .unwrap()
            .sqr()
            .unwrap()
            .mean_all()
            .unwrap();
        loss.backward().unwrap();
    }
    println!("{:?} per step", start.elapsed() / 20);
}
