//! What the neural methods share: how points reach a network, training a copy of θ0, and
//! minimizing a network-valued function over the unit cube.

use crate::acquisition::trust_region::Domain;
use crate::acquisition::{maximize_batch, BatchScore, Search};
use crate::strategies::Observed;
use candle_core::{Device, Result, Tensor};
use pinnbo_ad::train::{train_toward, Observations, TrainConfig, TrainReport};
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
        values: Tensor::from_vec(y, n, &Device::Cpu)?.to_dtype(dtype)?,
    };
    let report = train_toward(&net, anchor_at, Some(&data), &[], config)?;
    Ok((net, report))
}

/// Leads a saved network's weights, with the count that follows as a u64.
const SAVED_NETWORK: &[u8] = b"pinnbo network f64\n";

/// `net`'s weights as bytes: [`SAVED_NETWORK`], their count, then each as f64 (exact for
/// f32 networks too), little-endian.
pub(crate) fn network_bytes(net: &Mlp) -> Result<Vec<u8>> {
    let weights = net.flat_weights::<f64>()?;
    let mut bytes = Vec::with_capacity(SAVED_NETWORK.len() + 8 * (weights.len() + 1));
    bytes.extend_from_slice(SAVED_NETWORK);
    bytes.extend_from_slice(&(weights.len() as u64).to_le_bytes());
    for w in weights {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    Ok(bytes)
}

/// A copy of `shape` holding the weights of [`network_bytes`]' output.
pub(crate) fn network_from_bytes(shape: &Mlp, bytes: &[u8]) -> std::result::Result<Mlp, String> {
    let body = bytes
        .strip_prefix(SAVED_NETWORK)
        .ok_or("not a saved network")?;
    let (count, weights) = body
        .split_at_checked(8)
        .ok_or("a truncated saved network")?;
    let count = u64::from_le_bytes(count.try_into().expect("eight bytes"));
    let p = shape.parameter_count();
    if count != p as u64 || weights.len() != 8 * p {
        return Err(format!(
            "a saved network of {count} weights ({} bytes) for one of {p}",
            weights.len()
        ));
    }
    let flat: Vec<f64> = weights
        .chunks_exact(8)
        .map(|w| f64::from_le_bytes(w.try_into().expect("eight bytes")))
        .collect();
    let net = shape
        .to_dtype(candle_core::DType::F64)
        .map_err(|e| e.to_string())?;
    net.set_flat_weights(&flat).map_err(|e| e.to_string())?;
    Ok(net)
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
