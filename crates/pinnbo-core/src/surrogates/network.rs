//! What the neural methods share: how points reach a network, and training a copy of θ0.

use crate::history::Observed;
use candle_core::{Device, Result, Tensor};
use pinnbo_ad::train::{train_toward, Observations, TrainConfig, TrainReport};
use pinnbo_ad::Mlp;

/// Inputs as the networks see them: the unit cube mapped to [-1, 1].
pub(crate) fn centred(u: &[f64]) -> Vec<f64> {
    u.iter().map(|v| 2.0 * v - 1.0).collect()
}

/// Unit-cube points (rows) as a centred `[n, d]` tensor on `device`.
pub(crate) fn points_tensor(rows: &[Vec<f64>], d: usize, device: &Device) -> Result<Tensor> {
    let flat: Vec<f64> = rows.iter().flat_map(|r| centred(r)).collect();
    Tensor::from_vec(flat, (rows.len(), d), device)
}

/// The observed points of `history` as a centred `[t, d]` tensor on `device`.
pub(crate) fn history_points(history: &[Observed], d: usize, device: &Device) -> Result<Tensor> {
    flat_tensor(&history_units(history), d, device)
}

/// The observed points of `history`, unit-cube rows of a flat `[t, d]` slice.
pub(crate) fn history_units(history: &[Observed]) -> Vec<f64> {
    history
        .iter()
        .flat_map(|o| o.unit.iter().copied())
        .collect()
}

/// Unit-cube points (a flat `[n, d]` slice) as a centred tensor on `device`.
pub(crate) fn flat_tensor(flat: &[f64], d: usize, device: &Device) -> Result<Tensor> {
    Tensor::from_vec(centred(flat), (flat.len() / d, d), device)
}

/// A tensor's values as one f64 vector.
pub(crate) fn column(t: Result<Tensor>) -> Result<Vec<f64>> {
    t?.flatten_all()?
        .to_dtype(candle_core::DType::F64)?
        .to_vec1()
}

/// `net` (a network the caller owns, such as a copy of θ0) trained on `(x, y)`, its
/// anchor pulling toward `anchor_at` (None: toward `net`'s own starting weights).
pub(crate) fn fit(
    net: Mlp,
    anchor_at: Option<&Mlp>,
    x: &Tensor,
    y: Vec<f64>,
    config: &TrainConfig,
) -> Result<(Mlp, TrainReport)> {
    let (n, dtype) = (y.len(), net.config().dtype);
    let data = Observations {
        points: x.to_dtype(dtype)?,
        values: Tensor::from_vec(y, n, x.device())?.to_dtype(dtype)?,
    };
    let report = train_toward(&net, anchor_at, Some(&data), &[], config)?;
    Ok((net, report))
}
