//! Input derivatives by nested reverse mode: the baseline the jets are measured against and
//! an independent oracle for them in tests.
//!
//! candle detaches gradients unless the process runs with `CANDLE_GRAD_DO_NOT_DETACH=1`
//! (read once per thread); only then is a gradient itself differentiable. Each derivative
//! order is one more `backward()` through the whole graph built so far, which is why this
//! path is slow for fourth-order terms.

use candle_core::{Result, Tensor, Var};

/// The environment variable candle reads (once per thread) to keep gradients differentiable.
pub const ENABLE: &str = "CANDLE_GRAD_DO_NOT_DETACH";

/// Whether this process asked candle to keep gradient graphs.
pub fn enabled() -> bool {
    std::env::var(ENABLE).is_ok_and(|s| !s.is_empty() && s != "0")
}

/// `∂f/∂x_coord` at every point, for `f` of shape `[N, 1]` computed row by row from `x`
/// (`[N, d]`): the gradient of `Σ f` separates by point. Differentiable again only when
/// [`enabled`].
pub fn partial(f: &Tensor, x: &Var, coord: usize) -> Result<Tensor> {
    if !enabled() {
        candle_core::bail!("nested reverse mode needs {ENABLE}=1 in the environment");
    }
    let grads = f.sum_all()?.backward()?;
    match grads.get(x.as_tensor()) {
        Some(g) => g.narrow(1, coord, 1),
        // f does not depend on x at all.
        None => f.zeros_like(),
    }
}

/// `∂^alpha f` by repeated [`partial`], one coordinate of the multi-index at a time.
pub fn derivative(f: &Tensor, x: &Var, alpha: &[usize]) -> Result<Tensor> {
    alpha
        .iter()
        .try_fold(f.clone(), |acc, &coord| partial(&acc, x, coord))
}
