//! Multiply-accumulates per second of candle's CPU matrix product at the shapes the neural
//! methods spend their time in: the hardware floor the per-step costs are judged against.
//!
//! cargo run --release -p pinnbo-ad --example matmul_rate
//!
//! Shapes: a 4096-candidate chunk through a 500 x 500 layer (acquisition), and a 50-point
//! batch through it (training); f64 and f32. Set RAYON_NUM_THREADS to fix the thread count.

use candle_core::{DType, Device, Tensor};
use std::time::Instant;

fn rate(rows: usize, inner: usize, cols: usize, dtype: DType) -> candle_core::Result<f64> {
    let dev = Device::Cpu;
    let a = Tensor::randn(0f64, 1.0, (rows, inner), &dev)?.to_dtype(dtype)?;
    let b = Tensor::randn(0f64, 1.0, (inner, cols), &dev)?.to_dtype(dtype)?;
    a.matmul(&b)?; // warm-up: thread pools, page faults
    let (mut reps, clock) = (0usize, Instant::now());
    while clock.elapsed().as_secs_f64() < 1.0 {
        a.matmul(&b)?;
        reps += 1;
    }
    let macs = (rows * inner * cols * reps) as f64;
    Ok(macs / clock.elapsed().as_secs_f64() / 1e9)
}

fn main() -> candle_core::Result<()> {
    for dtype in [DType::F64, DType::F32] {
        for (rows, inner, cols) in [(4096, 500, 500), (50, 500, 500), (500, 50, 500)] {
            let gmacs = rate(rows, inner, cols, dtype)?;
            println!("{dtype:?} [{rows} x {inner}] x [{inner} x {cols}]: {gmacs:.1} GMAC/s");
        }
    }
    Ok(())
}
