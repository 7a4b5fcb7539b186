//! Held-out error of NeuralBO's network against its training length.
//! cargo run --release -p pinnbo-core --example fit_quality -- T STEPS.. [f32|f64]
use candle_core::{DType, Device, Tensor};
use pinnbo_core::neural_surrogate::{NeuralSurrogate, SurrogateConfig};
use pinnbo_core::space::Standardizer;
use rand::{Rng, SeedableRng};
use std::time::Instant;

fn ackley(x: &[f64]) -> f64 {
    let d = x.len() as f64;
    let s: f64 = x.iter().map(|v| v * v).sum::<f64>() / d;
    let c: f64 = x
        .iter()
        .map(|v| (2.0 * std::f64::consts::PI * v).cos())
        .sum::<f64>()
        / d;
    -20.0 * (-0.2 * s.sqrt()).exp() - c.exp() + 20.0 + std::f64::consts::E
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let t: usize = args[0].parse().unwrap();
    let dtype = if args.iter().any(|a| a == "f32") {
        DType::F32
    } else {
        DType::F64
    };
    let steps: Vec<usize> = args[1..].iter().filter_map(|a| a.parse().ok()).collect();
    let d = 10;
    let smooth = args.iter().any(|a| a == "smooth");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut sample = |n: usize| -> (Vec<f64>, Vec<f64>) {
        let x: Vec<f64> = (0..n * d)
            .map(|_| rng.random::<f64>() * 2.0 - 1.0)
            .collect();
        let y = x
            .chunks(d)
            .map(|r| {
                if smooth {
                    r.iter().map(|v| v * v + 0.5 * (3.0 * v).sin()).sum()
                } else {
                    ackley(&r.iter().map(|v| v * 32.768).collect::<Vec<_>>())
                }
            })
            .collect();
        (x, y)
    };
    let (x, y) = sample(t);
    let (xt, yt) = sample(4000);
    let st = Standardizer::fit(&y);
    let ys: Vec<f64> = y.iter().map(|v| st.forward(*v)).collect();
    let yts: Vec<f64> = yt.iter().map(|v| st.forward(*v)).collect();
    let observed = Tensor::from_vec(x.clone(), (t, d), &Device::Cpu).unwrap();
    for &s in &steps {
        let config = SurrogateConfig {
            width: 500,
            dtype,
            epochs: 1,
            min_steps: s,
            ..Default::default()
        };
        let surrogate = NeuralSurrogate::new(config, d, 0).unwrap();
        let clock = Instant::now();
        let post = surrogate.fit(&observed, ys.clone(), 11).unwrap();
        let secs = clock.elapsed().as_secs_f64();
        let rmse = |px: &[f64], py: &[f64]| {
            let m = post.mean(px);
            (m.iter().zip(py).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / py.len() as f64).sqrt()
        };
        println!(
            "t={t} steps={s}: train rmse {:.4} test rmse {:.4} loss {:.4} ({secs:.2} s)",
            rmse(&x, &ys),
            rmse(&xt, &yts),
            post.report.final_loss
        );
    }
}
