//! Collocation points: in the box of a field's variables and on its faces, Sobol (Owen-scrambled,
//! seeded) or uniform.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    Sobol,
    Uniform,
}

/// `count` points in the box `[lo_i, hi_i]`, row-major `[count, d]`, from `seed`.
pub fn in_box(bounds: &[(f64, f64)], count: usize, how: Sampling, seed: u64) -> Vec<f64> {
    let d = bounds.len();
    let mut out = Vec::with_capacity(count * d);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Sobol scrambles come from a 32-bit seed; fold the 64-bit one.
    let scramble = (seed ^ (seed >> 32)) as u32;
    for k in 0..count {
        for (i, &(lo, hi)) in bounds.iter().enumerate() {
            let u = match how {
                Sampling::Sobol if i < sobol_burley::NUM_DIMENSIONS as usize => {
                    f64::from(sobol_burley::sample(k as u32, i as u32, scramble))
                }
                _ => rng.random::<f64>(),
            };
            out.push(lo + u * (hi - lo));
        }
    }
    out
}

/// `count` points on the face where coordinate `fixed` equals `value`: the other coordinates
/// sampled in their ranges. A face of a 1-D box is a single point.
pub fn on_face(
    bounds: &[(f64, f64)],
    fixed: usize,
    value: f64,
    count: usize,
    how: Sampling,
    seed: u64,
) -> Vec<f64> {
    if bounds.len() == 1 {
        return vec![value];
    }
    let mut out = in_box(bounds, count, how, seed);
    for row in out.chunks_mut(bounds.len()) {
        row[fixed] = value;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_fill_the_box_and_repeat_with_the_seed() {
        let bounds = [(0.0, 2.0), (-1.0, 1.0)];
        for how in [Sampling::Sobol, Sampling::Uniform] {
            let a = in_box(&bounds, 64, how, 5);
            assert_eq!(a, in_box(&bounds, 64, how, 5));
            assert_ne!(a, in_box(&bounds, 64, how, 6));
            for p in a.chunks(2) {
                assert!((0.0..2.0).contains(&p[0]) && (-1.0..1.0).contains(&p[1]));
            }
            // Every quarter of the box gets points.
            let quarters = a
                .chunks(2)
                .map(|p| usize::from(p[0] > 1.0) * 2 + usize::from(p[1] > 0.0))
                .fold([0; 4], |mut c, q| {
                    c[q] += 1;
                    c
                });
            assert!(quarters.iter().all(|&c| c >= 8), "{how:?}: {quarters:?}");
        }
        let face = on_face(&bounds, 0, 2.0, 10, Sampling::Sobol, 1);
        assert!(face.chunks(2).all(|p| p[0] == 2.0));
    }
}
