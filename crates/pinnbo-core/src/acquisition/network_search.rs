//! Minimizing a network-valued function over the unit cube: the candidate search of
//! [`super::search`] with a cheaper screen, for the neural methods.

use crate::acquisition::domain::Domain;
use crate::acquisition::{maximize_batch, BatchScore, Search};
use candle_core::Result;
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;

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
