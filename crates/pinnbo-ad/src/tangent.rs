//! Tangent features and their Gram blocks (docs/algorithms.md §1, §4): φ(x) = ∇_θ h(x; θ) and
//! ω(z) = ∇_θ N[h](z; θ), and K_uu = ΦΦᵀ, K_ur = ΦΩᵀ, K_rr = ΩΩᵀ.
//!
//! Fast path, without p-vectors: a layer computes `pre = s W input + b` on every jet
//! coefficient α, so a scalar output r has `∂r/∂W = s Σ_α δ^α (input^α)ᵀ` and `∂r/∂b = δ^∅`,
//! with `δ^α = ∂r/∂pre^α` from one backward pass over the batch (points are independent). Then
//!
//! ```text
//! <∇r(x), ∇r'(y)> = Σ_layers [ s² Σ_{α,β} (δ^α(x)·δ'^β(y)) (input^α(x)·input'^β(y)) + δ^∅(x)·δ'^∅(y) ]
//! ```
//!
//! costs O(N N' K K' width) per layer instead of O(N N' p). The brute-force path (one
//! backward per point, explicit p-vectors) exists for tests and for tiny networks.

use crate::mlp::{LayerTrace, Mlp};
use crate::multi::IndexSet;
use crate::residual::Residual;
use candle_core::{Result, Tensor};
use std::sync::Arc;

/// Per layer: the backpropagated signals `[K, N, out]`, the inputs `[K, N, in]`, the scale.
#[derive(Clone)]
pub struct Factors {
    layers: Vec<(Tensor, Tensor, f64)>,
}

impl Factors {
    fn from_traces(output: &Tensor, traces: Vec<LayerTrace>) -> Result<Factors> {
        let grads = output.sum_all()?.backward()?;
        let layers = traces
            .into_iter()
            .map(|t| {
                let delta = match grads.get(t.probe.as_tensor()) {
                    Some(g) => g.clone(),
                    None => t.probe.as_tensor().zeros_like()?,
                };
                Ok((delta, t.input, t.scale))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Factors { layers })
    }

    /// Of the network's value h at `points` (the features φ).
    pub fn of_values(net: &Mlp, points: &Tensor) -> Result<Factors> {
        let set = Arc::new(IndexSet::value_only());
        let (jet, traces) = net.forward_jet_traced(points, &set, true)?;
        Factors::from_traces(&jet.value()?, traces)
    }

    /// Of a residual N[h] at `points` (the features ω).
    pub fn of_residual(net: &Mlp, residual: &Residual, points: &Tensor) -> Result<Factors> {
        let (r, traces) = residual.evaluate_traced(net, points, true)?;
        Factors::from_traces(&r, traces)
    }
}

/// The Gram block `[N, N']` of two feature sets of the same network.
pub fn gram(x: &Factors, y: &Factors) -> Result<Tensor> {
    let mut total: Option<Tensor> = None;
    for ((dx, ax, s), (dy, ay, _)) in x.layers.iter().zip(&y.layers) {
        let (kx, ky) = (dx.dim(0)?, dy.dim(0)?);
        // Bias: δ^∅ · δ'^∅.
        let mut block = dx.get(0)?.matmul(&dy.get(0)?.t()?)?;
        for a in 0..kx {
            let (da, aa) = (dx.get(a)?, ax.get(a)?);
            for b in 0..ky {
                let signal = da.matmul(&dy.get(b)?.t()?)?;
                let input = aa.matmul(&ay.get(b)?.t()?)?;
                block = (block + ((signal * input)? * (s * s))?)?;
            }
        }
        total = Some(match total {
            None => block,
            Some(t) => (t + block)?,
        });
    }
    total.ok_or_else(|| candle_core::Error::Msg("a network without layers".into()))
}

/// The diagonal of `gram(x, x)`, `[N]`: each point's `<∇r(x), ∇r(x)>`, without the N x N
/// block.
pub fn gram_diagonal(x: &Factors) -> Result<Tensor> {
    let mut total: Option<Tensor> = None;
    for (dx, ax, s) in &x.layers {
        let k = dx.dim(0)?;
        let mut diag = dx.get(0)?.sqr()?.sum(1)?;
        for a in 0..k {
            for b in 0..k {
                let signal = (dx.get(a)? * dx.get(b)?)?.sum(1)?;
                let input = (ax.get(a)? * ax.get(b)?)?.sum(1)?;
                diag = (diag + ((signal * input)? * (s * s))?)?;
            }
        }
        total = Some(match total {
            None => diag,
            Some(t) => (t + diag)?,
        });
    }
    total.ok_or_else(|| candle_core::Error::Msg("a network without layers".into()))
}

/// Brute force: the rows ∇_θ r_i for each output r_i of `outputs` (a closure producing the
/// `[N]` outputs at the current weights), `[N, p]`.
pub fn jacobian(net: &Mlp, outputs: impl Fn() -> Result<Tensor>) -> Result<Tensor> {
    let n = outputs()?.dim(0)?;
    let vars = net.vars();
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let grads = outputs()?.get(i)?.backward()?;
        let parts = vars
            .iter()
            .map(|v| match grads.get(v.as_tensor()) {
                Some(g) => g.flatten_all(),
                None => v.as_tensor().zeros_like()?.flatten_all(),
            })
            .collect::<Result<Vec<_>>>()?;
        rows.push(Tensor::cat(&parts, 0)?);
    }
    Tensor::stack(&rows, 0)
}
