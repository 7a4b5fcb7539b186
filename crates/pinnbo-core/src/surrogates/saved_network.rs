//! A network's weights as bytes, for the state a warm-started method saves with the journal.

use candle_core::Result;
use pinnbo_ad::Mlp;

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
