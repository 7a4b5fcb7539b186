//! One NeuralBO training step (2 ReLU layers of 500, 10 inputs, a batch of 50, Adam with the
//! anchor), through candle's autograd, through the hand-written backward pass (and where its
//! time goes), and as `train` runs it on the CPU (flat buffers):
//! `cargo run --release -p pinnbo-ad --example train_step [f32]`.

use candle_core::{DType, Device, Result, Tensor};
use pinnbo_ad::adam::Adam;
use pinnbo_ad::mlp::{Activation, Mlp, MlpConfig, Parameterization};
use pinnbo_ad::train::{loss, train, Observations, TrainConfig};
use std::time::Instant;

const STEPS: usize = 300;

/// Milliseconds per call of `f`, over `STEPS` calls.
fn per_call(mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    let clock = Instant::now();
    for _ in 0..STEPS {
        f()?;
    }
    Ok(clock.elapsed().as_secs_f64() * 1e3 / STEPS as f64)
}

fn main() -> Result<()> {
    let dtype = match std::env::args().nth(1).as_deref() {
        Some("f32") => DType::F32,
        _ => DType::F64,
    };
    let config = MlpConfig {
        inputs: 10,
        width: 500,
        depth: 2,
        activation: Activation::Relu,
        parameterization: Parameterization::HeZeroLast,
        bias_std: 1.0,
        dtype,
    };
    let device = Device::Cpu;
    let data = Observations {
        points: Tensor::rand(-1f64, 1., (50, 10), &device)?.to_dtype(dtype)?,
        values: Tensor::rand(-1f64, 1., 50, &device)?.to_dtype(dtype)?,
    };
    let net = Mlp::new(config, 1, &device)?;
    println!("{dtype:?}, ms per step: autograd | hand-written = forward + gradients + Adam | flat");
    let steps = TrainConfig {
        epochs: STEPS,
        lr: 1e-4,
        anchor: 0.1,
        patience: usize::MAX,
        ..TrainConfig::default()
    };
    for _ in 0..3 {
        let mut adam = Adam::new(net.vars(), 1e-4, 0.1)?;
        let autograd = per_call(|| adam.backward_step(&loss(&net, Some(&data), &[])?).map(drop))?;
        let mut adam = Adam::new(net.vars(), 1e-4, 0.1)?;
        let manual = per_call(|| {
            let (_, grads) = net.misfit_gradients(&data.points, &data.values)?;
            adam.step(&grads).map(drop)
        })?;
        let forward = per_call(|| net.forward(&data.points).map(drop))?;
        let gradients = per_call(|| net.misfit_gradients(&data.points, &data.values).map(drop))?;
        let (_, grads) = net.misfit_gradients(&data.points, &data.values)?;
        let update = per_call(|| adam.step(&grads).map(drop))?;
        let clock = Instant::now();
        train(&net, Some(&data), &[], &steps)?;
        let flat = clock.elapsed().as_secs_f64() * 1e3 / STEPS as f64;
        println!(
            "{autograd:6.2} | {manual:6.2} = {forward:.2} + {:.2} + {update:.2} | {flat:.2}",
            gradients - forward
        );
    }
    Ok(())
}
