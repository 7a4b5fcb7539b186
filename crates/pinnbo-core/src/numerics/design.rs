//! Initial designs in the unit cube, seeded: Sobol (Owen-scrambled), Latin hypercube, or
//! uniform random.

use pinnbo_ad::sampling::{in_box, Sampling};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use pinnbo_dsl::ir::Design;

/// `n` points in `[0, 1]^d`.
pub fn points(design: Design, n: usize, d: usize, seed: u64) -> Vec<Vec<f64>> {
    let unit = vec![(0.0, 1.0); d];
    let flat = match design {
        Design::Sobol => in_box(&unit, n, Sampling::Sobol, seed),
        Design::Random => in_box(&unit, n, Sampling::Uniform, seed),
        Design::Lhs => latin_hypercube(n, d, seed),
    };
    flat.chunks(d.max(1)).map(<[f64]>::to_vec).collect()
}

/// The first `n` points of the design of `m` points that hold `admits`, for the smallest
/// `m = n, 2n, 4n, ..` (at most `most`) that has that many: the design kept to a feasible set
/// (the same points every time). Fewer than `n` when even `most` points have too few.
pub fn admitted_points(
    design: Design,
    n: usize,
    d: usize,
    seed: u64,
    most: usize,
    admits: impl Fn(&[f64]) -> bool,
) -> Vec<Vec<f64>> {
    let mut m = n.max(1);
    loop {
        let kept: Vec<Vec<f64>> = (points(design, m, d, seed).into_iter())
            .filter(|p| admits(p))
            .take(n)
            .collect();
        if kept.len() == n || m >= most {
            return kept;
        }
        m = (2 * m).min(most.max(n));
    }
}

/// One point in each of n equal slices of every axis, slices paired at random, jittered
/// inside their slice.
fn latin_hypercube(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![0.0; n * d];
    for axis in 0..d {
        let mut slots: Vec<usize> = (0..n).collect();
        slots.shuffle(&mut rng);
        for (row, slot) in slots.into_iter().enumerate() {
            out[row * d + axis] = (slot as f64 + rng.random::<f64>()) / n as f64;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_hypercube_fills_every_slice_once() {
        let pts = points(Design::Lhs, 16, 3, 4);
        for axis in 0..3 {
            let mut slices: Vec<usize> = pts.iter().map(|p| (p[axis] * 16.0) as usize).collect();
            slices.sort_unstable();
            assert_eq!(slices, (0..16).collect::<Vec<_>>());
        }
        assert_eq!(pts, points(Design::Lhs, 16, 3, 4));
    }
}
