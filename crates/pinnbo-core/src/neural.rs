//! What the neural methods share: how points reach a network, training a copy of θ0, and
//! minimizing a network-valued function over the unit cube.

use crate::acquisition::{maximize_batch, BatchScore, Search};
use crate::strategy::Observed;
use crate::trust_region::Domain;
use candle_core::{Device, Result, Tensor};
use pinnbo_ad::train::{train, Observations, TrainConfig, TrainReport};
use pinnbo_ad::Mlp;
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;

/// Inputs as the networks see them: the unit cube mapped to [-1, 1].
pub(crate) fn centred(u: &[f64]) -> Vec<f64> {
    u.iter().map(|v| 2.0 * v - 1.0).collect()
}

/// Unit-cube points (rows) as a centred `[n, d]` tensor.
pub(crate) fn points_tensor(rows: &[Vec<f64>], d: usize) -> Result<Tensor> {
    let flat: Vec<f64> = rows.iter().flat_map(|r| centred(r)).collect();
    Tensor::from_vec(flat, (rows.len(), d), &Device::Cpu)
}

/// The observed points of `history` as a centred `[t, d]` tensor.
pub(crate) fn history_points(history: &[Observed], d: usize) -> Result<Tensor> {
    flat_tensor(&history_units(history), d)
}

/// The observed points of `history`, unit-cube rows of a flat `[t, d]` slice.
pub(crate) fn history_units(history: &[Observed]) -> Vec<f64> {
    history
        .iter()
        .flat_map(|o| o.unit.iter().copied())
        .collect()
}

/// Unit-cube points (a flat `[n, d]` slice) as a centred tensor.
pub(crate) fn flat_tensor(flat: &[f64], d: usize) -> Result<Tensor> {
    Tensor::from_vec(centred(flat), (flat.len() / d, d), &Device::Cpu)
}

/// A tensor's values as one f64 vector.
pub(crate) fn column(t: Result<Tensor>) -> Result<Vec<f64>> {
    t?.flatten_all()?
        .to_dtype(candle_core::DType::F64)?
        .to_vec1()
}

/// `net` (a network the caller owns, such as a copy of θ0) trained on `(x, y)`.
pub(crate) fn fit(
    net: Mlp,
    x: &Tensor,
    y: Vec<f64>,
    config: &TrainConfig,
) -> Result<(Mlp, TrainReport)> {
    let (n, dtype) = (y.len(), net.config().dtype);
    let data = Observations {
        points: x.to_dtype(dtype)?,
        values: Tensor::from_vec(y, n, &Device::Cpu)?.to_dtype(dtype)?,
    };
    let report = train(&net, Some(&data), &[], config)?;
    Ok((net, report))
}

/// A network-valued function of a flat `[n, d]` slice of unit-cube points.
pub(crate) type PointsFn<'a> = dyn Fn(&[f64]) -> Result<Vec<f64>> + Sync + 'a;

/// The point of `domain` where `f` is smallest, and the value: Sobol candidates, then
/// gradient refinement. `screen`, a cheaper approximation of `f` (single precision), ranks
/// the candidates; the best few are then scored and refined with `f`.
pub(crate) fn minimize(
    f: &PointsFn,
    screen: Option<&PointsFn>,
    domain: &Domain,
    search: Search,
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<f64>, f64)> {
    let d = domain.d;
    // The acquisition search takes infallible scores: the first error is kept (its batch
    // scored NaN, the worst) and returned after the search.
    let error = Mutex::new(None);
    let negated = |g: &PointsFn, flat: &[f64]| -> Vec<f64> {
        match g(flat) {
            Ok(v) => v.into_iter().map(|s| -s).collect(),
            Err(e) => {
                error
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(e);
                vec![f64::NAN; flat.len() / d]
            }
        }
    };
    let score = |flat: &[f64]| negated(f, flat);
    let screened = screen.map(|s| move |flat: &[f64]| negated(s, flat));
    let screen_ref = screened.as_ref().map(|s| s as &BatchScore);
    let (unit, score) = maximize_batch(&score, screen_ref, domain, search, rng);
    match error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok((unit, -score)),
    }
}
